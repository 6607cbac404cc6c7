"""The climbing games' fast paths (issue 22) give the same results as the general code they bypass.

- `moves.generate` without wild cards (bit-mask chain starts, `_plain_kicked`) lists the same moves
  in the same order as the general window search `_gen_type` run with no wild card.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest

from engine.climbing.moves import (
    BJ_R,
    LEVEL_ROCKET,
    RJ_R,
    Counts,
    Move,
    MoveRules,
    _gen_type,
    ddz_move_rules,
    generate,
    rocket_move,
)
from engine.climbing.pdk_moves import pdk_move_rules

_DDZ_DECK = [r for r in range(13) for _ in range(4)] + [BJ_R, RJ_R]
_PDK_DECK = [r for r in range(11) for _ in range(4)] + [11, 11, 11, 12]
_RULES = [
    ("ddz", ddz_move_rules()),
    ("ddz_kr", ddz_move_rules(True, False)),
    ("pdk", pdk_move_rules()),
]


def _ref_generate(hand: Counts, mr: MoveRules, top: Move | None = None) -> list[Move]:
    """`generate` as it was: every (type, length) through the general `_gen_type` (wild = 0)."""
    out: list[Move] = []
    size = sum(hand)
    for t in mr.types:
        if top is not None and not t.level:
            if top.level or t.name != top.type:
                continue
            lens: Iterable[int] = (top.length,)
            min_key = top.key
        else:
            lens = range(t.min_len, t.max_len + 1)
            min_key = -1
            if top is not None and t.level:
                if top.level > t.level:
                    continue
                if top.level == t.level:
                    min_key = top.key
        for L in lens:
            if t.n_cards(L) > size:
                break
            out.extend(_gen_type(hand, t, L, min_key, mr, 0))
    if mr.rocket and hand[BJ_R] and hand[RJ_R] and (top is None or top.level < LEVEL_ROCKET):
        out.append(rocket_move())
    return out


def _hand(ranks: list[int]) -> Counts:
    c = [0] * 15
    for r in ranks:
        c[r] += 1
    return tuple(c)


@pytest.mark.parametrize(("name", "mr"), _RULES)
@pytest.mark.parametrize("seed", range(40))
def test_generate_equals_the_general_search(name: str, mr: MoveRules, seed: int) -> None:
    rng = random.Random(seed)
    deck = _PDK_DECK if name == "pdk" else _DDZ_DECK
    for size in (5, 9, 13, 17, 20):
        hand = _hand(rng.sample(deck, min(size, len(deck))))
        leads = generate(hand, mr)
        assert leads == _ref_generate(hand, mr)
        # following: every top drawn from the moves of another hand (bombs and the rocket too)
        other = generate(_hand(rng.sample(deck, 17)), mr)
        for top in rng.sample(other, min(12, len(other))):
            assert generate(hand, mr, top) == _ref_generate(hand, mr, top)
