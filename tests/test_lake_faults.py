"""The lake proves and repairs itself (issue 21): one test per fault of the issue's "Why", on real
lakes built by `paiju ingest` from real logs (the golden matches of every game, replicated).

Expected values come from the lake before the fault (a snapshot of every table, ordered by its
key) and from the fault itself (the byte flipped, the number edited): never from `verify`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analytics.lake import open_lake
from events.chain import fill_chain
from events.codec import event_to_json, parse_line
from ingest import store
from ingest.pipeline import ingest
from ingest.schema import KEYS, TABLES
from ingest.verify import verify
from tests.ingest_data import golden_files, many_matches, write_log
from tests.test_ingest_interrupt import _wait_for

ROOT = Path(__file__).resolve().parent.parent
PAIJU = [sys.executable, "-c", "import sys, paiju; sys.exit(paiju.main())"]
pytestmark = [pytest.mark.skipif(not golden_files(), reason="no game with golden logs"), pytest.mark.slow]


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PAIJU_LAKE_GRACE": "0", **extra}


def paiju(*args: str, cwd: Path = ROOT, timeout: float = 300, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*PAIJU, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=_env(**env))


def rows(lake: Path) -> dict[str, list[tuple[str, ...]]]:
    """Every table's rows ordered by its key, each value as JSON: what a reader can see."""
    con = open_lake(lake)
    out = {}
    for t in TABLES:
        cur = con.execute(f"SELECT * FROM {t} ORDER BY {', '.join(KEYS[t])}")
        out[t] = [tuple(json.dumps(v, sort_keys=True, default=str) for v in r) for r in cur.fetchall()]
    return out


def one_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.fixture(autouse=True)
def _no_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAIJU_LAKE_GRACE", "0")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three files: matches, more matches overlapping them (re-sends), and a file with a
    conflicting event, a refused line and a match's last events split from the rest."""
    d = tmp_path_factory.mktemp("logs")
    ms = many_matches(48, "f")
    a = write_log(d / "a.jsonl", ms[:30])
    b = write_log(d / "b.jsonl", ms[24:44])
    tail = [event_to_json(e) for e in ms[44]]
    head = [event_to_json(e) for e in ms[45]]
    bad = json.loads(head[2])
    bad["ts"] = "2031-01-01T00:00:00Z"
    bad.pop("hash", None)
    c = d / "c.jsonl"
    c.write_text("\n".join([*tail[:3], json.dumps(bad), "{not json", *head, *tail[3:]]) + "\n", encoding="utf-8")
    return [a, b, c]


@pytest.fixture(scope="module")
def built(logs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A lake built by three ingests, and its rows."""
    lake = tmp_path_factory.mktemp("built") / "lake"
    for p in logs:
        ingest([str(p)], lake, workers=0)
    return lake, rows(lake)


@pytest.fixture
def lake(built: tuple[Path, dict[str, Any]], tmp_path: Path) -> Path:
    dest = tmp_path / "lake"
    shutil.copytree(built[0], dest)
    return dest


def _table_file(lake: Path, table: str) -> Path:
    return lake / store.read_manifest(lake).tables[table][0]


def _rewrite_column(path: Path, column: str, change: Any) -> Any:
    """Rewrite one column of a Parquet file with `change(values)`; returns the new values."""
    t = pq.read_table(path, partitioning=None)
    i = t.schema.get_field_index(column)
    values = change(t.column(column).to_pylist())
    t = t.set_column(i, t.schema.field(i), pa.array(values, t.schema.field(i).type))
    pq.write_table(t, path)
    return values


def _whole_and_same(lake: Path, before: dict[str, Any]) -> None:
    r = verify(lake)
    assert r.whole, [f.line() for f in r.findings]
    assert rows(lake) == before


# ------------------------------------------------------------------ Why 1: edits nobody noticed


def test_edited_deltas_are_named_by_verify_and_repaired_by_rebuild(lake: Path, built: Any) -> None:
    """`matches.deltas` edited in Parquet: `stats` served it and `dispute` said Valid."""
    f = _table_file(lake, "matches")
    mids = pq.read_table(f, columns=["match_id"]).column("match_id").to_pylist()
    k = next(i for i, v in enumerate(pq.read_table(f).column("deltas").to_pylist()) if v and v[0] != 0)
    old = pq.read_table(f).column("deltas").to_pylist()[k]
    edited = [old[0] + 7, old[1] - 7, *old[2:]]
    _rewrite_column(f, "deltas", lambda vs: [edited if i == k else v for i, v in enumerate(vs)])
    r = paiju("verify", "--lake", str(lake), "--json")
    assert r.returncode == 1, r.stderr
    rep = json.loads(r.stdout)
    assert [(x["file"], x["match_id"]) for x in rep["findings"]] == [(f.relative_to(lake).as_posix(), mids[k])]
    msg = rep["findings"][0]["message"]
    assert f"matches.deltas is {json.dumps(edited)}" in msg and f"give {json.dumps(old)}" in msg
    assert rep["repair"] == [f"paiju rebuild --lake {lake}"]
    h = paiju("verify", "--lake", str(lake))
    assert h.returncode == 1 and mids[k] in h.stdout and "paiju rebuild" in h.stdout
    assert paiju("rebuild", "--lake", str(lake)).returncode == 0
    _whole_and_same(lake, built[1])


def test_a_flipped_or_deleted_byte_of_raw_is_named_and_a_re_offer_restores_it(lake: Path, logs: list[Path], built: Any) -> None:
    """Flipping or deleting a byte of a raw/ file went unnoticed, and offering the original again
    did not restore it (its SHA was "known")."""
    m = store.read_manifest(lake)
    by_name = {name: sha for sha, name in m.raw.items()}
    sha_a, sha_b = by_name["a.jsonl"], by_name["b.jsonl"]
    pa_ = lake / "raw" / sha_a
    data = bytearray(pa_.read_bytes())
    data[500] ^= 0x01
    pa_.write_bytes(bytes(data))
    pb = lake / "raw" / sha_b
    pb.write_bytes(pb.read_bytes()[:1000] + pb.read_bytes()[1001:])
    r = verify(lake)
    raw = {f.file: f.message for f in r.findings if f.check == "raw"}
    assert set(raw) == {f"raw/{sha_a}", f"raw/{sha_b}"} and all("not to its name" in v for v in raw.values())
    assert r.repairs()[0].startswith("offer the original file")
    # rebuild cannot repair it: it says what to do
    rb = paiju("rebuild", "--lake", str(lake))
    assert rb.returncode == 2 and "offer the original file again" in one_line(rb.stderr)
    # the originals offered again replace the damaged copies; the tables were never touched
    s = ingest([str(logs[0]), str(logs[1])], lake, workers=0)
    assert sorted(s.repaired) == sorted([sha_a, sha_b]) and s.files == 0
    assert pa_.read_bytes() == logs[0].read_bytes() and pb.read_bytes() == logs[1].read_bytes()
    _whole_and_same(lake, built[1])


def test_a_settled_amount_edited_with_the_chain_recomputed_is_named(lake: Path, built: Any) -> None:
    """A stored event rewritten (a settled amount) and the chain recomputed over it: the chain
    verifies by itself, but the final hash differs from `matches.final_hash`, and the stored line
    differs from the raw file's."""
    con = open_lake(lake)
    mid = con.execute("SELECT match_id FROM matches WHERE final_hash IS NOT NULL AND status = 'finished' "
                      "ORDER BY match_id LIMIT 1").fetchone()[0]  # fmt: skip
    stored_hash = con.execute("SELECT final_hash FROM matches WHERE match_id = ?", [mid]).fetchone()[0]
    lines = [r[0] for r in con.execute("SELECT line FROM events WHERE match_id = ? ORDER BY seq", [mid]).fetchall()]
    evs = [parse_line(x) for x in lines]
    last = evs[-1]
    assert last.type == "settled"  # type: ignore[attr-defined]
    d = json.loads(lines[-1])
    d["deltas"] = [d["deltas"][0] + 10, d["deltas"][1] - 10, *d["deltas"][2:]]
    evs[-1] = parse_line(json.dumps(d))
    new_lines = [event_to_json(e) for e in fill_chain(evs)]
    new_hash = json.loads(new_lines[-1])["hash"]
    assert new_hash != stored_hash
    files = [lake / p for p in store.read_manifest(lake).tables["events"]
             if mid in pq.read_table(lake / p, columns=["match_id"]).column("match_id").to_pylist()]  # fmt: skip
    t = pq.read_table(files[0], partitioning=None)
    seq_of = dict(zip(range(len(lines)), new_lines, strict=True))
    vals = [seq_of[s] if m == mid else ln for m, s, ln in zip(t.column("match_id").to_pylist(), t.column("seq").to_pylist(),
                                                             t.column("line").to_pylist(), strict=True)]  # fmt: skip
    t = t.set_column(t.schema.get_field_index("line"), "line", pa.array(vals, pa.string()))
    pq.write_table(t, files[0])
    r = verify(lake)
    msgs = [f.message for f in r.findings if f.match_id == mid]
    assert any(f"matches.final_hash is \"{stored_hash}\" but its stored events chain to \"{new_hash}\"" in x for x in msgs), msgs
    assert any("events.line is" in x and "the raw files give" in x for x in msgs), msgs
    assert paiju("rebuild", "--lake", str(lake)).returncode == 0
    _whole_and_same(lake, built[1])


# ------------------------------------------------------------------ Why 2: a listed file truncated or deleted


@pytest.mark.parametrize("how", ["truncate", "delete"])
def test_a_listed_file_truncated_or_deleted_is_one_line_everywhere_and_rebuild_repairs(lake: Path, logs: list[Path],
                                                                                       built: Any, how: str) -> None:  # fmt: skip
    """`stats`, `dispute` and every later `ingest` failed with DuckDB tracebacks, and the tables
    could not be rebuilt from raw/."""
    f = _table_file(lake, "matches")
    if how == "truncate":
        f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    else:
        f.unlink()
    rel = f.relative_to(lake).as_posix()
    mid = json.loads(logs[0].read_text().splitlines()[0])["match_id"]
    for args in (["stats", "--lake", str(lake)], ["dispute", mid, "--lake", str(lake), "--json"],
                 ["ingest", str(logs[2]), "--lake", str(lake)]):  # fmt: skip
        r = paiju(*args)
        assert r.returncode == 2, (args, r.stdout[-300:], r.stderr[-500:])
        line = one_line(r.stderr)
        assert rel in line and "paiju verify" in line and "paiju rebuild" in line, line
    r = verify(lake)
    assert [(x.check, x.file) for x in r.findings] == [("parquet", rel)]
    assert ("missing" if how == "delete" else "not whole Parquet") in r.findings[0].message
    assert paiju("rebuild", "--lake", str(lake)).returncode == 0
    _whole_and_same(lake, built[1])


# ------------------------------------------------------------------ Why 3: recovery deleting events


def test_an_events_file_missing_from_the_manifest_is_never_deleted(lake: Path, logs: list[Path], built: Any) -> None:
    """An events file missing from `manifest.json`: the next ingest's recovery deleted it, and
    its matches lost their events for good while their `matches` rows remained."""
    text = (lake / store.MANIFEST).read_text()
    d = json.loads(text)
    victim = max(d["tables"]["events"], key=lambda p: (lake / p).stat().st_size)
    n_rows = pq.read_metadata(lake / victim).num_rows
    d["tables"]["events"].remove(victim)
    (lake / store.MANIFEST).write_text(json.dumps(d, indent=1))
    r = paiju("ingest", str(logs[2]), "--lake", str(lake))
    assert r.returncode == 2 and "manifest.json" in one_line(r.stderr) and "edited" in r.stderr
    with store.locked(lake):  # recovery itself, called directly: it deletes only what a journal names
        store.recover(lake)
    assert (lake / victim).is_file() and pq.read_metadata(lake / victim).num_rows == n_rows
    rep = verify(lake)
    named = {(f.check, f.file) for f in rep.findings}
    assert ("manifest", "manifest.json") in named and ("parquet", victim) in named
    holds = next(f.message for f in rep.findings if f.file == victim)
    assert f"not listed in the manifest (it holds {n_rows} rows" in holds
    assert paiju("rebuild", "--lake", str(lake)).returncode == 0
    _whole_and_same(lake, built[1])


# ------------------------------------------------------------------ Why 4: kills of the owner or a worker


def _big_log(folder: Path, n: int = 1500) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write_log(folder / "big.jsonl", many_matches(n, "big"))


def _start(paths: list[Path], lake: Path, workers: int = 2) -> subprocess.Popen[str]:
    return subprocess.Popen([*PAIJU, "ingest", *map(str, paths), "--lake", str(lake), "--workers", str(workers), "--json"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
                            start_new_session=True)  # fmt: skip


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def _group(pgid: int) -> list[int]:
    out = subprocess.run(["ps", "-e", "-o", "pid=,pgid=,stat="], capture_output=True, text=True).stdout
    return [int(p) for p, g, st in (ln.split() for ln in out.splitlines()) if int(g) == pgid and not st.startswith("Z")]


def _parsing(lake: Path) -> bool:
    st = lake / store.STAGING
    return st.exists() and any(st.rglob("parsed/*.parquet"))


def test_the_owner_killed_alone_leaves_no_worker_and_no_lock(lake: Path, tmp_path: Path, built: Any) -> None:
    """The main ingest process killed alone (as an OOM kill does): its pool workers kept the lock
    and later ingests waited forever."""
    big = _big_log(tmp_path / "in")
    proc = _start([big], lake)
    assert _wait_for(lambda: _parsing(lake) and len(_children(proc.pid)) >= 2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert _wait_for(lambda: not _group(proc.pid), 10), f"processes of the killed ingest remain: {_group(proc.pid)}"
    r = paiju("ingest", str(big), "--lake", str(lake), "--no-wait", "--json", timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["files"] == 1
    assert verify(lake).whole


def test_a_killed_worker_is_one_line_and_the_lake_is_as_it_was(lake: Path, tmp_path: Path, built: Any) -> None:
    """A killed worker gave a `BrokenProcessPool` traceback."""
    big = _big_log(tmp_path / "in")
    proc = _start([big], lake)
    assert _wait_for(lambda: _parsing(lake) and len(_children(proc.pid)) >= 2)
    worker = max(_children(proc.pid))
    os.kill(worker, signal.SIGKILL)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    line = one_line(err)
    assert "worker process died" in line and str(lake) in line and "nothing was published" in line
    assert not _group(proc.pid)
    _whole_and_same(lake, built[1])
    assert not (lake / store.STAGING).exists()


# ------------------------------------------------------------------ Why 5: the catalog


def _catalog_counts(lake: Path, cwd: Path | None = None) -> dict[str, int]:
    con = duckdb.connect(str(lake / store.CATALOG), read_only=True)
    try:
        con.execute("SET file_search_path = ?", [str(cwd or lake)])
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        con.close()


def test_the_catalog_of_a_copied_lake_reads_its_own_files(lake: Path, tmp_path: Path, built: Any) -> None:
    """`catalog.duckdb` held absolute paths, so a copied lake read the original."""
    ingest([str(write_log(tmp_path / "x.jsonl", many_matches(3, "cp")))], lake, workers=0)  # its catalog: written here
    expected = {t: open_lake(lake).execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    copy = tmp_path / "copy"
    shutil.copytree(lake, copy)
    shutil.rmtree(lake)
    assert _catalog_counts(copy) == expected
    r = subprocess.run([sys.executable, "-c", "import duckdb; c = duckdb.connect('catalog.duckdb', read_only=True); "
                        "print(c.execute('SELECT count(*) FROM events').fetchone()[0])"],
                       cwd=copy, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert r.returncode == 0 and int(r.stdout) == expected["events"], r.stderr


def test_a_stale_catalog_is_rewritten_by_ingest_and_verify(lake: Path, logs: list[Path], tmp_path: Path) -> None:
    """A kill between the manifest swap and the catalog rewrite left `catalog.duckdb` stale."""
    old_catalog = (lake / store.CATALOG).read_bytes()
    extra = write_log(tmp_path / "x.jsonl", many_matches(5, "st"))
    ingest([str(extra)], lake, workers=0)
    truth = {t: open_lake(lake).execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    for fix in ("ingest", "verify"):
        (lake / store.CATALOG).write_bytes(old_catalog)  # as a kill right after the swap leaves it
        assert _catalog_counts(lake)["matches"] < truth["matches"]
        r = paiju("ingest", str(extra), "--lake", str(lake)) if fix == "ingest" else paiju("verify", "--lake", str(lake))
        assert r.returncode == 0, r.stderr
        assert _catalog_counts(lake) == truth, fix


def test_catalog_readers_never_see_a_missing_file_during_a_publish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Retired files were deleted before the catalog was rewritten: a reader of `catalog.duckdb`
    missed files for 50–130 ms during every publish, whatever the grace period. Now the catalog
    moves to the new files first, and a reader that opened the old one has the grace period
    (0.5 s here) to read the files it lists."""
    monkeypatch.setenv("PAIJU_LAKE_GRACE", "0.5")
    d = tmp_path / "in"
    d.mkdir()
    ms = many_matches(60, "cat")
    halves = [[evs[: len(evs) // 2] for evs in ms], [evs[len(evs) // 2 :] for evs in ms]]
    a = write_log(d / "a.jsonl", halves[0])
    lake = tmp_path / "lake"
    ingest([str(a)], lake, workers=0)
    errors: list[str] = []
    reads = 0
    stop = threading.Event()

    def reader() -> None:
        nonlocal reads
        while not stop.is_set():
            try:
                _catalog_counts(lake)
                reads += 1
            except duckdb.Error as e:
                errors.append(str(e).splitlines()[0][:160])

    th = threading.Thread(target=reader)
    th.start()
    try:
        for i in range(6):  # each ingest completes every match a little more: every derived file is replaced
            part = write_log(d / f"b{i}.jsonl", [evs[len(evs) // 2 : len(evs) // 2 + 1 + i] for evs in ms])
            ingest([str(part)], lake, workers=0)
    finally:
        stop.set()
        th.join()
    assert reads > 0 and errors == [], errors[:3]


# ------------------------------------------------------------------ Why 6: a full disk, a read-only lake


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A real 16 MiB tmpfs mounted for the test (needs root; skipped otherwise)."""
    mnt = tmp_path / "fs"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mnt)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _fill(fs: Path, leave: int) -> Path:
    """Fill the filesystem up to `leave` free bytes with one file."""
    filler = fs / "filler"
    st = os.statvfs(fs)
    free = st.f_bavail * st.f_frsize
    with open(filler, "wb") as f:
        f.truncate(0)
        chunk = b"\0" * (1 << 20)
        left = max(0, free - leave)
        while left > 0:
            f.write(chunk[: min(len(chunk), left)])
            left -= min(len(chunk), left)
    return filler


def test_a_full_disk_is_one_line_naming_the_lake_and_nothing_changes(small_fs: Path, logs: list[Path], tmp_path: Path) -> None:
    """Disk full (ENOSPC, for real: a 16 MiB tmpfs filled to a few bytes short of several
    points of the run): 6 of 14 failing runs ended in a DuckDB `IOException` traceback, 3 blamed
    the input file ("cannot read …: No space left on device")."""
    inp = write_log(tmp_path / "in.jsonl", many_matches(400, "nospc"))  # the input lives elsewhere
    lake = small_fs / "lake"
    ingest([str(logs[0])], lake, workers=0)
    before = rows(lake)
    seen = set()
    runs = []
    for leave in (4_000, 1_000_000, 2_000_000, 3_000_000, 3_300_000):
        filler = _fill(small_fs, leave)
        r = paiju("ingest", str(inp), "--lake", str(lake), "--workers", "1", "--json")
        filler.unlink()
        runs.append({"free_bytes": leave, "exit": r.returncode, "stderr": r.stderr.strip()[-300:]})
        if r.returncode == 0:  # enough room at this point: undo, to try the next point from the same state
            shutil.rmtree(lake)
            ingest([str(logs[0])], lake, workers=0)
            continue
        assert r.returncode == 2
        line = one_line(r.stderr)
        assert line.startswith(f"paiju ingest: cannot write the lake {lake} while "), line
        assert line.endswith(": No space left on device; nothing was published, the lake is as it was"), line
        assert str(inp) not in line and "in.jsonl" not in line
        assert rows(lake) == before and verify(lake).whole
        assert not (lake / store.STAGING).exists() and not (lake / store.JOURNAL).exists()
        seen.add(leave)
    (ROOT / "artifacts").mkdir(exist_ok=True)
    (ROOT / "artifacts" / "lake_enospc.json").write_text(json.dumps(runs, indent=1))
    assert len(seen) >= 4, seen


@pytest.mark.parametrize("pages", [0, 1])
def test_a_full_disk_while_publishing_undoes_every_move(small_fs: Path, logs: list[Path], pages: int) -> None:
    """The publish step itself out of space (ENOSPC, for real): with no page free the journal
    cannot be written; with one page the journal fits and the manifest does not. Either way
    every file moved into place is taken back, and the lake reads as before."""
    lake = small_fs / "lake"
    ingest([str(logs[0])], lake, workers=0)
    before = rows(lake)
    m = store.read_manifest(lake)
    staged = lake / ".staging" / "run-x" / "part-new.parquet"
    staged.parent.mkdir(parents=True)
    shutil.copy(lake / m.tables["matches"][0], staged)
    filler = _fill(small_fs, pages * os.statvfs(small_fs).f_frsize)
    try:
        with pytest.raises(OSError) as exc:
            store.publish(lake, m, {"matches": [(staged, "matches/part-new.parquet")]}, {}, {})
        assert exc.value.errno == 28  # ENOSPC
        failed_in = [t.name for t in exc.traceback][-1]
        assert failed_in == ("_write_json" if pages == 0 else "write_manifest"), failed_in
    finally:
        filler.unlink()
    assert not (lake / "matches" / "part-new.parquet").exists() and not (lake / store.JOURNAL).exists()
    assert store.read_manifest(lake) == m and rows(lake) == before and verify(lake).whole


def test_a_read_only_lake_is_one_line_naming_the_lake(small_fs: Path, logs: list[Path]) -> None:
    lake = small_fs / "lake"
    ingest([str(logs[0])], lake, workers=0)
    before = rows(lake)
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    try:
        r = paiju("ingest", str(logs[1]), "--lake", str(lake))
        assert r.returncode == 2
        line = one_line(r.stderr)
        assert f"the lake {lake}" in line and "Read-only file system" in line and "b.jsonl" not in line, line
        assert rows(lake) == before
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_fs)], check=True)


# ------------------------------------------------------------------ Why 8: the dashboard stopped by a signal


def _port_free(port: int) -> bool:
    import socket

    with socket.socket() as s:  # as a server binds it again (TIME_WAIT of our own probes allowed)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            s.listen()
        except OSError:
            return False
    return True


def _serving(port: int) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
            return bool(r.status == 200)
    except OSError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_the_dashboard_stops_with_its_streamlit_child_on_a_signal(built: Any, sig: signal.Signals) -> None:
    """`paiju dashboard` stopped with SIGTERM exited but left its Streamlit child serving."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([*PAIJU, "dashboard", "--lake", str(built[0]), "--port", str(port), "--host", "127.0.0.1"],
                            cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    try:
        assert _wait_for(lambda: _serving(port), 90), "the dashboard did not start"
        kids = _children(proc.pid)
        assert kids
        proc.send_signal(sig)
        assert proc.wait(timeout=30) == 0
        assert _wait_for(lambda: not any(_group(k) for k in kids) and not _group(proc.pid), 15), "a process of it remains"
        assert _wait_for(lambda: _port_free(port), 10)
        assert "Traceback" not in (proc.stderr.read() if proc.stderr else "")
    finally:
        for pid in [proc.pid, *_children(proc.pid)]:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)


# ------------------------------------------------------------------ the property: kills, re-runs, verify, rebuild

EXAMPLES = int(os.environ.get("PAIJU_LAKE_EXAMPLES", "3"))
"""Hypothesis examples per CI run; `PAIJU_LAKE_EXAMPLES=30` for a long run."""
KILLS = ("none", "main", "worker", "group")


@pytest.fixture(scope="module")
def prop_logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], float]:
    """Three files (one re-sending, one conflicting with the others), and how long an ingest of
    the biggest one takes (to spread the kills over a whole run)."""
    d = tmp_path_factory.mktemp("prop")
    ms = many_matches(300, "p")
    a = write_log(d / "a.jsonl", ms[:200])
    b = write_log(d / "b.jsonl", ms[160:300])
    lines = [event_to_json(e) for e in ms[210]]
    bad = json.loads(lines[4])
    bad["ts"] = "2032-02-02T00:00:00Z"
    bad.pop("hash", None)
    c = d / "c.jsonl"
    c.write_text(json.dumps(bad) + "\n{oops\n" + "\n".join(event_to_json(e) for m in many_matches(20, "q") for e in m) + "\n")
    t0 = time.monotonic()
    lake = d / "timing"
    proc = _start([a], lake)
    assert proc.wait(timeout=300) == 0
    return [a, b, c], time.monotonic() - t0


def _kill(proc: subprocess.Popen[str], how: str) -> None:
    if how == "main":
        os.kill(proc.pid, signal.SIGKILL)
    elif how == "group":
        os.killpg(proc.pid, signal.SIGKILL)
    elif how == "worker":
        kids = _children(proc.pid)
        if kids:
            os.kill(max(kids), signal.SIGKILL)


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_step = st.tuples(st.lists(st.integers(0, 2), min_size=1, max_size=3, unique=True), st.sampled_from(KILLS),
                  st.floats(0.0, 1.2))  # fmt: skip


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(steps=st.lists(_step, min_size=1, max_size=3))
def test_any_ingests_kills_and_reruns_then_verify_is_whole_and_rebuild_identical(
    prop_logs: tuple[list[Path], float], tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[list[int], str, float]]
) -> None:
    """Any sequence of ingests, each maybe killed at a random moment (the main process alone, one
    worker, or the whole group), then a re-run of every file: `verify` finds the lake whole, the
    lake equals clean one-file-at-a-time ingests in the order it received the files, and
    `rebuild` gives the same rows again."""
    files, dur = prop_logs
    root = tmp_path_factory.mktemp("run")
    lake = root / "lake"
    for which, how, when in steps:
        proc = _start([files[i] for i in which], lake)
        if how != "none":
            time.sleep(when * dur)
            if proc.poll() is None:
                _kill(proc, how)
        _, err = proc.communicate(timeout=300)
        assert proc.returncode in (0, 2, -signal.SIGKILL), err
        if proc.returncode == 2:
            assert "worker process died" in one_line(err)
        assert _wait_for(lambda p=proc: not _group(p.pid), 15), "a process of a killed ingest remains"
    r = paiju("ingest", *map(str, files), "--lake", str(lake), "--no-wait")  # the re-run: never waits for a ghost
    assert r.returncode == 0, r.stderr
    rep = verify(lake)
    assert rep.whole, [f.line() for f in rep.findings]
    got = rows(lake)
    order = [store.read_manifest(lake).raw[s] for s in store.read_manifest(lake).received]
    ref = root / "ref"
    by_name = {p.name: p for p in files}
    for name in order:
        ingest([str(by_name[name])], ref, workers=0)
    assert got == rows(ref)
    assert paiju("rebuild", "--lake", str(lake)).returncode == 0
    assert rows(lake) == got
    assert verify(lake).whole
    shutil.rmtree(root)
