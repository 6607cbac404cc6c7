"""Zha Jin Hua's fast paths (issue 22) against the plain definitions they replace, on every state of
simulated matches under several rule sets and player counts:

- `apply`'s short paths (look; room_card bet and fold) give the general path's State (same fields,
  same field order) or, for anything they leave to it, the same answer, refusals included;
- `_turn_actions` (built from `_turn_options`) is the list the engine built before (reference copy
  of main at 79ba163 below); `_pot_items` and `_action_order` likewise;
- `parse_hand`'s shortcut and `_seats_of` equal their plain definitions.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

import pytest

from engine.cards import CARD_ID, CARD_NAME
from engine.errors import Illegal
from engine.sim.simulate import _event, simulate_match
from engine.zhajinhua import game as zg
from engine.zhajinhua.hands import parse_hand

G = zg.ZHAJINHUA
CASES: list[tuple[dict[str, Any], int | None]] = [
    ({}, None),
    ({}, 2),
    ({"max_rounds": 3}, 6),
    ({"mode": "gold", "look_min_round": 2}, 4),
    ({"turn_seconds": 0, "compare_min_round": 3, "seen_levels": [2, 2, 10, 20]}, 3),
    ({"mode": "gold", "allin_threshold": 1000, "compare_min_round": 1}, 2),
]


def _states(rules: dict[str, Any], players: int | None, matches: int = 25) -> list[zg.State]:
    out = []
    parsed = G.parse_rules(rules)
    for i in range(matches):
        events = simulate_match("zhajinhua", rules, 8, i, players=players, chain=False)
        state = G.start(events[0], events[1], parsed)
        for ev in events[2:-1]:
            out.append(state)
            state = G.apply(state, ev)
        out.append(state)
    return out


def _outcome(f: Any) -> Any:
    try:
        st = f()
    except Illegal as e:
        return ("illegal", e.code, e.message)
    except Exception as e:
        return ("error", type(e), str(e))
    return ("state", list(st.__dict__), [(type(v), v) for v in st.__dict__.values()])


@pytest.mark.parametrize(("rules", "players"), CASES, ids=str)
def test_short_paths_are_the_general_path(rules: dict[str, Any], players: int | None) -> None:
    fast = 0
    for st in _states(rules, players):
        payloads = G.legal_actions(st) if not st.finished else []
        for seat in range(st.n + 1):
            payloads += [{"type": "look", "seat": seat}, {"type": "fold", "seat": seat}]
            payloads += [{"type": "bet", "seat": seat, "amount": x} for x in (0, 1, 2, 3, 4, 5, 10, 20)]
        for p in payloads:
            if p["seat"] > 5:
                continue
            ev = _event("sim-zhajinhua-8-000001", 40, 1, p)
            got = _outcome(lambda st=st, ev=ev: G.apply(st, ev))
            assert got == _outcome(lambda st=st, ev=ev: zg._apply_plain(st, ev)), (p, st)
            fast += zg._FAST[p["type"]](st, ev) is not None if p["type"] in zg._FAST and not st.finished else 0
    assert fast > 100


def _turn_actions_reference(state: zg.State, a: int) -> list[dict[str, Any]]:
    """engine/zhajinhua/game.py `_turn_actions` at 79ba163."""
    r = state.rules
    stack = state.stacks[a] if state.stacks is not None else None
    out: list[dict[str, Any]] = []
    if state.allin is not None:
        if stack is None or stack >= state.allin[1]:
            out.append({"type": "allin", "seat": a})
        out.append({"type": "fold", "seat": a})
        return out
    table = r.seen_levels if state.seen[a] else r.blind_levels
    for amt in dict.fromkeys(table[j - 1] * state.base for j in range(state.level, r.cap_level + 1)):
        if stack is None or amt <= stack:
            out.append({"type": "bet", "seat": a, "amount": amt})
    act = [s for s in range(state.n) if state.active[s]]
    if state.round >= r.compare_min_round:
        cost = r.compare_cost_factor * state.call(a)
        if stack is None or cost <= stack:
            out.extend({"type": "compare", "seat": a, "target": t} for t in act if t != a)
            if len(act) == 2:
                out.append({"type": "open", "seat": a})
        if stack is not None and len(act) == 2:
            other = act[0] if act[1] == a else act[1]
            if min(stack, state.stacks[other]) < r.allin_threshold * state.base:  # type: ignore[index]
                out.append({"type": "allin", "seat": a})
    out.append({"type": "fold", "seat": a})
    return out


def _pot_items_reference(state: zg.State, winners: list[int], share: dict[int, int]) -> list[dict[str, Any]]:
    """engine/zhajinhua/game.py `_pot_items` at 79ba163."""
    from engine.base import item

    kinds = ("ante", "bet", "compare_cost", "open_cost", "allin")
    chunks: dict[tuple[int, str], tuple[int, list[int]]] = {}
    for seat, kind, amount, seq in state.chips:
        amt, seqs = chunks.get((seat, kind), (0, []))
        chunks[(seat, kind)] = (amt + amount, [*seqs, seq])
    need = dict(share)
    supply: list[tuple[int, str, int, list[int]]] = []
    for seat in sorted(range(state.n), key=state.pos):
        for kind in kinds:
            if (seat, kind) not in chunks:
                continue
            amt, seqs = chunks[(seat, kind)]
            if seat in need:
                own = min(amt, need[seat])
                need[seat] -= own
                amt -= own
            if amt:
                supply.append((seat, kind, amt, seqs))
    items: list[dict[str, Any]] = []
    for seat, kind, amt, seqs in supply:
        for w in winners:
            if amt == 0:
                break
            take = min(amt, need[w])
            if take:
                need[w] -= take
                amt -= take
                items.append(item(kind, w, seat, take, seqs=seqs))
    return items


@pytest.mark.parametrize(("rules", "players"), CASES, ids=str)
def test_turn_actions_pot_items_and_order_are_the_references(rules: dict[str, Any], players: int | None) -> None:
    checked = 0
    for st in _states(rules, players):
        assert zg._action_order(st) == sorted(range(st.n), key=st.pos)
        for a in range(st.n):
            if st.active[a]:
                assert zg._turn_actions(st, a) == _turn_actions_reference(st, a)
                checked += 1
        ranked = sorted(range(st.n), key=st.pos)
        for winners in ([ranked[0]], [ranked[-1]], ranked[:2], ranked):
            pot = sum(st.contrib)
            q, extra = divmod(pot, len(winners))
            share = {w: q + (1 if i < extra else 0) for i, w in enumerate(winners)}
            assert zg._pot_items(st, winners, share) == _pot_items_reference(st, winners, share)
    assert checked > 200


def test_parse_hand_shortcut_is_the_plain_parse() -> None:
    def plain(cards: Any) -> Any:
        try:
            if len(cards) != 3:
                raise ValueError(f"a Zha Jin Hua hand has 3 cards, got {len(cards)}")
            ids = []
            for c in cards:
                i = CARD_ID.get(c)
                if i is None or i >= 52:
                    raise ValueError(f"{c!r} is not a card of the 52-card deck (Zha Jin Hua has no jokers)")
                ids.append(i)
            if len(set(ids)) != 3:
                raise ValueError(f"the cards {' '.join(cards)} are not all different")
            return tuple(sorted(ids))
        except ValueError as e:
            return ("error", str(e))

    def fast(cards: Any) -> Any:
        try:
            return parse_hand(cards)
        except ValueError as e:
            return ("error", str(e))

    names = [CARD_NAME[i] for i in (0, 1, 13, 51)] + ["BJ", "RJ", "Xx", "as"]
    for k in (0, 1, 2, 3, 4):
        for combo in permutations(names + names[:2], k):
            assert fast(list(combo)) == plain(list(combo))
            assert fast(tuple(combo)) == plain(tuple(combo))


def test_seats_of_is_the_comprehension() -> None:
    from itertools import product

    for n in range(2, 7):
        for flags in product((False, True), repeat=n):
            assert zg._seats_of(flags, n) == [s for s in range(n) if flags[s]]
            assert zg._seats_of(list(flags), n) == [s for s in range(n) if flags[s]]
        assert zg._seats_of((True,) * (n + 1), n) == list(range(n))
        assert zg._seats_of((1, 0, 1, 0, 1, 1)[:n], n) == [s for s in range(n) if (1, 0, 1, 0, 1, 1)[s]]


@pytest.mark.parametrize("a23", ["lowest", "second"])
@pytest.mark.parametrize("suit_tiebreak", [False, True])
def test_strength_is_the_bisection(a23: str, suit_tiebreak: bool) -> None:
    import bisect
    from dataclasses import replace

    from engine.zhajinhua.bot import _sorted_keys, strength
    from engine.zhajinhua.hands import all_hands, evaluate

    st = _states({"a23": a23, "suit_tiebreak": suit_tiebreak}, 2, 1)[0]
    keys = _sorted_keys(a23 == "second", suit_tiebreak)
    for h in all_hands()[::7]:
        want = bisect.bisect_left(keys, evaluate(h, a23 == "second", suit_tiebreak)) / len(keys)
        assert strength(replace(st, hands=(h, st.hands[1])), 0) == want


def test_shuffle_is_random_shuffle() -> None:
    import random

    for seed in range(300):
        for size in (0, 1, 2, 3, 17, 52):
            a, b = list(range(size)), list(range(size))
            r1, r2 = random.Random(seed), random.Random(seed)
            r1.shuffle(a)
            zg._shuffle(b, r2)
            assert a == b and r1.getstate() == r2.getstate()
