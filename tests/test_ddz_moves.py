"""The climbing move engine on Dou Dizhu: §4.7 counts, K1–K6, C1–C4, §4.6 order, generator vs filter."""

from __future__ import annotations

import random
import time
from collections import Counter
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import RANK_INDEX
from engine.climbing.bot import split
from engine.climbing.moves import (
    LEVEL_BOMB,
    LEVEL_PURE,
    LEVEL_ROCKET,
    LEVEL_SOFT,
    Move,
    beats,
    classify,
    classify_all,
    ddz_move_rules,
    fits,
    generate,
)

FULL = tuple([4] * 13 + [1, 1])


def C(s: str) -> tuple[int, ...]:
    """'333444+7' style rank string → counts (B = BJ, R = RJ; '+' and spaces ignored)."""
    c = [0] * 15
    for ch in s.replace("+", "").replace(" ", ""):
        c[{"B": 13, "R": 14}.get(ch, RANK_INDEX.get(ch, -1))] += 1
    return tuple(c)


def kind(s: str, **opts: bool) -> tuple[str, int, str] | None:
    mv = classify(C(s), ddz_move_rules(**opts))
    return None if mv is None else (mv.type, mv.length, "3456789TJQKA2BR"[mv.key])


# ---------------------------------------------------------------- §4.7


@pytest.mark.parametrize(
    ("opts", "card_moves", "table_total"),
    [
        # the table's total with `pass` is 27,472; the option figures 28,947 / 27,316 of §4.7 are
        # likewise card moves + `pass` (27,472 + 1,475 and 27,472 - 156)
        ({}, 27_471, 27_472),
        ({"kicker_rocket": True}, 28_946, 28_947),
        ({"four_two_solo_pair": False}, 27_315, 27_316),
    ],
)
def test_move_pattern_counts(opts: dict[str, bool], card_moves: int, table_total: int) -> None:
    t0 = time.perf_counter()
    mr = ddz_move_rules(**opts)
    moves = generate(FULL, mr)
    distinct = {m.counts for m in moves}
    assert len(moves) == len(distinct) == card_moves
    assert card_moves + 1 == table_total
    for m in moves:  # §4.4 uniqueness: every legal multiset has exactly one reading
        assert classify_all(m.counts, mr) == [m]
    assert time.perf_counter() - t0 < 20


def test_default_counts_per_type_match_the_table() -> None:
    moves = generate(FULL, ddz_move_rules())
    by_type = Counter(m.type for m in moves)
    assert by_type == {
        "solo": 15, "pair": 13, "trio": 13, "trio_solo": 182, "trio_pair": 156, "straight": 36,
        "pair_straight": 52, "plane": 45, "plane_solo": 21_822, "plane_pair": 2_939,
        "four_two_solo": 1_326, "four_two_pair": 858, "bomb": 13, "rocket": 1,
    }  # fmt: skip
    by_len = Counter((m.type, m.length) for m in moves if m.type in ("plane_solo", "plane_pair"))
    assert [by_len["plane_solo", L] for L in (2, 3, 4, 5)] == [968, 3_282, 7_184, 10_388]
    assert [by_len["plane_pair", L] for L in (2, 3, 4)] == [605, 1_200, 1_134]


def test_without_k5_adjacency_there_would_be_374_more() -> None:
    """§4.7: dropping the adjacency part of K5 adds 374 multisets, each with two readings.

    The rule file's 27,846 is, like its option figures, counted with `pass` (27,472 + 374).
    """
    from dataclasses import replace

    mr = ddz_move_rules()
    loose = replace(mr, types=tuple(replace(t, kick_no_adjacent_trio=False) for t in mr.types), by_name={})
    moves = generate(FULL, loose)
    distinct = {m.counts for m in moves}
    assert len(distinct) + 1 == 27_846
    assert sum(1 for c in distinct if len(classify_all(c, loose)) == 2) == 374


# ---------------------------------------------------------------- K1–K6 and shapes


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("3", ("solo", 1, "3")),
        ("R", ("solo", 1, "R")),
        ("BR", ("rocket", 1, "R")),
        ("22", ("pair", 1, "2")),
        ("BB", None),
        ("3334", ("trio_solo", 1, "3")),
        ("333B", ("trio_solo", 1, "3")),
        ("33344", ("trio_pair", 1, "3")),
        ("3333", ("bomb", 1, "3")),
        ("34567", ("straight", 5, "7")),
        ("3456789TJQKA", ("straight", 12, "A")),
        ("TJQKA2", None),  # 2 is never in a chain
        ("JQKA2", None),
        ("334455", ("pair_straight", 3, "5")),
        ("3344", None),
        ("333444", ("plane", 2, "4")),
        ("333444+4+5", None),  # K1
        ("333444555+777", ("plane_solo", 3, "5")),  # K5: 7 not adjacent
        ("333444555666", ("plane", 4, "6")),  # K5: 666 extends the chain
        ("3334445556667778", None),  # K5
        ("QQQKKKAAA+222", ("plane_solo", 3, "A")),
        ("333444+BR", None),  # K2
        ("333444+55+66", ("plane_pair", 2, "4")),
        ("333444+55+55", None),  # K6 distinct pair ranks
        ("4444+55", ("four_two_solo", 1, "4")),  # K3
        ("4444+58", ("four_two_solo", 1, "4")),
        ("4444+BR", None),
        ("4444+55+77", ("four_two_pair", 1, "4")),
        ("44445555", None),  # K4
        ("2222+KK", ("four_two_solo", 1, "2")),
        ("33334444", None),
        ("33333", None),
    ],
)
def test_shapes(cards: str, expected: tuple[str, int, str] | None) -> None:
    assert kind(cards) == expected


def test_kicker_options() -> None:
    assert kind("333444+BR", kicker_rocket=True) == ("plane_solo", 2, "4")
    assert kind("4444+BR", kicker_rocket=True) == ("four_two_solo", 1, "4")
    assert kind("BR", kicker_rocket=True) == ("rocket", 1, "R")
    assert kind("4444+55", four_two_solo_pair=False) is None
    assert kind("4444+56", four_two_solo_pair=False) == ("four_two_solo", 1, "4")


# ---------------------------------------------------------------- C1–C4, §4.6


def mv(s: str) -> Move:
    m = classify(C(s), ddz_move_rules())
    assert m is not None, s
    return m


def test_comparison() -> None:
    assert beats(mv("BR"), mv("2222")) and not beats(mv("2222"), mv("BR"))
    assert beats(mv("3333"), mv("3456789TJQKA")) and beats(mv("4444"), mv("3333"))
    assert not beats(mv("3333"), mv("3333")) and not beats(mv("3333"), mv("4444"))
    assert beats(mv("45678"), mv("34567")) and not beats(mv("456789"), mv("34567"))  # C3 same length
    assert not beats(mv("44"), mv("44")) and not beats(mv("5554"), mv("44433"))  # C3 same type
    assert beats(mv("R"), mv("B")) and beats(mv("B"), mv("2"))  # C4
    assert not beats(mv("4444+56"), mv("3333"))  # four_two_solo is not a bomb
    assert beats(mv("3333"), mv("2222+56"))


def test_laizi_bomb_order() -> None:
    def b(level: int, key: int) -> Move:
        return Move("x", 1, key, level, (0,) * 15)

    soft2, hard3, pure, rocket = b(LEVEL_SOFT, 12), b(LEVEL_BOMB, 0), b(LEVEL_PURE, 4), b(LEVEL_ROCKET, 14)
    assert beats(hard3, soft2) and not beats(soft2, hard3)
    assert beats(pure, hard3) and beats(rocket, pure) and not beats(pure, rocket)
    assert beats(b(LEVEL_SOFT, 5), b(LEVEL_SOFT, 4)) and not beats(b(LEVEL_SOFT, 4), b(LEVEL_SOFT, 4))
    assert beats(soft2, mv("3456789TJQKA"))


# ---------------------------------------------------------------- generator properties

@cache
def _all_moves() -> list[Move]:
    return generate(FULL, ddz_move_rules())


hands = st.integers(0, 2**32).map(lambda s: tuple(_deal(random.Random(s))))


def _deal(rng: random.Random) -> list[int]:
    deck = list(range(54))
    rng.shuffle(deck)
    c = [0] * 15
    for x in deck[: rng.choice((17, 20))]:
        c[x >> 2 if x < 52 else x - 39] += 1
    return c


@settings(max_examples=40, deadline=None)
@given(hands, st.integers(0, 10**6))
def test_generate_with_top_is_filter_of_all(hand: tuple[int, ...], pick: int) -> None:
    mr = ddz_move_rules()
    every = generate(hand, mr)
    assert len({m.counts for m in every}) == len(every)
    for m in every:
        assert fits(m.counts, hand) and classify(m.counts, mr) == m
    top = _all_moves()[pick % 27_471]
    got = {m.counts for m in generate(hand, mr, top)}
    assert got == {m.counts for m in every if beats(m, top)}


@settings(max_examples=40, deadline=None)
@given(hands)
def test_split_is_a_partition_into_legal_moves(hand: tuple[int, ...]) -> None:
    mr = ddz_move_rules()
    plan = split(hand, mr)
    total = [0] * 15
    for m in plan:
        assert classify(m.counts, mr) == m
        for r, v in enumerate(m.counts):
            total[r] += v
    assert tuple(total) == hand


def test_kicker_rocket_adds_exactly_the_hand_counted_multisets() -> None:
    """Independent arithmetic for K2: the multisets that gain a reading when BJ+RJ may be kickers.

    four_two_solo 13 (4444+BR); plane_solo L=2: 11 chains × {BR}; L=3: 10 chains × 10 other ranks;
    L=4: 9 chains × (C(9,2) + 9); L=5: 8 chains × (C(8,3) + 8·7) + trios (8 − chain-rank neighbours:
    two chains have one neighbour, six have two) = 896 + 50.
    """
    base = {m.counts for m in generate(FULL, ddz_move_rules())}
    extra = {m.counts for m in generate(FULL, ddz_move_rules(kicker_rocket=True))} - base
    assert base <= {m.counts for m in generate(FULL, ddz_move_rules(kicker_rocket=True))}
    assert len(extra) == 13 + 11 + 10 * 10 + 9 * (36 + 9) + 8 * (56 + 56) + (2 * 7 + 6 * 6) == 1_475
    assert all(c[13] == c[14] == 1 for c in extra)
    fewer = base - {m.counts for m in generate(FULL, ddz_move_rules(four_two_solo_pair=False))}
    assert len(fewer) == 13 * 12 == 156  # quad + a pair of one of the 12 other ranks 3..2
