"""The Replay page names a room finding (issue 17: PDK-R2 across matches), under AppTest on a real
lake. Expected values from the logs and paodekuai.md alone: PDK-R2 says a later match of a room is
dealt by the previous match's winner; pdk-o1 (room r1, round 1) is won by the seat whose `settled`
delta is positive, while pdk-e3 (room r1, round 2) names another dealer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_dashboard_app import _app, _no_failure

GOLDEN = Path(__file__).resolve().parent / "data" / "golden"
FILES = [GOLDEN / "paodekuai_short_trio_last_final_trio.jsonl", GOLDEN / "paodekuai_e3_later_match_one_loser_closed.jsonl"]


def _events(path: Path, match_id: str) -> list[dict[str, object]]:
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return [r for r in rows if r["match_id"] == match_id]


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> str:
    from ingest.pipeline import ingest

    root = tmp_path_factory.mktemp("rooms") / "lake"
    ingest([str(p) for p in FILES], root, workers=1)
    return str(root)


def test_the_log_breaks_pdk_r2() -> None:
    """The premise, read from the logs: pdk-o1's winner is not pdk-e3's dealer."""
    o1, e3 = _events(FILES[0], "pdk-o1"), _events(FILES[1], "pdk-e3")
    deltas = next(e["deltas"] for e in o1 if e["type"] == "settled")
    winner = [s for s, d in enumerate(deltas) if d > 0]  # type: ignore[arg-type]
    assert len(winner) == 1 and e3[0]["dealer"] != winner[0] and e3[0]["room"] == o1[0]["room"] == "r1"


def test_replay_page_names_the_room_finding(monkeypatch: pytest.MonkeyPatch, lake: str) -> None:
    at = _app(monkeypatch, lake, "replay", match="pdk-e3")
    _no_failure(at)
    warnings = [w.value for w in at.warning if "Room check" in w.value]
    assert len(warnings) == 1 and "PDK-R2" in warnings[0] and "pdk-o1" in warnings[0] and "bad_deal" in warnings[0]
    at = _app(monkeypatch, lake, "replay", match="pdk-o1")
    _no_failure(at)
    assert not [w.value for w in at.warning if "Room check" in w.value]
