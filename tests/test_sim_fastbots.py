"""The bots' shortcuts (issue 22) against the engine's own definitions, on every state of simulated
matches: the Zha Jin Hua bot's `own_actions` is exactly the actor's entries of the engine's
`legal_actions` (its look, its turn actions; not its timeout or forfeit), in the same order, and
those turn actions are exactly what the engine's handlers accept (brute force)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.registry import get_game
from engine.sim.simulate import simulate_match
from engine.zhajinhua.bot import own_actions


def _states(game_id: str, rules: dict[str, Any], players: int | None, matches: int) -> list[Any]:
    game = get_game(game_id)
    out = []
    for i in range(matches):
        events = simulate_match(game_id, rules, 3, i, players=players, chain=False)
        state = game.start(events[0], events[1], game.parse_rules(rules))
        for ev in events[2:-1]:
            out.append(state)
            state = game.apply(state, ev)
    return out


@pytest.mark.parametrize(
    ("rules", "players"),
    [({}, None), ({}, 2), ({"mode": "gold", "look_min_round": 2}, 4), ({"turn_seconds": 0, "compare_min_round": 3}, 6)],
)
def test_zhajinhua_own_actions_are_the_actors_legal_actions(rules: dict[str, Any], players: int | None) -> None:
    game = get_game("zhajinhua")
    seen = 0
    for state in _states("zhajinhua", rules, players, 60):
        a = state.actor
        if a is None or game.is_finished(state):
            continue
        want = [x for x in game.legal_actions(state) if x.get("seat") == a and x["type"] not in ("timeout", "forfeit")]
        assert own_actions(state, a) == want
        seen += 1
    assert seen > 200


@pytest.mark.parametrize(
    ("rules", "players"),
    [({}, None), ({"mode": "gold", "look_min_round": 2}, 4), ({"turn_seconds": 0, "compare_min_round": 3}, 6)],
)
def test_zhajinhua_turn_actions_are_what_apply_accepts(rules: dict[str, Any], players: int | None) -> None:
    """The actor's listed turn actions against the engine's handlers (ZJH-R6…R15), by brute force:
    every bet amount near a listed one, a compare with every other seat, open, allin, fold is
    tried through `apply`; those it accepts are exactly those `legal_actions` lists. (`own_actions`
    and `legal_actions` share `_turn_options` since issue 22; this is what keeps it honest.)"""
    from engine.errors import Illegal
    from engine.sim.simulate import _event

    game = get_game("zhajinhua")
    states = _states("zhajinhua", rules, players, 25)
    listed_amounts = {x["amount"] for st in states if st.actor is not None and not game.is_finished(st)
                      for x in game.legal_actions(st) if x["type"] == "bet"}  # fmt: skip
    amounts = sorted({a + d for a in listed_amounts for d in (-1, 0, 1) if a + d >= 0})
    tried = 0
    for st in states:
        a = st.actor
        if a is None or game.is_finished(st):
            continue
        want = [x for x in game.legal_actions(st) if x.get("seat") == a and x["type"] not in ("look", "timeout", "forfeit")]
        cands = [{"type": "bet", "seat": a, "amount": x} for x in amounts]
        cands += [{"type": "compare", "seat": a, "target": t} for t in range(len(st.active)) if t != a]
        cands += [{"type": t, "seat": a} for t in ("open", "allin", "fold")]
        accepted = []
        for c in cands:
            try:
                game.apply(st, _event("m", 2, 0, c))
            except Illegal:
                continue
            accepted.append(c)
        key = lambda x: (x["type"], x.get("amount", -1), x.get("target", -1))  # noqa: E731
        assert sorted(accepted, key=key) == sorted(want, key=key)
        tried += len(cands)
    assert tried > 2000


# ---------------------------------------------------------------- Dou Dizhu: following


def _follow_reference(game: Any, st: Any, seat: int, counts: Any, m: int, size: int, mr: Any) -> Any:
    """The bot's follow rule by its definition (main at 7dde44b): every candidate counted."""
    from engine.climbing.bot import Reading, generate, laizi_moves, n_groups

    top_seat = st.top_seat
    L = st.landlord
    partner_on_top = seat != L and top_seat != L
    if partner_on_top and size not in (sum(st.top.counts), 4, 2):
        return None
    if game.laizi_game:
        cands = laizi_moves(counts, m, -1 if st.laizi is None else st.laizi, mr, st.top)
    else:
        cands = [Reading(mv, ()) for mv in generate(counts, mr, st.top)]
    if not cands:
        return None
    for rd in cands:
        if sum(rd.move.counts) == size:
            return rd
    if partner_on_top:
        return None
    before = n_groups(counts)
    opp_cards = st.hands[top_seat].bit_count()
    best = None
    for rd in cands:
        mv = rd.move
        rest = [a - b for a, b in zip(counts, mv.counts, strict=True)]
        used_laizi = len(rd.as_)
        for r in rd.as_:
            rest[r] += 1
        if min(rest) < 0:
            continue
        after = n_groups(rest) + (1 if m - used_laizi > 0 else 0)
        bomb = mv.level > 0
        if bomb and not (after <= 1 or opp_cards <= 4):
            continue
        if not bomb and after > before and opp_cards > 5 and used_laizi == 0:
            continue
        if not bomb and used_laizi and opp_cards > 8 and after >= before:
            continue
        key = (bomb, mv.level, used_laizi, after, mv.key)
        if best is None or key < best[0]:
            best = (key, rd)
    return None if best is None else best[1]


@pytest.mark.parametrize(("game_id", "rules"), [("ddz", {}), ("ddz", {"kicker_rocket": True}), ("ddz_laizi", {})])
def test_ddz_follow_is_its_definition(game_id: str, rules: dict[str, Any]) -> None:
    from engine.climbing.bot import _follow, _mask_counts

    game = get_game(game_id)
    seen = 0
    for st in _states(game_id, rules, None, 80):
        if st.phase != "play" or st.top is None:
            continue
        seat = st.turn
        counts, m = _mask_counts(st.hands[seat], -1 if st.laizi is None else st.laizi)
        mr = st.mr or game.move_rules(st.rules)
        args = (game, st, seat, counts, m, sum(counts) + m, mr)
        assert _follow(*args) == _follow_reference(*args)
        seen += 1



def _laizi_moves_reference(N: Any, m: int, lr: int, mr: Any, top: Any) -> Any:
    """`laizi_moves` by its definition (main at 7dde44b), for m ≥ 1."""
    from engine.climbing.laizi import _BOMB_GEN_TOP, Reading, _relabel, beats, generate

    gen_top = _BOMB_GEN_TOP if top is not None and top.level else top
    out = []
    for mv in generate(N, mr, gen_top, wild=m):
        E = mv.counts
        S: list[int] = []
        n_plain = 0
        for r, (e, have) in enumerate(zip(E, N, strict=True)):
            if e > have:
                S.extend([r] * (e - have))
                n_plain += have
            else:
                n_plain += e
        if len(S) > m or max(E) > 4:
            continue
        if n_plain == 0 and any(r != lr for r in S):
            continue
        mv2 = _relabel(mv, n_plain, len(S))
        if top is None or beats(mv2, top):
            out.append(Reading(mv2, tuple(S)))
    return out


def test_laizi_moves_is_its_definition() -> None:
    from engine.climbing.bot import _mask_counts
    from engine.climbing.laizi import laizi_moves

    game = get_game("ddz_laizi")
    seen = 0
    for st in _states("ddz_laizi", {}, None, 12):
        if st.phase != "play" or st.laizi is None:
            continue
        for seat in range(3):  # every seat's hand, against the trick's top and as a lead
            counts, m = _mask_counts(st.hands[seat], st.laizi)
            if not m:
                continue
            mr = st.mr or game.move_rules(st.rules)
            for top in {st.top, None}:
                assert laizi_moves(counts, m, st.laizi, mr, top) == _laizi_moves_reference(counts, m, st.laizi, mr, top)
                seen += 1

    assert seen > 100
