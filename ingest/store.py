"""The lake on disk: manifest, lock, staging and atomic publication (architecture.md "The lake").

A table is exactly the Parquet files the manifest (`manifest.json`) lists; nothing else in the
folder counts. An ingest writes every new file under `.staging/<run>/`, renames them into place,
then swaps the manifest with `os.replace` (the one atomic step), then deletes the files the new
manifest no longer lists. A run killed at any point leaves either the old or the new manifest;
the next run (under the lock) deletes every file the manifest does not list, so the lake is
exactly what one clean run would have left. Readers (analytics.lake) read the manifest, so they
never see a half-published ingest and never take a lock.

Before it moves a file into place, a run writes a journal (`.journal.json`: the generation it
will publish, the files it adds and the files it retires). Recovery deletes only what a journal
names: files a run added but never published, or retired but had not deleted yet. A file that
no journal names is never deleted, even when the manifest does not list it (issue 21: a manifest
missing an entry must not cost the files it forgot); `paiju verify` names such a file.

The manifest carries a digest of its own content (`digest`), so an edit to it is named by
`verify` and refused by `ingest`. `received` keeps the order in which raw files arrived, which is
all `paiju rebuild` needs besides raw/ to rebuild every table.

Two ingests at once serialise on `.lock` (an `flock`, released by the kernel when the last
holder of the open file dies; the ingest starts its workers before taking it, so no worker ever
holds it).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from events.errors import UsageError
from ingest.schema import TABLES

MANIFEST = "manifest.json"
CATALOG = "catalog.duckdb"
LOCK = ".lock"
STAGING = ".staging"
RAW = "raw"
JOURNAL = ".journal.json"
PARQUET_MAGIC = b"PAR1"
RETIRE_GRACE_S = 1.0
"""How long replaced files outlive the manifest that dropped them, so that a reader which read the
previous manifest can still open them; a reader must open its files within this time (the
dashboard reopens per generation), or reopen on "No files found"."""


class LakeBusy(RuntimeError):
    """Another ingest holds the lake's lock."""


class LakeError(UsageError):
    """The lake cannot be written or read as it is (exit 2, one line naming the lake)."""


def io_reason(e: BaseException) -> str:
    """The short reason of an I/O failure: the strerror of an OSError, else the first line."""
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    for known in ("No space left on device", "Read-only file system", "Permission denied", "Disk quota exceeded",
                  "File too large"):  # fmt: skip
        if known in str(e):
            return known
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return text[:200]


@dataclass
class Manifest:
    """What the lake holds: per table its Parquet files (relative paths), and the received files."""

    generation: int = 0
    tables: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in TABLES})
    raw: dict[str, str] = field(default_factory=dict)
    received: list[str] = field(default_factory=list)
    """SHA-256 of every raw file in the order the lake received them (what `rebuild` replays)."""

    def body(self) -> dict[str, Any]:
        return {"generation": self.generation, "tables": {t: sorted(v) for t, v in self.tables.items()},
                "raw": dict(sorted(self.raw.items())), "received": list(self.received)}  # fmt: skip

    def to_json(self) -> str:
        body = self.body()
        return json.dumps({**body, "digest": manifest_digest(body)}, indent=1)

    def order(self) -> list[str]:
        """Every raw file's SHA in arrival order (files a manifest of an older version did not
        order come last, by name)."""
        seen = [s for s in self.received if s in self.raw]
        return seen + sorted(set(self.raw) - set(seen))

    def files(self) -> dict[str, str]:
        """Every listed Parquet file (relative path) → its table."""
        return {p: t for t, v in self.tables.items() for p in v}

    @staticmethod
    def from_json(text: str) -> Manifest:
        d = json.loads(text)
        tables = {t: list(d.get("tables", {}).get(t, [])) for t in TABLES}
        return Manifest(int(d.get("generation", 0)), tables, dict(d.get("raw", {})), list(d.get("received", [])))


def manifest_digest(body: dict[str, Any]) -> str:
    """SHA-256 of a manifest's content (everything but `digest`) as sorted compact JSON."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def digest_problem(text: str) -> str | None:
    """Why a manifest's text is not what an ingest wrote (None when its digest holds)."""
    try:
        d = json.loads(text)
    except ValueError as e:
        return f"not JSON ({e})"
    if not isinstance(d, dict):
        return "not a JSON object"
    digest = d.pop("digest", None)
    if digest is None:
        return "it carries no digest (edited, or written by an older paiju)"
    try:
        body = Manifest.from_json(json.dumps(d)).body()
    except (TypeError, ValueError, AttributeError) as e:
        return f"malformed ({type(e).__name__}: {e})"
    known = {t: [] for t in TABLES}  # a table added since the manifest was written: listed empty
    if body != {**d, "tables": {**known, **d.get("tables", {})}} or manifest_digest(d) != digest:
        return "its content does not match its digest (the file was edited)"
    return None


def read_manifest(lake: str | Path) -> Manifest:
    """The published manifest (an empty one for a new lake)."""
    p = Path(lake) / MANIFEST
    try:
        return Manifest.from_json(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Manifest()


def damage(lake: Path, m: Manifest) -> list[str]:
    """Cheap checks that every listed file is there and ends like Parquet (no content read)."""
    out = []
    for rel in sorted(m.files()):
        p = lake / rel
        try:
            size = p.stat().st_size
            with open(p, "rb") as f:
                f.seek(max(0, size - 4))
                tail = f.read(4)
        except FileNotFoundError:
            out.append(f"{rel} is missing")
            continue
        except OSError as e:
            out.append(f"{rel}: {io_reason(e)}")
            continue
        if size < 12 or tail != PARQUET_MAGIC:
            out.append(f"{rel} is not whole Parquet ({size} bytes)")
    return out


def unlisted(lake: Path, m: Manifest) -> list[tuple[str, str]]:
    """(relative path, table) of every file in a table's folder that the manifest does not list."""
    listed = set(m.files())
    out = []
    for t in TABLES:
        root = lake / t
        if root.is_dir():
            for p in sorted(root.rglob("*")):
                rel = p.relative_to(lake).as_posix()
                if p.is_file() and rel not in listed:
                    out.append((rel, t))
    return out


def check_readable(lake: Path) -> Manifest:
    """The manifest, or LakeError when the lake is damaged so that reading it would fail."""
    try:
        text = (lake / MANIFEST).read_text(encoding="utf-8")
    except FileNotFoundError:
        return Manifest()
    except (OSError, UnicodeDecodeError) as e:
        raise LakeError(f"cannot read the lake {lake}: {MANIFEST}: {io_reason(e)}") from None
    try:
        m = Manifest.from_json(text)
    except (ValueError, TypeError, AttributeError):
        raise LakeError(f"the lake {lake} is damaged: {MANIFEST} is not a manifest; run 'paiju verify --lake {lake}'") from None
    bad = damage(lake, m)
    if bad:
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        raise LakeError(f"the lake {lake} is damaged: {bad[0]}{more}; run 'paiju verify --lake {lake}', "
                        f"then 'paiju rebuild --lake {lake}'")  # fmt: skip
    return m


def fsync_path(path: Path) -> None:
    """fsync a file or a folder by path (a file another process writes, a folder after a rename);
    a path that is gone or cannot be opened is skipped."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_manifest(lake: Path, m: Manifest) -> None:
    """Publish a manifest atomically (temporary file, fsync, os.replace)."""
    tmp = lake / f".{MANIFEST}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(m.to_json())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, lake / MANIFEST)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_path(lake)


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
    """Undo what an interrupted run left: its staging folder, and the files its journal names.

    Call only while holding the lock. A run that did not swap the manifest loses the files it
    added; a run that did swap it loses the files it retired. Nothing a journal does not name
    is deleted. Returns how many files were removed.
    """
    removed = 0
    staging = lake / STAGING
    if staging.exists():
        shutil.rmtree(staging, ignore_errors=True)
        removed += 1
    tmp = lake / f".{MANIFEST}.tmp"
    if tmp.exists():
        tmp.unlink()
    j = read_journal(lake)
    if j is not None:
        m = read_manifest(lake)
        listed = set(m.files())
        if m.generation >= j["generation"]:
            gone = [rel for rel in j.get("retired", []) if rel not in listed]
        else:
            gone = [rel for rel in j.get("added", []) if rel not in listed]
            gone += [f"{RAW}/{sha}" for sha in j.get("raw", []) if sha not in m.raw]
        for rel in gone:
            p = lake / rel
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
                removed += 1
            _prune(lake, p.parent)
        (lake / JOURNAL).unlink()
        fsync_path(lake)
    return removed


def _prune(lake: Path, d: Path) -> None:
    """Remove empty folders from d up to (not including) the table folder."""
    while d != lake and d.parent != lake:
        try:
            d.rmdir()
        except OSError:
            return
        d = d.parent


def read_journal(lake: Path) -> dict[str, Any] | None:
    try:
        d = json.loads((lake / JOURNAL).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):  # a journal half-written: the run moved nothing yet (fsync order)
        with contextlib.suppress(OSError):
            (lake / JOURNAL).unlink()
        return None
    return d if isinstance(d, dict) and isinstance(d.get("generation"), int) else None


def _write_json(path: Path, text: str) -> None:
    """Write text to path atomically (temporary file, fsync, os.replace, fsync of the folder)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_path(path.parent)


def new_staging(lake: Path) -> Path:
    d = lake / STAGING / f"run-{os.getpid()}-{time.time_ns()}"
    d.mkdir(parents=True)
    return d


def publish(lake: Path, old: Manifest, staged: dict[str, list[tuple[Path, str]]], replaced: dict[str, list[str]],
            raw: dict[str, tuple[Path, str]]) -> Manifest:  # fmt: skip
    """Journal, move staged files into place, swap the manifest, rewrite the catalog, then drop
    the files the new manifest no longer lists (after the grace period).

    `staged[table]` = [(staged path, relative destination)]; `replaced[table]` = relative paths
    leaving the table; `raw[sha]` = (staged copy, original file name), in arrival order. A
    failure before the swap undoes every move (the lake is as it was) and re-raises.
    """
    new = Manifest(old.generation + 1, {t: list(v) for t, v in old.tables.items()}, dict(old.raw), list(old.received))
    added = [rel for files in staged.values() for _, rel in files]
    new_raw = [sha for sha in raw if sha not in old.raw]
    retired = sorted({rel for rels in replaced.values() for rel in rels})
    _write_json(lake / JOURNAL, json.dumps({"generation": new.generation, "added": added, "raw": new_raw,
                                            "retired": retired}))  # fmt: skip
    moved: list[Path] = []
    try:
        (lake / RAW).mkdir(exist_ok=True)
        for sha, (src, name) in raw.items():
            dest = lake / RAW / sha
            os.replace(src, dest)  # a stored sha offered again: its damaged copy repaired
            if sha not in old.raw:
                moved.append(dest)
                new.received.append(sha)
                new.raw[sha] = name
        for table, files in staged.items():
            for src, rel in files:
                dest = lake / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.replace(src, dest)
                moved.append(dest)
                new.tables[table].append(rel)
        for table, rels in replaced.items():
            gone = set(rels)
            new.tables[table] = [p for p in new.tables[table] if p not in gone]
        write_manifest(lake, new)
    except BaseException:
        for p in moved:  # the manifest still lists none of them
            with contextlib.suppress(OSError):
                p.unlink()
            _prune(lake, p.parent)
        with contextlib.suppress(OSError):
            (lake / JOURNAL).unlink()
        raise
    # readers of the catalog must never see a missing file: it moves to the new files first
    with contextlib.suppress(Exception):  # a convenience; the manifest is the truth (stale → rebuilt)
        write_catalog(lake, new)
    if retired:
        # a reader that read the old manifest an instant ago is still opening its files: give it
        # time before they go (tests/test_reliability_lake.py, readers during an ingest)
        time.sleep(retire_grace())
    for rel in retired:
        with contextlib.suppress(FileNotFoundError):
            (lake / rel).unlink()
        _prune(lake, (lake / rel).parent)
    with contextlib.suppress(FileNotFoundError):
        (lake / JOURNAL).unlink()
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


def view_sql(lake: Path | None, m: Manifest, table: str) -> str:
    """The SELECT behind a table's view: its published files with the schema's column order
    (absolute paths under `lake`, or paths relative to the lake when `lake` is None)."""
    from ingest.schema import schemas

    schema = schemas()[table]
    files = table_files(lake, m, table) if lake is not None else list(m.tables.get(table, []))
    if not files:
        return empty_select(schema)
    cols = ", ".join(schema.names)
    listing = "[" + ", ".join(_lit(f) for f in files) + "]"
    if table == "events":
        src = f"read_parquet({listing}, hive_partitioning = true, hive_types = {{'game': VARCHAR, 'date': VARCHAR}})"
    else:
        src = f"read_parquet({listing})"
    return f"SELECT {cols} FROM {src}"


CATALOG_INFO = "paiju_lake"
"""The catalog's one table: the generation and digest of the manifest its views were built from."""


def write_catalog(lake: Path, m: Manifest) -> None:
    """`catalog.duckdb`: one view per table over the published files, by paths relative to the
    lake, so a copied lake reads its own files (open it from the lake folder, or
    `SET file_search_path` to it). paiju's readers build the same views in memory and never
    open this file."""
    import duckdb

    tmp = lake / f".{CATALOG}.tmp"
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    con = duckdb.connect(str(tmp))
    try:
        con.execute("SET file_search_path = ?", [str(lake.resolve())])  # views are bound when created
        for t in TABLES:
            con.execute(f"CREATE OR REPLACE VIEW {t} AS {view_sql(None, m, t)}")
        con.execute(f"CREATE TABLE {CATALOG_INFO} (generation BIGINT, digest VARCHAR)")
        con.execute(f"INSERT INTO {CATALOG_INFO} VALUES (?, ?)", [m.generation, manifest_digest(m.body())])
    finally:
        con.close()
    os.replace(tmp, lake / CATALOG)


def catalog_generation(lake: Path) -> tuple[int, str] | None:
    """(generation, digest) the catalog was built for; None when missing or unreadable."""
    import duckdb

    if not (lake / CATALOG).is_file():
        return None
    try:
        con = duckdb.connect(str(lake / CATALOG), read_only=True)
    except duckdb.Error:
        return None
    try:
        row = con.execute(f"SELECT generation, digest FROM {CATALOG_INFO}").fetchone()
    except duckdb.Error:
        return None
    finally:
        con.close()
    return (int(row[0]), str(row[1])) if row else None


def refresh_catalog(lake: Path, m: Manifest) -> bool:
    """Rewrite the catalog when it is missing or was built for another manifest; True if rewritten."""
    if catalog_generation(lake) == (m.generation, manifest_digest(m.body())):
        return False
    write_catalog(lake, m)
    return True
