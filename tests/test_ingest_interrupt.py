"""An ingest killed mid-way (SIGKILL of its whole process group, or Ctrl-C) and run again leaves
the lake exactly as one clean run would: same tables, no loss, no duplicates."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ingest import store
from ingest.pipeline import ingest
from tests.ingest_data import assert_same, golden_files, many_matches, snapshot, write_log

PAIJU = str(Path(sys.executable).parent / "paiju")
ROOT = Path(__file__).parent.parent
pytestmark = [
    pytest.mark.skipif(not golden_files(), reason="no game with golden logs is available yet"),
    pytest.mark.slow,
]


def _start(paths: list[Path], lake: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([PAIJU, "ingest", *map(str, paths), "--lake", str(lake), "--workers", "2", "--json"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip


def _wait_for(cond, timeout: float = 60.0) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return False


def _staged(lake: Path, what: str) -> bool:
    st = lake / store.STAGING
    return st.exists() and any(st.rglob(what))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], Path]:
    d = tmp_path_factory.mktemp("interrupt")
    ms = many_matches(360, "k")
    a = write_log(d / "a.jsonl", ms[:240])
    b = write_log(d / "b.jsonl", ms[200:])  # overlaps a: 40 matches re-sent
    clean = d / "clean"
    ingest([str(a)], clean, workers=2)
    ingest([str(b)], clean, workers=2)
    return [a, b], clean


@pytest.mark.parametrize("stage", ["parsed/*.parquet", "touched.parquet", "build/matches/*.parquet"])
def test_killed_ingest_then_rerun_equals_clean_run(tmp_path: Path, inputs: tuple[list[Path], Path], stage: str) -> None:
    (a, b), clean = inputs
    lake = tmp_path / "lake"
    ingest([str(a)], lake, workers=2)
    before = snapshot(lake)
    p = _start([b], lake)
    try:
        reached = _wait_for(lambda: _staged(lake, stage) or p.poll() is not None)
        assert reached
        os.killpg(p.pid, signal.SIGKILL)
    finally:
        p.wait(timeout=60)
    # a reader at this point sees the old lake or the new one, never a mixture
    now = snapshot(lake)
    published = store.read_manifest(lake).generation
    if published == 1:
        assert_same(before, now)
    r = subprocess.run([PAIJU, "ingest", str(b), "--lake", str(lake), "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert_same(snapshot(clean), snapshot(lake))
    assert not (lake / store.STAGING).exists()
    on_disk = {p.relative_to(lake).as_posix() for p in lake.rglob("*.parquet")}
    listed = {f for files in store.read_manifest(lake).tables.values() for f in files}
    assert on_disk == listed


def test_ctrl_c_stops_cleanly_and_rerun_completes(tmp_path: Path, inputs: tuple[list[Path], Path]) -> None:
    (a, b), clean = inputs
    lake = tmp_path / "lake"
    p = _start([a, b], lake)
    try:
        assert _wait_for(lambda: _staged(lake, "parsed/*.parquet") or p.poll() is not None)
        os.killpg(p.pid, signal.SIGINT)
        _out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert b"Traceback" not in err
    assert p.returncode in (0, 130)
    for path in (a, b):
        r = subprocess.run([PAIJU, "ingest", str(path), "--lake", str(lake), "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        json.loads(r.stdout)
    assert_same(snapshot(clean), snapshot(lake), ["events", "matches", "seats", "items", "fans", "rules", "rejects"])
