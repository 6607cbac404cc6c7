"""DDZ-R27: a log that lacks `as` is read with the auto-reading. The reducer fills it where it reads
the event (engine/climbing/ddz_laizi.py), so doudizhu.md's E4 and E5 with every `as` removed replay
to the file's own deltas, and each play records the declaration the file's log gives."""

from __future__ import annotations

from typing import Any

import pytest

from engine.replay import replay, replay_with_steps
from events.codec import parse_event
from tests.ddz_golden_src import events_of


def _stripped(name: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k != "as"} for e in events_of(name, with_settled=False)]


@pytest.mark.parametrize(
    ("name", "deltas"), [("e4_laizi_soft_hard", [24, -12, -12]), ("e5_pure_laizi_rocket", [8, -16, 8])]
)
def test_examples_without_as_replay_to_the_rule_file_deltas(name: str, deltas: list[int]) -> None:
    evs = _stripped(name)
    assert any("as" in e for e in events_of(name, with_settled=False))  # the file's logs declare
    r = replay([parse_event(e) for e in evs])
    assert r.status == "finished", r.error
    assert r.deltas == deltas  # doudizhu.md E4: Δ = [+24, −12, −12]; E5: Δ = [+8, −16, +8]


def test_the_filled_reading_is_the_one_the_example_declares() -> None:
    """E4 steps 4, 5, 6, 10: `as` ["6"], ["T"], ["3"] (the soft bomb, not trio_solo), ["K"]."""
    steps, _ = replay_with_steps([parse_event(e) for e in _stripped("e4_laizi_soft_hard")])
    got = [s.state.last_play[2] for s in steps if s.event is not None and s.event.type == "play"]
    want = [tuple(e.get("as", ())) for e in events_of("e4_laizi_soft_hard", with_settled=False) if e["type"] == "play"]
    assert got == want and ("3",) in got


def test_no_auto_reading_that_beats_is_does_not_beat_and_no_move_is_illegal_move() -> None:
    evs = _stripped("e4_laizi_soft_hard")
    i = next(i for i, e in enumerate(evs) if e["type"] == "play" and e["seat"] == 2)  # step 6, soft bomb 3
    # seat 2 plays 7h alone (a laizi solo = the solo 7, DDZ-R24) on seat 1's pair straight: no beat
    r = replay([parse_event(e) for e in [*evs[:i], {**evs[i], "cards": ["7h"]}]])
    assert (r.error["seq"], r.error["code"]) == (i, "does_not_beat") and "DDZ-R27" in r.error["message"]
    # 3s 7h 2s: no `as` makes three cards of 3, laizi and 2 a move
    r = replay([parse_event(e) for e in [*evs[:i], {**evs[i], "cards": ["3s", "7h", "2s"]}]])
    assert (r.error["seq"], r.error["code"]) == (i, "illegal_move") and "DDZ-R27" in r.error["message"]
    # an explicit `as` is checked as declared, never replaced (DDZ-R26)
    r = replay([parse_event(e) for e in [*evs[:i], {**evs[i], "as": ["7"]}]])
    assert (r.error["seq"], r.error["code"]) == (i, "does_not_beat")
