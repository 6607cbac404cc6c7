"""Named queries and `paiju stats` on a real lake (simulated matches of every available game plus
the golden logs), checked against the engine's own replay results computed independently."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from analytics import queries as q
from analytics.lake import open_lake
from engine.replay import replay
from events.codec import event_to_json
from events.models import Settled
from ingest import store
from ingest.pipeline import ingest
from tests.ingest_data import golden_files, golden_matches, write_log
from tests.test_ingest_schema import _simulated

PAIJU = str(Path(sys.executable).parent / "paiju")
pytestmark = pytest.mark.skipif(not golden_files(), reason="no game with golden logs is available yet")


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict]]:
    d = tmp_path_factory.mktemp("analytics")
    matches = _simulated(8) + golden_matches()
    # one match whose server settlement is wrong
    m = next(x for x in matches if isinstance(x[-1], Settled))
    wrong = [e.model_copy(update={"match_id": "wrong-1", "hash": None}) for e in m]
    for e, o in zip(wrong, m, strict=True):
        e.__pydantic_fields_set__.update(o.__pydantic_fields_set__ - {"hash"})
        e.__pydantic_fields_set__.discard("hash")
    d0 = list(wrong[-1].deltas)
    wrong[-1] = wrong[-1].model_copy(update={"deltas": [d0[0] + 1, d0[1] - 1, *d0[2:]]})
    matches.append(wrong)
    write_log(d / "all.jsonl", matches)
    ingest([str(d / "all.jsonl")], d / "lake", workers=2)
    results = {ms[0].match_id: replay(ms).to_dict() | {"game": ms[0].game, "players": ms[0].players} for ms in matches}
    return d / "lake", results


def test_every_query_runs_with_and_without_filters(lake) -> None:  # type: ignore[no-untyped-def]
    path, results = lake
    con = open_lake(path)
    some_game = next(iter(results.values()))["game"]
    rules_id = con.execute("SELECT rules_id FROM matches WHERE rules_id IS NOT NULL LIMIT 1").fetchone()[0]
    for name, f in q.QUERIES.items():
        all_rows = f(con)
        assert len(all_rows) > 0 or name in ("error_codes", "reject_codes"), name
        g = f(con, game=some_game)
        if "game" in g.columns:
            assert set(g["game"]) <= {some_game}, name
        r = f(con, rules_id=rules_id)
        if "rules_id" in r.columns:
            assert set(r["rules_id"]) <= {rules_id}, name
    # the same functions accept a lake folder
    assert len(q.overview(path)) == len({r["game"] for r in results.values()})


def test_parameters_are_bound_not_formatted(lake) -> None:  # type: ignore[no-untyped-def]
    path, _ = lake
    for evil in ("x' OR '1'='1", "'; DROP VIEW matches; --"):
        assert len(q.overview(path, game=evil)) == 0
        assert len(q.find_matches(path, evil)) == 0
    assert len(q.overview(path)) > 0


def test_overview_and_draw_rate_match_the_engine(lake) -> None:  # type: ignore[no-untyped-def]
    path, results = lake
    ov = q.overview(path).set_index("game")
    for game in {r["game"] for r in results.values()}:
        rs = [r for r in results.values() if r["game"] == game]
        assert ov.loc[game, "matches"] == len(rs)
        assert ov.loc[game, "finished"] == sum(r["status"] == "finished" for r in rs)
        assert ov.loc[game, "draws"] == sum(r["status"] == "finished" and not r["winners"] for r in rs)
        assert ov.loc[game, "mismatches"] == sum(r["settlement_matches"] is False for r in rs)
    dr = q.draw_rate(path)
    total = dr.groupby("game")[["finished", "draws"]].sum()
    for game, row in total.iterrows():
        rs = [r for r in results.values() if r["game"] == game and r["status"] == "finished"]
        assert row["finished"] == len(rs) and row["draws"] == sum(not r["winners"] for r in rs)


def _wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, c - h), min(1.0, c + h)


def test_win_rates_by_seat_and_player_match_the_engine_with_wilson_intervals(lake) -> None:  # type: ignore[no-untyped-def]
    path, results = lake
    decided = [r for r in results.values() if r["status"] == "finished" and r["winners"]]
    ws = q.win_rate_by_seat(path)
    for _, row in ws.iterrows():
        rs = [r for r in decided if r["game"] == row["game"] and row["seat"] < len(r["deltas"])]
        wins = sum(row["seat"] in r["winners"] for r in rs)
        assert (row["seats"], row["wins"]) == (len(rs), wins)
        lo, hi = _wilson(wins, len(rs))
        assert row["lo"] == pytest.approx(lo) and row["hi"] == pytest.approx(hi)
        assert row["lo"] <= row["rate"] <= row["hi"]
    wp = q.win_rate_by_player(path, limit=10_000)
    for _, row in wp.iterrows():
        rs = [r for r in decided if r["game"] == row["game"] and row["player"] in r["players"]]
        wins = sum(r["players"].index(row["player"]) in r["winners"] for r in rs)
        assert (row["seats"], row["wins"]) == (len(rs), wins), row["player"]
    roles = q.win_rate_by_role(path)
    assert set(roles["role"]) <= {"landlord", "farmer", "dealer", "player"}
    assert ((roles["lo"] <= roles["rate"]) & (roles["rate"] <= roles["hi"])).all()


def test_biggest_wins_and_mismatch_rate(lake) -> None:  # type: ignore[no-untyped-def]
    path, results = lake
    top = q.biggest_wins(path, limit=3)
    best = max(d for r in results.values() if r["status"] == "finished" for s, d in enumerate(r["deltas"]) if s in r["winners"])
    assert top.iloc[0]["delta"] == best and len(top) == 3
    mm = q.settlement_mismatch_rate(path)
    assert mm["mismatches"].sum() == 1 == sum(r["settlement_matches"] is False for r in results.values())
    assert mm["with_settled"].sum() == sum(r["settlement_matches"] is not None for r in results.values())


def test_fans_and_lengths(lake) -> None:  # type: ignore[no-untyped-def]
    path, results = lake
    fd = q.fan_distribution(path)
    if len(fd):
        assert ((fd["share_of_wins"] > 0) & (fd["share_of_wins"] <= 1)).all()
    ft = q.fan_total_distribution(path)
    for _, g in ft.groupby("game"):
        assert g["share"].sum() == pytest.approx(1.0)
    ml = q.match_length(path)
    for _, row in ml.iterrows():
        ev = [r["events"] for r in results.values() if r["game"] == row["game"] and r["status"] == row["status"]]
        assert row["matches"] == len(ev) and row["max_events"] == max(ev)
        assert row["mean_events"] == pytest.approx(sum(ev) / len(ev))


def test_match_events_and_find_matches(lake) -> None:  # type: ignore[no-untyped-def]
    path, results = lake
    mid, r = next(iter(results.items()))
    evs = q.match_events(path, mid)
    assert [e.seq for e in evs] == list(range(r["events"]))
    assert replay(evs).to_dict()["deltas"] == r["deltas"]
    found = q.find_matches(path, mid)
    assert found.iloc[0]["match_id"] == mid
    player = r["players"][0]
    by_player = set(q.find_matches(path, player, limit=10_000)["match_id"])
    assert by_player == {m for m, x in results.items() if player in x["players"]}
    assert q.match_events(path, "no-such-match") == []
    from events.chain import first_broken_link

    filled = q.match_events(path, mid, fill_hashes=True)
    assert all(e.hash for e in filled) and first_broken_link(filled)[1] is True
    assert [e.hash for e in evs if e.hash] == [f.hash for f, e in zip(filled, evs, strict=True) if e.hash]


def test_reader_is_not_blocked_by_a_writer(lake) -> None:  # type: ignore[no-untyped-def]
    path, _ = lake
    with store.locked(path):
        assert len(q.overview(path)) > 0


def test_stats_cli_json_and_tables(lake, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path, results = lake
    root = Path(__file__).parent.parent
    r = subprocess.run([PAIJU, "stats", "--lake", str(path), "--json"], capture_output=True, text=True, cwd=root, timeout=300)
    assert r.returncode == 0, r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    names = [o["query"] for o in out]
    assert "win_rate_by_role" in names and "draw_rate" in names and "fan_distribution" in names
    ov = next(o for o in out if o["query"] == "overview")
    assert sum(row["matches"] for row in ov["rows"]) == len(results)
    game = next(iter(results.values()))["game"]
    r = subprocess.run([PAIJU, "stats", "--lake", str(path), "--game", game, "--query", "overview"], capture_output=True,
                       text=True, cwd=root, timeout=300)  # fmt: skip
    assert r.returncode == 0 and game in r.stdout
    r = subprocess.run([PAIJU, "stats", "--lake", str(tmp_path / "none")], capture_output=True, text=True, cwd=root, timeout=300)
    assert r.returncode == 2 and "no lake" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([PAIJU, "stats", "--lake", str(path), "--query", "nope"], capture_output=True, text=True, cwd=root, timeout=300)
    assert r.returncode == 2 and "unknown query" in r.stderr


def test_event_lines_in_the_lake_are_the_log(lake) -> None:  # type: ignore[no-untyped-def]
    path, results = lake
    mid = next(iter(results))
    assert [event_to_json(e) for e in q.match_events(path, mid)] == q.match_lines(path, mid)
