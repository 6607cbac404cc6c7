"""Search and Player semantics on a lake of thousands of matches, against pandas (issue 16).

The lake is `bench._data.synthetic_lake` (every table of ingest.schema), with undated matches,
starts shorter than an hour's prefix and many matches per hour, so pages cross the hours that
`analytics.search` pages by, and the undated tail. Every expected value is computed here with
pandas straight from the Parquet files, not with the code under test.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pandas as pd
import pytest

from analytics import search
from analytics.lake import open_lake
from bench._data import synthetic_lake, unknown_columns


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = synthetic_lake(tmp_path_factory.mktemp("search") / "lake", 3000, events_per_match=1, players=120,
                          span_s=30 * 3600, undated_every=41)  # fmt: skip
    part = root / "matches" / "part-0.parquet"
    con = duckdb.connect()
    # a few starts shorter than an hour prefix ("2026-01-02"), and ties to the second
    con.execute(f"""COPY (SELECT * REPLACE (CASE WHEN hash(match_id) % 53 = 0 THEN left(started_ts, 10)
                                               WHEN hash(match_id) % 29 = 0 THEN '2026-01-01T12:00:00Z'
                                               ELSE started_ts END AS started_ts)
                          FROM read_parquet('{part}')) TO '{part}.new' (FORMAT parquet)""")
    con.close()
    part.with_suffix(".parquet.new").replace(part)
    m = pd.read_parquet(part)
    s = pd.read_parquet(root / "seats" / "part-0.parquet")
    return {"root": root, "con": open_lake(root), "m": m, "s": s}


def _order(m: pd.DataFrame) -> list[str]:
    """Newest first, the undated last, ties by id (Python compares str by code point = bytes)."""
    dated = sorted((r for r in m.itertuples() if isinstance(r.started_ts, str)), key=lambda r: r.match_id)
    dated.sort(key=lambda r: r.started_ts, reverse=True)
    undated = sorted(r.match_id for r in m.itertuples() if not isinstance(r.started_ts, str))
    return [r.match_id for r in dated] + undated


def _expected(lake: dict[str, Any], text: str | None = None, **f: Any) -> list[str]:
    m, s = lake["m"], lake["s"]
    keep = pd.Series(True, index=m.index)
    if text:
        t = text.lower()
        by_name = set(s.loc[s["player"].str.lower().str.contains(t, regex=False), "match_id"])
        keep &= m["match_id"].str.lower().str.contains(t, regex=False) | m["match_id"].isin(by_name)
    if f.get("player"):
        keep &= m["match_id"].isin(set(s.loc[s["player"] == f["player"], "match_id"]))
    for col in ("game", "status"):
        if f.get(col):
            keep &= m[col] == f[col]
    if f.get("date_from"):
        keep &= m["date"].notna() & (m["date"] >= f["date_from"])
    if f.get("date_to"):
        keep &= m["date"].notna() & (m["date"] <= f["date_to"])
    if f.get("mismatch"):
        keep &= m["settlement_matches"].eq(False)
    if f.get("broken"):
        keep &= m["chain_ok"].eq(False)
    return _order(m[keep])


def test_the_synthetic_lake_has_every_column_of_the_schema() -> None:
    assert unknown_columns() == []


def test_the_lake_has_what_the_paging_must_cross(lake: dict[str, Any]) -> None:
    m = lake["m"]
    ts = m["started_ts"]
    assert ts.isna().sum() > 50 and (ts.str.len() == 10).sum() > 20 and (ts == "2026-01-01T12:00:00Z").sum() > 50
    assert ts.dropna().str[:13].nunique() > 25


OFFSETS = (0, 1, 49, 50, 97, 150, 1000, 2913, 2925, 2950, 2970, 2990, 2999, 3000, 3100)


@pytest.mark.parametrize("limit", [1, 7, 50])
def test_every_page_of_all_matches_is_the_sorted_slice(lake: dict[str, Any], limit: int) -> None:
    want = _expected(lake)
    f = search.Filters()
    bks = search.buckets(lake["con"], f)
    assert sum(n for _, n in bks) == len(want) == 3000
    for offset in OFFSETS:
        got = [r["match_id"] for r in search.page(lake["con"], f, limit=limit, offset=offset, bks=bks)]
        assert got == want[offset : offset + limit], (limit, offset)


def test_walking_all_pages_gives_every_match_once_in_order(lake: dict[str, Any]) -> None:
    f = search.Filters()
    bks = search.buckets(lake["con"], f)
    got: list[str] = []
    for offset in range(0, 3000, 50):
        got += [r["match_id"] for r in search.page(lake["con"], f, limit=50, offset=offset, bks=bks)]
    assert got == _expected(lake)


CASES = [
    {"text": "0012"}, {"text": "BENCH-00001"}, {"text": "P0001"}, {"text": "p00003"}, {"text": "%"}, {"text": "_"},
    {"text": "zzz"}, {"player": "p00007"}, {"game": "ddz"}, {"status": "invalid"}, {"mismatch": True},
    {"broken": True}, {"date_from": "2026-01-02", "date_to": "2026-01-02"}, {"text": "p0001", "game": "hongzhong"},
    {"broken": True, "status": "finished", "date_from": "2026-01-01"},
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_filters_count_and_pages_match_pandas(lake: dict[str, Any], case: dict[str, Any]) -> None:
    want = _expected(lake, **case)
    f = search.Filters(**case)
    total, first = search.find(lake["con"], f, limit=50)
    assert total == len(want) == search.count(lake["con"], f)
    assert [r["match_id"] for r in first] == want[:50]
    seats = lake["s"].sort_values(["match_id", "seat"]).groupby("match_id")["player"].agg(list)
    assert all(list(r["players"]) == seats[r["match_id"]] for r in first)
    last = max(0, len(want) - 30)
    assert [r["match_id"] for r in search.page(lake["con"], f, limit=50, offset=last)] == want[last:]


def test_a_page_row_has_its_seats_and_the_searched_players_seat(lake: dict[str, Any]) -> None:
    s = lake["s"]
    total, rows = search.find(lake["con"], search.Filters(text="P0002"), limit=50)
    assert total and rows
    for r in rows:
        seats = s[s["match_id"] == r["match_id"]].sort_values("seat")
        assert list(r["players"]) == list(seats["player"])
        assert list(r["roles"]) == list(seats["role"])
        hits = seats[seats["player"].str.contains("p0002", regex=False)]["seat"]
        assert r["hit_seat"] == (int(hits.min()) if len(hits) else None)
        mrow = lake["m"][lake["m"]["match_id"] == r["match_id"]].iloc[0]
        assert (r["game"], r["status"], r["events"]) == (mrow["game"], mrow["status"], mrow["events"])


@pytest.mark.parametrize("few", [search.FEW, 0], ids=["two look-ups", "one join"])
def test_the_player_page_figures_match_pandas(lake: dict[str, Any], few: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FEW", few)
    m, s = lake["m"], lake["s"]
    name = s["player"].value_counts().index[0]
    mine = s[s["player"] == name].merge(m[["match_id", "date", "started_ts", "is_draw"]], on="match_id")
    pl = search.player(lake["con"], name)
    assert pl.summary["matches"] == len(mine)
    assert pl.summary["wins"] == int(mine["won"].sum())
    assert pl.summary["total_delta"] == int(mine["delta"].sum())
    assert pl.summary["distinct_matches"] == mine["match_id"].nunique()
    assert (pl.summary["first_date"], pl.summary["last_date"]) == (mine["date"].min(), mine["date"].max())
    decided = mine[(mine["status"] == "finished") & ~mine["is_draw"].fillna(False).astype(bool)]
    by = decided.groupby(["game", "role"]).agg(n=("won", "size"), w=("won", "sum")).reset_index()
    got = pl.roles[["game", "role", "matches", "wins"]].values.tolist()
    assert got == [[g, r, int(n), int(w)] for g, r, n, w in by.values.tolist()]
    per_day = mine.dropna(subset=["date"]).groupby("date")["delta"].sum().cumsum()
    assert pl.trend["cumulative"].tolist() == [int(x) for x in per_day.tolist()]
    want = _order(m[m["match_id"].isin(set(mine["match_id"]))])
    for offset in (0, 50, len(want) - 10):
        keys = pl.page(50, offset)
        assert [k[0] for k in keys] == want[offset : offset + 50]
        rows = search.rows(lake["con"], keys, search.Filters(player=name))
        assert [r["match_id"] for r in rows] == want[offset : offset + 50]
        assert all(r["players"][r["hit_seat"]] == name for r in rows)


def test_an_unknown_player_has_an_empty_page(lake: dict[str, Any]) -> None:
    pl = search.player(lake["con"], "nobody-at-all")
    assert pl.summary["matches"] == 0 and pl.page() == [] and pl.roles.empty

