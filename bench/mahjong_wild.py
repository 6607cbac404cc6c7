"""Wild win checks per second (engine/mahjong/wild.py, HZ-H2) with 0, 1, 2 and 4 wilds, and the ratio
to the core's plain table check (engine/mahjong/core.py `is_standard_win`) on the same hands.

Run: `.venv/bin/python bench/mahjong_wild.py [N]` (N hands per wild count, default 20000: half built
to win, then w of their tiles turned into wilds; half random). Each timing is the fastest of several
passes (the machine is shared); the per-suit need tables are warmed once before timing.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.mahjong_win import winning_shape
from engine.mahjong.core import is_standard_win, suit_table
from engine.mahjong.wild import is_win
from engine.tiles import full_set


def hands(n: int, w: int, seed: int = 1) -> list[tuple[list[int], int]]:
    """(natural counts, wilds): a winning shape or a random hand, with w tiles taken out as wilds."""
    rng = random.Random(seed * 10 + w)
    deck = full_set()
    out: list[tuple[list[int], int]] = []
    while len(out) < n:
        c = [0] * 28
        if len(out) % 2:
            rng.shuffle(deck)
            for k in deck[:14]:
                c[k] += 1
        else:
            shape = winning_shape(rng, 28)
            if shape is None:
                continue
            c = shape
        tiles = [k for k in range(28) for _ in range(c[k])]
        for k in rng.sample(tiles, w):
            c[k] -= 1
        out.append((c, w))
    return out


def best_time(fn: Callable[[Any], Any], data: list[Any], repeat: int = 5) -> tuple[float, list[Any]]:
    best = float("inf")
    out: list[Any] = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = [fn(x) for x in data]
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    suit_table()
    plain = hands(n, 0)
    for c, w in plain:  # warm the per-suit need tables
        is_win(c, w)
    t_plain, r_plain = best_time(lambda h: is_standard_win(h[0]), plain)
    print(f"plain table check (core.is_standard_win): {n / t_plain:,.0f} checks/s  ({sum(r_plain)} wins)")
    for w in (0, 1, 2, 4):
        data = hands(n, w)
        for c, ww in data:
            is_win(c, ww)
        t, res = best_time(lambda h: is_win(h[0], h[1]), data)
        if w == 0:
            assert res == r_plain, "the wild check with 0 wilds must agree with the plain check"
        print(f"wild check, {w} wild(s): {n / t:,.0f} checks/s  ({sum(res)} wins)  ratio to plain {t_plain / t:.2f}")


if __name__ == "__main__":
    main()
