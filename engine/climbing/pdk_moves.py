"""Pao De Kuai's move types (rules/paodekuai.md section 4) on rank-count tuples.

A play is a 13-slot tuple of counts (rank 0..12 = `3..2`). A reading is `(type, N, key)`; its
signature is `(type, N)`. Every look-up is cached on the count tuple (`functools.cache`), built
lazily. The move table (which N each type allows, how many kicker cards it carries) is data:
`SHAPES`.

This is the Pao De Kuai adapter to the shared climbing-game vocabulary: the type ids `solo`,
`pair`, `trio`, `straight`, `pair_straight`, `plane`, `bomb` mean the same as in Dou Dizhu; the
kicker types differ (any kicker cards, the 4th card of a main rank allowed, 4+1 read as `trio_two`),
so they are classified here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache

Reading = tuple[str, int, int]
"""(type, N, key): N = chain length (1 for non-chains), key = rank index of the comparison rank."""

N_RANKS = 13
CHAIN_TOP = 11
"""Highest rank index of a chain (`A`); `2` is never in a chain."""
BOMB_TOP = 10
"""Highest bomb rank (`K`): the deck has three A and one 2."""

# type → (cards per chain unit of the main part, kicker cards per unit, allowed N)
SHAPES: dict[str, tuple[int, int, tuple[int, ...]]] = {
    "straight": (1, 0, tuple(range(5, 13))),
    "pair_straight": (2, 0, tuple(range(2, 9))),
    "plane": (3, 0, tuple(range(2, 6))),
    "plane_n_wings": (3, 1, (2, 3, 4)),
    "plane_2n_wings": (3, 2, (2, 3)),
}
# type → (main count, kicker cards) for the one-rank shapes
SINGLE: dict[str, tuple[int, int]] = {
    "solo": (1, 0),
    "pair": (2, 0),
    "trio": (3, 0),
    "trio_one": (3, 1),
    "trio_two": (3, 2),
    "four_two": (4, 2),
    "four_three": (4, 3),
    "bomb": (4, 0),
}
PLANE_FAMILY = frozenset({"plane", "plane_n_wings", "plane_2n_wings"})
KICKER_TYPES = {"trio_one": 1, "trio_two": 2}
"""Trio types whose kickers `short_trio_last` may shorten (the winged planes: N and 2N)."""


def counts_of(cards: Iterable[int]) -> tuple[int, ...]:
    """Rank counts of card ids (rank = id >> 2)."""
    c = [0] * N_RANKS
    for x in cards:
        c[x >> 2] += 1
    return tuple(c)


def highest_rank(counts: tuple[int, ...]) -> int:
    for r in range(N_RANKS - 1, -1, -1):
        if counts[r]:
            return r
    raise ValueError("empty hand")


@cache
def readings(counts: tuple[int, ...]) -> tuple[Reading, ...]:
    """Every reading of a multiset (section 4.1/4.2); empty when it is no move."""
    total = sum(counts)
    out: list[Reading] = []
    # one-rank shapes: fixed by the card counts
    for kind, (main, kick) in SINGLE.items():
        if total != main + kick:
            continue
        for r in range(N_RANKS):
            if counts[r] < main:
                continue
            if kind == "bomb":
                if r <= BOMB_TOP:
                    out.append((kind, 1, r))
            elif kind == "trio_one":
                if counts[r] == 3:  # 3 + its own 4th card is the bomb (section 4.1 note)
                    out.append((kind, 1, r))
            else:
                out.append((kind, 1, r))
    # chains
    for kind, (unit, kick, ns) in SHAPES.items():
        per = unit + kick
        if total % per:
            continue
        n = total // per
        if n not in ns:
            continue
        for hi in range(n - 1, CHAIN_TOP + 1):
            lo = hi - n + 1
            if all(counts[r] >= unit for r in range(lo, hi + 1)):
                if kick == 0 and any(counts[r] != (unit if lo <= r <= hi else 0) for r in range(N_RANKS)):
                    continue
                out.append((kind, n, hi))
    return tuple(out)


@cache
def lead_reading(counts: tuple[int, ...]) -> Reading:
    """Section 4.3: the longest trio chain, then the highest key (other plays have one reading)."""
    rds = readings(counts)
    if not rds:
        raise ValueError("no reading")
    return max(rds, key=lambda r: (r[0] in PLANE_FAMILY, r[1], r[2]))


def _short_reading(counts: tuple[int, ...], top: Reading) -> Reading | None:
    """`short_trio_last`: the top type's main part plus fewer kickers than it needs (B3 option)."""
    kind, n, key = top
    if kind in KICKER_TYPES:
        need, unit_n = KICKER_TYPES[kind], 1
    elif kind in ("plane_n_wings", "plane_2n_wings"):
        need, unit_n = SHAPES[kind][1] * n, n
    else:
        return None
    total = sum(counts)
    if not 3 * unit_n <= total < 3 * unit_n + need:
        return None
    top_hi = CHAIN_TOP if unit_n > 1 else N_RANKS - 1
    for hi in range(top_hi, key, -1):
        lo = hi - unit_n + 1
        if lo >= 0 and all(counts[r] >= 3 for r in range(lo, hi + 1)):
            return (kind, n, hi)
    return None


@cache
def beat_reading(counts: tuple[int, ...], top: Reading, short_ok: bool = False) -> Reading | None:
    """B1/B2 (and the `short_trio_last` option when `short_ok`): the reading recorded when the play
    beats `top`, with the highest key that does; None when it does not beat."""
    rds = readings(counts)
    bomb = next((r for r in rds if r[0] == "bomb"), None)
    if top[0] == "bomb":
        return bomb if bomb is not None and bomb[2] > top[2] else None
    if bomb is not None:
        return bomb
    best = None
    for r in rds:
        if r[0] == top[0] and r[1] == top[1] and r[2] > top[2] and (best is None or r[2] > best[2]):
            best = r
    if best is None and short_ok:
        best = _short_reading(counts, top)
    return best


# ---------------------------------------------------------------------- generation


def _sub(counts: tuple[int, ...], part: dict[int, int]) -> tuple[int, ...]:
    return tuple(c - part.get(r, 0) for r, c in enumerate(counts))


def _add(part: dict[int, int], kick: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(part.get(r, 0) + k for r, k in enumerate(kick))


@cache
def multisets(avail: tuple[int, ...], k: int, start: int = 0) -> tuple[tuple[int, ...], ...]:
    """Every count tuple ≤ `avail` (from rank `start` on) with `k` cards."""
    if k == 0:
        return (tuple(0 for _ in avail),)
    out = []
    for r in range(start, len(avail)):
        for take in range(1, min(avail[r], k) + 1):
            for rest in multisets(avail, k - take, r + 1):
                t = list(rest)
                t[r] = take
                out.append(tuple(t))
    return tuple(out)


def signature_counts(hand: tuple[int, ...], kind: str, n: int, above: int) -> Iterator[tuple[int, ...]]:
    """Plays of signature (kind, n) from `hand` with a key > `above` (the keyed main part is new
    for each play; kicker multisets may repeat a play of another key, callers dedupe)."""
    if kind in SINGLE:
        main, kick = SINGLE[kind]
        for r in range(above + 1, N_RANKS):
            if hand[r] < main or (kind == "bomb" and (r > BOMB_TOP or hand[r] != 4)):
                continue
            part = {r: main}
            rest = _sub(hand, part)
            if kind == "trio_one":
                rest = tuple(0 if q == r else c for q, c in enumerate(rest))
            for kk in multisets(rest, kick):
                yield _add(part, kk)
        return
    unit, kick, ns = SHAPES[kind]
    if n not in ns:
        return
    for hi in range(max(n - 1, above + 1), CHAIN_TOP + 1):
        lo = hi - n + 1
        if not all(hand[r] >= unit for r in range(lo, hi + 1)):
            continue
        part = {r: unit for r in range(lo, hi + 1)}
        for kk in multisets(_sub(hand, part), kick * n):
            yield _add(part, kk)


@cache
def all_counts(hand: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every distinct play (count tuple) that can be made from `hand`, leading."""
    seen: dict[tuple[int, ...], None] = {}
    for kind in SINGLE:
        for c in signature_counts(hand, kind, 1, -1):
            seen.setdefault(c, None)
    for kind, (_, _, ns) in SHAPES.items():
        for n in ns:
            for c in signature_counts(hand, kind, n, -1):
                seen.setdefault(c, None)
    return tuple(seen)


@cache
def beating_counts(hand: tuple[int, ...], top: Reading, short_ok: bool = False) -> tuple[tuple[int, ...], ...]:
    """Every distinct play from `hand` that beats `top` (B1–B3, and the short last play when
    `short_ok`), non-bombs first, lower keys first."""
    seen: dict[tuple[int, ...], None] = {}
    kind, n, key = top
    if kind != "bomb":
        for c in signature_counts(hand, kind, n, key):
            seen.setdefault(c, None)
        if short_ok and _short_reading(hand, top) is not None and beat_reading(hand, top, True) is not None:
            seen.setdefault(hand, None)
    for c in signature_counts(hand, "bomb", 1, key if kind == "bomb" else -1):
        seen.setdefault(c, None)
    return tuple(seen)


def pick_cards(hand: tuple[int, ...], counts: tuple[int, ...]) -> tuple[int, ...]:
    """The lowest card ids of each rank (so `3s` comes first) for a count tuple; `hand` sorted."""
    need = list(counts)
    out = []
    for c in hand:
        r = c >> 2
        if need[r]:
            need[r] -= 1
            out.append(c)
    return tuple(out)
