"""Win checks per second: Paiju's table look-up (engine/mahjong/core.py) vs the `mahjong` package's
`Agari.is_agari`, on the same hands in the same process; then ready-with-waits per second.

Run: `.venv/bin/python bench/mahjong_win.py [N]` (N hands, default 20000: half built to win, half random).
Prints checks/s for both, the ratio, and that both agree on every hand (standard shape and seven
distinct pairs, the package's definition). Each timing is the fastest of several passes (the machine
is shared). Paiju is timed on its packed count vectors (bytes, one per kind) and on plain lists.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mahjong.agari import Agari

from engine.mahjong.core import is_win, suit_table, waits
from engine.tiles import full_set


def winning_shape(rng: random.Random, size: int) -> list[int] | None:
    """Counts of four random sets and a pair (None when a kind would exceed four copies)."""
    c = [0] * size
    for _ in range(4):
        if rng.random() < 0.5:
            c[rng.randrange(27)] += 3
        else:
            s, x = rng.randrange(3), rng.randrange(7)
            for d in range(3):
                c[9 * s + x + d] += 1
    c[rng.randrange(27)] += 2
    return None if max(c) > 4 else c


def hands(n: int, seed: int = 1) -> list[list[int]]:
    rng = random.Random(seed)
    deck = full_set()
    out = []
    while len(out) < n:
        if len(out) % 2:
            rng.shuffle(deck)
            c = [0] * 34
            for k in deck[:14]:
                c[k] += 1
        else:
            c = winning_shape(rng, 34)
            if c is None:
                continue
        out.append(c)
    return out


def package_definition(c: bytes | list[int]) -> bool:
    """The package's definition: standard shape or seven *distinct* pairs (for the agreement check)."""
    return is_win(c, 0, True, False)


def race(jobs: list[tuple[Callable[[Any], Any], list[Any]]], repeat: int = 7) -> list[tuple[float, list[Any]]]:
    """Fastest pass of each job over its data; the jobs alternate pass by pass, so that a shared,
    busy machine slows them alike (min over passes is the signal)."""
    best = [float("inf")] * len(jobs)
    outs: list[list[Any]] = [[] for _ in jobs]
    for _ in range(repeat):
        for j, (fn, data) in enumerate(jobs):
            t0 = time.perf_counter()
            out = list(map(fn, data))
            best[j] = min(best[j], time.perf_counter() - t0)
            outs[j] = out
    return list(zip(best, outs, strict=True))


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    hs = hands(n)
    suit_table()  # build the table once (lazily cached), outside the timing
    agari = Agari()

    packed = [bytes(c) for c in hs]  # Paiju's packed count vector (one byte per kind)
    (t_ours, ours), (t_list, ours_list), (t_ref, ref) = race([(is_win, packed), (is_win, hs), (agari.is_agari, hs)])
    assert ours_list == ours
    # Sichuan counts a kind held four times as two pairs; the package does not: check those apart
    differ = [i for i in range(n) if ours[i] != ref[i]]
    assert all(package_definition(hs[i]) == ref[i] and 4 in hs[i] for i in differ)
    ours = [package_definition(c) for c in hs]

    agree = sum(a == b for a, b in zip(ours, ref, strict=True))
    print(f"hands: {n} ({sum(ref)} wins), agreement: {agree}/{n} (4-of-a-kind seven pairs: {len(differ)} told apart)")
    print(f"paiju table look-up (packed counts): {n / t_ours:12,.0f} win checks/s")
    print(f"paiju table look-up (list of 34)   : {n / t_list:12,.0f} win checks/s (packing included)")
    print(f"mahjong is_agari (list of 34)      : {n / t_ref:12,.0f} win checks/s")
    print(f"ratio (paiju / mahjong): {t_ref / t_ours:.1f}x packed, {t_ref / t_list:.1f}x from lists")

    thirteen = []
    for c in hs[: n // 4]:
        d = list(c)
        d[next(k for k in range(27) if d[k])] -= 1
        thirteen.append(d)

    def ref_waits(d: list[int]) -> list[int]:
        out = []
        for t in range(27):
            if d[t] < 4:
                d[t] += 1
                if agari.is_agari(d):
                    out.append(t)
                d[t] -= 1
        return out

    (t_w, got), (t_wr, got_ref) = race([(waits, thirteen), (ref_waits, thirteen)], 3)
    ready = sum(1 for w in got if w)
    ready_ref = sum(1 for w in got_ref if w)
    print(f"paiju ready-with-waits: {len(thirteen) / t_w:10,.0f} hands/s ({ready} ready)")
    print(f"mahjong 27 x is_agari : {len(thirteen) / t_wr:10,.0f} hands/s ({ready_ref} ready)")
    print(f"ratio (paiju waits / mahjong ready test): {t_wr / t_w:.1f}x")


if __name__ == "__main__":
    main()
