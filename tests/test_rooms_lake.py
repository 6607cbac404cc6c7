"""The room check in the lake and in `paiju replay` (issue 17: PDK-R2 / PDK-R16 across matches).

One room `L` of six Pao De Kuai matches built from the worked examples of docs/rules/paodekuai.md,
each given a `room`, a `round`, a `ts` and a seating (the rules name a person: "the previous winner
leads", so who sits where decides; the seating changes no rule of one match). Who must lead each
match, from the rule file's own words:

- m1 = E1, round 1, players [ann, bo, cy]: "seat 1 wins" → bo must lead m2.
- m2 = E3, round 2, [ann, bo, cy]: dealer seat 2 = cy, not bo → PDK-R2 (previous m1). E3: "seat 2
  wins" → cy must lead m3.
- m3 = E4, round 3, [cy, bo, ann]: dealer seat 1 = bo, not cy → PDK-R2 (previous m2). E4: "seat 0
  wins" → cy must lead m4.
- m4 = E5, round 4, [bo, cy, ann]: dealer seat 1 = cy → fine. E5 is a forfeit: "The next match is a
  first match" (PDK-R16).
- m5 = E3, round 5 → PDK-R16 (previous m4): it should be round 1.
- m6 = E1, round 1: a first match → nothing to check.

The late arrival: m2 is ingested after the others. Before it, m3 (round 3) has no round-2 match
before it and m4 is led by m3's winner: the only finding is m5. After it: m2, m3 and m5.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from analytics.lake import open_lake
from ingest import store
from ingest.pipeline import ingest
from ingest.rebuild import rebuild
from ingest.rooms import room_findings
from ingest.schema import TABLES
from ingest.verify import verify

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "data" / "golden"
E1, E3, E4, E5 = ("paodekuai_e1_guan_men_both_losers", "paodekuai_e3_later_match_one_loser_closed",
                  "paodekuai_e4_baodan_must_beat", "paodekuai_e5_forfeit")  # fmt: skip
ROOM: list[tuple[str, str, int, list[str]]] = [
    ("m1", E1, 1, ["ann", "bo", "cy"]),
    ("m2", E3, 2, ["ann", "bo", "cy"]),
    ("m3", E4, 3, ["cy", "bo", "ann"]),
    ("m4", E5, 4, ["bo", "cy", "ann"]),
    ("m5", E3, 5, ["ann", "bo", "cy"]),
    ("m6", E1, 1, ["ann", "bo", "cy"]),
]
# (match, rule, previous, the player the rule names, the dealer's player): from the docstring
ALL = [("m2", "PDK-R2", "m1", "bo", "cy"), ("m3", "PDK-R2", "m2", "cy", "bo"), ("m5", "PDK-R16", "m4", None, None)]


def log(mid: str, name: str, rnd: int, players: list[str], room: str = "L") -> list[dict[str, Any]]:
    out = []
    for line in (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        d.pop("hash", None)
        d.pop("ts", None)
        d["match_id"] = mid
        out.append(d)
    out[0] |= {"room": room, "round": rnd, "players": players, "ts": f"2026-11-30T12:0{mid[-1]}:00Z"}
    return out


def write(tmp: Path, mids: list[str], name: str) -> str:
    p = tmp / f"{name}.jsonl"
    evs = [e for mid, ex, rnd, pl in ROOM if mid in mids for e in log(mid, ex, rnd, pl)]
    p.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in evs), encoding="utf-8")
    return str(p)


def rows(lake: Path) -> list[tuple[Any, ...]]:
    q = "SELECT match_id, seq, code, rule, previous, game, room, message FROM room_findings ORDER BY match_id, rule"
    return open_lake(lake).execute(q).fetchall()


def check_rows(got: list[tuple[Any, ...]], want: list[tuple[str, str, str, str | None, str | None]]) -> None:
    assert [r[:7] for r in got] == [(m, 0, "bad_deal", rule, prev, "paodekuai", "L") for m, rule, prev, _, _ in want]
    for r, (_, rule, _, named, dealer) in zip(got, want, strict=True):
        if rule == "PDK-R2":
            assert f"names {named}" in r[7] and f"({dealer})" in r[7]
        else:
            assert "forfeit" in r[7] and "round 1" in r[7]


def snapshot(lake: Path) -> dict[str, list[tuple[str, ...]]]:
    con = open_lake(lake)
    return {t: sorted(tuple(json.dumps(v, default=str) for v in r) for r in con.execute(f"SELECT * FROM {t}").fetchall())
            for t in TABLES}  # fmt: skip


@pytest.fixture(scope="module")
def lakes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("rooms")
    first = write(tmp, ["m1", "m3", "m4", "m5", "m6"], "first")
    late = write(tmp, ["m2"], "late")
    lake = tmp / "lake"
    s1 = ingest([first], lake, workers=0)
    before = rows(lake)
    s2 = ingest([late], lake, workers=0)
    once = tmp / "once"
    ingest([write(tmp, [m for m, *_ in ROOM], "all")], once, workers=0)
    return {"tmp": tmp, "lake": lake, "once": once, "s1": s1, "s2": s2, "before": before, "files": [first, late]}


def test_a_late_round_rechecks_its_room(lakes: dict[str, Any]) -> None:
    check_rows(lakes["before"], [ALL[2]])
    check_rows(rows(lakes["lake"]), ALL)
    # the second run checked m2 and the match after it, m3, replaying them and m1 (not the room)
    assert [x.split(":")[0] for x in lakes["s2"].room_findings] == ["m2 seq 0 bad_deal PDK-R2", "m3 seq 0 bad_deal PDK-R2"]
    assert lakes["s2"].room_replayed == 3
    assert [x.split(":")[0] for x in lakes["s1"].room_findings] == ["m5 seq 0 bad_deal PDK-R16"]
    # a match's own verdict does not change: every match replays finished on its own
    assert open_lake(lakes["lake"]).execute("SELECT DISTINCT status FROM matches").fetchall() == [("finished",)]


def test_two_ingests_one_ingest_a_check_of_the_whole_lake_and_rebuild_agree(lakes: dict[str, Any], tmp_path: Path) -> None:
    lake, once = lakes["lake"], lakes["once"]
    assert rows(once) == rows(lake)
    assert [(f.match_id, f.rule, f.previous) for f in room_findings(lake)] == [(m, r, p) for m, r, p, _, _ in ALL]
    r = verify(lake)
    assert r.whole, [f.line() for f in r.findings]
    assert r.checked["room_findings rows"] == 3
    before = snapshot(lake)
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(lake), str(copy)], check=True)
    rebuild(copy, workers=0)
    assert snapshot(copy) == before
    assert verify(copy).whole


def test_verify_names_an_edited_or_lost_finding_and_rebuild_repairs_it(lakes: dict[str, Any], tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    subprocess.run(["cp", "-a", str(lakes["lake"]), str(lake)], check=True)
    m = store.read_manifest(lake)
    (rel,) = [p for p in m.tables["room_findings"] if "m3" in pq.read_table(lake / p).column("match_id").to_pylist()]
    t = pq.read_table(lake / rel)
    keep = [i for i, mid in enumerate(t.column("match_id").to_pylist()) if mid != "m3"]
    pq.write_table(t.take(keep), lake / rel)  # the m3 row lost
    r = verify(lake)
    assert not r.whole
    (f,) = [f for f in r.findings if f.check == "room_findings rows"]
    assert f.match_id == "m3" and "lacks a row" in f.message and "rooms" in f.message
    assert r.repairs() == [f"paiju rebuild --lake {lake}"]
    rebuild(lake, workers=0)
    assert verify(lake).whole and rows(lake) == rows(lakes["lake"])


def test_a_manifest_written_before_the_table_existed_is_taken_as_it_is(lakes: dict[str, Any], tmp_path: Path) -> None:
    """A lake whose manifest has no `room_findings` entry (written by the paiju before this table)
    is not "edited": ingest, verify and rebuild read it with the table empty."""
    lake = tmp_path / "old"
    ingest([lakes["files"][0]], lake, workers=0)
    d = json.loads((lake / store.MANIFEST).read_text(encoding="utf-8"))
    del d["digest"]
    for p in d["tables"].pop("room_findings"):
        (lake / p).unlink()
    d["digest"] = store.manifest_digest(d)
    (lake / store.MANIFEST).write_text(json.dumps(d, indent=1), encoding="utf-8")
    assert store.digest_problem((lake / store.MANIFEST).read_text(encoding="utf-8")) is None
    r = verify(lake)  # the finding the old lake lacks is named; the manifest is not
    assert [f.check for f in r.findings] == ["room_findings rows"] and r.findings[0].match_id == "m5"
    ingest([lakes["files"][1]], lake, workers=0)  # not refused; m2 and m3 are checked now
    assert [x[0] for x in rows(lake)] == ["m2", "m3"]
    rebuild(lake, workers=0)
    assert rows(lake) == rows(lakes["lake"])


# ---------------------------------------------------------------- as a user runs them


def paiju(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(ROOT / "paiju.py"), *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)  # fmt: skip


def test_paiju_ingest_names_the_findings(lakes: dict[str, Any], tmp_path: Path) -> None:
    lake = str(tmp_path / "lake")
    r = paiju("ingest", lakes["files"][0], "--lake", lake, "--workers", "0")
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in r.stdout.splitlines() if "room finding" in x and "bad_deal" in x]
    assert line.startswith("1 room finding: m5 seq 0 bad_deal PDK-R16: match m4 ended by a forfeit")
    r = paiju("ingest", lakes["files"][1], "--lake", lake, "--workers", "0", "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert [x.split(":")[0] for x in s["room_findings"]] == ["m2 seq 0 bad_deal PDK-R2", "m3 seq 0 bad_deal PDK-R2"]
    assert paiju("verify", "--lake", lake).returncode == 0
    out = paiju("rebuild", "--lake", lake)
    assert out.returncode == 0 and "Traceback" not in out.stderr


def test_paiju_replay_reports_the_same_findings(lakes: dict[str, Any]) -> None:
    files = lakes["files"][::-1]  # m2 first: the order of the files is not the room's order
    r = paiju("replay", *files)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    out = r.stdout.splitlines()
    found = [x for x in out if " bad_deal " in x]
    assert [x.split(":")[0] for x in found] == [f"{m} seq 0 bad_deal {rule}" for m, rule, *_ in ALL]
    assert out[-3:] == found  # after the matches' own results
    r = paiju("replay", "--json", *files)
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["status"] for x in lines[:6]] == ["finished"] * 6
    got = [x["room_finding"] for x in lines[6:]]
    assert all(set(x) == {"room_finding"} for x in lines[6:])
    lake = lakes["lake"]
    cols = ["match_id", "seq", "code", "rule", "message", "game", "room", "previous"]
    table = [dict(zip(cols, row, strict=True)) for row in open_lake(lake).execute(
        f"SELECT {', '.join(cols)} FROM room_findings ORDER BY match_id").fetchall()]  # fmt: skip
    assert got == table  # one decision: the lake and the replay
    r = paiju("replay", "--match", "m3", *files)
    assert r.returncode == 1
    assert [x.split(":")[0] for x in r.stdout.splitlines() if " bad_deal " in x] == ["m3 seq 0 bad_deal PDK-R2"]
    r = paiju("replay", "--match", "m4", *files)
    assert r.returncode == 0 and " bad_deal " not in r.stdout


def test_a_previous_match_made_invalid_by_a_refused_line_names_nobody(tmp_path: Path) -> None:
    """m1 (E1, won by bo) followed by an unreadable line that names m1 at seq 7 (NaN: `bad_json`,
    charged to m1 at that seq by both the replay and the ingest, issue 17): m1 is `invalid`, so it
    names nobody and m2 (E3 led by cy) is not a finding, in the lake as in `paiju replay`."""
    p = tmp_path / "r.jsonl"
    evs = log("m1", E1, 1, ["ann", "bo", "cy"]) + log("m2", E3, 2, ["ann", "bo", "cy"])
    text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in evs)
    p.write_text(text + '{"match_id":"m1","seq":7,"type":"settled","deltas":[NaN]}\n', encoding="utf-8")
    lake = tmp_path / "lake"
    ingest([str(p)], lake, workers=0)
    status = open_lake(lake).execute("SELECT match_id, status FROM matches ORDER BY match_id").fetchall()
    assert status == [("m1", "invalid"), ("m2", "finished")]
    assert rows(lake) == []
    r = paiju("replay", "--json", str(p))
    assert [json.loads(x).get("status") for x in r.stdout.splitlines()] == ["invalid", "finished"]
    # without the refused line the same two matches are a finding (the test can fail)
    clean = tmp_path / "clean.jsonl"
    clean.write_text(text, encoding="utf-8")
    ingest([str(clean)], tmp_path / "lake2", workers=0)
    assert [x[:5] for x in rows(tmp_path / "lake2")] == [("m2", 0, "bad_deal", "PDK-R2", "m1")]
