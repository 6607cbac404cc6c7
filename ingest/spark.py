"""The scale-out runner: `paiju ingest --engine spark` replays on Spark (issue 11).

Everything except the replay is the local ingest (`ingest.pipeline`): receive, parse, store
(the events are in the lake's Parquet, conflicts quarantined), then this runner replaces the
local process pool for the replay step, then the same staging, merge and atomic publication.

The replay step on Spark (`SparkReplayer.__call__`):
1. read the stored events of every match that received an event (the pipeline writes them,
   `match_id, seq, line`, as Parquet under the run's staging folder);
2. give each match a bucket, `pmod(xxhash64(match_id), n_buckets)` with about `BUCKET_EVENTS`
   events per bucket, so a match is never split and a bucket fits in a Python worker;
3. `groupBy("bucket").applyInArrow(bucket_rows)`: each bucket goes through the SAME pure
   function as the local pool, `ingest.tables.build_tables` (Arrow table of events in, rows of
   matches/seats/items/fans/rules out); the five tables travel as one wide Arrow result with a
   `table` column (columns a table does not have are null);
4. Spark writes that result as Parquet partitioned by `table`; the driver then streams each
   table's columns, cast to the lake's schema (`ingest.schema`), into the staging `build/`
   folder exactly where the local pool writes, and the pipeline publishes as usual.

So the published tables are identical to the local engine's (tests/test_spark.py checks it).

Failures: `build_tables` never raises for a bad match (a refused or crashing replay is an
`invalid` row). If a bucket still fails, the task finds the matches that fail alone and raises
`ReplayFailed` naming them; the driver raises `SparkReplayError` with those match ids and
nothing is published (the lake stays as it was). Other Spark failures (an executor lost, no
memory) are reported with Spark's own first line.

On a cluster the lake folder must be visible at the same path to the driver and every executor
(a shared mount), since the executors read the staged events and write the staged rows.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ingest.schema import schemas
from ingest.tables import build_tables

BUILT: tuple[str, ...] = ("matches", "seats", "items", "fans", "rules")
"""The tables `build_tables` returns (the staging build/ folder of the pipeline)."""
BUCKET_EVENTS = 20000
"""Target events per bucket (env `PAIJU_SPARK_BUCKET_EVENTS`): a bucket is one Arrow table in one
Python worker, a few MB of event lines at this size."""
PARQUET_OPTS: dict[str, Any] = {"compression": "zstd"}
_FAILED = re.compile(r"failing match ids (\[[^\]]*\])")


class ReplayFailed(RuntimeError):
    """Raised inside a Spark task: a bucket's table building failed; the message names the matches."""


class SparkReplayError(RuntimeError):
    """The Spark replay failed (nothing was published); `match_ids` are the failing matches, if known."""

    def __init__(self, message: str, match_ids: list[str]) -> None:
        super().__init__(message)
        self.match_ids = match_ids


@cache
def wide_schema() -> pa.Schema:
    """`table` + the union of the columns of the built tables (one type per column name)."""
    fields: dict[str, pa.Field] = {"table": pa.field("table", pa.string())}
    for t in BUILT:
        for f in schemas()[t]:
            have = fields.get(f.name)
            if have is not None and have.type != f.type:  # never: a schema change would need a rename
                raise TypeError(f"column {f.name} has two types in the lake schema: {have.type} and {f.type}")
            fields.setdefault(f.name, f)
    return pa.schema(list(fields.values()))


def _widen(name: str, t: pa.Table) -> pa.Table:
    wide = wide_schema()
    n = t.num_rows
    cols = [pa.array([name] * n, pa.string())]
    cols += [t.column(f.name) if f.name in t.schema.names else pa.nulls(n, f.type) for f in wide][1:]
    return pa.Table.from_arrays(cols, schema=wide)


def _failing(events: pa.Table) -> list[str]:
    """The matches of a failed bucket that fail on their own."""
    out = []
    import pyarrow.compute as pc

    for match_id in set(events.column("match_id").to_pylist()):
        one = events.filter(pc.equal(events.column("match_id"), match_id))
        try:
            build_tables(one)
        except Exception:
            out.append(match_id)
    return sorted(out)


def bucket_rows(events: pa.Table) -> pa.Table:
    """The applyInArrow function: one bucket of complete matches → the wide table of their rows."""
    try:
        tables = build_tables(events)
    except Exception as e:
        ids = _failing(events) or sorted(set(events.column("match_id").to_pylist()))
        raise ReplayFailed(f"failing match ids {json.dumps(ids)}: {type(e).__name__}: {e}") from e
    parts = [_widen(name, tables[name]) for name in BUILT if tables[name].num_rows]
    return pa.concat_tables(parts) if parts else wide_schema().empty_table()


def _uri(path: Path) -> str:
    """A local path as Spark (Hadoop) wants it: `file:` + the raw absolute path (not
    percent-encoded: Hadoop would not decode the `%3D` of `game=`)."""
    return "file://" + str(path.resolve())


def buckets_for(n_events: int, bucket_events: int = BUCKET_EVENTS) -> int:
    """How many buckets for a replay of `n_events` events."""
    return max(1, math.ceil(n_events / max(1, bucket_events)))


class SparkReplayer:
    """The replay step of `ingest.pipeline.ingest` on Spark (pass it as `replayer=`).

    Called with the staged events of the touched matches and the run's staging folder; writes
    `build/<table>/spark-*.parquet` with the lake's schemas; returns (matches, statuses). The
    session is created on first use (an ingest with nothing new never starts Spark).
    """

    def __init__(self, spark: Any = None, *, bucket_events: int | None = None) -> None:
        self._spark = spark
        env = os.environ.get("PAIJU_SPARK_BUCKET_EVENTS", "")
        self.bucket_events = bucket_events or (int(env) if env.isdigit() and int(env) > 0 else BUCKET_EVENTS)
        self.buckets = 0

    @property
    def spark(self) -> Any:
        if self._spark is None:
            from engine.sim.spark import get_session

            self._spark = get_session(app="paiju-ingest")
        return self._spark

    def __call__(self, touched: Path, stage: Path) -> tuple[int, dict[str, int]]:
        from pyspark.sql import functions as F
        from pyspark.sql.pandas.types import from_arrow_schema

        spark = self.spark
        self.buckets = buckets_for(pq.ParquetFile(touched).metadata.num_rows, self.bucket_events)
        parts = max(1, min(self.buckets, 3 * spark.sparkContext.defaultParallelism))
        events = spark.read.parquet(_uri(touched)).select("match_id", "seq", "line", "code", "message")
        bucketed = events.withColumn("bucket", F.pmod(F.xxhash64("match_id"), F.lit(self.buckets)))
        rows = bucketed.repartition(parts, "bucket").groupBy("bucket").applyInArrow(
            bucket_rows, from_arrow_schema(wide_schema())
        )
        out = stage / "spark"
        try:
            rows.write.mode("overwrite").partitionBy("table").parquet(_uri(out))
        except Exception as e:
            raise _replay_error(e) from None
        try:
            return self._stage(out, stage / "build")
        finally:
            shutil.rmtree(out, ignore_errors=True)

    @staticmethod
    def _stage(out: Path, build: Path) -> tuple[int, dict[str, int]]:
        """Each table's columns from Spark's output, cast to the lake schema, into build/<table>/."""
        import pyarrow.dataset as ds

        statuses: Counter[str] = Counter()
        for name in BUILT:
            src = out / f"table={name}"
            if not src.exists():
                continue
            schema = schemas()[name]
            dest = build / name / "spark-000000.parquet"
            dest.parent.mkdir(parents=True, exist_ok=True)
            # no statistics: DuckDB's merge marks a column NOT NULL when ONE input file's statistics
            # say it has no nulls, so the published schema would depend on the number of files
            with pq.ParquetWriter(dest, schema, write_statistics=False, **PARQUET_OPTS) as w:
                for rb in ds.dataset(src, format="parquet").to_batches(columns=schema.names):
                    t = pa.Table.from_batches([rb]).cast(schema)
                    if name == "matches":
                        statuses.update(t.column("status").to_pylist())
                    w.write_table(t)
        return sum(statuses.values()), dict(statuses)


def _replay_error(e: BaseException) -> SparkReplayError:
    from engine.sim.spark import spark_error_text

    text = str(e)
    m = _FAILED.search(text)
    if m:
        ids = json.loads(m.group(1))
        shown = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
        reason = text[m.end():].split("\n", 1)[0].lstrip(": ").strip()
        return SparkReplayError(f"spark replay failed for match ids {shown}: {reason}", ids)
    return SparkReplayError(f"spark replay failed: {spark_error_text(e)}", [])


def register_lake(spark: Any, lake: str | Path) -> dict[str, Any]:
    """Spark SQL over a lake: one temporary view per table over the manifest's published files.

    The events view gets `game` and `date` back from the hive partition folders. Returns the
    DataFrames by table name (empty tables are empty DataFrames with the lake's schema).
    """
    from pyspark.sql.pandas.types import from_arrow_schema

    from ingest import store
    from ingest.schema import TABLES

    root = Path(lake).resolve()
    m = store.read_manifest(root)
    out: dict[str, Any] = {}
    for t in TABLES:
        files = [_uri(root / f) for f in m.tables.get(t, [])]
        schema = schemas()[t]
        typed = from_arrow_schema(schema)  # also keeps `date` a string (no partition type inference)
        if not files:
            df = spark.createDataFrame([], typed)
        elif t == "events":
            df = spark.read.schema(typed).option("basePath", _uri(root / "events")).parquet(*files)
        else:
            df = spark.read.schema(typed).parquet(*files)
        df = df.select(*schema.names)
        df.createOrReplaceTempView(t)
        out[t] = df
    return out
