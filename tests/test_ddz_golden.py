"""doudizhu.md §8 worked examples E1–E6 (+ option variants) as golden logs: exact deltas AND items."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.replay import group_lines, replay
from events.codec import read_log
from tests.ddz_golden_src import CASES, events_of, path_of


def _detail(unit: int, bid: int, bm: int, bombs: list[tuple[int, str, str, int]], sp: int, kind: str | None,
            m: int, base: int = 1) -> dict[str, Any]:  # fmt: skip
    return {
        "base": base, "unit": unit, "bid_factor": bid, "bomb_factor": bm,
        "bombs": [{"seat": s, "type": t, "rank": r, "factor": f} for s, t, r, f in bombs],
        "spring": sp, "spring_kind": kind, "multiplier": m,
    }  # fmt: skip


def _it(kind: str, seat: int, frm: int, pts: int, d: dict[str, Any]) -> dict[str, Any]:
    return {"kind": kind, "seat": seat, "from": frm, "points": pts, **d}


E1_D = _detail(4, 1, 2, [(1, "rocket", "", 2)], 2, "spring", 4)
E1_OFF = _detail(2, 1, 2, [(1, "rocket", "", 2)], 1, None, 2)
E1_BF3 = _detail(6, 1, 3, [(1, "rocket", "", 3)], 2, "spring", 6)
E3_CAP = _detail(3, 1, 2, [(1, "bomb", "3", 2)], 1, None, 1, base=3)
E4_S3 = _detail(18, 3, 6, [(2, "soft_bomb", "3", 3), (0, "hard_bomb", "J", 2)], 1, None, 18)
E2_D = _detail(16, 4, 2, [(0, "bomb", "2", 2)], 2, "anti_spring", 16)
E2_CAP = _detail(8, 4, 2, [(0, "bomb", "2", 2)], 2, "anti_spring", 8)
E3_D = _detail(6, 1, 2, [(1, "bomb", "3", 2)], 1, None, 2, base=3)
E4_D = _detail(12, 3, 4, [(2, "soft_bomb", "3", 2), (0, "hard_bomb", "J", 2)], 1, None, 12)
E4_H4 = _detail(24, 3, 8, [(2, "soft_bomb", "3", 2), (0, "hard_bomb", "J", 4)], 1, None, 24)
E5_BOMBS = [(0, "hard_bomb", "3"), (1, "pure_laizi_bomb", "5"), (2, "rocket", "")]
E5_D = _detail(8, 1, 8, [(*b, 2) for b in E5_BOMBS], 1, None, 8)
E5_H4 = _detail(64, 1, 64, [(*b, 4) for b in E5_BOMBS], 1, None, 64)

EXPECTED_ITEMS: dict[str, tuple[list[int], list[dict[str, Any]]]] = {
    "e1_spring": ([1], [_it("landlord_win", 1, 0, 4, E1_D), _it("landlord_win", 1, 2, 4, E1_D)]),
    "e1_spring_off": ([1], [_it("landlord_win", 1, 0, 2, E1_OFF), _it("landlord_win", 1, 2, 2, E1_OFF)]),
    "e1_bomb_factor_3": ([1], [_it("landlord_win", 1, 0, 6, E1_BF3), _it("landlord_win", 1, 2, 6, E1_BF3)]),
    "e3_max_multiplier_1": ([1, 2], [_it("farmer_win", 1, 0, 3, E3_CAP), _it("farmer_win", 2, 0, 3, E3_CAP)]),
    "e4_soft_bomb_factor_3": ([0], [_it("landlord_win", 0, 1, 18, E4_S3), _it("landlord_win", 0, 2, 18, E4_S3)]),
    "e2_rob_anti_spring": ([0, 1], [_it("farmer_win", 0, 2, 16, E2_D), _it("farmer_win", 1, 2, 16, E2_D)]),
    "e2_max_multiplier_8": ([0, 1], [_it("farmer_win", 0, 2, 8, E2_CAP), _it("farmer_win", 1, 2, 8, E2_CAP)]),
    "e3_forced_landlord": ([1, 2], [_it("farmer_win", 1, 0, 6, E3_D), _it("farmer_win", 2, 0, 6, E3_D)]),
    "e4_laizi_soft_hard": ([0], [_it("landlord_win", 0, 1, 12, E4_D), _it("landlord_win", 0, 2, 12, E4_D)]),
    "e4_hard_bomb_factor_4": ([0], [_it("landlord_win", 0, 1, 24, E4_H4), _it("landlord_win", 0, 2, 24, E4_H4)]),
    "e5_pure_laizi_rocket": ([0, 2], [_it("farmer_win", 0, 1, 8, E5_D), _it("farmer_win", 2, 1, 8, E5_D)]),
    "e5_hard_bomb_factor_4": ([0, 2], [_it("farmer_win", 0, 1, 64, E5_H4), _it("farmer_win", 2, 1, 64, E5_H4)]),
    "e6_forfeit": ([0], [_it("forfeit", 0, 2, 12, E3_D)]),
    "e6_side_loses": ([0], [_it("forfeit", 0, 1, 6, E3_D), _it("forfeit", 0, 2, 6, E3_D)]),
}


def test_every_case_has_expected_items() -> None:
    assert set(EXPECTED_ITEMS) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_log_replays_to_exact_deltas_and_items(name: str) -> None:
    path = path_of(name)
    grouped = group_lines(read_log(path))
    assert not grouped.line_errors
    (entries,) = grouped.matches.values()
    r = replay(entries)
    expected_deltas = CASES[name][6]
    winners, items = EXPECTED_ITEMS[name]
    assert r.status == "finished", r.error
    assert r.deltas == expected_deltas
    assert r.recorded_deltas == expected_deltas and r.settlement_matches is True
    assert r.winners == winners
    assert r.items == items
    assert sum(r.deltas) == 0


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_file_is_the_source(name: str) -> None:
    """The checked-in file is exactly what tests/ddz_golden_src.py writes (no drift)."""
    lines = Path(path_of(name)).read_text(encoding="utf-8").splitlines()
    assert [json.loads(x) for x in lines] == events_of(name)


def test_interleaved_golden_matches_are_replayed_one_by_one(tmp_path: Path) -> None:
    logs = [events_of(n) for n in sorted(CASES)]
    lines = []
    for i in range(max(len(x) for x in logs)):
        lines.extend(json.dumps(x[i]) for x in logs if i < len(x))
    p = tmp_path / "mixed.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    grouped = group_lines(read_log(p))
    assert len(grouped.matches) == len(CASES)
    for mid, entries in grouped.matches.items():
        name = mid.split("-", 2)[2]
        assert replay(entries).deltas == CASES[name][6]
