"""Issue 18, the second round: the signals added to `paiju integrity` and the incremental step.

Expected values: hand-made matches counted by hand (Dou Dizhu passes that hold a beat back, Zha
Jin Hua raises, settlement money between two seats), the seat-shuffle null of the money flow by
enumerating every ordered seat assignment, the standard-library tails against scipy (an
independent implementation), the one-sided deal p-value by hand, the money flow of a real lake
against a DuckDB query of its `items` table, and the incremental tables against a from-scratch
ingest of the same files.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.sim.simulate import World, simulate_lines, simulate_match
from ingest import integrity_tables as it
from ingest.pipeline import ingest

PAIJU = str(Path(sys.executable).parent / "paiju")
RANKS = "3456789TJQKA2"


def _ev(mid: str, seq: int, typ: str, **kw: Any) -> dict[str, Any]:
    return {"match_id": mid, "seq": seq, "ts": f"2026-11-01T00:00:{seq:02d}Z", "type": typ, **kw}


def _replays_without_error(events: list[dict[str, Any]], tmp_path: Path) -> None:
    log = tmp_path / "hand.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    out = subprocess.run([PAIJU, "replay", str(log), "--json"], capture_output=True, text=True, check=False)
    res = json.loads(out.stdout)
    assert res["error"] is None and res["status"] in ("incomplete", "finished"), res


# ------------------------------------------------------------------ Dou Dizhu: passes that hold a beat back
def _ddz_hand_made() -> list[dict[str, Any]]:
    """Seat 0 (landlord) holds pairs 3–T, Js and the bottom J Q Q: nothing beats a 2. Seat 1
    holds the four 2s and both jokers. Seat 2 the rest (K, A: beats any low solo)."""
    a = [f"{r}{s}" for r in "3456789T" for s in "sh"] + ["Js"]
    b = ["2s", "2h", "2c", "2d", "BJ", "RJ"] + [f"{r}{s}" for r in "345678" for s in "cd"][:11]
    bottom = ["Jh", "Qs", "Qh"]
    used = set(a + b + bottom)
    c = [f"{r}{s}" for r in RANKS for s in "shcd" if f"{r}{s}" not in used]
    assert len(a) == len(b) == len(c) == 17
    m = "hand-ddz"
    return [
        _ev(m, 0, "match_started", game="ddz", rules={}, players=["A", "B", "C"], dealer=0, base=1),
        _ev(m, 1, "dealt", hands=[a, b, c], bottom=bottom),
        _ev(m, 2, "bid", seat=0, value=1),
        _ev(m, 3, "play", seat=0, cards=["3s"]),
        _ev(m, 4, "pass", seat=1),  # B (farmer) holds 2s and jokers: lets the landlord's 3 stand
        _ev(m, 5, "pass", seat=2),  # C (farmer) holds Ks, As: the same
        _ev(m, 6, "play", seat=0, cards=["4s"]),
        _ev(m, 7, "play", seat=1, cards=["2s"]),
        _ev(m, 8, "pass", seat=2),  # C on its partner farmer's play: not an opponent
        _ev(m, 9, "pass", seat=0),  # the landlord holds nothing above a 2: no beat held back
    ]


def test_ddz_holds_back_counted_by_hand(tmp_path: Path) -> None:
    events = _ddz_hand_made()
    _replays_without_error(events, tmp_path)
    f = it.match_facts("hand-ddz", events, [0, 0, 0])
    assert f is not None
    names = it.COMPONENTS["climbing"]
    got = {p: dict(zip(names, f.comps[k].tolist(), strict=True)) for k, p in enumerate(it._pairs(3))}
    # (0, 1): passes at seq 4 (B on A) and 9 (A on B); holds_back only seq 4
    assert got[(0, 1)]["passes"] == 2 and got[(0, 1)]["holds_back"] == 1
    assert got[(0, 2)]["passes"] == 1 and got[(0, 2)]["holds_back"] == 1
    assert got[(1, 2)]["passes"] == 1 and got[(1, 2)]["holds_back"] == 0  # two farmers
    assert all(v["lets_out"] == 0 and v["lets_run"] == 0 for v in got.values())  # nobody near 5 cards
    assert f.seqs[(0, 1)] == [4, 4, 9] and f.seqs[(1, 2)] == [8]


def test_ddz_lets_out_when_the_opponent_is_short(tmp_path: Path) -> None:
    """The landlord plays a 12-card straight (8 left), then a 5-card one (3 left): both farmers
    pass each time. B holds the four 2s (a bomb): it holds a beat back both times; C (8–Q in
    hand, no bomb) beats only the 5-card straight: once, while the landlord holds 3 (`lets_out`)."""
    a = [f"{r}s" for r in "3456789TJQKA"] + [f"{r}h" for r in "34567"]
    bottom = ["8h", "9h", "Th"]
    b = ["2s", "2h", "2c", "2d", "BJ", "RJ"] + [f"{r}{s}" for r in "345678" for s in "cd"][:11]
    used = set(a + b + bottom)
    c = [f"{r}{s}" for r in RANKS for s in "shcd" if f"{r}{s}" not in used]
    assert len(a) == len(b) == len(c) == 17 and c[:5] == ["8d", "9c", "9d", "Tc", "Td"]
    m = "hand-ddz"
    events = [
        _ev(m, 0, "match_started", game="ddz", rules={}, players=["A", "B", "C"], dealer=0, base=1),
        _ev(m, 1, "dealt", hands=[a, b, c], bottom=bottom),
        _ev(m, 2, "bid", seat=0, value=1),
        _ev(m, 3, "play", seat=0, cards=a[:12]),
        _ev(m, 4, "pass", seat=1),
        _ev(m, 5, "pass", seat=2),
        _ev(m, 6, "play", seat=0, cards=a[12:]),
        _ev(m, 7, "pass", seat=1),
        _ev(m, 8, "pass", seat=2),
    ]
    _replays_without_error(events, tmp_path)
    f = it.match_facts(m, events, [0, 0, 0])
    assert f is not None
    names = it.COMPONENTS["climbing"]
    got = {p: dict(zip(names, f.comps[k].tolist(), strict=True)) for k, p in enumerate(it._pairs(3))}
    assert got[(0, 1)] == {"joint": 0.0, "passes": 2, "lets_run": 1, "no_bomb": 0, "holds_back": 2, "lets_out": 1}
    assert got[(0, 2)] == {"joint": 0.0, "passes": 2, "lets_run": 1, "no_bomb": 0, "holds_back": 1, "lets_out": 1}
    assert got[(1, 2)] == dict.fromkeys(names, 0.0)


# ------------------------------------------------------------------ Zha Jin Hua raises
def test_zhajinhua_raises_counted_by_hand(tmp_path: Path) -> None:
    m = "hand-zjh"
    events = [
        _ev(m, 0, "match_started", game="zhajinhua", rules={}, players=["A", "B", "C"], dealer=0, base=1),
        _ev(m, 1, "dealt", hands=[["2s", "7h", "9c"], ["As", "Ah", "Ac"], ["Ks", "Qs", "Js"]]),
        _ev(m, 2, "bet", seat=1, amount=2),  # blind call 1: a raise to level 2 against A and C
        _ev(m, 3, "bet", seat=2, amount=2),  # a call at level 2
        _ev(m, 4, "fold", seat=0),
        _ev(m, 5, "bet", seat=1, amount=5),  # a raise to level 3, against C only (A folded)
        _ev(m, 6, "bet", seat=2, amount=5),
    ]
    _replays_without_error(events, tmp_path)
    f = it.match_facts(m, events, [0, 0, 0])
    assert f is not None
    k = it.COMPONENTS["zhajinhua"].index("raises")
    raises = {p: f.comps[i, k] for i, p in enumerate(it._pairs(3))}
    assert raises == {(0, 1): 1.0, (0, 2): 0.0, (1, 2): 2.0}
    assert it.WEIGHTS["raises"] == 0.0  # shown beside the score, not in it (docs/integrity.md)


# ------------------------------------------------------------------ money flow
def test_net_flows_by_hand() -> None:
    # items (seat receives points from from_seat): 0 ← 1: 5, 1 ← 0: 2, 1 ← 2: 3
    flows = it._net_flows(3, [(0, 1, 5), (1, 0, 2), (1, 2, 3)])
    assert flows is not None and flows.tolist() == [3.0, 0.0, 3.0]  # (0,1): 5 − 2; (0,2): 0; (1,2): 3 − 0
    assert it._net_flows(3, None) is None


def test_flow_null_against_enumeration() -> None:
    """Two 3-seat matches of X and Y: flow_z against the exact mean and SD of the net flow X → Y
    over every ordered pair of distinct seats per match (who of the two holds which seat)."""
    items = [[(0, 1, 4), (2, 1, 1)], [(1, 0, 3), (1, 2, 2)]]
    facts = []
    for m, its in enumerate(items):
        f = it.MatchFacts(f"m{m}", "zhajinhua", ("X", "Y", f"Z{m}"), 0, (0, 0, 0), (), {}, np.zeros((3, 4)), {},
                          it._net_flows(3, its))  # fmt: skip
        facts.append(f)
    pd_ = it._collect(facts)[0][("zhajinhua", "X", "Y")]
    got = it._flows(pd_)

    def paid(its: list[tuple[int, int, int]], i: int, j: int) -> int:
        """Net points seat i paid seat j."""
        return sum(p for s, fr, p in its if s == j and fr == i) - sum(p for s, fr, p in its if s == i and fr == j)

    observed = sum(paid(its, 0, 1) for its in items)  # X holds seat 0, Y seat 1
    ordered = [(i, j) for i in range(3) for j in range(3) if i != j]
    totals = [sum(paid(its, *ij) for its, ij in zip(items, choice, strict=True)) for choice in itertools.product(ordered, repeat=2)]
    assert got["flow_ab"] == observed == -4 + 3
    assert np.mean(totals) == pytest.approx(0.0)
    assert got["flow_z"] == pytest.approx(observed / np.std(totals))
    assert got["flow_p"] == pytest.approx(math.erfc(abs(got["flow_z"]) / math.sqrt(2)))


# ------------------------------------------------------------------ statistics without scipy
def test_tails_agree_with_scipy() -> None:
    from scipy.stats import chi2, norm, poisson

    for k, mu in ((1, 0.5), (5, 11.5), (12, 11.5), (40, 11.5), (200, 50.0), (3, 0.001), (70, 12.0), (0, 3.0)):
        want = 1.0 if k <= 0 else float(poisson.sf(k - 1, mu))
        assert it._poisson_sf(k, mu) == pytest.approx(want, rel=1e-12), (k, mu)
    for p in (0.5, 0.3, 1e-3, 1e-12, 1e-300, 0.999999):
        assert it._z_of(p) == pytest.approx(float(norm.isf(p)), rel=1e-12, abs=1e-12), p
    for ps in ([0.5], [0.01, 0.2], [1e-10, 0.5, 0.9], [1.0, 1.0], [1e-300, 1e-300]):
        want = float(chi2.sf(-2 * sum(math.log(p) for p in ps), 2 * len(ps)))
        assert it._fisher(ps) == pytest.approx(want, rel=1e-12), ps


def test_deal_p_value_is_one_sided() -> None:
    """A dealer that favours a player raises its z: P(Z ≥ z), by hand for z = ±1.6448536."""
    zs = [1.6448536269514722] * 4  # Σz / √n = 2 × 1.6448…
    rows = [{"player": "P", "game": "zhajinhua", "z": z} for z in zs]
    rows += [{"player": "Q", "game": "zhajinhua", "z": -z} for z in zs]
    got = {r["player"]: r for r in it.deal_fairness(rows)}
    assert got["P"]["strength_z"] == pytest.approx(2 * 1.6448536269514722, rel=1e-6)
    assert got["P"]["p_value"] == pytest.approx(0.5 * math.erfc(2 * 1.6448536269514722 / math.sqrt(2)), rel=1e-5)
    assert got["Q"]["p_value"] == pytest.approx(1 - got["P"]["p_value"], rel=1e-5) and not got["Q"]["flagged"]


# ------------------------------------------------------------------ Sichuan colluders
def test_sichuan_colluders_feed_each_other() -> None:
    """Sichuan colluders discard what the partner can win on or peng: the pair ranks first by
    its feeds (the seat-shuffle null)."""
    w = World(pool=8, colluders=(("p01", "p02"),), seek=0.5)
    facts = []
    for i in range(150):
        evs = [e.canonical_dict() for e in simulate_match("sichuan_xuezhan", None, 3, i, chain=False, world=w)]
        f = it.match_facts(evs[0]["match_id"], evs, evs[-1]["deltas"])
        assert f is not None
        facts.append(f)
    rows = it.pair_signals(facts)
    assert rows[0]["players"] == ["p01", "p02"] and rows[0]["flagged"]
    assert rows[0]["signals"]["feeds_z"] > 4


# ------------------------------------------------------------------ Dou Dizhu pair on a real lake
def test_ddz_pair_found_by_holding_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import paiju

    log = tmp_path / "ddz.jsonl"
    w = World(pool=8, colluders=(("p02", "p05"),), seek=0.3)
    log.write_text("".join(simulate_lines("ddz", None, 400, 31, world=w)), encoding="utf-8")
    ingest([str(log)], tmp_path / "lake", workers=0)
    assert paiju.main(["integrity", "--lake", str(tmp_path / "lake"), "--json", "--game", "ddz"]) == 0
    rep = json.loads(capsys.readouterr().out)
    top = rep["pairs"][0]
    assert top["players"] == ["p02", "p05"] and top["flagged"]
    assert top["signals"]["holds_back_z"] > 3
    assert [p["players"] for p in rep["pairs"] if p["flagged"]] == [["p02", "p05"]]


# ------------------------------------------------------------------ money flow on a real lake, the incremental step
@pytest.fixture(scope="module")
def zjh_logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("integrity-inc")
    w = World(pool=12, colluders=(("p01", "p02"),), rig=("p03", 0.4))
    out = []
    for k, n in enumerate((240, 25)):
        p = root / f"z{k}.jsonl"
        p.write_text("".join(simulate_lines("zhajinhua", None, n, 40 + k, world=w)), encoding="utf-8")
        out.append(p)
    return out


def test_incremental_tables_equal_from_scratch(zjh_logs: list[Path], tmp_path: Path) -> None:
    import pyarrow.feather as feather

    inc, whole = tmp_path / "inc", tmp_path / "whole"
    ingest([str(zjh_logs[0])], inc, workers=0)
    first = it.table_paths(inc)
    assert first is not None
    s = ingest([str(zjh_logs[1])], inc, workers=0)
    ingest([str(p) for p in zjh_logs], whole, workers=0)
    a, b = it.table_paths(inc), it.table_paths(whole)
    assert a is not None and b is not None and set(a) == {"pair_signals", "deal_strength"}
    for name in a:
        assert feather.read_table(a[name]).equals(feather.read_table(b[name])), name
    assert feather.read_table(a["deal_strength"]).num_rows == (240 + 25) * 5
    assert s.seconds["integrity"] > 0
    # the state the next ingest reuses sits beside the tables
    cur = json.loads((inc / it.TABLE_DIR / it.CURRENT).read_text(encoding="utf-8"))
    assert set(cur["state"]) == {it.MATCH_FACTS, it.PAIR_CACHE} and cur["facts_version"] == it.FACTS_VERSION


def test_the_workers_build_the_same_tables(zjh_logs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Facts and the pairs' Monte Carlo made by the ingest's 2 worker processes (every item, not
    only lakes over PARALLEL_MIN) give the tables the calling process gives (issue 22)."""
    import pyarrow.feather as feather

    monkeypatch.setattr(it, "PARALLEL_MIN", 1)
    one, two = tmp_path / "one", tmp_path / "two"
    ingest([str(zjh_logs[0])], one, workers=0)
    ingest([str(zjh_logs[0])], two, workers=2)
    a, b = it.table_paths(one), it.table_paths(two)
    assert a is not None and b is not None
    for name in a:
        assert feather.read_table(a[name]).equals(feather.read_table(b[name])), name
    assert feather.read_table(b["pair_signals"]).num_rows > 0


def test_a_dead_worker_leaves_the_tables_to_the_main_process(zjh_logs: list[Path], tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """The integrity step runs after the events are published: a worker dying there (here: the
    pool broken before it starts) must not fail the ingest, the calling process builds the same
    tables itself."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    import pyarrow.feather as feather

    from ingest.store import read_manifest

    monkeypatch.setattr(it, "PARALLEL_MIN", 1)
    lake = tmp_path / "lake"
    ingest([str(zjh_logs[0])], lake, workers=0)
    want = {n: feather.read_table(f) for n, f in (it.table_paths(lake) or {}).items()}
    with ProcessPoolExecutor(1) as pool:
        pool.submit(os._exit, 1)  # the worker dies: the pool is broken
        counts = it.publish_tables(lake, read_manifest(lake), pool)  # nothing new: no pool use
        (lake / it.TABLE_DIR / it.CURRENT).unlink()  # forget the stored state: everything measured
        counts = it.publish_tables(lake, read_manifest(lake), pool)
    assert counts["matches"] == 240 and counts["pairs"] > 0
    got = it.table_paths(lake)
    assert got is not None and set(got) == set(want)
    for name, t in want.items():
        assert feather.read_table(got[name]).equals(t), name


def test_incremental_measures_only_the_batch(zjh_logs: list[Path], tmp_path: Path) -> None:
    import duckdb

    from ingest.store import read_manifest, view_sql

    lake = tmp_path / "lake"
    ingest([str(zjh_logs[0])], lake, workers=0)
    ingest([str(zjh_logs[1])], lake, workers=0)
    counts = it.publish_tables(lake, read_manifest(lake))  # nothing new since the last ingest
    assert counts == {"matches": 0, "pairs": 0}
    # a stored state of another version is not trusted: everything measured again
    cur_path = lake / it.TABLE_DIR / it.CURRENT
    cur = json.loads(cur_path.read_text(encoding="utf-8"))
    cur_path.write_text(json.dumps({**cur, "facts_version": -1}), encoding="utf-8")
    con = duckdb.connect(":memory:")
    m = read_manifest(lake)
    for t in ("events", "matches", "items"):
        con.execute(f"CREATE VIEW {t} AS {view_sql(lake, m, t)}")
    _, _, again = it.update_tables(con, lake / it.TABLE_DIR)
    con.close()
    assert again["matches"] == 265 and again["pairs"] > 0


def test_flow_of_a_lake_against_its_items(zjh_logs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`flow_ab` = the net points player_a paid player_b in the settlement lines, by a SQL query."""
    import paiju
    from analytics.lake import open_lake

    lake = tmp_path / "lake"
    ingest([str(zjh_logs[0])], lake, workers=0)
    assert paiju.main(["integrity", "--lake", str(lake), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    con = open_lake(lake)
    try:
        for p in rep["pairs"][:5]:
            a, b = p["players"]
            (want,) = con.execute(
                """SELECT coalesce(sum(CASE WHEN pa.player = ? THEN i.points ELSE -i.points END), 0)
                   FROM items i JOIN matches m USING (match_id)
                   JOIN seats pa ON pa.match_id = i.match_id AND pa.seat = i.from_seat
                   JOIN seats pb ON pb.match_id = i.match_id AND pb.seat = i.seat
                   WHERE m.status = 'finished'
                     AND ((pa.player = ? AND pb.player = ?) OR (pa.player = ? AND pb.player = ?))""",
                [a, a, b, b, a],
            ).fetchone()
            assert p["signals"]["flow_ab"] == want, p["players"]
    finally:
        con.close()
