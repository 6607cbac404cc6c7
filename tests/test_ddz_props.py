"""Property tests: bot playouts under random options always finish, settle zero-sum as the net of
their items, every logged action is among `legal_actions`; forfeits at any point settle zero-sum."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.climbing.ddz import DDZ
from engine.climbing.ddz_laizi import DDZ_LAIZI
from engine.registry import bot_action
from engine.replay import replay
from engine.sim.simulate import simulate_match
from events.codec import parse_event
from tests.settlement_checks import assert_items_net_to_deltas

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
    assert_items_net_to_deltas(r, min_points=1)
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
        a = bot_action(game, state, rng)
        norm = {**a, "cards": sorted(a["cards"])} if "cards" in a else a
        legal = [({**x, "cards": sorted(x["cards"])} if "cards" in x else x) for x in game.legal_actions(state)]
        assert norm in legal
        state = game.apply(state, EVENT_TYPES[a["type"]](match_id="p", seq=seq, **{k: v for k, v in a.items() if k != "type"}))
        seq += 1
        assert seq < 400
    assert sum(game.settle(state).deltas) == 0


ALL_CARDS = [r + s for r in "3456789TJQKA2" for s in "shcd"] + ["BJ", "RJ"]
mutation = st.one_of(
    st.fixed_dictionaries({"seat": st.integers(0, 2)}),
    st.fixed_dictionaries({"cards": st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=8)}),
    st.fixed_dictionaries({"as": st.lists(st.sampled_from(list("3456789TJQKA2") + ["BJ"]), max_size=4)}),
    st.fixed_dictionaries({"type": st.sampled_from(["pass", "forfeit"])}),
    st.fixed_dictionaries({"type": st.just("bid"), "value": st.integers(-1, 4)}),
    st.fixed_dictionaries({"type": st.just("rob"), "value": st.booleans()}),
    st.fixed_dictionaries({"type": st.just("laizi"), "rank": st.sampled_from(list("3456789TJQKA2") + ["BJ"])}),
    st.fixed_dictionaries({"type": st.just("play"), "cards": st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=6)}),
)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["ddz", "ddz_laizi"]), st.integers(0, 30), st.integers(0, 10**6), mutation)
def test_mutated_logs_never_crash(game: str, index: int, pick: int, change: dict[str, Any]) -> None:
    """Any single mutated event: the replay names an error code or still finishes; never a traceback."""
    from events.errors import ContractError

    events = simulate_match(game, {"rob": True} if game == "ddz" and index % 2 else {}, seed=99, index=index % 4)
    plain = [{k: v for k, v in e.to_dict().items() if k != "hash"} for e in events]
    k = 2 + pick % (len(plain) - 2)
    ev = {**plain[k], **change}
    keep = {"match_id", "seq", "type"} | {
        "bid": {"seat", "value"}, "rob": {"seat", "value"}, "laizi": {"rank"}, "play": {"seat", "cards", "as"},
        "pass": {"seat"}, "forfeit": {"seat"}, "settled": {"deltas"},
    }.get(ev["type"], set())  # fmt: skip
    ev = {a: b for a, b in ev.items() if a in keep}
    if ev["type"] in ("bid", "rob", "play", "pass", "forfeit"):
        ev.setdefault("seat", 0)
    if ev["type"] in ("bid", "rob"):
        ev.setdefault("value", True if ev["type"] == "rob" else 1)
    if ev["type"] == "laizi":
        ev.setdefault("rank", "7")
    if ev["type"] == "play":
        ev.setdefault("cards", ["3s"])
    if ev["type"] == "settled":
        ev.setdefault("deltas", [0, 0, 0])
    try:
        parsed = [parse_event(e) for e in [*plain[:k], ev, *plain[k + 1 :]]]
    except ContractError:
        return
    r = replay(parsed)
    assert r.status in ("finished", "invalid", "incomplete")
    if r.status == "invalid":
        assert r.error["code"] and r.error["seq"] is not None


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["ddz", "ddz_laizi"]), st.integers(0, 10**6), st.booleans())
def test_random_legal_actions_always_apply_and_finish(game_id: str, seed: int, rob: bool) -> None:
    """A random walk over `legal_actions` (every listed action applies; the match always ends)."""
    from events.models import EVENT_TYPES, Dealt, MatchStarted

    game = DDZ if game_id == "ddz" else DDZ_LAIZI
    rng = random.Random(seed)
    raw = {"rob": rob} if game_id == "ddz" else {}
    rules = game.parse_rules(raw)
    ms = MatchStarted(match_id="w", seq=0, game=game_id, rules=raw, players=["a", "b", "c"], dealer=rng.randrange(3), base=1)
    state = game.start(ms, Dealt(match_id="w", seq=1, **game.deal(rules, 3, rng)), rules)
    seq = 2
    while not game.is_finished(state):
        acts = game.legal_actions(state)
        assert acts
        a = acts[rng.randrange(len(acts))]
        state = game.apply(state, EVENT_TYPES[a["type"]](match_id="w", seq=seq, **{k: v for k, v in a.items() if k != "type"}))
        seq += 1
        assert seq < 500
    s = game.settle(state)
    assert sum(s.deltas) == 0
