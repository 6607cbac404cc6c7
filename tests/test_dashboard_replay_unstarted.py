"""A match whose log does not begin with `match_started` (a cut or forged log) opens in the Replay
page with its verdict and no failure (found by bench/dashboard.py: "this page could not be drawn:
KeyError: None of ['seat'] are in the columns")."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.pipeline import ingest
from tests.test_dashboard_app import _no_failure

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")


def test_a_log_without_match_started_opens(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.testing.v1 import AppTest

    log = tmp_path / "cut.jsonl"
    log.write_text('{"match_id":"cut-1","seq":0,"type":"pass","seat":0}\n'
                   '{"match_id":"cut-1","seq":1,"type":"pass","seat":1}\n', encoding="utf-8")  # fmt: skip
    ingest([str(log)], tmp_path / "lake", workers=0)
    monkeypatch.setenv("PAIJU_LAKE", str(tmp_path / "lake"))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("views/replay.py")
    at.query_params["match"] = "cut-1"
    at.run()
    _no_failure(at)
    assert not [e.value for e in at.error if "could not be drawn" in e.value]
