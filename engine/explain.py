"""Why the server's settlement differs from the rules' settlement, in plain sentences.

One function (`explain_settlement`) for every place that shows a disputed charge: `paiju replay`,
the evidence report (`paiju dispute`) and the dashboard's Replay page, so that they always say
the same thing (issue 16). It reads only a `ReplayResult`, hence its place in the engine layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from engine.replay import ReplayResult


@dataclass
class Difference:
    seat: int
    recomputed: int
    recorded: int

    @property
    def diff(self) -> int:
        return self.recorded - self.recomputed


def explain_settlement(result: ReplayResult, server_deltas: Sequence[int] | None = None) -> list[str]:
    """The server's `settled` beside the rules' settlement, in plain sentences: what the Replay page
    and the evidence report both show (one function, so they always say the same thing).

    `server_deltas`: the `settled` event's deltas as logged, where replay stopped before it.
    When they differ, the causes a simple check can find: an item left out or counted twice, a
    common multiplier, swapped seats, a non-zero-sum charge.
    """
    server = result.recorded_deltas if result.recorded_deltas is not None else server_deltas
    if result.deltas is None:
        if server is None:
            return []
        why = (
            f"replay stops at seq {result.error['seq']} ({result.error['code']})"
            if result.error else f"the match is {result.status}"
        )  # fmt: skip
        out = [f"The rules owe no settlement ({why}), yet the server charged {fmt_deltas(server)}."]
        if sum(server) != 0:
            out.append(f"The server's deltas are not zero-sum: they add up to {sum(server):+d} points.")
        return out
    if server is None:
        return ["The log holds no settled event: there is no server charge to compare with."]
    if list(server) == list(result.deltas):
        return ["The server's settlement equals the rules' settlement."]
    diffs = [Difference(s, c, r) for s, (c, r) in enumerate(zip(result.deltas, server, strict=False))]
    return _explain(result, list(server), diffs)


def _explain(result: ReplayResult, rec: list[int], diffs: list[Difference]) -> list[str]:
    """Plain-language causes of the gap between the server's deltas and the rules' deltas."""
    calc = result.deltas or []
    gap = [d.diff for d in diffs]
    out: list[str] = []
    if sum(rec) != 0:
        out.append(f"The server's deltas are not zero-sum: they add up to {sum(rec):+d} points.")
    if sorted(rec) == sorted(calc) and rec != calc:
        out.append("The server's amounts are the rules' amounts given to the wrong seats (seats swapped).")
    nz = [(r, c) for r, c in zip(rec, calc, strict=False) if c != 0 or r != 0]
    if nz and all(c != 0 for _, c in nz):
        ratios = {Fraction(r, c) for r, c in nz}
        if len(ratios) == 1:
            (k,) = ratios
            if k not in (0, 1):
                out.append(
                    f"Every server amount is the rules' amount × {k}: a multiplier was applied wrongly (factor {k})."
                )
    items = result.items
    n = len(calc)
    nets = []
    for it in items:
        v = [0] * n
        v[it["seat"]] += it["points"]
        v[it["from"]] -= it["points"]
        nets.append(v)
    found = False
    for size in (1, 2):
        if found or len(items) > 40:
            break
        for combo in combinations(range(len(items)), size):
            tot = [sum(nets[i][s] for i in combo) for s in range(n)]
            names = ", ".join(
                f"#{i + 1} {items[i]['kind']} ({items[i]['points']} to seat {items[i]['seat']} from seat {items[i]['from']})"
                for i in combo
            )
            if tot == [-g for g in gap]:
                out.append(
                    f"The difference is exactly settlement line{'s' if size > 1 else ''} {names}: the server left {'them' if size > 1 else 'it'} out."
                )
                found = True
            elif tot == gap:
                out.append(
                    f"The difference is exactly settlement line{'s' if size > 1 else ''} {names}: the server counted {'them' if size > 1 else 'it'} twice."
                )
                found = True
            if found:
                break
    moved = _moved_between_two(result, gap)
    if moved:
        out.append(moved)
    if not out or (moved and len(out) == 1):
        out.append("No single settlement line, multiplier or seat swap explains the difference; compare the settlement lines one by one.")
    return out


def fmt_deltas(deltas: Sequence[int]) -> str:
    """`[-12, +6, +6]`: deltas as the report and the page print them."""
    return "[" + ", ".join(f"{d:+d}" for d in deltas) + "]"


def _seat(result: ReplayResult, seat: int) -> str:
    players = result.players or []
    return f"seat {seat} ({players[seat]})" if seat < len(players) and players[seat] else f"seat {seat}"


def _moved_between_two(result: ReplayResult, gap: list[int]) -> str | None:
    """When exactly two seats differ, by opposite amounts: who paid the other how much beyond the rules."""
    off = [(s, g) for s, g in enumerate(gap) if g != 0]
    if len(off) != 2 or off[0][1] != -off[1][1]:
        return None
    (payer, g), (payee, _) = off if off[0][1] < 0 else off[::-1]
    return (
        f"Only {_seat(result, payer)} and {_seat(result, payee)} differ: the server moved {abs(g)} points more "
        f"from {_seat(result, payer)} to {_seat(result, payee)} than the rules owe."
    )
