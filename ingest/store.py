"""The lake on disk: manifest, lock, staging and atomic publication (architecture.md "The lake").

A table is exactly the Parquet files the manifest (`manifest.json`) lists; nothing else in the
folder counts. An ingest writes every new file under `.staging/<run>/`, renames them into place,
then swaps the manifest with `os.replace` (the one atomic step), then deletes the files the new
manifest no longer lists. A run killed at any point leaves either the old or the new manifest;
the next run (under the lock) deletes every file the manifest does not list, so the lake is
exactly what one clean run would have left. Readers (analytics.lake) read the manifest, so they
never see a half-published ingest and never take a lock.

Two ingests at once serialise on `.lock` (an `flock`, released by the kernel when a process dies).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingest.schema import TABLES

MANIFEST = "manifest.json"
CATALOG = "catalog.duckdb"
LOCK = ".lock"
STAGING = ".staging"
RAW = "raw"
RETIRE_GRACE_S = 1.0
"""How long replaced files outlive the manifest that dropped them, so that a reader which read the
previous manifest can still open them; a reader must open its files within this time (the
dashboard reopens per generation), or reopen on "No files found"."""


class LakeBusy(RuntimeError):
    """Another ingest holds the lake's lock."""


@dataclass
class Manifest:
    """What the lake holds: per table its Parquet files (relative paths), and the received files."""

    generation: int = 0
    tables: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in TABLES})
    raw: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(
            {"generation": self.generation, "tables": {t: sorted(v) for t, v in self.tables.items()}, "raw": dict(sorted(self.raw.items()))},
            indent=1,
        )

    @staticmethod
    def from_json(text: str) -> Manifest:
        d = json.loads(text)
        tables = {t: list(d.get("tables", {}).get(t, [])) for t in TABLES}
        return Manifest(int(d.get("generation", 0)), tables, dict(d.get("raw", {})))


def read_manifest(lake: str | Path) -> Manifest:
    """The published manifest (an empty one for a new lake)."""
    p = Path(lake) / MANIFEST
    try:
        return Manifest.from_json(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Manifest()


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_manifest(lake: Path, m: Manifest) -> None:
    """Publish a manifest atomically (temporary file, fsync, os.replace)."""
    tmp = lake / f".{MANIFEST}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(m.to_json())
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, lake / MANIFEST)
    _fsync_dir(lake)


@contextlib.contextmanager
def locked(lake: Path, wait: bool = True, on_wait: Any = None) -> Iterator[None]:
    """Hold the lake's lock; wait for it (calling `on_wait(pid)` once) or raise LakeBusy."""
    lake.mkdir(parents=True, exist_ok=True)
    fd = os.open(lake / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    held = False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            if not wait:
                raise LakeBusy(f"another ingest (pid {holder}) is writing to {lake}; try again when it ends") from None
            if on_wait is not None:
                on_wait(holder)
            fcntl.flock(fd, fcntl.LOCK_EX)
        held = True
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        if held:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
        os.close(fd)


def recover(lake: Path) -> int:
    """Delete what an interrupted run left: staging, and every data file the manifest does not list.

    Call only while holding the lock. Returns how many files were removed.
    """
    m = read_manifest(lake)
    removed = 0
    staging = lake / STAGING
    if staging.exists():
        shutil.rmtree(staging, ignore_errors=True)
        removed += 1
    listed = {p for files in m.tables.values() for p in files}
    for t in TABLES:
        root = lake / t
        if not root.exists():
            continue
        for p in sorted(root.rglob("*"), reverse=True):
            rel = p.relative_to(lake).as_posix()
            if p.is_file() and rel not in listed:
                p.unlink()
                removed += 1
            elif p.is_dir() and not any(p.iterdir()):
                p.rmdir()
    raw = lake / RAW
    if raw.exists():
        for p in raw.iterdir():
            if p.name not in m.raw:
                p.unlink()
                removed += 1
    tmp = lake / f".{MANIFEST}.tmp"
    if tmp.exists():
        tmp.unlink()
    return removed


def new_staging(lake: Path) -> Path:
    d = lake / STAGING / f"run-{os.getpid()}-{time.time_ns()}"
    d.mkdir(parents=True)
    return d


def publish(lake: Path, old: Manifest, staged: dict[str, list[tuple[Path, str]]], replaced: dict[str, list[str]],
            raw: dict[str, tuple[Path, str]]) -> Manifest:  # fmt: skip
    """Move staged files into place, swap the manifest, then drop the files it no longer lists.

    `staged[table]` = [(staged path, relative destination)]; `replaced[table]` = relative paths
    leaving the table; `raw[sha]` = (staged copy, original file name).
    """
    new = Manifest(old.generation + 1, {t: list(v) for t, v in old.tables.items()}, dict(old.raw))
    (lake / RAW).mkdir(exist_ok=True)
    for sha, (src, name) in raw.items():
        dest = lake / RAW / sha
        if not dest.exists():
            os.replace(src, dest)
        new.raw[sha] = name
    for table, files in staged.items():
        for src, rel in files:
            dest = lake / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(src, dest)
            new.tables[table].append(rel)
    for table, rels in replaced.items():
        gone = set(rels)
        new.tables[table] = [p for p in new.tables[table] if p not in gone]
    write_manifest(lake, new)
    if any(replaced.values()):
        # a reader that read the old manifest an instant ago is still opening its files: give it
        # time before they go (tests/test_reliability_lake.py, readers during an ingest)
        time.sleep(retire_grace())
    for rels in replaced.values():
        for rel in rels:
            with contextlib.suppress(FileNotFoundError):
                (lake / rel).unlink()
    return new


def retire_grace() -> float:
    """Seconds between publishing a manifest and deleting the files it replaced (env PAIJU_LAKE_GRACE)."""
    try:
        return max(0.0, float(os.environ.get("PAIJU_LAKE_GRACE", RETIRE_GRACE_S)))
    except ValueError:
        return RETIRE_GRACE_S


def table_files(lake: Path, m: Manifest, table: str) -> list[str]:
    """Absolute paths of a table's published files."""
    return [str(lake / p) for p in m.tables.get(table, [])]


_DUCK_TYPES = {"string": "VARCHAR", "int8": "TINYINT", "int16": "SMALLINT", "int32": "INTEGER",
               "int64": "BIGINT", "bool": "BOOLEAN"}  # fmt: skip


def _duck_type(t: Any) -> str:
    import pyarrow as pa

    if pa.types.is_list(t):
        return _duck_type(t.value_type) + "[]"
    return _DUCK_TYPES[str(t)]


def empty_select(schema: Any) -> str:
    """A SELECT with the schema's columns and types and no rows."""
    cols = ", ".join(f"NULL::{_duck_type(f.type)} AS {f.name}" for f in schema)
    return f"SELECT {cols} WHERE false"


def _lit(path: str) -> str:
    return "'" + path.replace("'", "''") + "'"


def view_sql(lake: Path, m: Manifest, table: str) -> str:
    """The SELECT behind a table's view: its published files with the schema's column order."""
    from ingest.schema import schemas

    schema = schemas()[table]
    files = table_files(lake, m, table)
    if not files:
        return empty_select(schema)
    cols = ", ".join(schema.names)
    listing = "[" + ", ".join(_lit(f) for f in files) + "]"
    if table == "events":
        src = f"read_parquet({listing}, hive_partitioning = true, hive_types = {{'game': VARCHAR, 'date': VARCHAR}})"
    else:
        src = f"read_parquet({listing})"
    return f"SELECT {cols} FROM {src}"


def write_catalog(lake: Path, m: Manifest) -> None:
    """`catalog.duckdb`: one view per table over the published files (for the DuckDB shell and
    other tools; paiju's readers build the same views in memory and never open this file)."""
    import duckdb

    tmp = lake / f".{CATALOG}.tmp"
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    con = duckdb.connect(str(tmp))
    try:
        for t in TABLES:
            con.execute(f"CREATE OR REPLACE VIEW {t} AS {view_sql(lake.resolve(), m, t)}")
    finally:
        con.close()
    os.replace(tmp, lake / CATALOG)
