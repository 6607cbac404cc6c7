"""Wild win check and waits (engine/mahjong/wild.py, HZ-H2/H3) against brute-force substitution."""

from __future__ import annotations

import itertools
import random
from functools import cache

import pytest

from engine.mahjong.wild import is_seven_pairs, is_win, waits


@cache
def _plain(c: tuple[int, ...], pair: bool) -> bool:
    """Independent plain check: one pair + sets over 28 kinds (7z only triplet / pair)."""
    i = next((k for k, v in enumerate(c) if v), -1)
    if i < 0:
        return not pair
    lst = list(c)
    if lst[i] >= 3:
        lst[i] -= 3
        if _plain(tuple(lst), pair):
            return True
        lst[i] += 3
    if pair and lst[i] >= 2:
        lst[i] -= 2
        if _plain(tuple(lst), False):
            return True
        lst[i] += 2
    if i < 27 and i % 9 <= 6 and lst[i + 1] and lst[i + 2]:
        lst[i] -= 1
        lst[i + 1] -= 1
        lst[i + 2] -= 1
        if _plain(tuple(lst), pair):
            return True
    return False


def candidates(c: list[int]) -> list[int]:
    """Kinds a wild may usefully stand for: within 2 of a natural tile of its suit (a group with a
    natural lies there), plus one far kind (a group of wilds only can always be a triplet)."""
    near = {t for k in range(27) if c[k] for t in range(k - k % 9, k - k % 9 + 9) if abs(t - k) <= 2}
    far = next((t for t in range(27) if t not in near), None)
    return sorted(near | ({far} if far is not None else set()))


def brute_win(c: list[int], w: int) -> bool:
    for sub in itertools.combinations_with_replacement(candidates(c), w):
        d = list(c)
        for t in sub:
            d[t] += 1
        if _plain(tuple(d), True):
            return True
    return False


def brute_seven(c: list[int], w: int) -> bool:
    for sub in itertools.combinations_with_replacement(candidates(c), w):
        d = list(c)
        for t in sub:
            d[t] += 1
        if all(x % 2 == 0 for x in d):
            return True
    return False


def _hand(rng: random.Random, size: int, red_plain: bool = False, max_suits: int = 3) -> list[int]:
    suits = rng.sample(range(3), rng.choice([1, 1, 2, 3][: max_suits + 1]))
    deck = [t for t in range(27) for _ in range(4) if t // 9 in suits]
    if red_plain:
        deck += [27] * 4
    c = [0] * 28
    for t in rng.sample(deck, size):
        c[t] += 1
    return c


@pytest.mark.parametrize("w", [0, 1, 2, 3, 4])
def test_win_agrees_with_substitution(w: int) -> None:
    rng = random.Random(100 + w)
    n = {0: 400, 1: 400, 2: 250, 3: 80, 4: 40}[w]
    wins = 0
    for _ in range(n):
        size = rng.choice([14, 11, 8]) - w
        c = _hand(rng, size, max_suits=3 if w < 3 else 2)
        got = is_win(c, w)
        assert got == brute_win(c, w), (c, w)
        wins += got
    assert 0 < wins < n  # both outcomes occur


def test_plain_red_kind_without_wild_mode() -> None:
    rng = random.Random(7)
    for _ in range(400):
        c = _hand(rng, 14, red_plain=True)
        assert is_win(c, 0) == _plain(tuple(c), True), c


@pytest.mark.parametrize("w", [0, 1, 2, 3])
def test_seven_pairs_agree(w: int) -> None:
    rng = random.Random(200 + w)
    for _ in range(60):
        c = _hand(rng, 14 - w)
        assert is_seven_pairs(c, w) == brute_seven(c, w), (c, w)


@pytest.mark.parametrize("w", [0, 1, 2])
def test_waits_agree_with_substitution(w: int) -> None:
    rng = random.Random(300 + w)
    for _ in range({0: 100, 1: 50, 2: 20}[w]):
        c = _hand(rng, 13 - w, max_suits=2)
        want = []
        for t in range(27):
            c[t] += 1
            if brute_win(c, w):
                want.append(t)
            c[t] -= 1
        if want and brute_win(c, w + 1):
            want.append(27)  # drawing a wild
        assert waits(c, w) == want, (c, w)


def test_documented_hands() -> None:
    # HZ-E1: 234m 56p 7z 111s 88s 99p + 7p
    c = [0] * 28
    for t in (1, 2, 3, 13, 14, 15, 17, 17, 18, 18, 18, 25, 25):
        c[t] += 1
    assert is_win(c, 1)
    c[15] -= 1
    assert 15 in waits(c, 1)
    # four wilds alone complete any 10 tiles that are 3 sets + 1 single
    assert is_win([3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 4) is False
