"""The simulator on Spark (`paiju simulate --engine spark`) and the one Spark session helper.

Optional extra `dist` (pyspark ≥ 4.0 and a Java 17+ runtime). Nothing here imports pyspark at
module import time: `require_spark()` checks both and raises `SparkUnavailable` with a one-line
reason the CLI prints (exit 2).

Simulation: the same per-batch function as the local process pool (`engine.sim.simulate._batch`:
matches [start, stop) of (game, rules, seed), each from its own generator seeded from
(seed, game, index)) runs in `DataFrame.mapInArrow` over a `spark.range` of batch numbers. Match i
is the same whatever executor plays it, and the driver writes the matches in index order (it
checks the order) with the same writer as the local engine (`open_output`), so the file is
byte-identical to `--engine local`. The executors do the work; the driver streams the output one
partition at a time (`toLocalIterator`), so its memory does not grow with the lab.

Session: `get_session()` builds (or reuses) the active session. The master is, in order: the
`master` argument, the `SPARK_MASTER` environment variable, spark-submit's `--master` (its
configuration is left alone), else `local[*]`. In local mode the Python workers run this interpreter
(`PYSPARK_PYTHON` defaults to `sys.executable`); on a cluster every executor needs paiju and its
dependencies installed (docs/scale-out.md).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from engine.sim.simulate import SimulationError, _batch, write_lines

BATCH = 50
"""Matches per `_batch` call (the local engine's default batch, same unit of work)."""
MAX_BATCHES_PER_PARTITION = 40
"""Bounds what the driver holds at a time: at most 40 × 50 matches per partition."""


class SparkUnavailable(RuntimeError):
    """pyspark or a Java runtime is missing (the message says which and how to install it)."""


def java_available() -> bool:
    """A Java runtime Spark can start: `$JAVA_HOME/bin/java` or `java` on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "java"), os.X_OK):
        return True
    return shutil.which("java") is not None


def require_spark() -> None:
    """Raise `SparkUnavailable` unless pyspark (≥ 4.0) imports and a Java runtime is present."""
    try:
        import pyspark
    except ImportError:
        raise SparkUnavailable("the spark engine needs pyspark: pip install 'paiju[dist]'") from None
    major = int(pyspark.__version__.split(".")[0])
    if major < 4:
        raise SparkUnavailable(f"the spark engine needs pyspark >= 4.0 (applyInArrow), found {pyspark.__version__}")
    if not os.environ.get("SPARK_REMOTE") and not java_available():
        raise SparkUnavailable(
            "the spark engine needs a Java 17+ runtime (none on PATH, JAVA_HOME unset): "
            "apt-get install default-jre-headless"
        )


def _is_local(master: str) -> bool:
    return master.startswith("local")


def get_session(master: str | None = None, app: str = "paiju") -> Any:
    """The active SparkSession, or a new one (see the module docstring for the master)."""
    require_spark()
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active
    master = master or os.environ.get("SPARK_MASTER")
    if master is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        master = "local[*]"  # not under spark-submit (whose --master and --conf then rule)
    b = SparkSession.builder.appName(app).config("spark.ui.showConsoleProgress", "false")
    if master is not None:
        b = b.master(master)
    if master is not None and _is_local(master):  # a small, quiet, private session
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the workers run this interpreter
        b = (b.config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "8")
             .config("spark.driver.memory", os.environ.get("PAIJU_SPARK_DRIVER_MEMORY", "1g"))
             .config("spark.python.worker.reuse", "true"))  # fmt: skip
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel(os.environ.get("PAIJU_SPARK_LOG_LEVEL", "ERROR"))
    return spark


def spark_error_text(e: BaseException) -> str:
    """The useful line of a Spark/Py4J error: the Python exception raised in a task, if any."""
    text = str(e)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for marker in ("SimulationError:", "ReplayFailed:", "Error:", "Exception:"):
        for ln in reversed(lines):
            if marker in ln and not ln.startswith(("at ", "File ")):
                return ln
    return lines[0] if lines else type(e).__name__


def _partitions(jobs: int, parallelism: int) -> int:
    return max(1, min(jobs, max(parallelism * 2, -(-jobs // MAX_BATCHES_PER_PARTITION))))


def simulate_lines_spark(
    game_id: str,
    rules: Mapping[str, Any] | None,
    matches: int,
    seed: int,
    *,
    players: int | None = None,
    batch: int = BATCH,
    spark: Any = None,
) -> Iterator[str]:
    """Each match's JSON Lines text in index order, like `simulate_lines`, played on Spark."""
    import pyarrow as pa

    spark = spark or get_session()
    r = dict(rules or {})
    jobs = -(-matches // batch)
    parts = _partitions(jobs, spark.sparkContext.defaultParallelism)

    def play(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for rb in batches:
            for j in rb.column(0).to_pylist():
                start = j * batch
                texts = _batch((game_id, r, seed, start, min(start + batch, matches), players))
                yield pa.RecordBatch.from_arrays(
                    [pa.array(range(start, start + len(texts)), pa.int64()), pa.array(texts, pa.string())],
                    names=["i", "text"],
                )

    df = spark.range(0, jobs, 1, parts).mapInArrow(play, "i long, text string")
    expected = 0
    try:
        for row in df.toLocalIterator(prefetchPartitions=True):
            if row.i != expected:  # never expected: partitions of a range come back in order
                raise SimulationError(f"spark returned match {row.i} where match {expected} was due")
            expected += 1
            yield row.text
    except SimulationError:
        raise
    except Exception as e:  # a task failed: the bot's error names the match
        raise SimulationError(f"spark: {spark_error_text(e)}") from None
    if expected != matches:
        raise SimulationError(f"spark returned {expected} matches, {matches} were asked for")


def write_simulation_spark(
    path: str,
    game_id: str,
    rules: Mapping[str, Any] | None,
    matches: int,
    seed: int,
    *,
    on_match: Callable[[int], None] | None = None,
    spark: Any = None,
) -> tuple[int, int]:
    """`write_simulation` with the matches played on Spark: same bytes, same atomic rename."""
    spark = spark or get_session()
    return write_lines(path, simulate_lines_spark(game_id, rules, matches, seed, spark=spark), on_match)
