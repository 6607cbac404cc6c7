"""The fast shanten paths of engine/mahjong/core.py against their plain definitions.

`shanten` (interned per-suit sets) must equal `shanten_reference` (every combination of per-suit
readings, itself checked against the `mahjong` package in test_mahjong_core.py); `draw_gains` must
name exactly the kinds whose draw lowers `shanten_reference`.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.mahjong.core import discard_gains, draw_gains, mask_bits, shanten, shanten_reference, suit_need
from tests.mj_hands import random_hand


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.booleans(), st.booleans(), st.booleans())
def test_fast_shanten_is_the_reference(seed: int, melds: int, fourteen: bool, one_suit: bool, seven: bool) -> None:
    rng = random.Random(seed)
    suits = (rng.randrange(3), 3) if one_suit else (0, 1, 2, 3)
    c = random_hand(rng, 13 - 3 * melds + fourteen, suits)
    assert shanten(c, melds, seven) == shanten_reference(c, melds, seven)
    assert shanten(bytes(c), melds, seven) == shanten(tuple(c), melds, seven)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.booleans(), st.booleans())
def test_draw_gains_are_the_improving_draws(seed: int, melds: int, one_suit: bool, seven: bool) -> None:
    rng = random.Random(seed)
    c = random_hand(rng, 13 - 3 * melds, (rng.randrange(3),) if one_suit else (0, 1, 2, 3))
    sh, masks = draw_gains(c, melds, seven)
    now = shanten_reference(c, melds, seven)
    assert sh == now
    want = []
    for t in range(27):
        if c[t] < 4:
            c[t] += 1
            if shanten_reference(c, melds, seven) < now:
                want.append(t)
            c[t] -= 1
    assert [9 * s + i for s in range(3) for i in mask_bits(masks[s])] == want


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.booleans(), st.booleans(), st.booleans())
def test_discard_gains_scan_every_discard(seed: int, melds: int, one_suit: bool, red: bool, seven: bool) -> None:
    rng = random.Random(seed)
    suits = (rng.randrange(3), 3) if one_suit else (0, 1, 2, 3)
    c = random_hand(rng, 14 - 3 * melds, suits if red else tuple(s for s in suits if s < 3))
    got = discard_gains(c, melds, seven)
    scan = []
    for k in range(28):
        if c[k]:
            c[k] -= 1
            assert draw_gains(c, melds, seven)[0] == shanten_reference(c, melds, seven)
            scan.append((k, *draw_gains(c, melds, seven)))
            c[k] += 1
    low = min(sh for _, sh, _ in scan)
    assert got == [(k, sh, m if sh == low else None) for k, sh, m in scan]


def test_known_values() -> None:
    c = [0] * 27
    for k in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 18, 18):  # 123456789m 11p 11s: ready on 1p / 1s
        c[k] += 1
    assert shanten(c) == 0
    sh, masks = draw_gains(c)
    assert (sh, masks) == (0, (0, 1, 1))
    assert suit_need(bytes([1, 0, 0, 0, 0, 0, 0, 0, 1]), False) == 4
    assert suit_need(bytes([1, 1, 0, 0, 0, 0, 0, 0, 0]), True) == 3
    assert suit_need(bytes(9), True) == 2
