"""Property: however a set of logs is cut into files, shuffled and re-sent, and in however many
ingest runs it arrives, the lake's tables are the same (apart from where each line came from)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.codec import event_to_json
from ingest.pipeline import ingest
from tests.ingest_data import assert_same, golden_files, many_matches, snapshot

pytestmark = pytest.mark.skipif(not golden_files(), reason="no game with golden logs is available yet")

PROVENANCE = ("file_sha", "file_line", "file_name", "bytes", "lines", "events", "rejected")
TABLES = ["events", "matches", "seats", "items", "fans", "rules"]


@pytest.fixture(scope="module")
def reference() -> tuple[list[str], dict]:
    lines = [event_to_json(e) for m in many_matches(12, "p") for e in m]
    d = Path(tempfile.mkdtemp(prefix="prop-"))
    (d / "all.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ingest([str(d / "all.jsonl")], d / "lake", workers=0, speculate=False)  # the runs below replay in the parse step
    return lines, snapshot(d / "lake", PROVENANCE)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_cut_order_and_resend_gives_the_same_tables(reference: tuple[list[str], dict], data: st.DataObject) -> None:
    lines, want = reference
    n_files = data.draw(st.integers(1, 4), label="files")
    owner = data.draw(st.lists(st.integers(0, n_files - 1), min_size=len(lines), max_size=len(lines)), label="owner")
    resend = data.draw(st.lists(st.sampled_from(lines), max_size=5), label="resent lines")
    runs = data.draw(st.integers(1, n_files), label="runs")
    seed = data.draw(st.randoms(use_true_random=False), label="shuffle")
    files: list[list[str]] = [[] for _ in range(n_files)]
    for ln, k in zip(lines, owner, strict=True):
        files[k].append(ln)
    files[0].extend(resend)
    for f in files:
        seed.shuffle(f)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        paths = []
        for i, f in enumerate(files):
            p = d / f"part{i}.jsonl"
            p.write_text("".join(x + "\n" for x in f), encoding="utf-8")
            paths.append(str(p))
        per_run = -(-len(paths) // runs)
        for k in range(0, len(paths), per_run):
            ingest(paths[k : k + per_run], d / "lake", workers=0)
        assert_same(want, snapshot(d / "lake", PROVENANCE), TABLES)
