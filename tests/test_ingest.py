"""Ingest on a real lake in a temporary folder (no mocked database): idempotence, bad input,
conflicts, matches completed across files, byte-identical round trip, locking."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from analytics.lake import open_lake
from analytics.queries import match_events, match_lines
from engine.replay import group_lines, replay
from events.codec import event_to_json, read_log
from ingest import store
from ingest.pipeline import ingest
from tests.ingest_data import assert_same, golden_files, golden_matches, many_matches, snapshot, write_log

PAIJU = str(Path(sys.executable).parent / "paiju")
pytestmark = pytest.mark.skipif(not golden_files(), reason="no game with golden logs is available yet")


@pytest.fixture
def logs(tmp_path: Path) -> list[Path]:
    out = tmp_path / "logs"
    out.mkdir()
    return [Path(shutil.copy(p, out / p.name)) for p in golden_files()]


def _replayed(paths: list[Path]) -> dict[str, dict]:
    g = group_lines(ln for p in paths for ln in read_log(p))
    return {mid: replay(entries).to_dict() for mid, entries in g.matches.items()}


def test_ingest_replays_every_match_like_the_engine(tmp_path: Path, logs: list[Path]) -> None:
    s = ingest([str(p) for p in logs], tmp_path / "lake", workers=2)
    assert s.files == len(logs) and s.rejected == 0 and s.conflicts == 0
    expected = _replayed(logs)
    con = open_lake(tmp_path / "lake")
    rows = {r[0]: r[1:] for r in con.execute(
        "SELECT match_id, status, deltas, winners, settlement_matches, chain_ok, events, error_code FROM matches").fetchall()}  # fmt: skip
    assert set(rows) == set(expected)
    for mid, r in expected.items():
        status, deltas, winners, sm, chain_ok, n, code = rows[mid]
        assert status == r["status"], mid
        assert deltas == (r["deltas"] if r["deltas"] is not None else None), mid
        assert winners == r["winners"], mid
        assert sm == r["settlement_matches"] and chain_ok == r["chain_ok"] and n == r["events"], mid
        assert code == (r["error"] or {}).get("code")
    # items: every settlement line, in order, with its points
    for mid, r in expected.items():
        got = con.execute("SELECT kind, seat, from_seat, points FROM items WHERE match_id = ? ORDER BY item_no", [mid]).fetchall()
        assert got == [(i["kind"], i["seat"], i["from"], i["points"]) for i in r["items"]], mid
    # seats: the deltas again, per seat, and the winners
    for mid, r in expected.items():
        if r["status"] != "finished":
            continue
        got = con.execute("SELECT seat, delta, won FROM seats WHERE match_id = ? ORDER BY seat", [mid]).fetchall()
        assert got == [(s, d, s in r["winners"]) for s, d in enumerate(r["deltas"])]
    assert s.events == con.execute("SELECT count(*) FROM events").fetchone()[0]
    # the catalog file has the same views over the same files
    import duckdb

    cat = duckdb.connect(str(tmp_path / "lake" / "catalog.duckdb"), read_only=True)
    cat.execute("SET file_search_path = ?", [str(tmp_path / "lake")])  # its paths are relative to the lake
    for t in ("events", "matches", "seats", "items", "fans", "rules", "rejects", "files"):
        q = f"SELECT count(*) FROM {t}"
        assert cat.execute(q).fetchone() == con.execute(q).fetchone(), t


def test_ingest_twice_changes_nothing(tmp_path: Path, logs: list[Path]) -> None:
    lake = tmp_path / "lake"
    ingest([str(p) for p in logs], lake, workers=0)
    before = snapshot(lake)
    gen = store.read_manifest(lake).generation
    s = ingest([str(p) for p in logs], lake, workers=0)
    assert s.files == 0 and s.skipped == len(logs) and s.events == 0
    assert store.read_manifest(lake).generation == gen
    assert_same(before, snapshot(lake))
    # the same events in a new file (another name, other bytes): only identical re-sends
    combined = tmp_path / "combined.jsonl"
    combined.write_bytes(b"".join(p.read_bytes() for p in reversed(logs)))
    s = ingest([str(combined)], lake, workers=0)
    assert s.files == 1 and s.events == 0 and s.conflicts == 0 and s.duplicates == sum(len(m) for m in golden_matches())
    after = snapshot(lake)
    assert_same(before, after, [t for t in before if t != "files"])
    assert len(after["files"]) == len(before["files"]) + 1


def test_one_run_equals_many_runs(tmp_path: Path, logs: list[Path]) -> None:
    ingest([str(p) for p in logs], tmp_path / "one", workers=2)
    third = len(logs) // 3 + 1
    for k in range(0, len(logs), third):
        ingest([str(p) for p in logs[k : k + third]], tmp_path / "many", workers=0)
    assert_same(snapshot(tmp_path / "one"), snapshot(tmp_path / "many"))


def test_bad_input_is_quarantined_and_the_rest_ingested(tmp_path: Path) -> None:
    good = many_matches(3, "good")
    lines = [event_to_json(e) for m in good for e in m]
    body = "\n".join(lines[:4]) + "\nnot json at all\n" + "\n".join(lines[4:]) + "\n"
    body += '{"match_id":"zz","seq":0,"type":"nonsense"}\n'
    body += '{"match_id":"zz","seq":1,"type":"pass","seat":0,"typo":1}\n'
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(body.encode() + b'{"match_id":"\xff\xfe","seq":0}\n' + b"[1,2]\n")
    huge = tmp_path / "huge.jsonl"
    huge.write_bytes(b'{"match_id":"h","pad":"' + b"x" * (1 << 21) + b'"}\n' + (lines[0] + "\n").encode())
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    trunc = tmp_path / "trunc.jsonl.gz"
    other = many_matches(2, "gz")
    data = gzip.compress("".join(event_to_json(e) + "\n" for m in other for e in m).encode())
    trunc.write_bytes(data[: len(data) // 2])
    lake = tmp_path / "lake"
    s = ingest([str(mixed), str(huge), str(empty), str(trunc), str(tmp_path / "missing.jsonl"), str(tmp_path)], lake, workers=2)
    assert len(s.unreadable) == 2 and s.files == 4
    con = open_lake(lake)
    rejects = con.execute("SELECT file_name, line, code, match_id, seq FROM rejects ORDER BY file_name, line").fetchall()
    by_file: dict[str, list[tuple]] = {}
    for name, line, code, mid, seq in rejects:
        by_file.setdefault(name, []).append((line, code, mid, seq))
    assert by_file["mixed.jsonl"] == [
        (5, "bad_json", None, None), (len(lines) + 2, "unknown_type", "zz", 0), (len(lines) + 3, "bad_field", "zz", 1),
        (len(lines) + 4, "bad_json", None, None), (len(lines) + 5, "bad_json", None, None),
    ]  # fmt: skip
    assert by_file["huge.jsonl"] == [(1, "bad_json", "h", None)]  # charged to the match its head names (issue 17)
    assert by_file["empty.jsonl"] == [(0, "bad_json", None, None)]
    # the cut gzip: its last, partial line is refused and charged to the match it names (issue 17),
    # then the cut itself
    import zlib

    tail = zlib.decompressobj(31).decompress(data[: len(data) // 2]).rsplit(b"\n", 1)[1]
    named = tail.split(b'"')[3].decode() if tail.count(b'"') >= 4 else None
    assert [(c, m) for _, c, m, _ in by_file["trunc.jsonl.gz"]] == [("bad_json", named), ("bad_json", None)]
    # the three good matches are complete and replayed like the engine does
    want = {m[0].match_id: replay(m).status for m in good}
    got = dict(con.execute("SELECT match_id, status FROM matches WHERE match_id LIKE 'good-%'").fetchall())
    assert got == want
    # every byte of every received file is kept under raw/ by its SHA-256
    for p in (mixed, huge, empty, trunc):
        import hashlib

        sha = hashlib.sha256(p.read_bytes()).hexdigest()
        assert (lake / "raw" / sha).read_bytes() == p.read_bytes()


def test_conflicting_event_is_quarantined(tmp_path: Path) -> None:
    m = many_matches(1, "c")[0]
    a = write_log(tmp_path / "a.jsonl", [m])
    lake = tmp_path / "lake"
    ingest([str(a)], lake, workers=0)
    before = snapshot(lake)
    k = 2
    changed = m[k].model_copy(update={"ts": "2030-01-01T00:00:00Z"})
    changed.__pydantic_fields_set__.update(m[k].__pydantic_fields_set__ | {"ts"})
    b = tmp_path / "b.jsonl"
    b.write_text(event_to_json(m[k]) + "\n" + event_to_json(changed) + "\n", encoding="utf-8")
    s = ingest([str(b)], lake, workers=0)
    assert s.conflicts == 1 and s.duplicates == 1 and s.events == 0
    after = snapshot(lake)
    assert_same(before, after, ["events", "matches", "seats", "items", "fans", "rules"])
    rej = open_lake(lake).execute("SELECT file_name, line, match_id, seq, code, message, raw FROM rejects").fetchall()
    assert len(rej) == 1
    name, line, mid, seq, code, message, raw = rej[0]
    assert (name, line, mid, seq, code) == ("b.jsonl", 2, m[k].match_id, k, "conflict")
    assert "already stored" in message and raw == event_to_json(changed)


def test_match_split_over_files_is_completed_not_duplicated(tmp_path: Path) -> None:
    matches = many_matches(4, "live")
    whole = write_log(tmp_path / "whole.jsonl", matches)
    first = tmp_path / "first.jsonl"
    second = tmp_path / "second.jsonl"
    first.write_text("".join(event_to_json(e) + "\n" for m in matches for e in m[: len(m) // 2]), encoding="utf-8")
    # the second file repeats one event already sent (a re-send) and brings the rest
    second.write_text("".join(event_to_json(e) + "\n" for m in matches for e in m[len(m) // 2 - 1 :]), encoding="utf-8")
    lake = tmp_path / "lake"
    ingest([str(first)], lake, workers=0)
    con = open_lake(lake)
    assert {r[0] for r in con.execute("SELECT status FROM matches").fetchall()} <= {"incomplete", "finished", "invalid"}
    s = ingest([str(second)], lake, workers=2)
    assert s.duplicates == len(matches) and s.matches == len(matches)
    ingest([str(whole)], tmp_path / "clean", workers=0)
    drop = ("file_sha", "file_line", "file_name", "bytes", "lines", "events", "rejected")
    a, b = snapshot(lake, drop), snapshot(tmp_path / "clean", drop)
    assert_same(a, b, ["events", "matches", "seats", "items", "fans", "rules"])
    n = open_lake(lake).execute("SELECT count(*), count(DISTINCT match_id) FROM matches").fetchone()
    assert n == (len(matches), len(matches))


def test_replay_in_the_parse_step_gives_the_same_tables(tmp_path: Path, logs: list[Path]) -> None:
    """The speculative replay in the parse workers is an optimisation only: with it, without it,
    and with chunks so small that most matches straddle two of them, the lake is the same."""
    paths = [str(p) for p in logs]
    with_spec = ingest(paths, tmp_path / "spec", workers=2)
    without = ingest(paths, tmp_path / "plain", workers=2, speculate=False)
    straddling = ingest(paths, tmp_path / "small", workers=2, chunk_lines=7)
    assert without.speculative == 0
    assert 0 < with_spec.speculative <= with_spec.matches == without.matches
    assert 0 < straddling.speculative < with_spec.speculative
    assert with_spec.statuses == without.statuses == straddling.statuses
    want = snapshot(tmp_path / "plain")
    assert_same(want, snapshot(tmp_path / "spec"))
    assert_same(want, snapshot(tmp_path / "small"))


def test_first_rows_shortcut_gives_the_tables_of_the_ranking(tmp_path: Path, logs: list[Path],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh lake with no (match, seq) twice skips the ranking window (`_all_first`, issue 22):
    the lake is the one the window gives; a re-send still goes through the window."""
    import ingest.pipeline as pipeline

    paths = [str(p) for p in logs]
    taken: list[bool] = []
    real = pipeline._all_first
    monkeypatch.setattr(pipeline, "_all_first", lambda con: taken.append(real(con)) or taken[-1])
    short = ingest(paths, tmp_path / "short", workers=2)
    monkeypatch.setattr(pipeline, "_all_first", lambda con: False)
    ranked = ingest(paths, tmp_path / "ranked", workers=2)
    assert taken == [True] and short.statuses == ranked.statuses and short.events == ranked.events > 0
    assert_same(snapshot(tmp_path / "ranked"), snapshot(tmp_path / "short"))
    monkeypatch.setattr(pipeline, "_all_first", lambda con: taken.append(real(con)) or taken[-1])
    resent = tmp_path / "resent.jsonl"  # another file (another sha) of events stored already
    lines = logs[0].read_bytes().splitlines(keepends=True)
    resent.write_bytes(b"".join(lines) + b"\n")
    again = ingest([str(resent)], tmp_path / "short", workers=0)
    assert taken == [True, False] and again.duplicates == len(lines) and again.events == 0
    twice = tmp_path / "twice.jsonl"  # a fresh lake, one line sent twice in the same run
    twice.write_bytes(b"".join(lines) + lines[1])
    once = ingest([str(twice)], tmp_path / "twice", workers=0)
    assert taken == [True, False, False] and once.duplicates == 1 and once.events == len(lines)


def test_round_trip_log_parquet_log_is_byte_identical(tmp_path: Path, logs: list[Path]) -> None:
    lake = tmp_path / "lake"
    ingest([str(p) for p in logs], lake, workers=0)
    for p in logs:
        original = p.read_bytes()
        mid = original.split(b"\n", 1)[0]
        match_id = json.loads(mid)["match_id"]
        rebuilt = "".join(line + "\n" for line in match_lines(lake, match_id)).encode("utf-8")
        assert rebuilt == original, p.name
        evs = match_events(lake, match_id)
        assert [e.seq for e in evs] == list(range(len(evs)))
        from events.codec import parse_line

        assert [event_to_json(e) for e in evs] == [event_to_json(parse_line(x)) for x in original.splitlines()]


def test_two_ingests_at_once_serialise_or_refuse(tmp_path: Path, logs: list[Path]) -> None:
    lake = tmp_path / "lake"
    with store.locked(lake):
        with pytest.raises(store.LakeBusy, match="another ingest"):
            ingest([str(logs[0])], lake, workers=0, wait=False)
        r = subprocess.run([PAIJU, "ingest", str(logs[0]), "--lake", str(lake), "--no-wait"],
                           capture_output=True, text=True, cwd=Path(__file__).parent.parent, timeout=120)  # fmt: skip
        assert r.returncode == 2 and "another ingest" in r.stderr and "Traceback" not in r.stderr
    assert ingest([str(logs[0])], lake, workers=0).files == 1


def test_recover_removes_what_an_interrupted_run_left(tmp_path: Path, logs: list[Path]) -> None:
    """Leftovers of a run killed between renaming its files and swapping the manifest go (its
    journal names them); a file no journal names stays, even unlisted (issue 21: recovery once
    deleted an events file the manifest had lost, and 144 matches lost their events)."""
    lake = tmp_path / "lake"
    ingest([str(p) for p in logs[:2]], lake, workers=0)
    before = snapshot(lake)
    (lake / "events" / "game=zz" / "date=none").mkdir(parents=True)
    shutil.copy(next((lake / "events").rglob("*.parquet")), lake / "events" / "game=zz" / "date=none" / "part-x.parquet")
    shutil.copy(next((lake / "matches").glob("*.parquet")), lake / "matches" / "part-x.parquet")
    (lake / "raw" / ("0" * 64)).write_bytes(b"junk")
    (lake / ".staging" / "run-1").mkdir(parents=True)
    unknown = lake / "matches" / "part-not-journaled.parquet"
    shutil.copy(next((lake / "matches").glob("part-*.parquet")), unknown)
    gen = store.read_manifest(lake).generation
    (lake / store.JOURNAL).write_text(json.dumps({
        "generation": gen + 1, "added": ["events/game=zz/date=none/part-x.parquet", "matches/part-x.parquet"],
        "raw": ["0" * 64], "retired": []}))  # fmt: skip
    with store.locked(lake):
        assert store.recover(lake) == 4
    assert_same(before, snapshot(lake))
    assert not (lake / ".staging").exists() and not (lake / "raw" / ("0" * 64)).exists()
    assert not (lake / "events" / "game=zz").exists() and not (lake / store.JOURNAL).exists()
    assert unknown.exists()  # no journal names it: never deleted


def test_cli_ingest_summary_and_exit_codes(tmp_path: Path, logs: list[Path]) -> None:
    cwd = Path(__file__).parent.parent
    r = subprocess.run([PAIJU, "ingest", *map(str, logs), str(tmp_path / "nope.jsonl"),
                        "--lake", str(tmp_path / "lake"), "--json"], capture_output=True, text=True, cwd=cwd, timeout=300)  # fmt: skip
    assert r.returncode == 2 and "nope.jsonl" in r.stderr and "Traceback" not in r.stderr
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    assert summary["files"] == len(logs) and summary["matches"] == len(logs)
    r = subprocess.run([PAIJU, "ingest", *map(str, logs), "--lake", str(tmp_path / "lake")],
                       capture_output=True, text=True, cwd=cwd, timeout=300)  # fmt: skip
    assert r.returncode == 0 and "files already stored" in r.stdout
