"""Property tests: bot playouts under random options always finish, settle zero-sum as the net of
their items, every logged action is among `legal_actions`; forfeits at any point settle zero-sum."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.climbing.ddz import DDZ
from engine.climbing.ddz_laizi import DDZ_LAIZI
from engine.replay import replay
from engine.sim.simulate import simulate_match
from events.codec import parse_event

ddz_rules = st.fixed_dictionaries(
    {},
    optional={
        "rob": st.booleans(),
        "all_pass": st.sampled_from(["force_first", "redeal"]),
        "bomb_factor": st.integers(1, 10),
        "spring": st.booleans(),
        "max_multiplier": st.integers(0, 64),
        "kicker_rocket": st.booleans(),
        "four_two_solo_pair": st.booleans(),
        "forfeit_mode": st.sampled_from(["forfeiter_pays", "side_loses"]),
    },
)
laizi_rules = st.fixed_dictionaries(
    {},
    optional={
        "bomb_factor": st.integers(1, 10),
        "hard_bomb_factor": st.integers(1, 10),
        "spring": st.booleans(),
        "max_multiplier": st.integers(0, 64),
        "kicker_rocket": st.booleans(),
        "four_two_solo_pair": st.booleans(),
        "forfeit_mode": st.sampled_from(["forfeiter_pays", "side_loses"]),
    },
)


def _check(events: list[Any], settled: bool = True) -> Any:
    r = replay(events)
    assert r.status == "finished", r.error
    assert sum(r.deltas) == 0
    net = [0, 0, 0]
    for it in r.items:
        net[it["seat"]] += it["points"]
        net[it["from"]] -= it["points"]
        assert it["points"] > 0
    assert net == r.deltas
    assert r.settlement_matches is (True if settled else None)
    return r


@settings(max_examples=25, deadline=None)
@given(ddz_rules, st.integers(0, 10**6))
def test_ddz_bot_playouts_finish_zero_sum(rules: dict[str, Any], seed: int) -> None:
    events = simulate_match("ddz", rules, seed=seed, index=0)
    r = _check(events)
    if r.deltas != [0, 0, 0]:
        assert r.winners


@settings(max_examples=10, deadline=None)
@given(laizi_rules, st.integers(0, 10**6))
def test_ddz_laizi_bot_playouts_finish_zero_sum(rules: dict[str, Any], seed: int) -> None:
    _check(simulate_match("ddz_laizi", rules, seed=seed, index=0))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["ddz", "ddz_laizi"]), st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 2))
def test_forfeit_at_any_point_settles_zero_sum(game: str, seed: int, cut: int, seat: int) -> None:
    events = simulate_match(game, {"forfeit_mode": "side_loses"} if seed % 2 else {}, seed=seed, index=1)
    plain = [{k: v for k, v in e.to_dict().items() if k != "hash"} for e in events[:-1]]
    k = 2 + cut % (len(plain) - 2)
    log = [*plain[:k], {"match_id": plain[0]["match_id"], "seq": k, "type": "forfeit", "seat": seat}]
    r = _check([parse_event(e) for e in log], settled=False)
    assert r.deltas[seat] < 0


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([DDZ, DDZ_LAIZI]), st.integers(0, 10**6))
def test_bot_actions_are_legal_actions(game: Any, seed: int) -> None:
    """Driving the reducer directly: every bot action is one of `legal_actions` and applies."""
    rng = random.Random(seed)
    from events.models import EVENT_TYPES, Dealt, MatchStarted

    ms = MatchStarted(match_id="p", seq=0, game=game.id, rules={}, players=["a", "b", "c"], dealer=rng.randrange(3), base=2)
    dealt = Dealt(match_id="p", seq=1, **game.deal(game.parse_rules({}), 3, rng))
    state = game.start(ms, dealt, game.parse_rules({}))
    seq = 2
    while not game.is_finished(state):
        a = game.bot_action(state, rng)
        norm = {**a, "cards": sorted(a["cards"])} if "cards" in a else a
        legal = [({**x, "cards": sorted(x["cards"])} if "cards" in x else x) for x in game.legal_actions(state)]
        assert norm in legal
        state = game.apply(state, EVENT_TYPES[a["type"]](match_id="p", seq=seq, **{k: v for k, v in a.items() if k != "type"}))
        seq += 1
        assert seq < 400
    assert sum(game.settle(state).deltas) == 0
