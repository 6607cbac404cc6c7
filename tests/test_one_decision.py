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


def _match() -> list[str]:
    return [event_to_json(e) for e in fill_chain(simulate_match("ddz", {}, 11, 0))]


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
