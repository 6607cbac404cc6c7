"""Playing cards as small integers inside the engine; the contract's strings only at the edges.

card id = rank * 4 + suit for the 52 suited cards (rank 0..12 = `3 4 5 6 7 8 9 T J Q K A 2`,
suit 0..3 = `s h c d`), 52 = `BJ`, 53 = `RJ`. Rank index 13 = BJ, 14 = RJ (notation.md).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from events.notation import ALL_CARDS, CARD_RANKS

RANK_NAMES: tuple[str, ...] = tuple(CARD_RANKS) + ("BJ", "RJ")
"""Rank index → rank string, Dou Dizhu order (3 lowest, RJ highest)."""
RANK_INDEX: dict[str, int] = {r: i for i, r in enumerate(RANK_NAMES)}
BJ, RJ = 52, 53
BJ_RANK, RJ_RANK = 13, 14
CARD_ID: dict[str, int] = {c: i for i, c in enumerate(ALL_CARDS)}
CARD_NAME: tuple[str, ...] = ALL_CARDS


def rank_of(card: int) -> int:
    """Rank index of a card id (0..14)."""
    return card >> 2 if card < 52 else card - 39


def suit_of(card: int) -> int:
    """Suit index 0..3 (`s h c d`); -1 for a joker."""
    return card & 3 if card < 52 else -1


def to_ids(cards: Iterable[str]) -> list[int]:
    return [CARD_ID[c] for c in cards]


def to_names(ids: Iterable[int]) -> list[str]:
    return [CARD_NAME[i] for i in ids]


def rank_counts(ids: Iterable[int]) -> tuple[int, ...]:
    """How many cards of each of the 15 ranks."""
    counts = [0] * 15
    for c in ids:
        counts[rank_of(c)] += 1
    return tuple(counts)


def shuffle(x: list[Any], rng: random.Random) -> None:
    """`rng.shuffle(x)`: the same swaps from the same draws. For a plain `random.Random` it is
    CPython's `shuffle` with `_randbelow_with_getrandbits` inlined (no call per card; the draws of
    `getrandbits(k)` until one is below i + 1, as there); anything else calls `rng.shuffle`."""
    if type(rng) is not random.Random or random.Random._randbelow is not random.Random._randbelow_with_getrandbits:  # type: ignore[attr-defined]
        rng.shuffle(x)
        return
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]
