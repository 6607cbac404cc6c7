"""Every multiset of card ranks over a few ranks, for the brute-force referees (tests/test_*_referee.py)."""

from __future__ import annotations

import itertools


def rank_multisets(ranks: list[int], caps: list[int], total: int, width: int) -> list[tuple[int, ...]]:
    """Count vectors of length `width`: every non-empty choice of at most `caps[i]` cards of rank
    `ranks[i]`, at most `total` cards in all."""
    out = []
    for cs in itertools.product(*(range(k + 1) for k in caps)):
        if 0 < sum(cs) <= total:
            full = [0] * width
            for r, x in zip(ranks, cs, strict=True):
                full[r] = x
            out.append(tuple(full))
    return out
