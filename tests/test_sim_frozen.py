"""Same seed → the same bytes, frozen: the sha256 of `simulate_lines` for 3 seeds × every game (with
house-rule variants and player counts) × 4 matches, recorded from main's code at 7dde44b BEFORE the
simulator speed work of issue 22 (tests/data/sim_frozen_sha256.json). A faster bot, legal-move
generator, shanten or simulator loop must write exactly the same logs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from engine.sim.simulate import simulate_lines

FROZEN: dict[str, str] = json.loads((Path(__file__).parent / "data" / "sim_frozen_sha256.json").read_text())
CASES: list[tuple[str, dict[str, Any], int | None]] = [
    ("ddz", {}, None),
    ("ddz", {"rob": True, "kicker_rocket": True, "all_pass": "redeal"}, None),
    ("ddz_laizi", {}, None),
    ("ddz_laizi", {"four_two_solo_pair": False}, None),
    ("paodekuai", {}, None),
    ("paodekuai", {"must_beat": False, "short_trio_last": True}, None),
    ("zhajinhua", {}, 3),
    ("zhajinhua", {}, None),
    ("zhajinhua", {"special_235": True, "suit_tiebreak": True, "a23": "second"}, 5),
    ("zhajinhua", {"mode": "gold", "look_min_round": 2}, 4),
    ("sichuan_xuezhan", {}, None),
    ("sichuan_xuezhan", {"preset": "chengdu"}, None),
    ("sichuan_xuezhan", {"preset": "mianzhu"}, None),
    ("sichuan_xueliu", {}, None),
    ("sichuan_xueliu", {"xueliu_lock_after_hu": False, "huan_san_zhang": False}, None),
    ("hongzhong", {}, None),
    ("hongzhong", {"qi_dui": True, "zhama": 2}, None),
    ("anshun", {}, None),
    ("anshun", {"ji_requires_ting": True, "yaobai_ji_mode": "next_two"}, None),
]
SEEDS = (1, 7, 20261201)
MATCHES = 4


def _key(game: str, rules: dict[str, Any], players: int | None, seed: int) -> str:
    return f"{game}|{json.dumps(rules, sort_keys=True)}|{players}|{seed}"


def test_every_case_is_frozen() -> None:
    assert sorted(FROZEN) == sorted(_key(g, r, p, s) for g, r, p in CASES for s in SEEDS)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("game", "rules", "players"), CASES, ids=lambda x: str(x))
def test_simulated_log_is_byte_identical(game: str, rules: dict[str, Any], players: int | None, seed: int) -> None:
    text = "".join(simulate_lines(game, rules, MATCHES, seed, players=players))
    assert hashlib.sha256(text.encode()).hexdigest() == FROZEN[_key(game, rules, players, seed)]
