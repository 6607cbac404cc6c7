"""The `paiju` command line end to end (docs/cli.md): exit codes, --json, --steps, simulate."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from paiju import main

GOLDEN = Path(__file__).parent / "data" / "golden"


def paiju(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "paiju", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_replay_golden_files_json_and_exit_0() -> None:
    files = sorted(str(p) for p in GOLDEN.glob("ddz_*.jsonl"))
    r = paiju("replay", "--json", *files)
    assert r.returncode == 0, r.stderr
    results = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(results) == len(files)
    assert all(x["status"] == "finished" and x["settlement_matches"] is True for x in results)
    again = paiju("replay", "--json", *files)
    assert again.stdout == r.stdout  # byte for byte


def test_interleaved_file_reported_match_by_match_with_an_invalid_one(tmp_path: Path) -> None:
    a = (GOLDEN / "ddz_e1_spring.jsonl").read_text().splitlines()
    b = (GOLDEN / "ddz_e3_forced_landlord.jsonl").read_text().splitlines()
    b_bad = [line.replace('"seat":0', '"seat":2', 1) if '"seq":5,' in line else line for line in b]
    lines = []
    for i in range(max(len(a), len(b_bad))):
        lines += a[i : i + 1] + b_bad[i : i + 1]
    lines.append("this is not json")
    p = tmp_path / "mixed.jsonl"
    p.write_text("\n".join(lines) + "\n")
    r = paiju("replay", "--json", str(p))
    assert r.returncode == 1
    results = {x["match_id"]: x for x in map(json.loads, r.stdout.splitlines())}
    assert len(results) == 2
    statuses = sorted(x["status"] for x in results.values())
    assert statuses == ["finished", "invalid"]
    bad = next(x for x in results.values() if x["status"] == "invalid")
    assert bad["error"]["seq"] == 5 and bad["error"]["code"] in ("not_your_turn", "not_in_hand")
    assert "bad_json" in r.stderr and f"{p}:{len(lines)}" in r.stderr
    assert "Traceback" not in r.stderr


def test_human_output_and_steps() -> None:
    r = paiju("replay", "--steps", str(GOLDEN / "ddz_e1_spring.jsonl"))
    assert r.returncode == 0, r.stderr
    assert "finished" in r.stdout and "hands" in r.stdout and "+8" in r.stdout
    r = paiju("replay", "--steps", "--json", str(GOLDEN / "ddz_e1_spring.jsonl"))
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines[-1]["status"] == "finished"
    assert all("state" in x for x in lines[:-1])


@pytest.mark.parametrize(
    "args",
    [
        ["replay", "/no/such/file.jsonl"],
        ["replay", str(GOLDEN / "ddz_e1_spring.jsonl"), "--match", "nope"],
        ["simulate", "--game", "chess", "--out", "/tmp/x.jsonl"],
        ["simulate", "--game", "ddz", "--rules", '{"rob": 3}', "--out", "/tmp/x.jsonl"],
        ["simulate", "--game", "ddz", "--rules", '{"no_such": 1}', "--out", "/tmp/x.jsonl"],
        ["simulate", "--game", "ddz", "--matches", "0", "--out", "/tmp/x.jsonl"],
        ["simulate", "--game", "ddz", "--out", "/no/such/dir/x.jsonl"],
        ["simulate", "--game", "ddz", "--rules", "{oops", "--out", "/tmp/x.jsonl"],
        ["rules", "mahjong"],
        ["hand", "chess", "3s"],
    ],
)
def test_bad_usage_exits_2_with_one_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err and "\n" not in err and "Traceback" not in err


def test_simulate_same_bytes_whatever_the_workers(tmp_path: Path) -> None:
    one, two = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    assert main(["simulate", "--game", "ddz", "--matches", "120", "--seed", "4", "--out", str(one), "--quiet"]) == 0
    assert main(["simulate", "--game", "ddz", "--matches", "120", "--seed", "4", "--workers", "2", "--out", str(two), "--quiet"]) == 0
    assert one.read_bytes() == two.read_bytes()
    lines = gzip.decompress(one.read_bytes()).decode().splitlines()
    assert json.loads(lines[0])["type"] == "match_started"
    r = paiju("replay", "--json", str(one))
    assert r.returncode == 0
    assert len(r.stdout.splitlines()) == 120


def test_rules_hand_schema() -> None:
    r = paiju("rules", "ddz", "--json")
    doc = json.loads(r.stdout)
    assert {o["option"] for o in doc["options"]} >= {"rob", "all_pass", "bomb_factor", "kicker_rocket"}
    r = paiju("hand", "ddz", "3s 3h 3d 4c", "--json")
    assert json.loads(r.stdout) == {"valid": True, "type": "trio_solo", "rank": "3", "length": 1}
    r = paiju("schema")
    schema = json.loads(r.stdout)
    assert len(schema["$defs"]) >= 25
