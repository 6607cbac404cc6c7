"""The local ingest: files → raw/ → events → replay → tables, published atomically.

Steps (all under the lake's lock, all new files written under `.staging/` first):
1. receive: every readable file is hashed (SHA-256) and copied byte for byte to raw/; a file
   whose hash the lake already holds is skipped (idempotent re-ingest);
2. parse: the files' lines, in chunks, go to a process pool (`ingest.parse.parse_chunk`);
   each worker writes its events and refused lines as Parquet, and replays at once every match
   the chunk holds whole (speculative replay, `_speculate`: it stands only if the merge below
   finds that the chunk held exactly the match's stored events);
3. store: DuckDB merges the new events with the stored events of the same matches: the first
   event at a `(match_id, seq)` wins (stored before new, then file and line order); an identical
   re-send is a no-op, a different event is a `conflict` that goes to `rejects` with the reason
   (events.md §5); accepted events are written as hive-partitioned segments (`game=`, `date=`);
4. replay: every other match that received an event is replayed with ALL its stored events, in
   batches, by the pure `ingest.tables.build_tables` in the pool; a match replayed before has
   its old rows dropped (the files holding them are rewritten without them);
5. publish: journal written, files renamed into place, manifest swapped, catalog rewritten, then
   the replaced files removed (`ingest.store.publish`).

Failures (issue 21): the worker processes start before the lake's lock is taken (none of them
holds it) and die with the main process; a worker that dies ends the run with one line and
nothing published; any I/O failure on the lake's side (a full disk, a read-only lake) ends in a
`LakeError` naming the lake, with the previous state intact. A raw file whose bytes no longer
match its name is replaced when the original is offered again. A lake whose listed files are
missing or cut short, or whose manifest was edited, is refused (`paiju verify` says what,
`paiju rebuild` repairs).

Memory stays bounded: lines travel in fixed-size chunks with a bounded number in flight, the
merge runs in DuckDB (which spills), and replay batches are read back from Parquet.
Lines refused at parse time are not events (they go to `rejects`); one whose text names its match
and a seq that no stored event holds is charged to that match at that seq, as `paiju replay`
charges it (issue 17): the match replays `invalid` with the line's own error until an event at
that seq arrives in a later file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from engine.procs import worker_init
from engine.replay import SAME_EVENT_SQL, Entry
from events import chain
from events.models import AnyEvent
from ingest import store
from ingest.integrity_tables import publish_tables as publish_integrity_tables
from ingest.parse import NO_DATE, UNKNOWN_GAME, Line, parse_chunk_events, split_lines
from ingest.schema import BUILT, DERIVED, KEYS, schemas
from ingest.tables import FACTS, build_rows, build_tables, charged_sql

CHUNK_LINES = 5000
Replayer = Callable[[Path, Path], tuple[int, dict[str, int]]]
BATCH_EVENTS = 5000
MEMORY_LIMIT = "512MB"
"""DuckDB's budget for the merge; beyond it DuckDB spills to the staging folder (bounded memory)."""
PARQUET_OPTS: dict[str, Any] = {"compression": "zstd"}
STAGE_OPTS: dict[str, Any] = {"compression": "lz4", "use_dictionary": False}
"""The workers' own Parquet files (`parsed/`, `prejects/`, `spec/`, `build/`: read once by DuckDB
in the stage, never published): LZ4 without dictionaries, for about 1 µs less CPU an event in the
parse step than zstd with dictionaries (3.4 → 2.4 µs: every `line`, `canon` and `hash` is distinct,
so a dictionary is built for nothing), the stage about twice as large (issue 22). The published
files are DuckDB's own copies, written with zstd."""


@dataclass
class Summary:
    """What one ingest did (printed at the end, returned to tests)."""

    files: int = 0
    skipped: int = 0
    unreadable: list[str] = field(default_factory=list)
    lines: int = 0
    events: int = 0
    duplicates: int = 0
    rejected: int = 0
    conflicts: int = 0
    matches: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    replaced_files: int = 0
    speculative: int = 0
    """Matches replayed in the parse step whose replay stood (`_speculate`); the rest of
    `matches` were replayed after the merge."""
    seconds: dict[str, float] = field(default_factory=dict)
    """Wall time of each step: receive, parse, store, replay, publish."""
    repaired: dict[str, tuple[Path, str]] = field(default_factory=dict)
    """Stored raw files whose bytes no longer matched their name, replaced by this run's copy."""
    set_aside: int = 0
    """(rebuild) unlisted files moved out of the table folders."""
    room_findings: list[str] = field(default_factory=list)
    """The findings of the matches whose room check this run redid (`Finding.line`, ingest.rooms)."""
    room_replayed: int = 0
    """Matches replayed for the room check (the rechecked ones and the match before each)."""
    step: str = "open"
    """The step running (a key of `STEPS`): what a failure message names."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": self.files, "skipped": self.skipped, "unreadable": self.unreadable, "lines": self.lines,
            "events": self.events, "duplicates": self.duplicates, "rejected": self.rejected,
            "conflicts": self.conflicts, "matches": self.matches, "speculative": self.speculative,
            "statuses": dict(self.statuses), "repaired": sorted(self.repaired),
            "room_findings": self.room_findings, "room_replayed": self.room_replayed,
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
        }  # fmt: skip


class _Inline(Executor):
    """A synchronous executor (workers=0): same code path, no processes."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        f: Future[Any] = Future()
        try:
            f.set_result(fn(*args, **kwargs))
        except BaseException as e:
            f.set_exception(e)
        return f


# ------------------------------------------------------------------ worker jobs (module level: picklable)


def _write(table: pa.Table, path: Path, opts: dict[str, Any] = PARQUET_OPTS) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, **opts)


def parse_job(file_sha: str, file_name: str, file_idx: int, chunk: int, lines: list[Line], out: str,
              speculate: bool = False) -> tuple[int, int, int]:  # fmt: skip
    """Parse a chunk of lines; write `parsed/` and `prejects/` Parquet; return (lines, events, rejects).

    With `speculate`, every match whose events in this chunk are seq 0..k without a gap or a
    repeat is also replayed here, from the events just parsed (see `_speculate`).
    """
    with chain.remembering():  # canonical JSON once per event, for `canon` and the chain link
        events, rejects, parsed = parse_chunk_events(file_sha, file_name, lines)
        if speculate and parsed:
            _speculate(parsed, Path(out), f"{file_idx:06d}-{chunk:07d}.parquet", spec_key(file_idx, chunk))
    base = Path(out)
    name = f"{file_idx:06d}-{chunk:07d}.parquet"
    if events.num_rows:
        n = events.num_rows
        events = events.append_column("file_idx", pa.array([file_idx] * n, pa.int32()))
        events = events.append_column("chunk", pa.array([chunk] * n, pa.int32()))
        _write(events, base / "parsed" / name, STAGE_OPTS)
    if rejects.num_rows:
        _write(rejects, base / "prejects" / name, STAGE_OPTS)
    n_lines = sum(1 for _, raw, msg in lines if raw is not None or (msg or "").startswith("line of"))
    return n_lines, events.num_rows, rejects.num_rows


def spec_key(file_idx: int, chunk: int) -> int:
    """One number naming a parse chunk (file index, chunk number)."""
    return file_idx * 10_000_000 + chunk


def _speculate(parsed: list[AnyEvent], base: Path, name: str, key: int) -> None:
    """Replay, in the parse worker, the matches this chunk holds whole (speculative replay).

    Most logs hold each match's events together, so most matches arrive whole in one chunk:
    replaying them here, from the events already parsed and validated, saves reading every line
    back from Parquet and decoding it a second time. Whether the chunk really held ALL of a
    match's stored events is only known after the merge with the lake (`_store_events`); the
    main process keeps a speculative row only when the match's accepted events are exactly the
    ones replayed here (`_SPEC_OK`), and replays every other touched match as before.
    Rows go to `spec/<table>/` with the chunk's `spec_key`; `spec/keys/` lists (match_id,
    spec_key, events).
    """
    by_match: dict[str, list[AnyEvent]] = {}
    for ev in parsed:
        by_match.setdefault(ev.match_id, []).append(ev)
    whole: list[tuple[str, list[Entry]]] = []
    for match_id in sorted(by_match):
        evs = by_match[match_id]
        seqs = sorted(e.seq for e in evs)
        if seqs[0] == 0 and seqs[-1] == len(seqs) - 1 and len(set(seqs)) == len(seqs):
            whole.append((match_id, sorted(evs, key=lambda e: e.seq)))
    if not whole:
        return
    tables = build_rows(whole, facts=True)
    tables["keys"] = pa.table({"match_id": [m for m, _ in whole], "events": [len(e) for _, e in whole]},
                              schema=pa.schema([("match_id", pa.string()), ("events", pa.int64())]))  # fmt: skip
    for table, t in tables.items():
        if t.num_rows:
            t = t.append_column("spec_key", pa.array([key] * t.num_rows, pa.int64()))
            dest = base / "spec" / table / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(t, dest, write_statistics=False, **STAGE_OPTS)


_SPEC_OK = """CREATE TEMP TABLE spec_ok AS
    SELECT k.match_id, k.spec_key FROM read_parquet({keys}) k
    JOIN (SELECT match_id, count(*) AS n, min(src) AS min_src,
                 min(file_idx::BIGINT * 10000000 + chunk) AS k0,
                 max(file_idx::BIGINT * 10000000 + chunk) AS k1
          FROM ranked WHERE rn = 1 GROUP BY match_id) r USING (match_id)
    WHERE r.n = k.events AND r.min_src = 1 AND r.k0 = k.spec_key AND r.k1 = k.spec_key
      AND k.match_id NOT IN (SELECT match_id FROM charged)"""
"""The speculative replays that stand: every accepted (rank-1) event of the match is new and
came from the one chunk that replayed it, the chunk replayed as many events as were accepted,
and no refused line is charged to the match (the chunk replayed its events only)."""


STAGED_FACTS = "facts.parquet"
"""The stage's file of the integrity facts made by the replay step (`_stage_facts`)."""


def _stage_facts(con: Any, stage: Path, build: Path, spec: list[Path]) -> None:
    """Gather the integrity facts the replays made (`ingest.tables.FACTS`: the build jobs', and
    the speculative replays' that stand) into `stage/STAGED_FACTS`, for the integrity step."""
    parts = sorted((build / FACTS).glob("*.parquet")) if (build / FACTS).exists() else []
    sources = [f"SELECT match_id, facts, deals FROM read_parquet({_list(parts)})"] if parts else []
    if spec:
        sources.append(f"SELECT t.match_id, t.facts, t.deals FROM read_parquet({_list(spec)}) t"
                       " SEMI JOIN spec_ok o ON t.match_id = o.match_id AND t.spec_key = o.spec_key")  # fmt: skip
    if sources:
        con.execute(f"COPY ({' UNION ALL '.join(sources)}) TO {_q(stage / STAGED_FACTS)} (FORMAT parquet)")


def build_job(events: pa.Table, out: str, batch: int, facts: bool = False) -> tuple[int, dict[str, int]]:
    """Replay a batch of complete matches with `build_tables`; write each table's rows (with
    `facts`, also the integrity facts of the finished ones: `ingest.tables.FACTS`)."""
    tables = build_tables(events, facts=facts)
    for name, t in tables.items():
        if t.num_rows:  # no statistics: with ONE input file whose statistics show no nulls, DuckDB's
            # merge below writes the column NOT NULL, so the schema would depend on the batch count
            dest = Path(out) / "build" / name / f"{batch:07d}.parquet"
            dest.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(t, dest, write_statistics=False, **STAGE_OPTS)
    statuses = Counter(tables["matches"].column("status").to_pylist())
    return tables["matches"].num_rows, dict(statuses)


# ------------------------------------------------------------------ helpers


def _sha256_file(path: str) -> tuple[str, int]:
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
            size += len(block)
    return h.hexdigest(), size


def _chunks(lines: Iterator[Line], size: int) -> Iterator[list[Line]]:
    buf: list[Line] = []
    for ln in lines:
        buf.append(ln)
        if len(buf) >= size:
            yield buf
            buf = []
    if buf:
        yield buf


def _q(path: str | Path) -> str:
    """A path as a SQL string literal (paths are ours, never user text; quotes doubled anyway)."""
    return "'" + str(path).replace("'", "''") + "'"


def _list(paths: Sequence[str | Path]) -> str:
    return "[" + ", ".join(_q(p) for p in paths) + "]"


class _Progress:
    """A rich progress display, or nothing."""

    def __init__(self, enabled: bool) -> None:
        self.bar: Any = None
        if enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("{task.description:<10}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), console=Console(stderr=True), transient=False)  # fmt: skip

    def __enter__(self) -> _Progress:
        if self.bar is not None:
            self.bar.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)

    def task(self, name: str, total: int | None) -> Any:
        return None if self.bar is None else self.bar.add_task(name, total=total)

    def advance(self, task: Any, n: int = 1, total: int | None = None) -> None:
        if self.bar is not None and task is not None:
            if total is not None:
                self.bar.update(task, total=total)
            self.bar.advance(task, n)


# ------------------------------------------------------------------ the ingest


def ingest(
    paths: Sequence[str],
    lake: str | Path,
    *,
    workers: int = 2,
    progress: bool = False,
    wait: bool = True,
    on_wait: Callable[[str], None] | None = None,
    chunk_lines: int = CHUNK_LINES,
    batch_events: int = BATCH_EVENTS,
    replayer: Replayer | None = None,
    speculate: bool = True,
) -> Summary:
    """Ingest log files into the lake (see the module docstring). Never raises for bad input.

    `replayer` replaces the process pool for step 4 (the scale-out runner, `ingest.spark`): it is
    called with the staged events of the touched matches (`match_id, seq, line` Parquet) and the
    staging folder, writes `build/<table>/*.parquet` with `build_tables`' rows, and returns
    (matches, statuses). `speculate=False` turns off the replay in the parse step (the tables
    are the same either way; tests compare the two).
    """
    lake = Path(lake)
    summary = Summary()
    with run_in(lake, summary, workers, wait, on_wait) as (pool, stage):
        manifest = _writable_manifest(lake)
        with _Progress(progress) as prog:
            t0 = time.perf_counter()
            summary.step = "receive"
            received = _receive(paths, lake, manifest, stage, summary)
            summary.seconds["receive"] = time.perf_counter() - t0
            if received:
                run_id = hashlib.sha256(
                    json.dumps([manifest.generation, [r.sha for r in received]]).encode()
                ).hexdigest()[:12]
                staged, replaced = _run(received, lake, manifest, stage, pool, prog, summary, run_id, chunk_lines,
                                        batch_events, replayer, speculate and replayer is None)  # fmt: skip
                t0 = time.perf_counter()
                summary.step = "publish"
                raw = {**summary.repaired, **{r.sha: (r.staged, r.name) for r in received}}
                published = store.publish(lake, manifest, staged, replaced, raw)
                summary.seconds["publish"] = time.perf_counter() - t0
                t0 = time.perf_counter()
                summary.step = "integrity"
                publish_integrity_tables(lake, published, pool, stage / STAGED_FACTS)
                summary.seconds["integrity"] = time.perf_counter() - t0
            elif summary.repaired:
                summary.step = "publish"
                store.publish(lake, manifest, {}, {}, summary.repaired)
    return summary


@contextlib.contextmanager
def run_in(lake: Path, summary: Summary, workers: int, wait: bool = True,
           on_wait: Callable[[str], None] | None = None) -> Iterator[tuple[Executor, Path]]:  # fmt: skip
    """What every writing run holds: failures as one line (`_guarded`), the workers (`_pool`),
    the lock, a recovered lake and a fresh staging folder, removed at the end (after the
    workers stopped writing into it)."""
    with _guarded(lake, summary), _pool(workers) as pool, store.locked(lake, wait=wait, on_wait=on_wait):
        store.recover(lake)
        stage = store.new_staging(lake)
        try:
            yield pool, stage
        finally:
            pool.shutdown(wait=True, cancel_futures=True)  # no worker writes into the stage any more
            shutil.rmtree(stage, ignore_errors=True)
            with contextlib.suppress(OSError):
                (lake / store.STAGING).rmdir()


@contextlib.contextmanager
def _pool(workers: int) -> Iterator[Executor]:
    """The worker processes, all started now: before the lake's lock is taken (so none of them
    inherits it) and before DuckDB's threads exist in this process (fork safety). Each worker
    dies with this process (`engine.procs.worker_init`)."""
    if workers <= 0:
        yield _Inline()
        return
    pool = ProcessPoolExecutor(max_workers=workers, initializer=worker_init)
    with pool:
        for f in [pool.submit(os.getpid) for _ in range(workers * 2)]:
            f.result()
        yield pool


STEPS: dict[str, str] = {"open": "opening it", "receive": "receiving the files", "parse": "parsing", "store": "storing the events",
                         "replay": "replaying", "rooms": "checking the rooms", "files": "writing the files table",
                         "publish": "publishing", "integrity": "building the integrity tables"}  # fmt: skip
"""The steps of a run (`Summary.seconds` keys) and how a failure message names them."""


@contextlib.contextmanager
def _guarded(lake: Path, summary: Summary | None = None) -> Iterator[None]:
    """Every failure of the machine (not of the input) as one LakeError naming the lake and the
    step that failed (the first step without a time in `summary.seconds`)."""
    import duckdb

    def step() -> str:
        return f" while {STEPS[summary.step]}" if summary is not None else ""

    def outcome(again: str = "") -> str:
        if summary is not None and summary.step == "integrity":  # after the publish
            return f"the events were published, the integrity tables were not: run `paiju rebuild --lake {lake}`"
        return "nothing was published, the lake is as it was" + again

    try:
        yield
    except BrokenProcessPool:
        raise store.LakeError(f"a worker process died (killed, or out of memory) while writing the lake {lake}{step()}; "
                              f"{outcome('; run the same command again')}") from None  # fmt: skip
    except (OSError, duckdb.Error) as e:
        raise store.LakeError(f"cannot write the lake {lake}{step()}: {store.io_reason(e)}; {outcome()}") from None  # fmt: skip


def _writable_manifest(lake: Path) -> store.Manifest:
    """The manifest, after checking that the lake can be read as it is (else LakeError)."""
    m = store.check_readable(lake)
    if (lake / store.MANIFEST).exists():
        problem = store.digest_problem((lake / store.MANIFEST).read_text(encoding="utf-8"))
        if problem is not None and "no digest" not in problem:  # an older paiju's lake is taken as it is
            raise store.LakeError(f"the lake {lake} is damaged: {store.MANIFEST}: {problem}; run 'paiju verify --lake {lake}', "
                                  f"then 'paiju rebuild --lake {lake}'")  # fmt: skip
    with contextlib.suppress(Exception):  # stale after a kill between the swap and its rewrite
        store.refresh_catalog(lake, m)
    return m


@dataclass
class _Received:
    sha: str
    name: str
    size: int
    staged: Path
    idx: int


def _receive(paths: Sequence[str], lake: Path, manifest: store.Manifest, stage: Path, summary: Summary) -> list[_Received]:
    """Hash and copy every new readable file to the staging raw/ (byte for byte).

    A file the lake already holds is skipped, unless the stored copy's bytes no longer hash to
    its name: then this copy replaces it (`Summary.repaired`). Failing to read a path is the
    input's problem (`unreadable`); failing to write the copy is the lake's (an OSError).
    """
    out: list[_Received] = []
    seen: set[str] = set()
    (stage / "raw").mkdir()
    for p in paths:
        try:
            if os.path.isdir(p):
                raise IsADirectoryError(21, "is a directory")
            sha, size = _sha256_file(p)
        except OSError as e:
            summary.unreadable.append(f"{p}: {e.strerror or e}")
            continue
        if sha in seen or (sha in manifest.raw and _raw_whole(lake, sha)):
            summary.skipped += 1
            continue
        seen.add(sha)
        dest = stage / "raw" / sha
        try:
            src = open(p, "rb")  # noqa: SIM115 - closed below; read errors are the input's
        except OSError as e:
            summary.unreadable.append(f"{p}: {e.strerror or e}")
            continue
        with src, open(dest, "wb") as f:
            while True:
                try:
                    block = src.read(1 << 20)
                except OSError as e:
                    summary.unreadable.append(f"{p}: {e.strerror or e}")
                    block = None
                    break
                if not block:
                    break
                f.write(block)
        if block is None:
            dest.unlink()
            continue
        sha2, size = _sha256_file(str(dest))
        if sha2 != sha:  # the file changed while we read it: take what was copied
            os.replace(dest, stage / "raw" / sha2)
            sha = sha2
            dest = stage / "raw" / sha
            if sha in manifest.raw and _raw_whole(lake, sha):
                dest.unlink()
                summary.skipped += 1
                continue
        if sha in manifest.raw:
            summary.repaired[sha] = (dest, manifest.raw[sha])
            continue
        out.append(_Received(sha, os.path.basename(p), size, dest, len(out)))
    summary.files = len(out)
    return out


def _raw_whole(lake: Path, sha: str) -> bool:
    """Whether the stored raw file's bytes still hash to its name."""
    try:
        return _sha256_file(str(lake / store.RAW / sha))[0] == sha
    except OSError:
        return False


def _run(received: list[_Received], lake: Path, manifest: store.Manifest, stage: Path, pool: Executor,
         prog: _Progress, summary: Summary, run_id: str, chunk_lines: int, batch_events: int,
         replayer: Replayer | None = None, speculate: bool = False,
         replay: bool = True) -> tuple[dict[str, list[tuple[Path, str]]], dict[str, list[str]]]:  # fmt: skip
    """Parse, store and replay the received files against `manifest`'s tables; returns what to
    publish: the staged files per table and the listed files they replace. Without `replay`
    only `stage/out/` is written (events, rejects, files: what `paiju verify` compares)."""
    import duckdb

    out = str(stage)
    t0 = time.perf_counter()
    summary.step = "parse"
    # ---- parse, in the pool, with a bounded number of chunks in flight
    file_stats: dict[str, list[int]] = {r.sha: [0, 0, 0] for r in received}
    total_bytes = sum(r.size for r in received)
    t_parse = prog.task("parse", total_bytes or 1)
    pending: list[tuple[str, Future[tuple[int, int, int]]]] = []
    limit = 2 * max(1, getattr(pool, "_max_workers", 1)) + 2

    def drain(keep: int) -> None:
        while len(pending) > keep:
            sha, fut = pending.pop(0)
            n_lines, n_ev, n_rej = fut.result()
            st = file_stats[sha]
            st[0] += n_lines
            st[1] += n_ev
            st[2] += n_rej

    for r in received:
        for k, chunk in enumerate(_chunks(split_lines(str(r.staged)), chunk_lines)):
            pending.append((r.sha, pool.submit(parse_job, r.sha, r.name, r.idx, k, chunk, out, speculate)))
            drain(limit)
        drain(0)
        prog.advance(t_parse, r.size)
    drain(0)

    summary.seconds["parse"] = time.perf_counter() - t0
    con = duckdb.connect(config={"temp_directory": str(stage / "duck"), "memory_limit": MEMORY_LIMIT})
    con.execute("SET enable_progress_bar = false")
    try:
        con.execute("CREATE TEMP TABLE names (file_sha VARCHAR, file_name VARCHAR)")
        con.executemany("INSERT INTO names VALUES (?, ?)", [(r.sha, r.name) for r in received])
        t0 = time.perf_counter()
        summary.step = "store"
        dropped = _store_events(con, lake, manifest, stage, run_id, summary)
        summary.seconds["store"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        summary.step = "replay"
        staged, replaced = _replay(con, lake, manifest, stage, run_id, pool, prog, summary, batch_events, replayer) \
            if replay else ({}, {})
        summary.seconds["replay"] = time.perf_counter() - t0
        if replay:
            t0 = time.perf_counter()
            summary.step = "rooms"
            replaced.setdefault("events", []).extend(dropped)
            dropped = []
            _check_rooms(con, lake, manifest, stage, run_id, summary, staged, replaced, pool)
            summary.seconds["rooms"] = time.perf_counter() - t0
    finally:
        con.close()
    t0 = time.perf_counter()
    summary.step = "files"
    # ---- the files table
    files = pa.table(
        {
            "file_sha": [r.sha for r in received], "file_name": [r.name for r in received],
            "bytes": [r.size for r in received], "lines": [file_stats[r.sha][0] for r in received],
            "events": [file_stats[r.sha][1] for r in received], "rejected": [file_stats[r.sha][2] for r in received],
        },
        schema=schemas()["files"],
    )  # fmt: skip
    _write(files, stage / "out" / "files" / f"part-{run_id}.parquet")
    staged.setdefault("files", []).append((stage / "out" / "files" / f"part-{run_id}.parquet", f"files/part-{run_id}.parquet"))
    summary.lines = sum(s[0] for s in file_stats.values())
    if dropped:
        replaced.setdefault("events", []).extend(dropped)
    summary.replaced_files = sum(len(v) for v in replaced.values())
    summary.seconds["files"] = time.perf_counter() - t0
    return staged, replaced


def _store_events(con: Any, lake: Path, manifest: store.Manifest, stage: Path, run_id: str, summary: Summary) -> list[str]:
    """Merge new events with the stored ones: accepted, duplicates, conflicts (events.md §5).

    Events stored before their match's `match_started` arrived sit in the `game=unknown/date=none`
    partition; when it arrives they are moved to their match's partition (the segment files that
    held them are rewritten without them, their content unchanged). Returns the event files the
    new manifest drops.
    """
    parsed = sorted((stage / "parsed").glob("*.parquet")) if (stage / "parsed").exists() else []
    cols = ", ".join(n for n in schemas()["events"].names)
    if parsed:
        con.execute(f"CREATE TEMP VIEW new AS SELECT * FROM read_parquet({_list(parsed)})")
    else:
        con.execute(f"CREATE TEMP VIEW new AS SELECT {cols}, 0::INTEGER AS file_idx, 0::INTEGER AS chunk FROM (SELECT * FROM ("
                    + _empty_select("events") + "))")  # fmt: skip
    prejects = sorted((stage / "prejects").glob("*.parquet")) if (stage / "prejects").exists() else []
    # a refused line that names its match and seq joins that match's replay (issue 17): its
    # match's stored events are read too
    charged_ids = (f" UNION SELECT match_id FROM read_parquet({_list(prejects)})"
                   " WHERE match_id IS NOT NULL AND seq IS NOT NULL") if prejects else ""  # fmt: skip
    con.execute(f"CREATE TEMP TABLE ids AS SELECT DISTINCT match_id FROM new{charged_ids}")
    old_files = store.table_files(lake, manifest, "events")
    if old_files:
        con.execute(
            f"CREATE TEMP TABLE old AS SELECT {cols}, filename AS src_file FROM read_parquet({_list(old_files)},"
            " hive_partitioning = true, hive_types = {'game': VARCHAR, 'date': VARCHAR}, filename = true)"
            " WHERE match_id IN (SELECT match_id FROM ids)"
        )
    else:
        con.execute(f"CREATE TEMP TABLE old AS SELECT *, NULL::VARCHAR AS src_file FROM ({_empty_select('events')})")
    if _all_first(con):
        # nothing stored at these matches and no (match, seq) twice among the new rows: every row
        # is the first at its seq, so `ranked` is `new` as it stands (issue 22: the window's sort
        # of every row, every column, spilled past the memory limit on a million events)
        con.execute(
            f"""CREATE TEMP VIEW ranked AS
            SELECT 1 AS src, file_idx, chunk, {cols}, NULL::VARCHAR AS src_file, 1 AS rn, canon AS first_canon,
                   hash AS first_hash, file_sha AS first_sha, file_line AS first_line FROM new"""
        )
    else:
        _rank(con, cols)
    con.execute(
        """CREATE TEMP TABLE meta AS
        SELECT match_id, any_value(game) AS game, any_value(date) AS date FROM ranked
        WHERE rn = 1 AND seq = 0 AND type = 'match_started' GROUP BY match_id"""
    )
    con.execute(
        f"""CREATE TEMP VIEW accepted AS
        SELECT r.match_id, r.seq, r.type, r.seat, r.ts, r.hash, r.canon, r.line, r.file_sha, r.file_line,
               coalesce(m.game, '{UNKNOWN_GAME}') AS game, coalesce(m.date, '{NO_DATE}') AS date
        FROM ranked r LEFT JOIN meta m USING (match_id) WHERE r.rn = 1 AND r.src = 1"""
    )
    summary.events = con.execute("SELECT count(*) FROM accepted").fetchone()[0]
    con.execute(
        f"""CREATE TEMP TABLE moved AS
        SELECT r.match_id, r.seq, r.type, r.seat, r.ts, r.hash, r.canon, r.line, r.file_sha, r.file_line,
               m.game, m.date, r.src_file
        FROM ranked r JOIN meta m USING (match_id)
        WHERE r.rn = 1 AND r.src = 0 AND r.game = '{UNKNOWN_GAME}' AND m.game IS NOT NULL"""
    )
    # one decision with `paiju replay` on re-sends (engine.replay.same_event, issue 21 item 5)
    summary.duplicates = con.execute(f"SELECT count(*) FROM ranked WHERE rn > 1 AND {SAME_EVENT_SQL}").fetchone()[0]
    # conflicts → rejects, with the reason
    con.execute(
        """CREATE TEMP TABLE conflicts AS
        SELECT r.file_sha, n.file_name, r.file_line AS line, r.match_id, r.seq, 'conflict' AS code,
               'a different event is already stored at seq ' || r.seq || ' of match ' || r.match_id
               || ' (first received in file ' || left(r.first_sha, 12) || ' line ' || r.first_line
               || '); events.md §5: stored events are never changed' AS message,
               left(r.line, 4096) AS raw
        FROM ranked r LEFT JOIN names n USING (file_sha) WHERE r.rn > 1 AND NOT """ + SAME_EVENT_SQL
    )
    summary.conflicts = con.execute("SELECT count(*) FROM conflicts").fetchone()[0]
    rej_cols = ", ".join(schemas()["rejects"].names)
    parts = [f"SELECT {rej_cols} FROM conflicts"]
    if prejects:
        parts.append(f"SELECT {rej_cols} FROM read_parquet({_list(prejects)})")
    con.execute(f"CREATE TEMP TABLE rejects AS {' UNION ALL '.join(parts)}")
    summary.rejected = con.execute("SELECT count(*) FROM rejects").fetchone()[0]
    out = stage / "out"
    out.mkdir(exist_ok=True)
    if summary.rejected:
        (out / "rejects").mkdir(parents=True, exist_ok=True)
        con.execute(f"COPY (SELECT {rej_cols} FROM rejects ORDER BY file_sha, line) TO "
                    f"{_q(out / 'rejects' / f'part-{run_id}.parquet')} (FORMAT parquet, COMPRESSION zstd)")  # fmt: skip
    moved_files = [r[0] for r in con.execute("SELECT DISTINCT src_file FROM moved ORDER BY 1").fetchall()]
    if summary.events or moved_files:
        con.execute(
            f"COPY (SELECT * FROM accepted UNION ALL SELECT * EXCLUDE (src_file) FROM moved ORDER BY game, date, match_id, seq) TO {_q(out / 'events')} "
            f"(FORMAT parquet, COMPRESSION zstd, PARTITION_BY (game, date), FILENAME_PATTERN 'part-{run_id}-{{i}}')"
        )
    dropped: list[str] = []
    file_cols = ", ".join(n for n in schemas()["events"].names if n not in ("game", "date"))
    for k, f in enumerate(moved_files):
        rel = Path(f).relative_to(lake)
        dropped.append(rel.as_posix())
        keep = f"SELECT {file_cols} FROM read_parquet({_q(f)}) WHERE match_id NOT IN (SELECT match_id FROM moved)"
        if con.execute(f"SELECT count(*) FROM ({keep})").fetchone()[0]:
            dest = out / rel.parent / f"part-{run_id}-m{k}.parquet"
            dest.parent.mkdir(parents=True, exist_ok=True)
            con.execute(f"COPY ({keep} ORDER BY match_id, seq) TO {_q(dest)} (FORMAT parquet, COMPRESSION zstd)")
    # the refusals charged to a match at a seq no stored event holds (issue 17): stored and new
    old_rejects = store.table_files(lake, manifest, "rejects")
    mine = "WHERE match_id IN (SELECT match_id FROM ids)"
    rejects_src = f"SELECT {rej_cols} FROM rejects {mine}"
    if old_rejects:
        rejects_src += f" UNION ALL SELECT {rej_cols} FROM read_parquet({_list(old_rejects)}) {mine}"
    con.execute("CREATE TEMP TABLE charged AS "
                + charged_sql(rejects_src, "SELECT match_id, seq FROM ranked WHERE rn = 1"))  # fmt: skip
    # replayed: every match that received an event, or a refusal it is charged with
    con.execute("CREATE TEMP TABLE touched AS SELECT DISTINCT match_id FROM accepted"
                " UNION SELECT match_id FROM charged WHERE match_id IN (SELECT match_id FROM rejects)")  # fmt: skip
    return dropped


def _all_first(con: Any) -> bool:
    """Whether every row of `new` is the first at its (match, seq): no stored row of its matches
    (`old` empty) and no (match, seq) twice among the new rows (then `_rank` would give every row
    `rn = 1`, `src = 1` and itself as the first)."""
    if con.execute("SELECT count(*) FROM old").fetchone()[0]:
        return False
    twice = con.execute("SELECT count(*) FROM (SELECT 1 FROM new GROUP BY match_id, seq HAVING count(*) > 1)")
    return twice.fetchone()[0] == 0  # type: ignore[no-any-return]


def _rank(con: Any, cols: str) -> None:
    """`ranked`: the stored rows of the touched matches (`old`, src 0) and the new ones (src 1),
    each numbered at its (match, seq) in arrival order (`rn`), with the first row's digests."""
    con.execute(
        f"""CREATE TEMP TABLE ranked AS
        SELECT *, row_number() OVER w AS rn, first_value(canon) OVER w AS first_canon,
               first_value(hash) OVER w AS first_hash,
               first_value(file_sha) OVER w AS first_sha, first_value(file_line) OVER w AS first_line
        FROM (SELECT 0 AS src, -1 AS file_idx, -1 AS chunk, {cols}, src_file FROM old
              UNION ALL SELECT 1 AS src, file_idx, chunk, {cols}, NULL AS src_file FROM new)
        WINDOW w AS (PARTITION BY match_id, seq ORDER BY src, file_idx, file_line
                     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"""
    )
    # `ranked` holds every stored row it read: `old`'s copy goes, so that less spills past the
    # memory limit (`new` is a view of the parsed files: no copy to drop)
    con.execute("DROP TABLE old")


def replay_input_sql(events: str, charged: str) -> str:
    """The rows a replay reads (`build_tables`): `match_id, seq, line, code, message`, the
    events (`code` null) and the refusals charged to their matches (`ingest.tables.charged_sql`)."""
    return (f"SELECT match_id, seq, line, NULL::VARCHAR AS code, NULL::VARCHAR AS message FROM ({events})"
            f" UNION ALL SELECT match_id, seq, line, code, message FROM ({charged})")  # fmt: skip


def build_all(events_path: Path, stage: Path, pool: Executor, batch_events: int,
              done: Callable[[int, dict[str, int]], None], facts: bool = False) -> None:  # fmt: skip
    """Replay every match of a `match_id, seq, line` Parquet file (ordered by match_id, seq) in
    batches of whole matches on the pool (`build_job` → `stage/build/<table>/*.parquet`, with
    `facts` also `stage/build/facts/`); `done(matches, statuses)` after each batch."""
    import pyarrow.compute as pc

    pending: list[Future[tuple[int, dict[str, int]]]] = []
    limit = 2 * max(1, getattr(pool, "_max_workers", 1)) + 2

    def drain(keep: int) -> None:
        while len(pending) > keep:
            done(*pending.pop(0).result())

    carry: pa.Table | None = None
    batch_no = 0
    for rb in pq.ParquetFile(events_path).iter_batches(batch_size=batch_events):
        t = pa.Table.from_batches([rb])
        if carry is not None:
            t = pa.concat_tables([carry, t])
        mids = t.column("match_id")
        last = mids[len(mids) - 1].as_py()
        # cut at the start of the last match (it may continue in the next record batch)
        first_of_last = pc.index(mids, last).as_py()
        if first_of_last == 0:
            carry = t
            continue
        carry = t.slice(first_of_last)
        pending.append(pool.submit(build_job, t.slice(0, first_of_last), str(stage), batch_no, facts))
        batch_no += 1
        drain(limit)
    if carry is not None and carry.num_rows:
        pending.append(pool.submit(build_job, carry, str(stage), batch_no, facts))
    drain(0)


def _rewrite_without(con: Any, lake: Path, manifest: store.Manifest, table: str, ids: str, out: Path, run_id: str,
                     staged: dict[str, list[tuple[Path, str]]], replaced: dict[str, list[str]]) -> None:  # fmt: skip
    """The listed files of `table` holding rows of the matches `ids` (a SELECT of `match_id`) leave
    the table; what else they hold is staged in a new file (`out/<table>/`)."""
    old = store.table_files(lake, manifest, table)
    if not old:
        return
    hit = [r[0] for r in con.execute(
        f"SELECT DISTINCT filename FROM read_parquet({_list(old)}, filename = true) WHERE match_id IN ({ids})"
    ).fetchall()]  # fmt: skip
    for k, f in enumerate(sorted(hit)):
        replaced.setdefault(table, []).append(Path(f).relative_to(lake).as_posix())
        keep = f"SELECT * FROM read_parquet({_q(f)}) WHERE match_id NOT IN ({ids})"
        if con.execute(f"SELECT count(*) FROM ({keep})").fetchone()[0]:
            dest = out / table / f"part-{run_id}-r{k}.parquet"
            dest.parent.mkdir(parents=True, exist_ok=True)
            con.execute(f"COPY ({keep}) TO {_q(dest)} (FORMAT parquet, COMPRESSION zstd)")
            staged.setdefault(table, []).append((dest, f"{table}/{dest.name}"))


def _after_run(lake: Path, manifest: store.Manifest, staged: dict[str, list[tuple[Path, str]]],
               replaced: dict[str, list[str]], table: str) -> list[Path]:  # fmt: skip
    """The files `table` will list once this run is published (staged ones still in the stage)."""
    gone = set(replaced.get(table, []))
    return [lake / p for p in manifest.tables.get(table, []) if p not in gone] + [src for src, _ in staged.get(table, [])]


def _check_rooms(con: Any, lake: Path, manifest: store.Manifest, stage: Path, run_id: str, summary: Summary,
                 staged: dict[str, list[tuple[Path, str]]], replaced: dict[str, list[str]], pool: Executor) -> None:  # fmt: skip
    """The rooms of the touched matches checked across their matches (`ingest.rooms.room_check`,
    from the tables as this run will publish them); `room_findings` rows of the rechecked matches
    replaced by the new findings."""
    from ingest.rooms import TABLE, findings_table, room_check

    src = {t: _after_run(lake, manifest, staged, replaced, t) for t in ("matches", "events")}
    views = {t: f"SELECT * FROM read_parquet({_list(f)}, hive_partitioning = false)" if f else _empty_select(t)
             for t, f in src.items()}
    found = room_check(con, views["matches"], f"SELECT match_id, seq, line FROM ({views['events']})",
                       "SELECT match_id FROM touched", pool=pool)  # fmt: skip
    summary.room_findings = [f.line() for f in found.findings]
    summary.room_replayed = found.replayed
    if not found.rechecked:
        return
    con.register("_room_rechecked", pa.table({"match_id": pa.array(found.rechecked, pa.string())}))
    out = stage / "out"
    _rewrite_without(con, lake, manifest, TABLE, "SELECT match_id FROM _room_rechecked", out, run_id, staged, replaced)
    if found.findings:
        dest = out / TABLE / f"part-{run_id}.parquet"
        _write(findings_table(found.findings), dest)
        staged.setdefault(TABLE, []).append((dest, f"{TABLE}/{dest.name}"))


def _empty_select(table: str) -> str:
    return store.empty_select(schemas()[table])


def _replay(con: Any, lake: Path, manifest: store.Manifest, stage: Path, run_id: str, pool: Executor,
            prog: _Progress, summary: Summary, batch_events: int,
            replayer: Replayer | None = None) -> tuple[dict[str, list[tuple[Path, str]]], dict[str, list[str]]]:  # fmt: skip
    """Replay every touched match in batches; stage the derived tables; find the files to rewrite."""
    out = stage / "out"
    staged: dict[str, list[tuple[Path, str]]] = {}
    for table in ("rejects",):
        f = out / table / f"part-{run_id}.parquet"
        if f.exists():
            staged.setdefault(table, []).append((f, f"{table}/part-{run_id}.parquet"))
    ev_dir = out / "events"
    if ev_dir.exists():
        for f in sorted(ev_dir.rglob("*.parquet")):
            staged.setdefault("events", []).append((f, "events/" + f.relative_to(ev_dir).as_posix()))
    n_touched = con.execute("SELECT count(*) FROM touched").fetchone()[0]
    summary.matches = n_touched
    replaced: dict[str, list[str]] = {}
    if not n_touched:
        return staged, replaced
    spec = stage / "spec"
    spec_parts = {t: sorted((spec / t).glob("*.parquet")) if (spec / t).exists() and replayer is None else []
                  for t in ("keys", FACTS, *BUILT)}  # fmt: skip
    if spec_parts["keys"]:
        con.execute(_SPEC_OK.format(keys=_list(spec_parts["keys"])))
    else:
        con.execute("CREATE TEMP TABLE spec_ok (match_id VARCHAR, spec_key BIGINT)")
    t_replay = prog.task("replay", n_touched)
    if spec_parts["matches"]:
        con.execute(
            f"CREATE TEMP TABLE spec_matches AS SELECT m.match_id, m.status, m.rules_id FROM read_parquet({_list(spec_parts['matches'])}) m"
            " SEMI JOIN spec_ok o ON m.match_id = o.match_id AND m.spec_key = o.spec_key"
        )
        for status, n in con.execute("SELECT status, count(*) FROM spec_matches GROUP BY status ORDER BY status").fetchall():
            summary.statuses[status] += n
            summary.speculative += n
            prog.advance(t_replay, n)
    touched_path = stage / "touched.parquet"
    con.execute(
        f"""COPY (SELECT * FROM ({replay_input_sql("SELECT match_id, seq, line FROM ranked WHERE rn = 1", "SELECT * FROM charged")})
                  WHERE match_id IN (SELECT match_id FROM touched EXCEPT SELECT match_id FROM spec_ok)
                  ORDER BY match_id, seq)
            TO {_q(touched_path)} (FORMAT parquet, ROW_GROUP_SIZE 20000)"""
    )
    def done(n: int, st: dict[str, int]) -> None:
        summary.statuses.update(st)
        prog.advance(t_replay, n)

    if replayer is not None:  # the scale-out runner replays everything
        done(*replayer(touched_path, stage))
    else:
        build_all(touched_path, stage, pool, batch_events, done, facts=True)
    build = stage / "build"
    _stage_facts(con, stage, build, spec_parts[FACTS])
    for table in DERIVED:
        _rewrite_without(con, lake, manifest, table, "SELECT match_id FROM touched", out, run_id, staged, replaced)
        parts = sorted((build / table).glob("*.parquet")) if (build / table).exists() else []
        sources = [f"SELECT * FROM read_parquet({_list(parts)})"] if parts else []
        if spec_parts[table]:
            sources.append(f"SELECT t.* EXCLUDE (spec_key) FROM read_parquet({_list(spec_parts[table])}) t"
                           " SEMI JOIN spec_ok o ON t.match_id = o.match_id AND t.spec_key = o.spec_key")  # fmt: skip
        if sources:
            dest = out / table / f"part-{run_id}.parquet"
            dest.parent.mkdir(parents=True, exist_ok=True)
            key = ", ".join(KEYS[table])
            rows = " UNION ALL BY NAME ".join(sources)
            if not con.execute(f"SELECT count(*) FROM ({rows})").fetchone()[0]:
                continue
            con.execute(f"COPY (SELECT * FROM ({rows}) ORDER BY {key}) TO {_q(dest)} "
                        "(FORMAT parquet, COMPRESSION zstd)")  # fmt: skip
            staged.setdefault(table, []).append((dest, f"{table}/{dest.name}"))
    # rules: one row per rules_id, only those the lake does not hold yet
    parts = sorted((build / "rules").glob("*.parquet")) if (build / "rules").exists() else []
    sources = [f"SELECT rules_id, game, preset, options FROM read_parquet({_list(parts)})"] if parts else []
    if spec_parts["rules"] and spec_parts["matches"]:  # the rules of the speculative replays that stand
        sources.append(f"SELECT rules_id, game, preset, options FROM read_parquet({_list(spec_parts['rules'])})"
                       " WHERE rules_id IN (SELECT rules_id FROM spec_matches)")  # fmt: skip
    if sources:
        old = store.table_files(lake, manifest, "rules")
        known = f"SELECT rules_id FROM read_parquet({_list(old)})" if old else "SELECT NULL::VARCHAR AS rules_id WHERE false"
        dest = out / "rules" / f"part-{run_id}.parquet"
        dest.parent.mkdir(parents=True, exist_ok=True)
        n = con.execute(
            f"CREATE TEMP TABLE new_rules AS SELECT rules_id, any_value(game) AS game, any_value(preset) AS preset,"
            f" any_value(options) AS options FROM ({' UNION ALL '.join(sources)}) WHERE rules_id NOT IN ({known})"
            " GROUP BY rules_id"
        ).fetchall()
        del n
        if con.execute("SELECT count(*) FROM new_rules").fetchone()[0]:
            con.execute(f"COPY (SELECT * FROM new_rules ORDER BY rules_id) TO {_q(dest)} (FORMAT parquet)")
            staged.setdefault("rules", []).append((dest, f"rules/{dest.name}"))
    return staged, replaced
