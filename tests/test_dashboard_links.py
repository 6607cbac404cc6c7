"""Every statistics table that names a player links to the player's page (issue 16, "Per-player
pages … linked from every table that names a player"), under `streamlit.testing.v1.AppTest`.

Expected names come from SQL written here over the lake's tables, or from the integrity tables the
ingest published (read with pyarrow here), never from the page's code. Each test fails on the code
before the links (plain names).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pyarrow.feather as feather
import pytest

from engine.sim.simulate import World, simulate_lines
from ingest.pipeline import ingest
from tests import stats_lake
from tests.test_dashboard_app import _no_failure as _ok

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")


def _app(monkeypatch: pytest.MonkeyPatch, lake_dir: str, page: str) -> Any:
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("PAIJU_LAKE", lake_dir)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(f"views/{page}.py")
    at.run()
    _ok(at)
    return at


def _link(name: str) -> str:
    return f"/player?name={quote(name, safe='')}"


def _frames(at: Any) -> list[Any]:
    return [d.value for d in at.dataframe]


def test_biggest_wins_link_each_winner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    lake = stats_lake.build(tmp_path)
    want = [r[0] for r in stats_lake.sql(lake["lake"], """
        SELECT player FROM seats WHERE status = 'finished' AND won ORDER BY delta DESC, match_id, seat LIMIT 10""")]  # fmt: skip
    at = _app(monkeypatch, lake["lake"], "fans")
    top = next(df for df in _frames(at) if "replay" in df.columns and "delta" in df.columns)
    assert list(top["player"]) == [_link(p) for p in want]


@pytest.fixture(scope="module")
def integrity_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("integrity")
    log = tmp / "z.jsonl"
    log.write_text("".join(simulate_lines("zhajinhua", None, 250, 6, world=World(pool=8, colluders=(("p01", "p05"),)))),
                   encoding="utf-8")  # fmt: skip
    ingest([str(log)], tmp / "lake", workers=0)
    return tmp / "lake"


def _published(lake: Path, name: str) -> Any:
    import json

    cur = json.loads((lake / "integrity" / "CURRENT.json").read_text(encoding="utf-8"))
    return feather.read_table(lake / "integrity" / cur["tables"][name]).to_pandas()


def test_integrity_pairs_link_both_players(monkeypatch: pytest.MonkeyPatch, integrity_lake: Path) -> None:
    pairs = _published(integrity_lake, "pair_signals")
    assert len(pairs)
    at = _app(monkeypatch, str(integrity_lake), "integrity")
    shown = next(df for df in _frames(at) if "player a" in df.columns)
    top = pairs.head(len(shown))
    assert list(shown["player a"]) == [_link(p) for p in top["player_a"]]
    assert list(shown["player b"]) == [_link(p) for p in top["player_b"]]


def test_integrity_deals_link_each_player(monkeypatch: pytest.MonkeyPatch, integrity_lake: Path) -> None:
    deals = _published(integrity_lake, "deal_strength")
    counts = deals.groupby(["player", "game"]).size()
    players = {p for (p, _), n in counts.items() if n >= 10}
    assert players
    at = _app(monkeypatch, str(integrity_lake), "integrity")
    shown = next(df for df in _frames(at) if "deal strength z" in df.columns)
    assert set(shown["player"]) <= {_link(p) for p in players} and len(shown["player"])
    assert all(str(u).startswith("/player?name=") for u in shown["player"])
