"""Laizi reading generation speed next to plain `ddz` move generation, in the same run.

For N random 17–20-card hands with a random laizi rank (3..2): every playable move with its `as`
(`engine.climbing.laizi.laizi_moves`, leading, i.e. no top move) against plain move generation
(`engine.climbing.moves.generate`) on the same hands read without laizi. Also the exact-set reading
generator (`readings`) on each laizi-holding hand's laizi + a random 4–8 card subset.
Prints hands/s and readings (moves)/s for each and the ratios. Run: `.venv/bin/python bench/readings.py [N]`.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.climbing.laizi import laizi_moves, readings
from engine.climbing.moves import classify, ddz_move_rules, generate


def _rank(c: int) -> int:
    return c >> 2 if c < 52 else c - 39


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    rng = random.Random(2026)
    mr = ddz_move_rules()
    hands = []
    for _ in range(n):
        deck = list(range(54))
        rng.shuffle(deck)
        cards = deck[: rng.choice((17, 20))]
        lr = rng.randrange(13)
        full = [0] * 15
        plain = [0] * 15
        m = 0
        for c in cards:
            full[_rank(c)] += 1
            if _rank(c) == lr:
                m += 1
            else:
                plain[_rank(c)] += 1
        sub = rng.sample(cards, rng.randint(4, 8))
        sub_plain = [0] * 15
        sub_m = 0
        for c in sub:
            if _rank(c) == lr:
                sub_m += 1
            else:
                sub_plain[_rank(c)] += 1
        hands.append((tuple(full), tuple(plain), m, lr, tuple(sub_plain), sub_m))
    classify.cache_clear()

    t0 = time.perf_counter()
    plain_moves = sum(len(generate(full, mr)) for full, *_ in hands)
    t_plain = time.perf_counter() - t0

    t0 = time.perf_counter()
    laizi_total = sum(len(laizi_moves(plain, m, lr, mr)) for _, plain, m, lr, _, _ in hands)
    t_laizi = time.perf_counter() - t0

    t0 = time.perf_counter()
    exact = sum(len(readings(sp, sm, lr, mr)) for _, _, _, lr, sp, sm in hands)
    t_exact = time.perf_counter() - t0

    with_laizi = sum(1 for h in hands if h[2])
    print(f"hands: {n} (17 or 20 cards), holding at least one laizi: {with_laizi}")
    print(f"plain ddz generate:      {n / t_plain:10,.0f} hands/s {plain_moves / t_plain:12,.0f} moves/s "
          f"(mean {plain_moves / n:,.0f} moves per hand)")  # fmt: skip
    print(f"laizi_moves (with as):   {n / t_laizi:10,.0f} hands/s {laizi_total / t_laizi:12,.0f} readings/s "
          f"(mean {laizi_total / n:,.0f} readings per hand)")  # fmt: skip
    print(f"readings of a 4-8 card set: {n / t_exact:7,.0f} sets/s  {exact / t_exact:12,.0f} readings/s")
    print(f"ratio laizi / plain: hands/s {t_plain / t_laizi:.3f}x, readings/s vs moves/s "
          f"{(laizi_total / t_laizi) / (plain_moves / t_plain):.3f}x")  # fmt: skip


if __name__ == "__main__":
    main()
