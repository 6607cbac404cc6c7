"""One decision on re-sends, conflicts and unreadable lines, through every path (issues 17, 21 item 5).

The same files go through `paiju replay --json`, `paiju dispute --log --json`, `paiju ingest` (the
lake's `matches` and `rejects` tables) and `paiju dispute --lake --json`; all four must say the
same status and error, and the lake quarantine what the replay quarantines. Expected values
come from events.md §5 as written: the first event received at a seq is the event; an identical
re-send is a no-op; anything else at a stored seq is quarantined (`conflict`, or the line's own
refusal) and changes nothing; a re-send whose `hash` is not the stored one is not identical.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

import paiju
from analytics.lake import open_lake
from engine.sim.simulate import simulate_match
from events.chain import fill_chain
from events.codec import event_to_json

pytestmark = pytest.mark.xdist_group("lake")


def _match(seed: int = 11) -> list[str]:
    return [event_to_json(e) for e in fill_chain(simulate_match("ddz", {}, seed, 0))]


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = paiju.main(argv)
    return rc, out.getvalue(), err.getvalue()


def _variants() -> dict[str, tuple[list[str], list[str], list[str]]]:
    """name → (first file's lines, second file's lines, the codes quarantined)."""
    lines = _match()
    k = 3
    d = json.loads(lines[k])
    other = dict(d, ts="2030-01-01T00:00:00Z")
    other.pop("hash")
    wrong_hash = dict(d, hash="0" * 64)
    no_hash = {x: v for x, v in d.items() if x != "hash"}
    malformed = lines[k][:-1] + ',"seat":0}'  # a duplicate key, at the stored seq k
    return {
        "identical_resend": (lines, [lines[k]], []),
        "resend_without_hash": (lines, [json.dumps(no_hash, separators=(",", ":"))], []),
        "resend_with_a_wrong_hash": (lines, [json.dumps(wrong_hash, separators=(",", ":"))], ["conflict"]),
        "late_conflict": (lines, [json.dumps(other, separators=(",", ":"))], ["conflict"]),
        "malformed_duplicate_of_a_stored_seq": (lines, [malformed], ["bad_json"]),
    }


@pytest.mark.parametrize("name", sorted(_variants()))
def test_replay_dispute_and_lake_agree(name: str, tmp_path: Path) -> None:
    first, second, quarantined = _variants()[name]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("\n".join(first) + "\n")
    b.write_text("\n".join(second) + "\n")
    mid = json.loads(first[0])["match_id"]

    rc, out, err = _run(["replay", str(a), str(b), "--json"])
    (r,) = [json.loads(x) for x in out.splitlines()]
    assert (r["status"], r["error"]) == ("finished", None), name
    assert r["events"] == len(first)
    assert [ln.split(": ")[1] for ln in err.splitlines()] == quarantined
    assert rc == (1 if quarantined else 0)

    rc_d, out_d, _ = _run(["dispute", mid, "--log", str(a), str(b), "--json", "--out", str(tmp_path / "d.html")])
    dl = json.loads(out_d)

    lake = tmp_path / "lake"
    assert _run(["ingest", str(a), str(b), "--lake", str(lake)])[0] in (0, 1)
    con = open_lake(lake)
    row = con.execute("SELECT status, error_code, events, deltas FROM matches WHERE match_id = ?", [mid]).fetchone()
    rejects = [c for (c,) in con.execute("SELECT code FROM rejects WHERE match_id = ? ORDER BY line", [mid]).fetchall()]
    con.close()
    rc_l, out_l, _ = _run(["dispute", mid, "--lake", str(lake), "--json", "--out", str(tmp_path / "l.html")])
    dk = json.loads(out_l)

    assert (row[0], row[1], row[2], list(row[3])) == (r["status"], None, r["events"], r["deltas"]), name
    assert rejects == quarantined, name
    for d in (dl, dk):
        assert (d["status"], d["error"], d["deltas"], d["chain_ok"]) == (r["status"], r["error"], r["deltas"], r["chain_ok"]), name
    assert rc_d == rc_l


def _unreadable(seed: int = 11) -> dict[str, tuple[list[list[str]], str | None, int | None, int]]:
    """name → (files, each ingested in its own run; the status; the error seq; the events).

    Written from the contract (events.md §1, §6; issue 17): a line that cannot be decoded but
    whose text names its match and seq is that match's error at that seq (`bad_json`), unless
    an event holds that seq; the events counted are the readable ones. A readable line that is
    not an event (an unknown field) is its match's `bad_field` at its seq the same way."""
    lines = _match(seed)[:5]  # seq 0..4: a match that has not ended
    nan = lines[3].replace('"seq":3,', '"seq":3,"x":NaN,', 1)
    dup = lines[3][:-1] + ',"type":"pass"}'  # the key `type` twice
    cut = lines[4][: len(lines[4]) // 2]
    unknown = lines[3].replace('"seq":3,', '"seq":3,"zz":1,', 1)  # readable JSON, not an event  # the last line cut short (no newline)
    without3 = [*lines[:3], lines[4]]
    return {
        "nan_at_seq_3": ([[*lines[:3], nan, lines[4]]], "invalid", 3, 4),
        "duplicate_key_at_seq_3": ([[*lines[:3], dup, lines[4]]], "invalid", 3, 4),
        "cut_last_line": ([[*lines[:4], cut]], "invalid", 4, 4),
        "unknown_field_at_seq_3": ([[*lines[:3], unknown, lines[4]]], "invalid", 3, 4),
        "nan_line_in_a_later_run": ([without3, [nan]], "invalid", 3, 4),
        "the_event_arrives_after_the_nan_line": ([[*lines[:3], nan, lines[4]], [lines[3]]], "incomplete", None, 5),
    }


@pytest.mark.parametrize("name", sorted(_unreadable()))
def test_an_unreadable_line_is_its_match_error_everywhere(name: str, tmp_path: Path) -> None:
    files, status, seq, n_events = _unreadable()[name]
    paths = []
    for i, lines in enumerate(files):
        p = tmp_path / f"{i}.jsonl"
        p.write_text("\n".join(lines) + ("" if name == "cut_last_line" else "\n"))
        paths.append(str(p))
    mid = json.loads(files[0][0])["match_id"]

    _, out, _ = _run(["replay", *paths, "--json"])
    (r,) = [json.loads(x) for x in out.splitlines()]
    assert (r["status"], r["events"], r["deltas"]) == (status, n_events, None), name
    if seq is None:
        assert r["error"] is None, name
    else:
        code = "bad_field" if name.startswith("unknown_field") else "bad_json"  # events.md §1
        assert (r["error"]["code"], r["error"]["seq"]) == (code, seq), name
    _, out_d, _ = _run(["dispute", mid, "--log", *paths, "--json", "--out", str(tmp_path / "d.html")])

    lake = tmp_path / "lake"
    for p in paths:  # one run per file: a later run may bring only the unreadable line
        assert _run(["ingest", p, "--lake", str(lake)])[0] in (0, 1)
    con = open_lake(lake)
    row = con.execute("SELECT status, events, error_seq, error_type, error_code, error_message, chain_ok FROM matches"
                      " WHERE match_id = ?", [mid]).fetchone()  # fmt: skip
    con.close()
    err = r["error"] or {}
    assert row == (r["status"], r["events"], err.get("seq"), err.get("type"), err.get("code"), err.get("message"), r["chain_ok"]), name
    _, out_l, _ = _run(["dispute", mid, "--lake", str(lake), "--json", "--out", str(tmp_path / "l.html")])
    for d in (json.loads(out_d), json.loads(out_l)):
        assert (d["status"], d["error"], d["deltas"], d["chain_ok"]) == (r["status"], r["error"], r["deltas"], r["chain_ok"]), name
    rc_v, out_v, _ = _run(["verify", "--lake", str(lake)])
    assert rc_v == 0, out_v
