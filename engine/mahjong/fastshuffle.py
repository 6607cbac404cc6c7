"""`random.Random.shuffle` of a deal, without a method call per tile (issue 22).

The mahjong deals (Sichuan's SC-C6, the claim flow's HZ-C6 / AS-C6 deal) shuffle 108 or 112 tiles
with the match's generator; `Random.shuffle` calls `_randbelow` once per position, which calls
`getrandbits` until the draw is below the bound. `shuffle(rng, x)` runs the same loop with
`getrandbits` alone: the same draws in the same order, so the same order of `x` and the same
generator state after it (tests/test_sim_speed_mahjong4.py compares it with `Random.shuffle`).
Any generator but an exact `random.Random` (or one whose `_randbelow` is not the getrandbits
one) goes to its own `shuffle`.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

_PLAIN = random.Random._randbelow is random.Random._randbelow_with_getrandbits  # type: ignore[attr-defined]


def shuffle(rng: random.Random, x: list[Any]) -> None:
    """`rng.shuffle(x)`: for i from len(x) − 1 down to 1, swap x[i] with x[j], j uniform in
    0..i by rejection of `getrandbits(bit_length(i + 1))` draws (CPython's `_randbelow`)."""
    if rng.__class__ is not random.Random or not _PLAIN:
        rng.shuffle(x)
        return
    getrandbits = rng.getrandbits
    for i, n, k in _steps(len(x)):
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


@lru_cache(maxsize=16)
def _steps(size: int) -> tuple[tuple[int, int, int], ...]:
    """The loop of a shuffle of `size` items: (i, n = i + 1, the bits of a draw below n), i from
    size − 1 down to 1 (a deal's size is fixed per game: one tuple each)."""
    return tuple((i, i + 1, (i + 1).bit_length()) for i in range(size - 1, 0, -1))
