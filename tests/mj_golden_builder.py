"""Builds the golden logs of the hongzhong / anshun worked examples (run: python -m tests.mj_golden_builder).

A spec fixes what the example states (some hands, the drawn tiles, the bird / flip tiles at the
wall head after the last draw, the events); every other tile is a *filler*, taken from the rest of
the deck by a seeded shuffle. `?` in an event = a filler: a filler draw, or the discard of a tile
that came from the filler (the last one drawn first).

The fillers are chosen by a rule the builder checks itself, without the engine (`filler_problems`,
with its own win test written from HZ-H1/H2 and AS-H1): no seat can win with or claim a filler —
no filler draw and no unscripted draw lets the drawer win, no filler discard can be won, peng'ed or
kong'ed by another seat, no dealt hand wins at once or holds four 红中 that the spec did not give it —
and no filler moves money: Anshun fillers hold no chicken tile (1s or a 摇摆 tile of the flip, AS-S7)
and a seat holding fillers is not ready (叫牌) when the hand ends in 荒庄 (AS-S8). `make` takes the
first seed whose log obeys the rule; the engine is only asked afterwards, by the tests, which
replay the log against the example's hand-computed deltas.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from engine.registry import get_game
from engine.tiles import tile_id, tile_names

GOLDEN = Path(__file__).parent / "data" / "golden"


def cycle(start: int, n: int, skip: dict[int, list[tuple[Any, ...]]] | None = None) -> list[tuple[Any, ...]]:
    """n rounds of (draw seat ?, discard seat ?) from seat `start`."""
    out = []
    for i in range(n):
        seat = (start + i) % 4
        out += [("draw", seat, "?"), ("discard", seat, "?")]
    return out


def build(spec: dict[str, Any], seed: int) -> list[dict[str, Any]] | None:
    game = get_game(spec["game"])
    rng = random.Random(seed)
    deck = Counter(game.deck())
    dealer = spec["dealer"]
    fixed = {int(k): [tile_id(t) for t in v] for k, v in spec.get("hands", {}).items()}
    events = spec["events"]
    drawn = [tile_id(e[2]) for e in events if e[0] == "draw" and e[2] != "?"]
    after = [tile_id(t) for t in spec.get("after", [])]
    pool = deck.copy()
    for t in [t for h in fixed.values() for t in h] + drawn + after:
        pool[t] -= 1
        if pool[t] < 0:
            raise ValueError(f"{spec['name']}: too many copies of {t}")
    avoid = {tile_id(t) for t in spec.get("avoid", [])}
    free = [t for t, n in pool.items() for _ in range(n) if t not in avoid]
    held_back = [t for t, n in pool.items() for _ in range(n) if t in avoid]
    rng.shuffle(free)
    hands: list[list[int]] = []
    for seat in range(4):
        want = 14 if seat == dealer else 13
        h = list(fixed.get(seat, []))
        while len(h) < want:
            h.append(free.pop())
        hands.append(h)
    avoid_draw = {int(k): {tile_id(t) for t in v} for k, v in spec.get("avoid_draw", {}).items()}
    head: list[int] = []
    for e in events:
        if e[0] != "draw":
            continue
        if e[2] != "?":
            head.append(tile_id(e[2]))
            continue
        bad = avoid_draw.get(e[1], set())
        i = next((i for i in range(len(free) - 1, -1, -1) if free[i] not in bad), None)
        if i is None:
            return None
        head.append(free.pop(i))
    rest = free + held_back  # avoided tiles stay at the far end of the wall
    wall = head + after + rest
    filler = [Counter(h) - Counter(fixed.get(s, [])) for s, h in enumerate(hands)]
    log: list[dict[str, Any]] = [
        {"type": "match_started", "game": spec["game"], "rules": spec.get("rules", {}), "players": ["a", "b", "c", "d"], "dealer": dealer, "base": spec.get("base", 1)},
        {"type": "dealt", "hands": [tile_names(sorted(h)) for h in hands], "wall": tile_names(wall)},
    ]
    last_filler: dict[int, int | None] = {s: None for s in range(4)}
    pos = 0
    for e in events:
        kind, seat = e[0], e[1]
        if kind == "draw":
            t = head[pos]
            pos += 1
            if e[2] == "?":
                filler[seat][t] += 1
                last_filler[seat] = t
            log.append({"type": "draw", "seat": seat, "tile": tile_names([t])[0]})
        elif kind == "discard" and e[2] == "?":
            t = last_filler[seat]
            if t is None or filler[seat][t] <= 0:
                cands = sorted(filler[seat].elements())
                if not cands:
                    return None
                t = rng.choice(cands)
            filler[seat][t] -= 1
            last_filler[seat] = None
            log.append({"type": "discard", "seat": seat, "tile": tile_names([t])[0]})
        else:
            log.append(scripted(e))
    return log


def scripted(e: tuple[Any, ...]) -> dict[str, Any]:
    """The event of a spec step the example states (not a filler)."""
    ev: dict[str, Any] = {"type": e[0], "seat": e[1]}
    if e[0] != "ting":
        ev["tile"] = e[2]
    if e[0] == "gang":
        ev["kind"] = e[3]
    return ev


def to_lines(name: str, log: list[dict[str, Any]], deltas: list[int] | None) -> list[str]:
    out = []
    full = [*log, {"type": "settled", "deltas": deltas}] if deltas is not None else log
    for seq, ev in enumerate(full):
        out.append(json.dumps({"match_id": name, "seq": seq, **ev}, ensure_ascii=False, separators=(",", ":")))
    return out


# ---------------------------------------------------------------- the filler rule, checked without the engine

N_KINDS, RED = 28, 27  # 1m..9m 1p..9p 1s..9s, then 7z (notation.md)
YAO_JI = 18  # 1s


def _sets(k: list[int], w: int, s: int, pair: bool) -> bool:
    """HZ-H2's reference procedure can(K, w, s, need_pair): `k` natural counts, `w` wilds, `s` sets
    and (if `pair`) one pair still to make; without wilds it is HZ-H1 / AS-H1's standard shape."""
    x = next((i for i in range(N_KINDS) if k[i]), None)
    if x is None:
        return True  # |K| + w = 3s + 2·pair throughout: the wilds fill what is left
    if s >= 1:
        u = min(k[x], 3)
        if 3 - u <= w:
            k[x] -= u
            ok = _sets(k, w - (3 - u), s - 1, pair)
            k[x] += u
            if ok:
                return True
    if pair:
        u = min(k[x], 2)
        if 2 - u <= w:
            k[x] -= u
            ok = _sets(k, w - (2 - u), s, False)
            k[x] += u
            if ok:
                return True
    if s >= 1 and x < RED:
        base, n = x - x % 9, x % 9
        for lo in (n - 2, n - 1, n):
            if lo < 0 or lo + 2 > 8:
                continue
            members = [base + lo + i for i in range(3)]
            nat = [m for m in members if k[m]]
            if 3 - len(nat) > w:
                continue
            for m in nat:
                k[m] -= 1
            ok = _sets(k, w - (3 - len(nat)), s - 1, pair)
            for m in nat:
                k[m] += 1
            if ok:
                return True
    return False


def wins(game: str, rules: dict[str, Any], counts: list[int], melds: int) -> bool:
    """Do the concealed `counts` (the winning tile included) with `melds` melds win? HZ-H1..H3 (红中
    wild unless `hongzhong_wild` is off, seven pairs with `qi_dui`) and AS-H1 (standard or seven pairs)."""
    if sum(counts) + 3 * melds != 14:
        return False
    k = list(counts)
    w = 0
    seven = game == "anshun" or bool(rules.get("qi_dui"))
    if game == "hongzhong" and rules.get("hongzhong_wild", True):
        w, k[RED] = k[RED], 0
    if _sets(k, w, 4 - melds, True):
        return True
    return seven and melds == 0 and sum(1 for c in k if c % 2) <= w


def ready(game: str, rules: dict[str, Any], counts: list[int], melds: int) -> bool:
    """AS-H4: some tile completes a winning hand (13 tiles, melds as 3)."""
    kinds = N_KINDS if game == "hongzhong" else RED
    return any(wins(game, rules, [c + (i == t) for i, c in enumerate(counts)], melds) for t in range(kinds))


def chicken_tiles(spec: dict[str, Any]) -> set[int]:
    """AS-S7: 1s and the 摇摆 set of the flip (the first `after` tile) under `yaobai_ji_mode`."""
    out = {YAO_JI}
    after = spec.get("after") or []
    if after:
        f = tile_id(after[0])
        base, n = f - f % 9, f % 9
        mode = spec.get("rules", {}).get("yaobai_ji_mode", "adjacent")
        steps = {"adjacent": (-1, 1), "next_two": (1, 2), "next_one": (1,)}[mode]
        out |= {base + (n + d) % 9 for d in steps}
    return out


def filler_problems(spec: dict[str, Any], log: list[dict[str, Any]]) -> list[str]:
    """Where the log's fillers break the rule of the module docstring (empty: the log obeys it)."""
    game, rules = spec["game"], spec.get("rules", {})
    fixed = {int(k): Counter(tile_id(t) for t in v) for k, v in spec.get("hands", {}).items()}
    events = spec["events"]
    hands = [[0] * N_KINDS for _ in range(4)]
    for seat, h in enumerate(log[1]["hands"]):
        for t in h:
            hands[seat][tile_id(t)] += 1
    melds = [0, 0, 0, 0]
    problems: list[str] = []
    filler_tiles: list[int] = []
    for seat in range(4):
        extra = Counter({k: c for k, c in enumerate(hands[seat]) if c}) - fixed.get(seat, Counter())
        filler_tiles += list(extra.elements())
        if hands[seat][RED] == 4 and fixed.get(seat, Counter())[RED] < 4:
            problems.append(f"seat {seat} is dealt four 7z by the filler")
    dealer = spec["dealer"]
    if events and events[0][:2] != ("hu", dealer) and wins(game, rules, hands[dealer], 0):
        problems.append("the dealer's dealt hand wins at once")
    for i, (e, ev) in enumerate(zip(events, log[2:], strict=True)):
        kind, seat = e[0], e[1]
        tile = tile_id(ev["tile"]) if "tile" in ev else None
        nxt = events[i + 1] if i + 1 < len(events) else None
        if kind == "draw":
            assert tile is not None
            hands[seat][tile] += 1
            if e[2] == "?":
                filler_tiles.append(tile)
            if (nxt is None or nxt[:2] != ("hu", seat)) and wins(game, rules, hands[seat], melds[seat]):
                problems.append(f"event {i + 2}: seat {seat} could win on its draw of {ev['tile']}")
        elif kind == "discard":
            assert tile is not None
            hands[seat][tile] -= 1
            if e[2] == "?":
                for j in range(4):
                    if j == seat:
                        continue
                    if hands[j][tile] >= 2:
                        problems.append(f"event {i + 2}: seat {j} could claim the filler {ev['tile']}")
                    if wins(game, rules, [c + (k == tile) for k, c in enumerate(hands[j])], melds[j]):
                        problems.append(f"event {i + 2}: seat {j} could win on the filler {ev['tile']}")
        elif kind == "peng":
            assert tile is not None
            hands[seat][tile] -= 2
            melds[seat] += 1
        elif kind == "gang":
            assert tile is not None
            hands[seat][tile] -= {"zhi": 3, "an": 4, "bu": 1}[e[3]]
            melds[seat] += 0 if e[3] == "bu" else 1
    won = any(e[0] == "hu" for e in events)
    if game == "anshun" and won:  # AS-S7: chickens are paid only when the hand ends with a win
        bad = sorted({tile_names([t])[0] for t in filler_tiles if t in chicken_tiles(spec)})
        if bad:
            problems.append(f"filler chicken tiles {bad}")
    if game == "anshun" and not won:  # 荒庄 (AS-S8): a seat holding fillers must not be paid as ready
        for seat in range(4):
            if Counter({k: c for k, c in enumerate(hands[seat]) if c}) != fixed.get(seat, Counter()) and ready(
                game, rules, hands[seat], melds[seat]
            ):
                problems.append(f"seat {seat} is ready at 荒庄 with filler tiles")
    return problems


def _counts(tiles: list[int]) -> list[int]:
    c = [0] * N_KINDS
    for t in tiles:
        c[t] += 1
    return c


def build_by_rule(spec: dict[str, Any], seed: int) -> list[dict[str, Any]] | None:
    """Fillers placed by the rule instead of at random (for long examples where random fillers are
    nearly always claimable): tiles a fixed hand pairs or waits on are dealt into the filler hands
    first, and each filler draw takes, among the tiles that are safe now (the drawer cannot win with
    it; nobody can claim or win its discard), the one that is safe for the fewest seats; `seed`
    orders equal choices. None when some filler step has no safe tile."""
    game, rules = spec["game"], spec.get("rules", {})
    rng = random.Random(seed)
    dealer = spec["dealer"]
    fixed = {int(k): [tile_id(t) for t in v] for k, v in spec.get("hands", {}).items()}
    events = spec["events"]
    after = [tile_id(t) for t in spec.get("after", [])]
    pool = Counter(get_game(game).deck())
    pool.subtract([t for h in fixed.values() for t in h] + [tile_id(e[2]) for e in events if e[0] == "draw" and e[2] != "?"] + after)
    if any(n < 0 for n in pool.values()):
        raise ValueError(f"{spec['name']}: too many copies of a tile")
    avoid = {tile_id(t) for t in spec.get("avoid", [])}
    danger = set()
    for h in fixed.values():
        c = _counts(h)
        danger |= {t for t in range(N_KINDS) if c[t] >= 2}
        if len(h) == 13:
            danger |= {t for t in range(N_KINDS) if wins(game, rules, [x + (k == t) for k, x in enumerate(c)], 0)}
    free = [t for t, n in sorted(pool.items()) for _ in range(n) if t not in avoid]
    rng.shuffle(free)
    free.sort(key=lambda t: t not in danger)  # stable: the dangerous tiles are dealt first
    held_back = [t for t, n in sorted(pool.items()) for _ in range(n) if t in avoid]
    # a seat's discards of dealt fillers (not of a filler it just drew) need safe tiles: keep that many
    own = [sum(1 for i, e in enumerate(events) if e[:3] == ("discard", s, "?") and (i == 0 or events[i - 1][:3] != ("draw", s, "?")))
           for s in range(4)]  # fmt: skip
    hands: list[list[int]] = [list(fixed.get(seat, [])) for seat in range(4)]
    for seat in sorted(range(4), key=lambda x: x == dealer):  # the dealer (14 tiles) last
        want = 14 if seat == dealer else 13
        while len(hands[seat]) < want - own[seat]:
            if not free:
                return None
            hands[seat].append(free.pop(0))
        while len(hands[seat]) < want:
            i = next((i for i, t in enumerate(free) if t not in danger), 0 if free else None)
            if i is None:
                return None
            hands[seat].append(free.pop(i))
    rng.shuffle(free)
    H = [_counts(h) for h in hands]
    melds = [0, 0, 0, 0]
    filler = [Counter(h) - Counter(fixed.get(s, [])) for s, h in enumerate(hands)]
    avoid_draw = {int(k): {tile_id(t) for t in v} for k, v in spec.get("avoid_draw", {}).items()}

    def discard_safe(seat: int, t: int) -> bool:
        return all(H[j][t] < 2 and not wins(game, rules, [c + (k == t) for k, c in enumerate(H[j])], melds[j])
                   for j in range(4) if j != seat)  # fmt: skip

    def draw_safe(seat: int, t: int, then_hu: bool) -> bool:
        return then_hu or not wins(game, rules, [c + (k == t) for k, c in enumerate(H[seat])], melds[seat])

    log: list[dict[str, Any]] = [
        {"type": "match_started", "game": game, "rules": rules, "players": ["a", "b", "c", "d"], "dealer": dealer, "base": spec.get("base", 1)},
        {"type": "dealt", "hands": [], "wall": []},
    ]
    head: list[int] = []
    last: dict[int, int | None] = {s: None for s in range(4)}
    for i, e in enumerate(events):
        kind, seat = e[0], e[1]
        nxt = events[i + 1] if i + 1 < len(events) else None
        then_hu = nxt is not None and nxt[:2] == ("hu", seat)
        if kind == "draw":
            if e[2] != "?":
                t = tile_id(e[2])
            else:
                then_discard = nxt is not None and nxt[:3] == ("discard", seat, "?")
                kinds = [t for t in dict.fromkeys(free) if t not in avoid_draw.get(seat, set())]
                safe = [t for t in kinds if draw_safe(seat, t, then_hu) and (not then_discard or discard_safe(seat, t))]
                if not safe:
                    return None
                t = min(safe, key=lambda x: sum(draw_safe(j, x, False) and discard_safe(j, x) for j in range(4)))
                free.remove(t)
                filler[seat][t] += 1
                last[seat] = t
            H[seat][t] += 1
            head.append(t)
            log.append({"type": "draw", "seat": seat, "tile": tile_names([t])[0]})
        elif kind == "discard" and e[2] == "?":
            t0 = last[seat]
            if t0 is None or filler[seat][t0] <= 0:
                t0 = next((x for x in sorted(filler[seat].elements()) if discard_safe(seat, x)), None)
                if t0 is None:
                    return None
            filler[seat][t0] -= 1
            last[seat] = None
            H[seat][t0] -= 1
            log.append({"type": "discard", "seat": seat, "tile": tile_names([t0])[0]})
        else:
            log.append(scripted(e))
            t = tile_id(e[2]) if kind != "ting" else -1
            if kind == "discard":
                H[seat][t] -= 1
            elif kind == "peng":
                H[seat][t] -= 2
                melds[seat] += 1
            elif kind == "gang":
                H[seat][t] -= {"zhi": 3, "an": 4, "bu": 1}[e[3]]
                melds[seat] += 0 if e[3] == "bu" else 1
    log[1] = {"type": "dealt", "hands": [tile_names(sorted(h)) for h in hands], "wall": tile_names(head + after + free + held_back)}
    return log


def make(spec: dict[str, Any], tries: int = 200) -> list[str]:
    """The log of the first seed whose fillers obey the rule (checked by `filler_problems`, not by
    the engine): random fillers first (`build`), then fillers placed by the rule (`build_by_rule`)."""
    for builder in (build, build_by_rule):
        for seed in range(tries):
            log = builder(spec, seed)
            if log is None or filler_problems(spec, log):
                continue
            return to_lines(spec["name"], log, spec["deltas"])
    raise RuntimeError(f"{spec['name']}: no seed gives fillers that obey the rule")


def main() -> None:
    from tests.mj_golden_specs import SPECS

    only = sys.argv[1:]
    for spec in SPECS:
        if only and spec["name"] not in only:
            continue
        lines = make(spec)
        path = GOLDEN / f"{spec['name']}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print("wrote", path)


if __name__ == "__main__":
    main()
