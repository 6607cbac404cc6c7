"""The Spark engine (issue 11) against the local one, on real lakes in temporary folders.

`paiju ingest --engine spark` must publish exactly the tables `--engine local` publishes (same
files, same Arrow schemas, same rows), also when a live match is completed by a later ingest;
`paiju simulate --engine spark` must write the same bytes; a failing bucket names its matches
and publishes nothing; a missing Java runtime is one line and exit 2.

One small `local[2]` session is shared by the module (the tests form one xdist group, so a
parallel run starts one JVM). Skipped only when no Java runtime is present.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import paiju
from analytics.lake import open_lake
from engine.sim.spark import java_available
from events.chain import fill_chain
from events.codec import event_to_json
from ingest import store
from ingest.pipeline import ingest
from ingest.schema import KEYS, schemas
from ingest.spark import BUILT, SparkReplayer, bucket_rows, buckets_for, register_lake, wide_schema
from ingest.tables import build_tables
from tests.ingest_data import assert_same, golden_files, many_matches, snapshot, write_log

PAIJU = str(Path(sys.executable).parent / "paiju")
NO_JAVA = "no Java runtime (java not on PATH, JAVA_HOME unset): Spark cannot start; .ci/run installs default-jre-headless"
pytestmark = [
    pytest.mark.spark,
    pytest.mark.xdist_group("spark"),
    pytest.mark.skipif(not java_available(), reason=NO_JAVA),
    pytest.mark.skipif(not golden_files(), reason="no game with golden logs is available yet"),
]


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from engine.sim.spark import get_session

    s = get_session("local[2]", app="paiju-tests")
    yield s
    s.stop()


def _summary(s: Any) -> dict[str, Any]:
    d = dict(s if isinstance(s, dict) else s.as_dict())
    d.pop("seconds", None)  # wall times differ
    d.pop("speculative", None)  # Spark replays every match after the merge; the local run mostly while parsing
    return d


def _lines(evs: list[Any]) -> list[str]:
    return [event_to_json(e) for e in evs]


def _logs(tmp: Path) -> tuple[list[str], list[str]]:
    """Two deliveries: every golden log, a live match cut in two, a truncated match, an illegal
    one, a file with a bad line; then the rest of the live match and more matches."""
    first = [str(p) for p in golden_files()]
    more = many_matches(40, "vol")
    live, cut, bad = more[0], more[1], more[2]
    k = len(live) // 2
    illegal = [e.model_copy() for e in bad]
    for e, orig in zip(illegal, bad, strict=True):
        e.__pydantic_fields_set__.update(orig.__pydantic_fields_set__)
    mid = next(i for i, e in enumerate(illegal) if i > 1 and getattr(e, "seat", None) is not None)
    illegal[mid] = illegal[mid].model_copy(update={"seat": (illegal[mid].seat + 1) % 3})
    if any(e.hash is not None for e in bad):
        illegal = fill_chain(illegal)
    a = tmp / "a.jsonl"
    a.write_text("\n".join(_lines(live[:k]) + ["not json"] + _lines(cut[:-2]) + _lines(illegal)) + "\n", encoding="utf-8")
    b = write_log(tmp / "b.jsonl", [live[k:], *more[3:]])
    return [*first, str(a)], [str(b)]


def _same_lakes(x: Path, y: Path) -> None:
    """Same published files (by manifest), each with the same schema and rows; same snapshots."""
    mx, my = store.read_manifest(x), store.read_manifest(y)
    assert mx.tables == my.tables
    assert mx.generation == my.generation
    for table, files in mx.tables.items():
        for f in files:
            tx, ty = pq.read_table(x / f), pq.read_table(y / f)
            assert tx.schema.equals(ty.schema), (table, f)
            assert tx.equals(ty), (table, f)
    assert_same(snapshot(x), snapshot(y))


def test_bucket_rows_carries_build_tables_unchanged() -> None:
    """The wide per-bucket result splits back into exactly `build_tables`' tables (no Spark)."""
    lines = [(m[0].match_id, e.seq, event_to_json(e)) for m in many_matches(12, "w") for e in m]
    events = pa.table({"match_id": [r[0] for r in lines], "seq": [r[1] for r in lines], "line": [r[2] for r in lines]})
    want = build_tables(events)
    wide = bucket_rows(events)
    assert wide.schema == wide_schema()
    for name in BUILT:
        part = wide.filter(pa.compute.equal(wide.column("table"), name)).select(schemas()[name].names)
        assert part.cast(schemas()[name]).equals(want[name]), name
    assert buckets_for(0) == 1 and buckets_for(20001, 20000) == 2


def test_ingest_spark_publishes_the_local_tables(tmp_path: Path, spark: Any, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = _logs(tmp_path)
    local, dist = tmp_path / "local", tmp_path / "spark"
    s1 = ingest(first, local, workers=0)
    s2 = ingest(second, local, workers=0)
    replayer = SparkReplayer(spark, bucket_events=300)  # several buckets even for this small lake
    t1 = ingest(first, dist, workers=0, replayer=replayer)
    assert replayer.buckets > 3
    assert _summary(t1) == _summary(s1)
    assert {"finished", "incomplete", "invalid"} <= set(t1.statuses)
    # the second delivery (it completes the live match) through the command line
    code = paiju.main(["ingest", *second, "--lake", str(dist), "--engine", "spark", "--workers", "0", "--json"])
    assert code == 0
    assert _summary(json.loads(capsys.readouterr().out)) == _summary(s2)
    _same_lakes(local, dist)
    # Spark SQL reads the published lake directly (the events' game/date from the folders)
    register_lake(spark, dist)
    q = "SELECT e.game, e.date, m.status, count(*) AS n FROM events e JOIN matches m USING (match_id) GROUP BY ALL"
    got = sorted(tuple(r) for r in spark.sql(q).collect())
    want = sorted(open_lake(dist).execute(q).fetchall())
    assert got == want and len(want) > 3


def test_simulate_spark_writes_the_local_bytes(tmp_path: Path, spark: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.registry import available_games

    games = available_games()
    picks = [(games[0], 120, "sim.jsonl.gz")]  # several batches (of 50) in several partitions; gzip
    for game, n, name in picks:
        a, b = tmp_path / f"local-{game}-{name}", tmp_path / f"spark-{game}-{name}"
        base = ["simulate", "--game", game, "--matches", str(n), "--seed", "7", "--quiet"]
        assert paiju.main([*base, "--out", str(a)]) == 0
        assert paiju.main([*base, "--out", str(b), "--engine", "spark"]) == 0
        assert a.read_bytes() == b.read_bytes(), game
    capsys.readouterr()


def test_spark_failure_names_the_match_and_publishes_nothing(tmp_path: Path, spark: Any,
                                                             capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    good = many_matches(3, "ok")
    bad = many_matches(1, "boom")[0]
    last = json.loads(event_to_json(bad[-1]))  # a settlement beyond int64: the rows cannot be built
    assert last["type"] == "settled"
    last.pop("hash", None)
    last["deltas"] = [2**70, -(2**70)] + [0] * (len(last["deltas"]) - 2)
    log = tmp_path / "x.jsonl"
    log.write_text("\n".join(_lines([e for m in good for e in m]) + _lines(bad[:-1]) + [json.dumps(last)]) + "\n")
    lake = tmp_path / "lake"
    code = paiju.main(["ingest", str(log), "--lake", str(lake), "--engine", "spark", "--workers", "0", "--json"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and "boom-000000" in err and "ok-" not in err, err
    assert store.read_manifest(lake).generation == 0  # nothing published
    assert not (lake / store.STAGING).exists() or not any((lake / store.STAGING).iterdir())


def test_no_java_is_one_line_and_exit_2(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "SPARK_REMOTE")}
    env["PATH"] = str(Path(sys.executable).parent)  # the venv only: no java
    log = golden_files()[0]
    for args in (["ingest", str(log), "--lake", str(tmp_path / "lake"), "--engine", "spark"],
                 ["simulate", "--game", "ddz", "--matches", "2", "--out", str(tmp_path / "s.jsonl"), "--engine", "spark"]):  # fmt: skip
        r = subprocess.run([PAIJU, *args], env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "Java" in lines[0], r.stderr
    assert not (tmp_path / "lake" / store.MANIFEST).exists() and not (tmp_path / "s.jsonl").exists()


@pytest.fixture(scope="module")
def small_events() -> pa.Table:
    lines = [(m[0].match_id, e.seq, event_to_json(e)) for m in many_matches(10, "h") for e in m]
    return pa.table({"match_id": [r[0] for r in lines], "seq": [r[1] for r in lines], "line": [r[2] for r in lines]})


def test_any_bucketing_gives_the_same_rows(small_events: pa.Table) -> None:
    """However matches fall into buckets, the union of the buckets' rows is `build_tables`' rows
    (rules deduplicated by rules_id, as the publish step does). No Spark needed."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    ids = sorted(set(small_events.column("match_id").to_pylist()))
    want = build_tables(small_events)

    @settings(max_examples=8, deadline=None)
    @given(st.lists(st.integers(0, 3), min_size=len(ids), max_size=len(ids)))
    def check(assign: list[int]) -> None:
        bucket_of = dict(zip(ids, assign, strict=True))
        col = pa.array([bucket_of[m] for m in small_events.column("match_id").to_pylist()])
        parts = [bucket_rows(small_events.filter(pa.compute.equal(col, b))) for b in sorted(set(assign))]
        wide = pa.concat_tables(parts)
        for name in BUILT:
            got = wide.filter(pa.compute.equal(wide.column("table"), name)).select(schemas()[name].names)
            got = got.cast(schemas()[name])
            if name == "rules":
                assert {tuple(r.values()) for r in got.to_pylist()} == {tuple(r.values()) for r in want[name].to_pylist()}
                continue
            order = [(k, "ascending") for k in KEYS[name]]
            assert got.sort_by(order).equals(want[name].sort_by(order)), name

    check()


def test_no_pyspark_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code = ("import sys; sys.modules['pyspark'] = None; import paiju; "
            "sys.exit(paiju.main(['simulate', '--game', 'ddz', '--matches', '2', '--out', sys.argv[1], '--engine', 'spark']))")  # fmt: skip
    out = tmp_path / "s.jsonl"
    r = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, timeout=120,
                       cwd=Path(__file__).parent.parent)  # fmt: skip
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'paiju[dist]'" in lines[0], r.stderr
    assert not out.exists()
