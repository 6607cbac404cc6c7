"""`paiju verify [--lake DIR] [--json]`: does the lake prove itself? (issue 21 §1)

Checks, each finding naming the file, the match and what differs:
1. the manifest: it parses and its `digest` covers its content (an edit to it is named);
2. raw/: every listed file is there and its SHA-256 equals its name; every file there is listed;
3. Parquet: every listed file exists, reads whole, and has its table's schema (`ingest.schema`);
   every file in a table folder is listed (a file the manifest lost is named with what it holds);
   no key is stored twice;
4. events ↔ raw: the raw files are parsed and merged again, in arrival order, by the ingest's own
   code (`ingest.pipeline._run` into a temporary folder): `events`, `rejects` and `files` must be
   exactly those rows (by match and seq, by file and line);
5. tables ↔ events: every match is replayed from its STORED events (`ingest.tables.build_tables`),
   so the chain is recomputed and compared with `matches.final_hash`, and `deltas`, status,
   winners, seats, items, fans and rules with what is stored; a row that no stored event derives
   is named, and so is a match whose events have no row;
6. rooms: every room is checked again from the stored events and the replayed `matches`
   (`ingest.rooms.room_check` over the whole lake) and `room_findings` compared with it.

Verify only reads, except the catalog: rewritten when stale (`ingest.store.refresh_catalog`).
A finding says what repairs it: `paiju rebuild` (every table from raw/), or offering the original
file again with `paiju ingest` (a raw file damaged or missing).

Exit status: 0 the lake is whole; 1 findings; 2 the lake cannot be read (no lake, an I/O error).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ingest import store
from ingest.schema import BUILT, CROSS, KEYS, TABLES, schemas
from ingest.tables import charged_sql

REBUILD = "rebuild"
REOFFER = "reoffer"
SHOWN_PER_CHECK = 50
"""Findings listed per check and table; the rest are counted (`Report.more`)."""
FROM_RAW = tuple(t for t in TABLES if t not in BUILT and t not in CROSS)
"""The tables parsing and merging raw/ builds (compared in step 4)."""


@dataclass
class Finding:
    """One thing that is not as an ingest left it."""

    check: str
    file: str | None
    match_id: str | None
    message: str
    repair: str | None = REBUILD

    def line(self) -> str:
        where = self.file or "lake"
        m = f" match {self.match_id}:" if self.match_id else ""
        return f"{where}:{m} {self.message}"


@dataclass
class Report:
    lake: str
    findings: list[Finding] = field(default_factory=list)
    more: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)

    @property
    def whole(self) -> bool:
        return not self.findings

    def add(self, f: Finding) -> None:
        key = f"{f.check}"
        shown = sum(1 for x in self.findings if x.check == key)
        if shown >= SHOWN_PER_CHECK:
            self.more[key] = self.more.get(key, 0) + 1
            return
        self.findings.append(f)

    def repairs(self) -> list[str]:
        """What to run, in order."""
        out = []
        if any(f.repair == REOFFER for f in self.findings):
            out.append("offer the original file of each damaged raw/ file again: paiju ingest FILE --lake " + self.lake)
        if any(f.repair in (REBUILD, REOFFER) for f in self.findings):
            out.append(f"paiju rebuild --lake {self.lake}")
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"lake": self.lake, "whole": self.whole, "findings": [asdict(f) for f in self.findings],
                "more": self.more, "notes": self.notes, "checked": self.checked, "repair": self.repairs()}  # fmt: skip


# ------------------------------------------------------------------ 1–3: the files


def _check_manifest(lake: Path, r: Report) -> store.Manifest | None:
    path = lake / store.MANIFEST
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if (lake / store.RAW).is_dir():
            r.add(Finding("manifest", store.MANIFEST, None, "missing, but raw/ holds received files"))
        return store.Manifest()
    except (OSError, UnicodeDecodeError) as e:
        raise store.LakeError(f"cannot read the lake {lake}: {store.MANIFEST}: {store.io_reason(e)}") from None
    problem = store.digest_problem(text)
    if problem is not None:
        r.add(Finding("manifest", store.MANIFEST, None, problem))
    try:
        return store.Manifest.from_json(text)
    except (ValueError, TypeError, AttributeError):
        return None


def _check_raw(lake: Path, m: store.Manifest, r: Report) -> set[str]:
    """Damaged or missing raw files (their SHAs)."""
    from ingest.pipeline import _sha256_file

    bad: set[str] = set()
    for sha in m.order():
        rel = f"{store.RAW}/{sha}"
        try:
            got, _ = _sha256_file(str(lake / rel))
        except FileNotFoundError:
            r.add(Finding("raw", rel, None, f"missing (received as {m.raw[sha]})", REOFFER))
            bad.add(sha)
            continue
        except OSError as e:
            r.add(Finding("raw", rel, None, f"unreadable: {store.io_reason(e)}", REOFFER))
            bad.add(sha)
            continue
        if got != sha:
            r.add(Finding("raw", rel, None, f"its bytes hash to {got[:16]}…, not to its name (received as {m.raw[sha]})", REOFFER))
            bad.add(sha)
    root = lake / store.RAW
    if root.is_dir():
        for p in sorted(root.iterdir()):
            if p.name not in m.raw:
                r.add(Finding("raw", f"{store.RAW}/{p.name}", None, "not listed in the manifest"))
    r.checked["raw files"] = len(m.raw)
    return bad


def expected_schema(table: str) -> pa.Schema:
    """The columns a table's file holds (events files leave `game` and `date` to their folders)."""
    s = schemas()[table]
    if table == "events":
        return pa.schema([f for f in s if f.name not in ("game", "date")])
    return s


def _check_parquet(lake: Path, m: store.Manifest, r: Report) -> set[str]:
    """Listed files that are missing, not whole Parquet or of the wrong schema (relative paths)."""
    bad: set[str] = set()
    listed = m.files()
    for rel, table in sorted(listed.items()):
        p = lake / rel
        if not p.is_file():
            r.add(Finding("parquet", rel, None, f"listed in the manifest ({table}) but missing"))
            bad.add(rel)
            continue
        try:
            pf = pq.ParquetFile(p)
            for i in range(pf.num_row_groups):  # every page decoded, one row group at a time
                pf.read_row_group(i)
        except (OSError, pa.ArrowException) as e:
            r.add(Finding("parquet", rel, None, f"not whole Parquet: {store.io_reason(e)}"))
            bad.add(rel)
            continue
        want = expected_schema(table)
        got = [(f.name, _type_name(f.type)) for f in pf.schema_arrow]
        exp = [(f.name, _type_name(f.type)) for f in want]
        if got != exp:
            diff = sorted(set(got) ^ set(exp))
            r.add(Finding("parquet", rel, None, f"schema differs from the {table} table's: {diff[:4] or 'column order'}"))
            bad.add(rel)
        if table == "events" and not (rel.startswith("events/game=") and "/date=" in rel):
            r.add(Finding("parquet", rel, None, "an events file outside a game=/date= folder"))
            bad.add(rel)
    for rel, table in store.unlisted(lake, m):
        r.add(Finding("parquet", rel, None, f"in {table}/ but not listed in the manifest{_holds(lake / rel)}"))
    r.checked["parquet files"] = len(listed)
    return bad


def _type_name(t: pa.DataType) -> str:
    """A column type without the list item's field name (pyarrow says `item`, DuckDB `element`)."""
    return f"list<{_type_name(t.value_type)}>" if pa.types.is_list(t) else str(t)


def _holds(p: Path) -> str:
    """What an unlisted file holds, when it reads as Parquet."""
    try:
        t = pq.read_table(p, columns=["match_id"], partitioning=None)
    except Exception:
        return ""
    n = len(set(t.column("match_id").to_pylist()))
    return f" (it holds {t.num_rows} rows of {n} matches)"


# ------------------------------------------------------------------ 4–5: the rows


def _lit_list(paths: Sequence[str | Path]) -> str:
    return "[" + ", ".join("'" + str(p).replace("'", "''") + "'" for p in paths) + "]"


def _source(files: Sequence[str | Path], table: str, with_file: bool) -> str:
    cols = ", ".join(schemas()[table].names)
    if not files:
        return store.empty_select(schemas()[table]) if not with_file else (
            f"SELECT *, NULL::VARCHAR AS src FROM ({store.empty_select(schemas()[table])})")  # fmt: skip
    opts = ", hive_partitioning = true, hive_types = {'game': VARCHAR, 'date': VARCHAR}" if table == "events" else ""
    if with_file:
        return f"SELECT {cols}, filename AS src FROM read_parquet({_lit_list(files)}{opts}, filename = true)"
    return f"SELECT {cols} FROM read_parquet({_lit_list(files)}{opts})"


def _show(v: Any) -> str:
    s = json.dumps(v, ensure_ascii=False, default=str)
    return s if len(s) <= 120 else s[:117] + "…"


def _compare(con: Any, lake: Path, table: str, stored: str, expected: str, what: str, r: Report) -> None:
    """Rows of `stored` (with `src`) against `expected`, by the table's key."""
    key = KEYS[table]
    cols = [c for c in schemas()[table].names if c not in key]
    on = " AND ".join(f"s.{k} IS NOT DISTINCT FROM e.{k}" for k in key)
    differs = " OR ".join(f"s.{c} IS DISTINCT FROM e.{c}" for c in cols) or "false"
    con.execute(f"CREATE OR REPLACE TEMP VIEW s_{table} AS {stored}")
    con.execute(f"CREATE OR REPLACE TEMP VIEW e_{table} AS {expected}")
    for row in con.execute(
        f"SELECT {', '.join(KEYS[table])}, any_value(src), count(*) FROM s_{table} GROUP BY ALL HAVING count(*) > 1 ORDER BY ALL"
    ).fetchall():  # fmt: skip
        k = dict(zip(key, row[: len(key)], strict=True))
        r.add(Finding(f"{table} rows", _rel(lake, row[-2]), k.get("match_id"), f"{table} key {_show(k)} stored {row[-1]} times"))
    sel = ", ".join([f"s.{k} AS sk_{k}" for k in key] + [f"e.{k} AS ek_{k}" for k in key] + ["s.src"]
                    + [f"s.{c} AS s_{c}" for c in cols] + [f"e.{c} AS e_{c}" for c in cols])  # fmt: skip
    q = (f"SELECT {sel} FROM s_{table} s FULL OUTER JOIN e_{table} e ON {on} "
         f"WHERE s.{key[0]} IS NULL OR e.{key[0]} IS NULL OR {differs} ORDER BY ALL")  # fmt: skip
    names = [d[0] for d in con.execute(q + " LIMIT 0").description]
    # rows only one side has: one finding per match (and file), naming the keys
    lone: dict[tuple[bool, str | None, Any], list[dict[str, Any]]] = {}
    for row in con.execute(q).fetchall():
        d = dict(zip(names, row, strict=True))
        sk = {k: d[f"sk_{k}"] for k in key}
        ek = {k: d[f"ek_{k}"] for k in key}
        src = _rel(lake, d["src"])
        if d[f"ek_{key[0]}"] is None or d[f"sk_{key[0]}"] is None:
            extra = d[f"ek_{key[0]}"] is None
            k = sk if extra else ek
            group = k.get("match_id", _show(k)) if key[0] == "match_id" else _show(k)
            lone.setdefault((extra, src, group), []).append(k)
            continue
        diff = [c for c in cols if d[f"s_{c}"] != d[f"e_{c}"]]
        parts = []
        for c in diff:
            if table == "matches" and c == "final_hash":
                parts.append(f"matches.final_hash is {_show(d['s_' + c])} but its stored events chain to {_show(d['e_' + c])}")
            else:
                parts.append(f"{table}.{c} is {_show(d['s_' + c])}, {what} give {_show(d['e_' + c])}")
        extra = f" at {_show({k: v for k, v in sk.items() if k != 'match_id'})}" if len(key) > 1 else ""
        r.add(Finding(f"{table} rows", src, sk.get("match_id"), "; ".join(parts) + extra))
    for (extra, src, _), ks in lone.items():
        mid = ks[0].get("match_id")
        rest = [{k: v for k, v in x.items() if k != "match_id"} for x in ks] if mid is not None and len(key) > 1 else ks
        keys = _keys_text(rest)
        n = f"{len(ks)} rows" if len(ks) > 1 else "a row"
        if extra:
            r.add(Finding(f"{table} rows", src, mid, f"{table} holds {n} ({keys}) that nothing in {what} derives"))
        else:
            r.add(Finding(f"{table} rows", None, mid, f"{table} lacks {n} ({keys}) that {what} give"))


def _keys_text(keys: list[dict[str, Any]]) -> str:
    """`seq 0–12, 15` for one integer column; else the first few keys as JSON."""
    if keys and all(len(k) == 1 for k in keys):
        (name,) = keys[0]
        vals = [k[name] for k in keys]
        if all(isinstance(v, int) for v in vals):
            vals = sorted(vals)
            runs: list[list[int]] = []
            for v in vals:
                if runs and v == runs[-1][1] + 1:
                    runs[-1][1] = v
                else:
                    runs.append([v, v])
            return f"{name} " + ", ".join(f"{a}–{b}" if a != b else f"{a}" for a, b in runs)
    shown = ", ".join(_show(k) for k in keys[:5])
    return shown + (f", … {len(keys) - 5} more" if len(keys) > 5 else "")


def _rel(lake: Path, path: str | None) -> str | None:
    if path is None:
        return None
    with contextlib.suppress(ValueError):
        return Path(path).resolve().relative_to(lake.resolve()).as_posix()
    return path


def _from_raw(lake: Path, m: store.Manifest, tmp: Path, pool: Any) -> dict[str, list[Path]]:
    """events, rejects and files as parsing and merging raw/ gives them (in arrival order)."""
    from ingest.pipeline import BATCH_EVENTS, CHUNK_LINES, Summary, _Progress, _Received, _run

    received = [_Received(sha, m.raw[sha], os.path.getsize(lake / store.RAW / sha), lake / store.RAW / sha, i)
                for i, sha in enumerate(m.order())]  # fmt: skip
    stage = tmp / "raw"
    stage.mkdir()
    if received:
        with _Progress(False) as prog:
            _run(received, lake, store.Manifest(), stage, pool, prog, Summary(), "verify", CHUNK_LINES, BATCH_EVENTS,
                 replay=False)
    out = stage / "out"
    return {t: sorted((out / t).rglob("*.parquet")) if (out / t).exists() else [] for t in FROM_RAW}


def _from_events(con: Any, lake: Path, events_src: str, rejects_src: str, tmp: Path, pool: Any) -> dict[str, list[Path]]:
    """The derived tables as replaying every match's stored events gives them, with the stored
    refusals charged to a match at a seq no event holds (issue 17, as the ingest replays it)."""
    from ingest.pipeline import BATCH_EVENTS, build_all, replay_input_sql

    stage = tmp / "replay"
    stage.mkdir()
    path = stage / "events.parquet"
    rows = replay_input_sql(f"SELECT match_id, seq, line FROM ({events_src})", charged_sql(rejects_src, events_src))
    con.execute(f"COPY (SELECT * FROM ({rows}) ORDER BY match_id, seq) TO "
                f"'{str(path).replace(chr(39), chr(39) * 2)}' (FORMAT parquet)")  # fmt: skip
    if pq.ParquetFile(path).metadata.num_rows:
        build_all(path, stage, pool, BATCH_EVENTS, lambda n, st: None)
    build = stage / "build"
    return {t: sorted((build / t).glob("*.parquet")) if (build / t).exists() else [] for t in BUILT}


def _check_rooms(con: Any, lake: Path, events_src: str, matches_src: str, stored: dict[str, str], bad_tables: set[str],
                 r: Report, pool: Any) -> None:  # fmt: skip
    """Step 6: `room_findings` against a check of every room from the stored events."""
    from ingest.rooms import TABLE, findings_table, room_check

    if TABLE in bad_tables:
        r.notes.append(f"{TABLE} rows were not compared: a file of the table is damaged")
        return
    found = room_check(con, matches_src, f"SELECT match_id, seq, line FROM ({events_src})", pool=pool)
    con.register("_room_expected", findings_table(found.findings))
    _compare(con, lake, TABLE, stored[TABLE], "SELECT * FROM _room_expected", "the stored events' rooms", r)


def verify(lake: str | Path, *, workers: int = 0, tries: int = 3) -> Report:
    """Check the lake (see the module docstring); raises LakeError when it cannot be read.

    Verify takes no lock: when an ingest publishes meanwhile (the generation moved), it checks
    the new generation again, up to `tries` times."""
    lake = Path(lake)
    for _ in range(tries):
        gen = store.read_manifest(lake).generation if (lake / store.MANIFEST).is_file() else 0
        r = _verify(lake, workers)
        with contextlib.suppress(ValueError, TypeError, AttributeError, OSError):
            if store.read_manifest(lake).generation != gen:
                continue
        break
    else:
        r.notes.append(f"the lake changed {tries} times while it was verified: the findings may be of a moving target")
    if r.whole:
        _refresh_catalog(lake, r)
    return r


def _refresh_catalog(lake: Path, r: Report) -> None:
    """Rewrite a stale catalog, if no ingest holds the lake (it would rewrite it itself)."""
    try:
        with store.locked(lake, wait=False):
            if store.refresh_catalog(lake, store.read_manifest(lake)):
                r.notes.append(f"{store.CATALOG} was stale or missing: rewritten")
    except (store.LakeBusy, OSError, ValueError):
        return
    except Exception as e:  # duckdb's own errors: the catalog is a convenience
        r.notes.append(f"{store.CATALOG} could not be rewritten: {store.io_reason(e)}")


def _verify(lake: Path, workers: int) -> Report:
    import duckdb

    from ingest.pipeline import _pool

    r = Report(str(lake))
    if not lake.is_dir():
        raise store.LakeError(f"no lake at {lake}")
    if not (lake / store.MANIFEST).exists() and not (lake / store.RAW).is_dir():
        raise store.LakeError(f"no lake at {lake} (no {store.MANIFEST}, no raw/)")
    m = _check_manifest(lake, r)
    if m is None:
        r.notes.append("the manifest does not parse: only raw/ was checked")
        m = store.Manifest()
        _check_raw(lake, m, r)
        return r
    bad_raw = _check_raw(lake, m, r)
    bad_files = _check_parquet(lake, m, r)
    bad_tables = {t for rel, t in m.files().items() if rel in bad_files}
    tmp = Path(tempfile.mkdtemp(prefix="paiju-verify-"))
    con = duckdb.connect(config={"temp_directory": str(tmp / "duck")})
    con.execute("SET enable_progress_bar = false")
    try:
        with _pool(workers) as pool:
            good = {t: [lake / p for p in m.tables[t] if p not in bad_files] for t in TABLES}
            stored = {t: _source(good[t], t, True) for t in TABLES}
            if bad_raw:
                r.notes.append("events, rejects and files were not compared with raw/: a raw file is damaged or missing")
            else:
                exp = _from_raw(lake, m, tmp, pool)
                for t in FROM_RAW:
                    if t in bad_tables:
                        r.notes.append(f"{t} rows were not compared: a file of the table is damaged")
                        continue
                    _compare(con, lake, t, stored[t], _source(exp[t], t, False), "the raw files", r)
            if "events" in bad_tables:
                r.notes.append("the tables were not compared with the stored events: an events file is damaged")
            else:
                if "rejects" in bad_tables:
                    r.notes.append("no refusal was charged to its match in the replay: a rejects file is damaged")
                rejects_src = _source([], "rejects", False) if "rejects" in bad_tables else stored["rejects"]
                exp = _from_events(con, lake, stored["events"], rejects_src, tmp, pool)
                for t in BUILT:
                    if t in bad_tables:
                        r.notes.append(f"{t} rows were not compared: a file of the table is damaged")
                        continue
                    e = _source(exp[t], t, False)
                    if t == "rules":
                        e = f"SELECT rules_id, any_value(game) AS game, any_value(preset) AS preset, any_value(options) AS options FROM ({e}) GROUP BY rules_id"
                    _compare(con, lake, t, stored[t], e, "the stored events", r)
                _check_rooms(con, lake, stored["events"], _source(exp["matches"], "matches", False), stored, bad_tables, r, pool)
            for t in TABLES:
                r.checked[f"{t} rows"] = con.execute(f"SELECT count(*) FROM ({stored[t]})").fetchone()[0]
    except (OSError, duckdb.Error) as e:
        raise store.LakeError(f"cannot verify the lake {lake}: {store.io_reason(e)}") from None
    finally:
        con.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return r


# ------------------------------------------------------------------ the command


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ingest.cli import add_lake_arguments

    add_lake_arguments(p, "print the report as one JSON object")


def run(args: argparse.Namespace) -> int:
    r = verify(args.lake, workers=args.workers)
    if args.json:
        print(json.dumps(r.as_dict(), ensure_ascii=False))
        return 0 if r.whole else 1
    for f in r.findings:
        print(f.line())
    for check, n in sorted(r.more.items()):
        print(f"… and {n} more {check} findings")
    for n in r.notes:
        print(f"note: {n}", file=sys.stderr)
    counts = ", ".join(f"{v} {k}" for k, v in r.checked.items())
    if r.whole:
        print(f"paiju verify: {args.lake} is whole ({counts})")
        return 0
    total = len(r.findings) + sum(r.more.values())
    print(f"paiju verify: {args.lake}: {total} findings")
    for step in r.repairs():
        print(f"  repair: {step}")
    return 1
