"""Golden logs of zhajinhua.md section 8 (and option variants) replayed to exact deltas and items.

Expected deltas are those of the rule file (also the logs' `settled` lines); expected items are
derived by hand from S1..S5: every chip a loser put in goes to the winner, per (payer, kind).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.replay import group_lines, replay
from events.codec import read_log

GOLDEN = Path(__file__).parent / "data" / "golden"


def pot(kind: str, seat: int, frm: int, points: int, seqs: list[int]) -> dict[str, Any]:
    return {"kind": kind, "seat": seat, "from": frm, "points": points, "seqs": seqs}


def reward(seat: int, frm: int, points: int, hand: str, per: int, capped: bool = False) -> dict[str, Any]:
    return {"kind": "special_reward", "seat": seat, "from": frm, "points": points, "hand": hand,
            "per_payer": per, "capped": capped}  # fmt: skip


E3_POT = [pot("ante", 0, 1, 1, [1]), pot("bet", 0, 1, 4, [4]), pot("ante", 0, 2, 1, [1])]
E4A_POT = [pot("ante", 0, 1, 5, [1]), pot("bet", 0, 1, 25, [2, 5])]
E7_POT = [pot("ante", 1, 2, 2, [1]), pot("bet", 1, 2, 10, [3]), pot("ante", 1, 0, 2, [1]), pot("bet", 1, 0, 20, [5])]

CASES: dict[str, tuple[list[int], list[int], list[dict[str, Any]]]] = {
    # name: (deltas, winners, items)
    "e1_calls_raises_folds": (
        [7, -2, -5], [0],
        [pot("ante", 0, 1, 1, [1]), pot("bet", 0, 1, 1, [2]), pot("ante", 0, 2, 1, [1]), pot("bet", 0, 2, 4, [3, 8])],
    ),
    "e2_compare_tie_initiator_loses": (
        [-6, -8, -4, 18], [3],
        [pot("ante", 3, 0, 2, [1]), pot("bet", 3, 0, 2, [2]), pot("compare_cost", 3, 0, 2, [6]),
         pot("ante", 3, 1, 2, [1]), pot("bet", 3, 1, 6, [3, 8]), pot("ante", 3, 2, 2, [1]), pot("bet", 3, 2, 2, [4])],
    ),
    "e2_compare_cost_factor_2": (
        [-8, -8, -4, 20], [3],
        [pot("ante", 3, 0, 2, [1]), pot("bet", 3, 0, 2, [2]), pot("compare_cost", 3, 0, 4, [6]),
         pot("ante", 3, 1, 2, [1]), pot("bet", 3, 1, 6, [3, 8]), pot("ante", 3, 2, 2, [1]), pot("bet", 3, 2, 2, [4])],
    ),
    "e3_open_shunjin_reward": ([16, -10, -6], [0], [*E3_POT, reward(0, 1, 5, "shun_jin", 5), reward(0, 2, 5, "shun_jin", 5)]),
    "e3_reward_basis_ante_sum": (
        [36, -20, -16], [0], [*E3_POT, reward(0, 1, 15, "shun_jin", 15), reward(0, 2, 15, "shun_jin", 15)],
    ),
    "e3_rewards_off": ([6, -5, -1], [0], E3_POT),
    "e3_shunjin_reward_3": ([12, -8, -4], [0], [*E3_POT, reward(0, 1, 3, "shun_jin", 3), reward(0, 2, 3, "shun_jin", 3)]),
    "e4a_special_235_beats_baozi": ([30, -30], [0], E4A_POT),
    "e4a_235_any_holder_baozi_paid": ([-20, 20], [0], [*E4A_POT, reward(1, 0, 50, "bao_zi", 50)]),
    "e4b_baozi_reward": (
        [-70, 70], [1],
        [pot("ante", 1, 0, 5, [1]), pot("bet", 1, 0, 5, [3]), pot("open_cost", 1, 0, 10, [6]), reward(1, 0, 50, "bao_zi", 50)],
    ),
    "e5_round_cap_shared_pot": ([1, 1, -2], [0, 1], [pot("ante", 0, 2, 1, [1]), pot("bet", 1, 2, 1, [2])]),
    "e5_round_cap_suit_tiebreak": (
        [5, -3, -2], [0],
        [pot("ante", 0, 2, 1, [1]), pot("bet", 0, 2, 1, [2]), pot("ante", 0, 1, 1, [1]), pot("bet", 0, 1, 2, [4, 8])],
    ),
    "e6_gold_allin": (
        [-8, 9, -1], [1],
        [pot("ante", 1, 0, 1, [1]), pot("bet", 1, 0, 1, [2]), pot("allin", 1, 0, 6, [6]), pot("ante", 1, 2, 1, [1])],
    ),
    "e7_gold_autocompare_wins_baozi": ([-42, 74, -32], [1], [*E7_POT, reward(1, 2, 20, "bao_zi", 20), reward(1, 0, 20, "bao_zi", 20)]),
    "e7_gold_reward_capped_by_stack": (
        [-30, 62, -32], [1], [*E7_POT, reward(1, 2, 20, "bao_zi", 20), reward(1, 0, 8, "bao_zi", 20, capped=True)],
    ),
    "e7_gold_autocompare_loses": (
        [-42, -4, 46], [2],
        [pot("ante", 2, 1, 2, [1]), pot("bet", 2, 1, 2, [2]), pot("ante", 2, 0, 2, [1]), pot("bet", 2, 0, 20, [5]),
         pot("open_cost", 2, 0, 20, [7])],
    ),
    "e8_timeout_forfeit": (
        [-1, -2, -1, 4], [3],
        [pot("ante", 3, 1, 1, [1]), pot("bet", 3, 1, 1, [2]), pot("ante", 3, 2, 1, [1]), pot("ante", 3, 0, 1, [1])],
    ),
}  # fmt: skip


def load(name: str) -> list[Any]:
    g = group_lines(read_log(GOLDEN / f"zhajinhua_{name}.jsonl"))
    assert not g.line_errors and len(g.matches) == 1
    return next(iter(g.matches.values()))


def test_every_golden_file_has_a_case() -> None:
    files = {p.name[len("zhajinhua_"): -len(".jsonl")] for p in GOLDEN.glob("zhajinhua_*.jsonl")}
    assert files == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str) -> None:
    deltas, winners, items = CASES[name]
    r = replay(load(name))
    assert r.status == "finished", r.error
    assert r.deltas == deltas
    assert r.recorded_deltas == deltas and r.settlement_matches is True
    assert r.winners == winners
    assert r.items == items
    assert sum(r.deltas) == 0
    assert r.chain_ok in (None, True)


def test_gold_final_stacks_e6() -> None:
    """E6: final stacks [22, 17, 49] = starting stacks + deltas."""
    ents = load("e6_gold_allin")
    r = replay(ents)
    stacks = ents[1].stacks
    assert [s + d for s, d in zip(stacks, r.deltas, strict=True)] == [22, 17, 49]


def test_steps_views_follow_the_money_e7() -> None:
    """E7: the autocompare is derived right after seq 5; the view shows the pot and stacks."""
    from engine.replay import steps

    out = list(steps(load("e7_gold_autocompare_wins_baozi")))
    after_ante = out[1].state
    from engine.zhajinhua.game import ZHAJINHUA

    v = ZHAJINHUA.view(after_ante)
    assert v["stacks"] == [98, 5, 98] and v["pot"] == 6 and v["turn"] == 1 and v["phase"] == "betting"
    last = ZHAJINHUA.view(out[5].state)
    assert last["phase"] == "finished" and last["winners"] == [1] and last["end"] == "autocompare"
    assert last["contributions"] == [22, 4, 12] and last["pot"] == 38
