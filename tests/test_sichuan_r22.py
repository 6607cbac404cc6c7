"""SC-R22 with `last_four_auto_hu` off: "When R = 0 the hand ends after … the last drawer's discard and
any `hu` on it", then the checks SC-S7..S9 run over the unwon seats.

The log is SC-E4 (tests/data/golden) with two of seat 1's draws swapped in the wall, so that its last
discard at R = 0 is 8p, which seat 2 (`1p1p 2p3p4p 5p6p7p 8p8p 9p9p9p`) can win. Every hand at the end is
the one SC-E4 describes, so without a `hu` the deltas are SC-E4's own figures; with the `hu` they are
computed by hand below from SC-S3, SC-S7..S9.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.replay import replay
from events.codec import parse_event

E4 = Path(__file__).parent / "data" / "golden" / "sichuan_e4_exhaustive_hua_zhu_da_jiao_tui_shui.jsonl"


def _log() -> list[dict[str, Any]]:
    ev = [json.loads(line) for line in E4.read_text().splitlines()]
    for e in ev:
        e.pop("hash", None)
    draws = [e["seq"] for e in ev if e["type"] == "draw"]  # replacement draws come from the head too
    wall = ev[1]["wall"]
    a, b = draws.index(31), draws.index(121)
    assert (wall[a], wall[b]) == ("8p", "9s") and (ev[32]["tile"], ev[122]["tile"]) == ("8p", "9s")
    wall[a], wall[b] = wall[b], wall[a]
    for seq, tile in ((31, "9s"), (32, "9s"), (121, "8p"), (122, "8p")):
        ev[seq]["tile"] = tile
    ev[0]["rules"] = {**ev[0]["rules"], "last_four_auto_hu": False}
    assert ev[-1]["type"] == "settled" and ev[-1]["deltas"] == [6, 10, 18, -34]
    return ev


def run(ev: list[dict[str, Any]]) -> Any:
    return replay([parse_event(e) for e in ev])


def test_the_last_discard_nobody_wins_ends_the_hand() -> None:
    ev = _log()
    r = run(ev[:-1])  # the log stops at the last discard (R = 0): seat 2 could win 8p and does not
    assert r.status == "finished" and r.error is None
    assert r.deltas == [6, 10, 18, -34]  # SC-E4
    kinds = sorted({i["kind"] for i in r.items})
    assert {"hua_zhu", "da_jiao", "tui_shui"} <= set(kinds)
    r = run(ev)  # the server's `settled` after it is accepted and matches
    assert r.status == "finished" and r.settlement_matches is True


def test_a_hu_on_the_last_discard_may_still_follow() -> None:
    """By hand: seat 2 wins 8p on seat 1's discard: qing_yi_se 3 (SC-E4: F_ting 3), M = 2^(3 − 1) = 4,
    seat 1 pays 4. Unwon seats 1 and 3: seat 3 (holds 3p, void p) is 花猪 and pays 16 to seat 1 (seat 2
    has won: not paid); seat 1 is not ready: no 大叫 receiver (seat 3 is 花猪), and it refunds the 1 of its
    zhi gang to seat 2 (SC-S9). Seat 0's earlier self-draw: 2 from each other seat.
    Deltas: 0: +6; 1: −2 + 1 − 4 + 16 − 1 = +10; 2: −2 − 1 + 4 + 1 = +2; 3: −2 − 16 = −18."""
    ev = _log()[:-1]
    mid = ev[0]["match_id"]
    hu = {"match_id": mid, "seq": len(ev), "type": "hu", "seat": 2, "tile": "8p"}
    r = run([*ev, hu])
    assert r.status == "finished" and r.error is None
    assert r.deltas == [6, 10, 2, -18] and r.winners == [0, 2]
    # anything but a hu after the end is after_end
    draw = {"match_id": mid, "seq": len(ev), "type": "draw", "seat": 2, "tile": "1p"}
    r = run([*ev, draw])
    assert r.status == "invalid" and r.error["code"] == "after_end" and r.error["seq"] == len(ev)
