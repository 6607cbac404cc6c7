"""The Hongzhong / Anshun goldens: fillers chosen by a rule the builder checks without the engine
(tests/mj_golden_builder.py `filler_problems`), then the engine replayed against the deltas the rule
files compute by hand (HZ-E1..E8, AS-E1..E7, in tests/mj_golden_specs.py)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.replay import replay
from engine.tiles import tile_id
from events.codec import parse_line
from tests.mj_golden_builder import GOLDEN, build, filler_problems, make, ready, wins
from tests.mj_golden_specs import SPECS


def _counts(text: str) -> list[int]:
    c = [0] * 28
    for t in text.split():
        c[tile_id(t)] += 1
    return c


def _log(lines: list[str]) -> list[dict[str, Any]]:
    return [{k: v for k, v in parse_line(ln).to_dict().items() if k not in ("match_id", "seq", "hash")} for ln in lines]


def test_the_builders_own_win_test_on_the_rule_files_hands() -> None:
    # HZ-E1: 2m3m4m 5p6p 7z 1s1s1s 8s8s 9p9p + 7p wins (7z as 9p); without 7z wild it does not
    hz = "2m 3m 4m 5p 6p 7z 1s 1s 1s 8s 8s 9p 9p 7p"
    assert wins("hongzhong", {}, _counts(hz), 0)
    assert not wins("hongzhong", {"hongzhong_wild": False}, _counts(hz), 0)
    # AS-E6: seat 0 waits only on 2p (qing_qi_dui), seat 2 on 6s and 9s; seat 1's 9 tiles + 闷豆 are not
    s0 = "1p 1p 3p 3p 4p 4p 6p 6p 7p 7p 9p 9p 2p"
    assert ready("anshun", {}, _counts(s0), 0) and wins("anshun", {}, _counts(s0 + " 2p"), 0)
    assert not wins("anshun", {}, _counts(s0 + " 5p"), 0)
    s2 = "1m 2m 3m 4m 5m 6m 2s 3s 4s 7s 8s 5p 5p"
    assert [t for t in ("6s", "9s", "5s") if wins("anshun", {}, _counts(s2 + " " + t), 0)] == ["6s", "9s"]
    # HZ-E2: gang 6m (one meld) + 1p2p3p 4s5s6s 7s8s9s 2m + 2m
    assert wins("hongzhong", {}, _counts("1p 2p 3p 4s 5s 6s 7s 8s 9s 2m 2m"), 1)


@pytest.mark.parametrize("spec", SPECS, ids=[s["name"] for s in SPECS])
def test_golden_fillers_obey_the_rule_and_replay_to_the_hand_computed_deltas(spec: dict[str, Any]) -> None:
    stored = (GOLDEN / f"{spec['name']}.jsonl").read_text(encoding="utf-8").splitlines()
    assert filler_problems(spec, _log(stored)[:-1]) == []  # the rule, decided without the engine
    assert make(spec) == stored  # the builder regenerates the stored file byte for byte
    res = replay([parse_line(ln) for ln in stored])
    assert res.status == "finished" and res.deltas == spec["deltas"] and res.settlement_matches is True


def test_the_rule_refuses_claimable_fillers() -> None:
    """Random fillers for HZ-E4's 50 rounds of draws and discards let seats peng them: refused."""
    spec = next(s for s in SPECS if s["name"] == "hongzhong_e4_kongs_chou_zhuang")
    log = build(spec, 0)
    assert log is not None and any("could claim" in p for p in filler_problems(spec, log))
