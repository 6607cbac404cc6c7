"""One conformance suite every game passes (style.md: pgx's shared API test).

For each game and each preset: bot playouts replay to `finished` with zero-sum deltas equal to the
net of the items and to the logged `settled`; every logged action was among `legal_actions`; the
reducer never mutates its input; `view` is JSON; replay and simulation are deterministic; events
round-trip through JSON; a corrupted log is refused with the contract's code.
"""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

from engine.registry import GameNotAvailable, get_game
from engine.replay import replay, replay_with_steps
from engine.sim.simulate import simulate_match
from events.codec import event_to_json, parse_event, parse_line
from events.notation import GAME_IDS
from tests.settlement_checks import assert_items_net_to_deltas

MATCHES = 12


def _cases() -> list[Any]:
    out = []
    for g in GAME_IDS:
        try:
            presets = list(get_game(g).presets)
        except GameNotAvailable as e:
            out.append(pytest.param(g, "standard", marks=pytest.mark.skip(reason=str(e)), id=f"{g}-standard"))
            continue
        out.extend(pytest.param(g, p, id=f"{g}-{p}") for p in presets)
    return out


CASES = _cases()


def _norm(payload: dict[str, Any]) -> str:
    d = {k: v for k, v in payload.items() if k not in ("match_id", "seq", "ts", "hash")}
    for k in ("cards", "tiles", "as"):
        if isinstance(d.get(k), list):
            d[k] = sorted(d[k])
    return json.dumps(d, sort_keys=True)


@pytest.mark.parametrize(("game_id", "preset"), CASES)
def test_bot_playouts_replay_finished_zero_sum(game_id: str, preset: str) -> None:
    game = get_game(game_id)
    for i in range(MATCHES):
        events = simulate_match(game_id, {"preset": preset}, seed=7, index=i)
        result = replay(events)
        assert result.status == "finished", (result.match_id, result.error)
        assert result.error is None
        assert_items_net_to_deltas(result)
        assert result.settlement_matches is True
        assert result.chain_ok is True
        assert all(0 <= w < len(result.deltas) for w in result.winners)
        assert game.is_finished(replay_with_steps(events)[0][-2].state)


@pytest.mark.parametrize(("game_id", "preset"), CASES)
def test_logged_actions_are_legal_and_reducer_is_pure(game_id: str, preset: str) -> None:
    game = get_game(game_id)
    for i in range(3):
        events = simulate_match(game_id, {"preset": preset}, seed=11, index=i)
        steps, result = replay_with_steps(events)
        assert result.status == "finished"
        by_seq = {st.seq: st for st in steps}
        for ev in events[2:-1]:
            before = by_seq[ev.seq - 1].state
            frozen = pickle.dumps(before)
            legal = {_norm(a) for a in game.legal_actions(before)}
            assert _norm(ev.to_dict()) in legal, f"{ev.match_id} seq {ev.seq}: logged {ev.type} not in legal_actions"
            game.apply(before, ev)
            assert pickle.dumps(before) == frozen, f"apply mutated its input state at seq {ev.seq}"
            view = game.view(by_seq[ev.seq].state)
            json.dumps(view)
            assert {"phase", "turn", "hands"} <= set(view)


@pytest.mark.parametrize(("game_id", "preset"), CASES)
def test_determinism_and_round_trip(game_id: str, preset: str) -> None:
    a = simulate_match(game_id, {"preset": preset}, seed=3, index=5)
    b = simulate_match(game_id, {"preset": preset}, seed=3, index=5)
    lines = [event_to_json(e) for e in a]
    assert lines == [event_to_json(e) for e in b]
    again = [parse_line(x.encode()) for x in lines]
    assert again == a
    assert replay(a).to_json() == replay(again).to_json()


def _corrupt(events: list[Any], index: int, **changes: Any) -> list[Any]:
    out = list(events)
    d = out[index].to_dict()
    d.pop("hash", None)
    d.update(changes)
    out[index] = parse_event(d)
    return [parse_event({k: v for k, v in e.to_dict().items() if k != "hash"}) for e in out]


@pytest.mark.parametrize(("game_id", "preset"), CASES)
def test_corrupted_logs_are_refused_with_their_code(game_id: str, preset: str) -> None:
    events = simulate_match(game_id, {"preset": preset}, seed=5, index=0)
    plain = [parse_event({k: v for k, v in e.to_dict().items() if k != "hash"}) for e in events]
    n = len(events)
    # a missing event
    r = replay(plain[:3] + plain[4:])
    assert (r.status, r.error["code"], r.error["seq"]) == ("invalid", "seq_gap", 4)
    # an action after the end
    extra = parse_event({"match_id": plain[0].match_id, "seq": n - 1, "type": "forfeit", "seat": 0})
    settled = parse_event({**plain[-1].to_dict(), "seq": n})
    r = replay([*plain[:-1], extra, settled])
    assert (r.status, r.error["code"], r.error["seq"]) == ("invalid", "after_end", n - 1)
    # a different event at a stored seq
    other = {"match_id": plain[2].match_id, "seq": 2, "type": "forfeit", "seat": 0, "reason": "conformance"}
    r = replay([*plain, parse_event(other)])  # quarantined; the first event received stands (events.md §5)
    assert (r.status, [(e.code, e.seq) for e in r.refused]) == ("finished", [("conflict", 2)])
    # an edited event under a hash chain
    tampered = list(events)
    d = tampered[1].to_dict()
    d["hands"] = [list(reversed(h)) for h in d["hands"]]
    tampered[1] = parse_event(d)
    r = replay(tampered)
    assert (r.status, r.error["code"], r.error["seq"], r.chain_ok) == ("invalid", "bad_hash", 1, False)
    # no match_started
    r = replay(plain[1:])
    assert r.status == "invalid" and r.error["code"] in ("not_started", "seq_gap")
    # an unknown rule option
    r = replay(_corrupt(plain, 0, rules={"preset": preset, "no_such_option": 1}))
    assert (r.status, r.error["code"], r.error["seq"]) == ("invalid", "bad_rules", 0)
    # an impossible deal: the first two cards/tiles of seat 0 made equal
    d = plain[1].to_dict()
    hand = d["hands"][0]
    if len(hand) >= 2:
        hand[1] = hand[0] if game_id in ("ddz", "ddz_laizi", "paodekuai", "zhajinhua") else _bad_tile(hand, d)
        r = replay([plain[0], parse_event(d), *plain[2:]])
        assert (r.status, r.error["code"], r.error["seq"]) == ("invalid", "bad_deal", 1)


def _bad_tile(hand: list[str], dealt: dict[str, Any]) -> str:
    """A tile kind that now appears five times in the deal."""
    every = [t for h in dealt["hands"] for t in h] + list(dealt.get("wall") or [])
    others = sorted(set(every) - {hand[1]})  # sorted: the choice must not depend on hash order
    return max(others, key=every.count)
