"""The mahjong core (engine/tiles.py, engine/mahjong/core.py) against independent implementations:
the `mahjong` package's agari check and regular-hand shanten, and brute force for waits,
decompositions and wild needs.
"""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from mahjong.agari import Agari
from mahjong.shanten import Shanten

from engine.mahjong.core import (
    SEQ,
    TRIP,
    Meld,
    Wall,
    decompose,
    is_seven_pairs,
    is_standard_win,
    is_win,
    meld_counts,
    shanten,
    suit_key,
    suit_need,
    suit_table,
    waits,
)
from engine.tiles import N_KINDS, counts_of, full_set, parse_hand, tile_id, tile_name, tile_names

AGARI = Agari()
SHANTEN = Shanten()


def _c34(counts: list[int] | tuple[int, ...]) -> list[int]:
    return list(counts[:27]) + [0] * 7


def random_winning(rng: random.Random, n_sets: int = 4) -> list[int]:
    """A random suited hand of n_sets sets and a pair (≤ 4 copies of a kind), as counts."""
    while True:
        c = [0] * N_KINDS
        for _ in range(n_sets):
            if rng.random() < 0.5:
                k = rng.randrange(27)
                c[k] += 3
            else:
                s, n = rng.randrange(3), rng.randrange(7)
                for d in range(3):
                    c[9 * s + n + d] += 1
        c[rng.randrange(27)] += 2
        if max(c) <= 4:
            return c


def random_hand(rng: random.Random, size: int) -> list[int]:
    deck = full_set()
    rng.shuffle(deck)
    return list(counts_of(deck[:size]))


def mine_like_agari(c: list[int]) -> bool:
    """Standard shape or seven *distinct* pairs (the `mahjong` package's chiitoitsu)."""
    return is_standard_win(c) or is_seven_pairs(c, four_as_two_pairs=False)


def test_tiles_round_trip_and_encoding() -> None:
    assert [tile_id(t) for t in ("1m", "9m", "1p", "5p", "9s", "7z")] == [0, 8, 9, 13, 26, 27]
    assert tile_names(parse_hand("123m 5p 99s")) == ["1m", "2m", "3m", "5p", "9s", "9s"]
    assert len(full_set()) == 108 and len(full_set(red=4)) == 112
    assert all(tile_id(tile_name(k)) == k for k in range(N_KINDS))


def test_wall_draws_from_head_and_tail() -> None:
    w = Wall.of([1, 2, 3, 4])
    k, w2 = w.draw()
    assert k == 1 and w2.remaining == 3 and w.remaining == 4
    k, w3 = w2.draw(from_tail=True)
    assert k == 4 and w3.peek_head() == 2 and w3.peek_tail() == 3 and w3.remaining == 2


def test_melds_count() -> None:
    c = meld_counts([Meld("peng", 4, 1), Meld("gang_an", 20)])
    assert c[4] == 3 and c[20] == 4 and sum(c) == 7


def test_win_check_agrees_with_the_mahjong_package_on_thousands_of_hands() -> None:
    rng = random.Random(20261129)
    wins = 0
    for i in range(6000):
        c = random_winning(rng) if i % 2 else random_hand(rng, 14)
        if i % 7 == 0:  # near misses: a winning hand with one tile changed
            c = random_winning(rng)
            a = rng.choice([k for k in range(27) if c[k]])
            b = rng.choice([k for k in range(27) if c[k] < 4 and k != a])
            c[a] -= 1
            c[b] += 1
        ref = AGARI.is_agari(_c34(c))
        assert mine_like_agari(c) == ref, tile_names(k for k in range(27) for _ in range(c[k]))
        wins += ref
    assert 2000 < wins < 5000


def test_seven_pairs_and_fours() -> None:
    c = list(counts_of(parse_hand("1122m3344p55667s")))
    c[tile_id("7s")] += 1
    assert is_win(c) and is_seven_pairs(c)
    four = list(counts_of(parse_hand("11112233m4455p66s")))
    assert is_seven_pairs(four) and not is_seven_pairs(four, four_as_two_pairs=False)
    assert not is_win(four, n_melds=1)


def test_waits_agree_with_brute_force() -> None:
    rng = random.Random(7)
    for i in range(400):
        c = random_winning(rng)
        c[rng.choice([k for k in range(27) if c[k]])] -= 1
        if i % 3 == 0:
            c = random_hand(rng, 13)
        brute = []
        for t in range(27):
            if c[t] < 4:
                d = list(c)
                d[t] += 1
                if AGARI.is_agari(_c34(d)) or is_seven_pairs(d):
                    brute.append(t)
        assert waits(c) == brute


def test_waits_with_melds_and_held_copies() -> None:
    c = list(counts_of(parse_hand("1112345678999m")))  # 九莲宝灯
    assert tile_names(waits(c)) == ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m"]
    conc = list(counts_of(parse_hand("1m2m3m 5p")))
    held = list(conc)
    held[tile_id("5p")] += 3  # three melds: one holds 5p5p5p (a peng)
    assert waits(conc, n_melds=3) == [tile_id("5p")]
    assert waits(conc, n_melds=3, held=held) == []


def _brute_splits(c: list[int]) -> set[tuple[int, tuple[tuple[int, int], ...]]]:
    groups = [(SEQ, s * 9 + n) for s in range(3) for n in range(7)] + [(TRIP, k) for k in range(27)]
    out = set()
    n_sets = (sum(c) - 2) // 3
    for pair in range(27):
        if c[pair] < 2:
            continue
        rest = list(c)
        rest[pair] -= 2
        fits = [g for g in groups if all(rest[k] >= 1 for k in ((g[1], g[1] + 1, g[1] + 2) if g[0] == SEQ else (g[1],)))]
        for combo in itertools.combinations_with_replacement(fits, n_sets):
            d = [0] * 27
            for kind, f in combo:
                for k in (f, f + 1, f + 2) if kind == SEQ else (f, f, f):
                    d[k] += 1
            if d == rest[:27]:
                out.add((pair, tuple(sorted(combo))))
    return out


def test_decompose_yields_every_interpretation() -> None:
    rng = random.Random(3)
    many = 0
    for _ in range(150):
        c = random_winning(rng)
        got = {(s.pair, s.sets) for s in decompose(c)}
        assert got == _brute_splits(c)
        many += len(got) > 1
    assert many >= 1
    assert len(decompose(counts_of(parse_hand("11223344556677m")))) == 3
    assert decompose(counts_of(parse_hand("111222333m44p55s"))) == []
    three = decompose(counts_of(parse_hand("111222333m55p")), n_melds=1)
    assert {s.sets for s in three} == {((SEQ, 0), (SEQ, 0), (SEQ, 0)), ((TRIP, 0), (TRIP, 1), (TRIP, 2))}


def test_shanten_agrees_with_the_mahjong_package() -> None:
    rng = random.Random(11)
    for _ in range(300):
        c = random_hand(rng, 13)
        assert shanten(c, seven_pairs=False) == SHANTEN.calculate_shanten_for_regular_hand(_c34(c))
    for _ in range(100):
        c = random_winning(rng)
        assert shanten(c) == -1
        c[rng.choice([k for k in range(27) if c[k]])] -= 1
        assert shanten(c) == 0


def test_suit_table_and_keys() -> None:
    table = suit_table()
    assert table[bytes(9)] == 0
    assert bytes([3, 1, 1, 1, 1, 1, 1, 1, 3]) not in table
    assert table[bytes([3, 1, 1, 1, 2, 1, 1, 1, 3])] == 1
    c = counts_of(parse_hand("123m 456p 789s"))
    assert suit_key(c, 1) == bytes([0, 0, 0, 1, 1, 1, 0, 0, 0])
    assert table[suit_key(c, 1)] == 0
    assert table.get(bytes([1, 1, 0, 0, 0, 0, 0, 0, 0])) is None


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 8), min_size=1, max_size=7), st.booleans())
def test_suit_need_is_the_fewest_wilds(tiles: list[int], with_pair: bool) -> None:
    c = [0] * 9
    for t in tiles:
        c[t] += 1
    if max(c) > 4:
        return
    need = suit_need(bytes(c), with_pair)

    def complete(d: list[int], pair: bool) -> bool:
        i = next((j for j in range(9) if d[j]), None)
        if i is None:
            return not pair
        if pair and d[i] >= 2:
            d[i] -= 2
            ok = complete(d, False)
            d[i] += 2
            if ok:
                return True
        if d[i] >= 3:
            d[i] -= 3
            ok = complete(d, pair)
            d[i] += 3
            if ok:
                return True
        if i <= 6 and d[i + 1] and d[i + 2]:
            for j in (i, i + 1, i + 2):
                d[j] -= 1
            ok = complete(d, pair)
            for j in (i, i + 1, i + 2):
                d[j] += 1
            return ok
        return False

    # brute force: the fewest wild identities (any kind of the suit, a 5th copy allowed: HZ-H2)
    brute = None
    for w in range(0, 10):
        if (sum(c) + w) % 3 != (2 if with_pair else 0):
            continue
        for add in itertools.combinations_with_replacement(range(9), w):
            d = list(c)
            for a in add:
                d[a] += 1
            if complete(d, with_pair):
                brute = w
                break
        if brute is not None:
            break
    assert need == brute
