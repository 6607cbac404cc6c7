"""Issue 22 (simulator speed): the mahjong bot's newer fast paths against their plain definitions.

- core.min_discard_shanten (a suit's minimal discards read from its row of regular shanten values)
  == the minimum of `discard_shanten` and the kinds reaching it, on random hands (with and without
  seven pairs, melds, a plain 7z kind);
- bot.unseen_counts (one C-level pass: `translate`) == 4 − own − visible, at least 0;
- claimflow's `visible` == the discards and melds counted one by one;
- core._fm_fill (one regular shanten of two merged reading sets) == `_final(_merge(..))`;
- engine/mahjong/suit_needs.py (generated) gives every key the wild needs of core's `_need` (HZ-H2),
  and wild.suit_needs reads them (keys outside the table are computed); core's `_base5` (the
  tables' index, by `int` of the counts as digits) == the base-5 number by arithmetic.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.mahjong import bot, core, suit_needs, wild
from engine.mahjong.core import Meld, discard_shanten, min_discard_shanten
from engine.mahjong.hongzhong import HONGZHONG
from engine.sim.simulate import simulate_match
from tests.mj_hands import random_hand


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.integers(0, 2), st.booleans(), st.booleans())
def test_min_discard_shanten_is_the_minimum_of_discard_shanten(seed: int, melds: int, kind: int, red: bool, seven: bool) -> None:
    rng = random.Random(seed)
    base = [(0, 1, 2), (rng.randrange(3),), tuple(sorted(rng.sample(range(3), 2)))][kind]
    c = random_hand(rng, 14 - 3 * melds, (*base, 3) if red else base)
    c = c[:27] if not c[27] else c
    scan = discard_shanten(c, melds, seven)
    low = min(sh for _, sh in scan)
    assert min_discard_shanten(c, melds, seven) == (low, [k for k, sh in scan if sh == low])
    assert min_discard_shanten(bytes(c), melds, seven) == min_discard_shanten(tuple(c), melds, seven)


def test_min_discard_shanten_of_no_tile() -> None:
    assert min_discard_shanten([0] * 27, 4) == (99, [])
    assert bot.best_after_discard([0] * 27, 4, -1) == 9


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=28, max_size=28), st.lists(st.integers(0, 4), min_size=28, max_size=28))
def test_unseen_counts_is_its_definition(own: list[int], visible: list[int]) -> None:
    assert bot.unseen_counts(own, visible) == [4 - a - b if a + b < 4 else 0 for a, b in zip(own, visible, strict=True)]


def test_claimflow_visible_counts_discards_and_melds() -> None:
    """At every state of a few simulated Hongzhong matches (the bot reads `visible` near ready)."""
    seen = 0
    for i in range(3):
        events = simulate_match("hongzhong", None, seed=5, index=i, chain=False)
        started, dealt = events[0], events[1]
        s = HONGZHONG.start(started, dealt, HONGZHONG.parse_rules({}))
        for ev in events[2:-1]:
            want = [0] * 28
            for seat in range(4):
                for t in s.discards[seat]:
                    want[t] += 1
                for m in s.melds[seat]:
                    assert isinstance(m, Meld)
                    want[m.tile] += m.size
            assert HONGZHONG.visible(s) == want
            seen += 1
            s = HONGZHONG.apply(s, ev)
    assert seen > 100


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=9, max_size=9))
def test_generated_needs_are_the_reference_procedure(counts: list[int]) -> None:
    key = bytes(counts)
    want = (core._need(key, False), core._need(key, True))
    tab = suit_needs.table()
    assert tab is not None and len(tab) == suit_needs.N_CELLS
    cell = tab[core._base5(key)]
    if sum(counts) > 14:
        assert cell == suit_needs.MISSING
    else:
        assert (cell >> 3, cell & 7) == want
    wild._NEEDS.pop(key, None)
    assert wild.suit_needs(key) == want
    k = 0
    for c in counts:
        k = 5 * k + c
    assert core._base5(key) == k


def test_needs_outside_the_table_are_computed() -> None:
    for key in (bytes([4, 4, 4, 4, 0, 0, 0, 0, 0]), bytes([5, 0, 0, 0, 0, 0, 0, 0, 1])):
        wild._NEEDS.pop(key, None)
        assert wild.suit_needs(key) == (core._need(key, False), core._need(key, True))


def test_fm_fill_is_the_final_of_the_merge() -> None:
    """core._fm_fill (the pairs of two reading sets, no merged set built) == `_final(_merge(a, b), n)`
    for every pair of the sets of a few hundred random hands' suits and of their merges."""
    rng = random.Random(11)
    for _ in range(300):
        c = random_hand(rng, 14, (0, 1, 2))
        ids = [core._key_id(bytes(c[9 * s : 9 * s + 9])) for s in range(3)]
        core._merge(core._merge(ids[0], ids[1]), ids[2])
    n_sets = len(core._SETS)
    checked = 0
    for a in range(n_sets):
        for b in range(0, n_sets, 3):
            for n in range(5):
                row: dict[int, int] = {}
                if all(p1 + p2 > 1 for _m1, _k1, p1 in core._SETS[a] for _m2, _k2, p2 in core._SETS[b]):
                    continue  # an empty merge: both refuse it
                assert core._fm_fill(row, a, b, n) == core._final(core._merge(a, b), n) == row[b]
                checked += 1
    assert checked > 1000
