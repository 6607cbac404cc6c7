"""`paiju rebuild [--lake DIR]`: every table rebuilt from raw/ alone (issue 21 §2).

The event log is the source of truth and every table a projection of it: the raw files are
ingested again, in the order the lake received them (`Manifest.received`), into empty tables,
by the same code as an ingest (`ingest.pipeline._run`), and published like one (journal, files,
manifest swap, catalog, then the old files retired). Since the first event at a
`(match_id, seq)` wins by arrival order, one run over every file in that order stores exactly
the events the incremental ingests stored, so the tables are row for row what they built
(tests/test_reliability_lake.py). raw/ is only read. Files in a table's folder that the manifest does not list are not deleted
(nothing proves who wrote them): they are moved to `.unlisted/gen-<generation>/`, keeping their path.

Exit status: 0 rebuilt; 2 the lake cannot be rebuilt (a raw file damaged: offer the original
again with `paiju ingest`; a disk full; the lake busy with `--no-wait`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

from ingest import store
from ingest.cli import add_lake_arguments
from ingest.integrity_tables import publish_tables as publish_integrity_tables
from ingest.pipeline import (
    BATCH_EVENTS,
    CHUNK_LINES,
    STAGED_FACTS,
    Summary,
    _Progress,
    _raw_whole,
    _Received,
    _run,
    run_in,
)


def _base(lake: Path) -> store.Manifest:
    """The manifest to rebuild from (as far as it can be read) plus every raw file it does not
    list whose bytes match its name (arrival order unknown: they come last, by name)."""
    try:
        m = store.read_manifest(lake)
    except (ValueError, TypeError, AttributeError, UnicodeDecodeError):
        m = store.Manifest()
    raw = lake / store.RAW
    extra = sorted(p.name for p in raw.iterdir() if p.is_file() and p.name not in m.raw) if raw.is_dir() else []
    for sha in extra:
        if len(sha) == 64 and _raw_whole(lake, sha):
            m.raw[sha] = sha
    m.received = m.order()
    return m


UNLISTED = ".unlisted"


def _set_aside(lake: Path, m: store.Manifest) -> int:
    """Move every unlisted file out of the table folders (kept under `.unlisted/`)."""
    n = 0
    for rel, _ in store.unlisted(lake, m):
        dest = lake / UNLISTED / f"gen-{m.generation}" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(lake / rel, dest)
        n += 1
    return n


def rebuild(lake: str | Path, *, workers: int = 2, wait: bool = True, progress: bool = False,
            chunk_lines: int = CHUNK_LINES, batch_events: int = BATCH_EVENTS) -> Summary:  # fmt: skip
    """Rebuild every table of `lake` from its raw files and publish the result atomically."""
    lake = Path(lake)
    if not (lake / store.MANIFEST).exists() and not (lake / store.RAW).is_dir():
        raise store.LakeError(f"no lake at {lake} (no {store.MANIFEST}, no raw/)")
    summary = Summary()
    with run_in(lake, summary, workers, wait) as (pool, stage):
        old = _base(lake)
        bad = [sha for sha in old.received if not _raw_whole(lake, sha)]
        if bad:
            raise store.LakeError(
                f"cannot rebuild the lake {lake}: raw/{bad[0][:16]}… ({old.raw[bad[0]]}) no longer matches its name"
                + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else "")
                + "; offer the original file again with 'paiju ingest', then rebuild"
            )
        received = [
            _Received(sha, old.raw[sha], os.path.getsize(lake / store.RAW / sha), lake / store.RAW / sha, i)
            for i, sha in enumerate(old.received)
        ]  # fmt: skip
        summary.set_aside = _set_aside(lake, old)
        staged: dict[str, list[tuple[Path, str]]] = {}
        if received:
            run_id = "b" + hashlib.sha256(json.dumps(["rebuild", old.generation, old.received]).encode()).hexdigest()[:11]
            with _Progress(progress) as prog:
                staged, _ = _run(received, lake, store.Manifest(old.generation), stage, pool, prog, summary, run_id,
                                 chunk_lines, batch_events, None, True)  # fmt: skip
        summary.files = len(received)
        summary.step = "publish"
        published = store.publish(lake, old, staged, {t: list(v) for t, v in old.tables.items() if v}, {})
        publish_integrity_tables(lake, published, None, stage / STAGED_FACTS)  # derived from the rebuilt tables, like an ingest's
    return summary


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_lake_arguments(p)
    p.add_argument("--no-wait", action="store_true", help="refuse instead of waiting when an ingest holds the lake")


def run(args: argparse.Namespace) -> int:
    from events.errors import UsageError

    try:
        s = rebuild(args.lake, workers=args.workers, wait=not args.no_wait, progress=not args.json and sys.stderr.isatty())
    except store.LakeBusy as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps(s.as_dict(), ensure_ascii=False))
    else:
        print(f"paiju rebuild: {args.lake} rebuilt from {s.files} raw files: {s.events} events, {s.matches} matches, "
              f"{s.rejected} rejected lines ({s.conflicts} conflicts)")  # fmt: skip
        if s.set_aside:
            print(f"paiju rebuild: {s.set_aside} files the manifest did not list were moved to {Path(args.lake) / UNLISTED}")
    return 0
