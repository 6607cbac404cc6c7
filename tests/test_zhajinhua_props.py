"""Zha Jin Hua properties: bot playouts through the simulator always finish and replay to a zero-sum
settlement; `legal_actions` agrees exactly with the reducer; the reducer is pure; views are JSON."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.replay import replay, steps
from engine.sim.simulate import simulate_match
from engine.zhajinhua.game import ZHAJINHUA, State
from events.models import EVENT_TYPES
from tests.settlement_checks import assert_items_net_to_deltas

RULE_SETS: list[dict[str, Any]] = [
    {},
    {"mode": "gold"},
    {"mode": "gold", "compare_min_round": 1, "allin_threshold": 50, "special_rewards": "any_holder"},
    {"max_rounds": 3, "suit_tiebreak": True},
    {"max_rounds": 0, "look_min_round": 3, "compare_min_round": 4},
    {"special_235": True, "a23": "second", "reward_basis": "ante_sum", "compare_cost_factor": 2},
    {"turn_seconds": 0, "cap_level": 2, "blind_levels": [1, 3], "seen_levels": [3, 6]},
]

rules_st = st.sampled_from(RULE_SETS)


@settings(max_examples=60, deadline=None)
@given(rules=rules_st, seed=st.integers(0, 10**6), players=st.integers(2, 6))
def test_bot_playouts_finish_zero_sum_and_replay(rules: dict[str, Any], seed: int, players: int) -> None:
    events = simulate_match("zhajinhua", rules, seed, 0, players=players)
    r = replay(events)
    assert r.status == "finished", r.error
    assert r.settlement_matches is True and r.chain_ok is True
    assert sum(r.deltas or []) == 0
    assert r.winners
    # items are transfers between distinct seats and net to the deltas
    assert_items_net_to_deltas(r, min_points=1)
    stacks = events[1].stacks
    if rules.get("mode") == "gold":
        assert stacks is not None
        assert all(s + d >= 0 for s, d in zip(stacks, r.deltas or [], strict=True))  # nobody pays more than they had
    else:
        assert stacks is None


def test_simulator_default_five_players() -> None:
    for i in range(20):
        events = simulate_match("zhajinhua", {"mode": "gold"} if i % 2 else None, 7, i)
        assert len(events[0].players) == ZHAJINHUA.sim_players == 5
        assert replay(events).status == "finished"


def _candidates(state: State) -> list[dict[str, Any]]:
    """Every event shape that could be tried now: all seats, all targets, every table amount."""
    r = state.rules
    amounts = sorted({x * state.base for x in [*r.blind_levels, *r.seen_levels]} | {0, 3 * state.base, 7})
    out: list[dict[str, Any]] = []
    for s in range(state.n):
        out += [{"type": t, "seat": s} for t in ("look", "fold", "open", "allin", "timeout", "forfeit")]
        out += [{"type": "bet", "seat": s, "amount": a} for a in amounts]
        out += [{"type": "compare", "seat": s, "target": t} for t in range(state.n)]
    return out


def _event(payload: dict[str, Any], seq: int) -> Any:
    fields = {k: v for k, v in payload.items() if k != "type"}
    return EVENT_TYPES[payload["type"]](match_id="p", seq=seq, **fields)


@settings(max_examples=25, deadline=None)
@given(rules=rules_st, seed=st.integers(0, 10**6), players=st.integers(2, 6))
def test_legal_actions_agree_with_the_reducer_and_apply_is_pure(rules: dict[str, Any], seed: int, players: int) -> None:
    events = simulate_match("zhajinhua", rules, seed, 0, players=players, chain=False)
    states = [s.state for s in steps(events[:-1])][1:]  # after dealt, …
    rng = random.Random(seed)
    for state in rng.sample(states, min(4, len(states))):
        if ZHAJINHUA.is_finished(state):
            continue
        legal = ZHAJINHUA.legal_actions(state)
        key = {json.dumps(x, sort_keys=True) for x in legal}
        before = copy.deepcopy(state)
        for cand in _candidates(state):
            ok = True
            try:
                new = ZHAJINHUA.apply(state, _event(cand, 99))
            except Exception as e:  # the refusal must be the engine's Illegal
                assert getattr(e, "code", None) in {"wrong_phase", "not_your_turn", "illegal_bet"}, e
                assert "ZJH-" in str(e)
                ok = False
            assert ok == (json.dumps(cand, sort_keys=True) in key), (cand, ok, ZHAJINHUA.view(state))
            if ok:
                json.dumps(ZHAJINHUA.view(new))
                assert sum(new.contrib) >= sum(state.contrib)
        assert state == before  # apply never mutated its input
        v = ZHAJINHUA.view(state)
        json.dumps(v)
        assert v["turn"] == state.actor and len(v["hands"]) == state.n and v["pot"] == sum(state.contrib)


def test_deal_is_seeded_and_complete() -> None:
    rules = ZHAJINHUA.parse_rules({"mode": "gold"})
    a = ZHAJINHUA.deal(rules, 6, random.Random(3))
    b = ZHAJINHUA.deal(rules, 6, random.Random(3))
    assert a == b
    cards = [c for h in a["hands"] for c in h]
    assert len(cards) == 18 and len(set(cards)) == 18
    assert len(a["stacks"]) == 6 and min(a["stacks"]) >= 1
    assert "stacks" not in ZHAJINHUA.deal(ZHAJINHUA.parse_rules({}), 3, random.Random(3))
