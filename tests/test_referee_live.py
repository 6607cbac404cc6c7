"""`referee.live.LiveMatch`, the per-event fold (`engine.replay.Fold`), in process: against the
replay driver's full fold (`engine.replay.replay`) and the games' own `view`, over simulated
matches of every game; and the re-send rule against `engine.replay.merge_entries` (events.md §5)."""

from __future__ import annotations

import pytest

from engine.registry import get_game
from engine.replay import merge_entries, replay, replay_with_steps
from engine.sim.simulate import simulate_match
from events.codec import parse_event
from events.notation import GAME_IDS
from referee.live import LiveMatch


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_live_fold_equals_replay_and_turn_phase_equals_view(game_id: str) -> None:
    game = get_game(game_id)
    for index in range(3):
        events = simulate_match(game_id, None, seed=23, index=index)
        live = LiveMatch(events[0].match_id, "-")
        steps, _ = replay_with_steps(events)
        for ev, st in zip(events, steps, strict=True):
            out = live.offer(ev)
            assert out.accepted and not out.duplicate, (ev.seq, out.error)
            if st.state is not None:
                v = game.view(st.state)
                assert game.turn_phase(live.fold.state) == (v["turn"], v["phase"]), ev.seq  # the hook
                assert live.turn_phase() == (v["turn"], v["phase"]), ev.seq
                assert live.view() == v
        assert live.result() == replay(events).to_dict()
        # a prefix is `incomplete` with the same fold
        half = LiveMatch(events[0].match_id, "-")
        for ev in events[: len(events) // 2]:
            half.offer(ev)
        assert half.result() == replay(events[: len(events) // 2]).to_dict()


def test_a_refused_event_changes_nothing_and_a_corrected_one_goes_on() -> None:
    events = simulate_match("ddz", None, seed=2, index=1)
    live = LiveMatch(events[0].match_id, "-")
    for ev in events[:4]:
        assert live.offer(ev).accepted
    before = (live.next_seq, live.turn_phase(), live.legal())
    wrong_seat = (events[4].to_dict()["seat"] + 1) % 3
    bad = parse_event({k: v for k, v in events[4].to_dict().items() if k != "hash"} | {"seat": wrong_seat})
    out = live.offer(bad)
    assert not out.accepted and out.error is not None and out.error.code == "not_your_turn"
    assert (out.error.match_id, out.error.seq) == (events[0].match_id, 4)
    assert (live.next_seq, live.turn_phase(), live.legal()) == before
    for ev in events[4:]:
        assert live.offer(ev).accepted
    assert live.result() == replay(events).to_dict()


def test_hash_chain_checked_from_the_first_hashed_event() -> None:
    events = simulate_match("paodekuai", None, seed=2, index=0)  # hashed
    plain = [parse_event({k: v for k, v in e.to_dict().items() if k != "hash"}) for e in events]
    live = LiveMatch(events[0].match_id, "-")
    for ev in plain[:3]:  # no hashes: nothing to check yet
        assert live.offer(ev).accepted
    assert live.offer(events[3]).accepted  # the first hash links seq 0..3
    assert live.result()["chain_ok"] is True
    d = events[4].to_dict()
    d["hash"] = "0" * 64
    out = live.offer(parse_event(d))
    assert out.error is not None and out.error.code == "bad_hash"
    for ev in events[4:]:
        assert live.offer(ev).accepted
    assert live.result() == replay(plain[:3] + events[3:]).to_dict()


def test_a_resend_with_the_same_content_and_another_hash_is_a_conflict_as_in_the_lake() -> None:
    """events.md §5 / issue 17: `same_event` (the lake's and replay's rule) — the old referee compared
    the fields without `hash` and took this re-send for an identical one."""
    events = simulate_match("paodekuai", None, seed=2, index=0)  # hashed
    live = LiveMatch(events[0].match_id, "-")
    for ev in events[:5]:
        assert live.offer(ev).accepted
    d = events[3].to_dict()
    d["hash"] = "f" * 64
    resent = parse_event(d)
    merged = merge_entries([*events[:5], resent])  # what `paiju ingest` and `replay` decide
    assert [e.code for e in merged.refused] == ["conflict"]
    out = live.offer(resent)
    assert not out.accepted and out.error is not None and out.error.code == "conflict"
    nohash = parse_event({k: v for k, v in events[3].to_dict().items() if k != "hash"})
    assert live.offer(nohash).duplicate  # no hash: the store fills it in, the same event
    assert live.offer(events[3]).duplicate


def test_a_first_event_past_seq_0_is_not_started_as_in_replay() -> None:
    """The driver says `not_started` for a match whose first line is not seq 0; the old referee said
    `seq_gap` ("seq 3 follows seq -1")."""
    events = simulate_match("ddz", None, seed=2, index=0)
    want = replay(events[3:]).error
    assert want is not None and want["code"] == "not_started"
    out = LiveMatch(events[0].match_id, "-").offer(events[3])
    assert out.error is not None and (out.error.code, out.error.message) == (want["code"], want["message"])
