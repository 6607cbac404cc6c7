"""The one way to open a lake for reading: an in-memory DuckDB connection with one view per table.

The views list exactly the Parquet files of the published manifest (ingest.store), so a reader
never sees a half-written ingest, never takes a lock, and never blocks a writer. A lake that does
not exist yet opens as empty tables with their typed columns. A lake whose listed files are
missing or cut short is refused with one line (`ingest.store.LakeError`: exit 2, "run paiju
verify") instead of a DuckDB error at the first query (issue 21).

    con = open_lake("lake")
    con.execute("SELECT game, count(*) FROM matches GROUP BY game").df()
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ingest.schema import TABLES
from ingest.store import LakeError, check_readable, read_manifest, view_sql


def open_lake(lake: str | Path = "lake", *, threads: int | None = None) -> Any:
    """An in-memory DuckDB connection with the views events, matches, seats, items, fans, rules,
    rejects, files over the lake's published Parquet files."""
    import duckdb

    root = Path(lake).resolve()
    m = _readable(root)
    con = duckdb.connect(":memory:")
    con.execute("SET enable_progress_bar = false")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    for t in TABLES:
        con.execute(f"CREATE VIEW {t} AS {view_sql(root, m, t)}")
    return con


def lake_generation(lake: str | Path = "lake") -> int:
    """The manifest's generation: changes whenever an ingest publishes (for caches)."""
    return read_manifest(Path(lake)).generation


def _readable(root: Path, tries: int = 3) -> Any:
    """The manifest once its files are all there; a check that fails while an ingest publishes
    (the manifest moved on meanwhile) is tried again."""
    for _ in range(tries - 1):
        gen = read_manifest(root).generation
        try:
            return check_readable(root)
        except LakeError:
            if read_manifest(root).generation == gen:
                raise
    return check_readable(root)
