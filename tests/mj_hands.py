"""Random mahjong hands as kind counts, for the fast-path tests (shared by the test modules)."""

from __future__ import annotations

import random

DECK = [k for k in range(28) for _ in range(4)]
"""Four copies of each of the 27 suited kinds and the red dragon (kind 27)."""


def random_hand(rng: random.Random, size: int, suits: tuple[int, ...]) -> list[int]:
    """Counts of `size` tiles (fewer if the suits hold fewer) drawn from `suits` (3 = red dragon)."""
    pool = [k for k in DECK if k // 9 in suits]
    c = [0] * 28
    for k in rng.sample(pool, min(size, len(pool))):
        c[k] += 1
    return c
