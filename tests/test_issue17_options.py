"""Option limits follow the rule files' section 6 (issue 17): no bound the file does not state.

- sichuan.md: `fan_cap` ≥ 0 (0 = none), `zhi/bu/an_gang_units` ≥ 1, `huazhu_units` ≥ 1 — no upper bound;
- zhajinhua.md: `cap_level` 1..len(levels); `seen_levels` "same length, each ≥ blind level" (it may
  repeat a value; a repeated seen amount then names the lowest level, the engine's documented choice).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from engine.mahjong.sichuan import XUEZHAN
from engine.replay import replay
from engine.zhajinhua.game import ZHAJINHUA
from events.codec import parse_event
from tests.test_zhajinhua_errors import log

E4 = Path(__file__).parent / "data" / "golden" / "sichuan_e4_exhaustive_hua_zhu_da_jiao_tui_shui.jsonl"


BIG = [{"fan_cap": 31}, {"fan_cap": 10**18}, {"zhi_gang_units": 65}, {"bu_gang_units": 1000}, {"an_gang_units": 65},
       {"huazhu_units": 1025}]  # fmt: skip


@pytest.mark.parametrize("option", BIG)
def test_sichuan_options_have_no_invented_upper_bound(option: dict[str, Any]) -> None:
    assert XUEZHAN.parse_rules(option).options()[next(iter(option))] == next(iter(option.values()))


def test_a_huge_fan_cap_is_no_cap_at_all() -> None:
    """SC-S7 H = b·min(huazhu_units, 2^(fan_cap − z)): with fan_cap = 10^18 the 花猪 pays 16, so SC-E4
    keeps its deltas (no cap reached anywhere); and the engine does not build 2^(10^18)."""
    ev = [json.loads(line) for line in E4.read_text().splitlines()]
    for e in ev:
        e.pop("hash", None)
    ev[0]["rules"] = {**ev[0]["rules"], "fan_cap": 10**18}
    t0 = time.perf_counter()
    r = replay([parse_event(e) for e in ev[:-1]])
    assert time.perf_counter() - t0 < 10
    assert r.status == "finished" and r.deltas == [6, 10, 18, -34]


def test_zhajinhua_cap_level_may_exceed_twenty_levels() -> None:
    blind, seen = list(range(1, 26)), list(range(2, 52, 2))
    rules = ZHAJINHUA.parse_rules({"blind_levels": blind, "seen_levels": seen, "cap_level": 25})
    assert rules.cap_level == 25
    r = replay(log(["bet 1 21"], rules={"blind_levels": blind, "seen_levels": seen, "cap_level": 25}))
    assert r.error is None and r.status == "incomplete"


def test_zhajinhua_seen_levels_may_repeat_and_a_repeated_amount_calls() -> None:
    """blind_levels [1, 2, 3, 10], seen_levels [2, 4, 4, 20]: seat 1 raises blind to level 2 (2); seat 2
    looks and bets 4, which is S[2] = S[3]: the lowest level, a call, so level stays 2 and seat 0's blind
    call is B[2] = 2 (a blind 3 is the raise to level 3)."""
    rules = {"blind_levels": [1, 2, 3, 10], "seen_levels": [2, 4, 4, 20]}
    assert ZHAJINHUA.parse_rules(rules).seen_levels == [2, 4, 4, 20]
    r = replay(log(["bet 1 2", "look 2", "bet 2 4", "bet 0 2"], rules=rules))
    assert r.error is None and r.status == "incomplete"
    r = replay(log(["bet 1 2", "look 2", "bet 2 4", "bet 0 3"], rules=rules))  # a blind raise to level 3
    assert r.error is None
    # below the blind level is still refused (each seen level ≥ its blind level)
    bad = replay(log([], rules={"seen_levels": [2, 4, 4, 9]}))
    assert bad.error is not None and bad.error["code"] == "bad_rules"


def test_presets_are_the_rule_files_own() -> None:
    """docs/rules/README.md: every game has `standard`; Sichuan adds `chengdu` and `mianzhu`; no other preset
    (Zha Jin Hua's gold play is `mode: gold`, an option of section 6, not a preset)."""
    from engine.registry import GAME_IDS, get_game

    for gid in GAME_IDS:
        want = {"standard", "chengdu", "mianzhu"} if gid.startswith("sichuan") else {"standard"}
        assert set(get_game(gid).presets) == want, gid
    r = replay(log([], rules={"preset": "gold"}))
    assert r.error is not None and (r.error["seq"], r.error["code"]) == (0, "bad_rules")
    assert ZHAJINHUA.parse_rules({"mode": "gold"}).mode == "gold"


def test_paiju_rules_shows_open_bounds_as_the_rule_file_does() -> None:
    """`paiju rules` prints sichuan.md's `≥ 0` / `≥ 1` for options without an upper bound (not `0–None`)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, str(root / "paiju.py"), "rules", "sichuan_xuezhan"], capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(root), "COLUMNS": "200"}, check=True,
    )  # fmt: skip
    rows = {line.split("│")[1].strip(): line.split("│")[3].strip() for line in out.stdout.splitlines() if line.count("│") >= 4}
    assert rows["fan_cap"] == "≥ 0" and rows["zhi_gang_units"] == "≥ 1" and rows["huazhu_units"] == "≥ 1"
    assert "None" not in out.stdout
