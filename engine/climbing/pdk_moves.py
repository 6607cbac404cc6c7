"""Pao De Kuai's moves (docs/rules/paodekuai.md section 4) on the shared climbing move engine.

A thin adapter over `engine.climbing.moves`: Pao De Kuai's vocabulary is one `MoveRules` value
(`pdk_move_rules`), so the classifier, the comparator and the generator are the shared ones. What
Pao De Kuai adds on top is here:
- a reading as the triple `(type, N, key)` (its signature is `(type, N)`);
- B2: a follow is recorded with the highest key among its readings of the top's signature;
- the `short_trio_last` option (a hand-emptying trio / winged plane with fewer kickers, B3);
- `pick_cards`: the concrete cards of a count vector (lowest card ids first, so `3s` first).
Look-ups are cached on the count vectors (bounded `functools.lru_cache`).

The vocabulary as data (section 4.1): kickers are any cards (`kick_disjoint=False`, so the 4th card
of a main rank may be a kicker: 4+1 reads as `trio_two`, `33334444` as `plane_n_wings`), except for
`trio_one` whose kicker must be another rank (3 + its 4th card is the bomb); bombs are 3..K only;
no rocket.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache, lru_cache
from operator import itemgetter

from engine.climbing import moves as M

Reading = tuple[str, int, int]
"""(type, N, key): N = chain length (1 for non-chains), key = rank index of the comparison rank."""

N_RANKS: int = M.N_RANKS
CHAIN_TOP: int = M.ACE
"""Highest rank index of a chain (`A`); `2` is never in a chain."""
BOMB_RANKS = tuple(range(11))
"""Bomb ranks 3..K: the deck has three A and one 2."""
PLANE_FAMILY = frozenset({"plane", "plane_n_wings", "plane_2n_wings"})
KICKERS_PER_UNIT = {"trio_one": 1, "trio_two": 2, "plane_n_wings": 1, "plane_2n_wings": 2}
"""The kicker types `short_trio_last` may shorten: kicker cards per trio of the main part."""


@cache
def pdk_move_rules() -> M.MoveRules:
    """Section 4.1 as data: the type table of docs/rules/paodekuai.md in the shared engine's terms."""
    chain = M.CHAIN
    return M.MoveRules(
        types=(
            M.TypeSpec("solo", 1),
            M.TypeSpec("pair", 2),
            M.TypeSpec("trio", 3),
            M.TypeSpec("trio_one", 3, kick=1, kick_cap=1),
            M.TypeSpec("trio_two", 3, kick=2, kick_disjoint=False),
            M.TypeSpec("straight", 1, 5, 12, chain),
            M.TypeSpec("pair_straight", 2, 2, 8, chain),
            M.TypeSpec("plane", 3, 2, 5, chain),
            M.TypeSpec("plane_n_wings", 3, 2, 4, chain, kick=1, kick_disjoint=False),
            M.TypeSpec("plane_2n_wings", 3, 2, 3, chain, kick=2, kick_disjoint=False),
            M.TypeSpec("four_two", 4, kick=2),
            M.TypeSpec("four_three", 4, kick=3),
            M.TypeSpec("bomb", 4, ranks=BOMB_RANKS, level=M.LEVEL_BOMB),
        ),
        rocket=False,
    )


def counts_of(cards: Iterable[int]) -> tuple[int, ...]:
    """Rank count vector of card ids (the shared engine's 15 slots)."""
    return M.counts_of(cards)


@lru_cache(maxsize=1 << 16)
def hand_counts(cards: tuple[int, ...]) -> tuple[int, ...]:
    """`counts_of` a tuple of card ids, cached: a hand is counted again at every turn until it plays."""
    return M.counts_of(cards)


def counts_str(counts: tuple[int, ...]) -> str:
    return M.counts_str(counts)


def highest_rank(counts: tuple[int, ...]) -> int:
    for r in range(N_RANKS - 1, -1, -1):
        if counts[r]:
            return r
    raise ValueError("empty hand")


@lru_cache(maxsize=1 << 17)
def readings(counts: tuple[int, ...]) -> tuple[Reading, ...]:
    """Every reading of a play (sections 4.1/4.2); empty when it is no move."""
    return tuple((m.type, m.length, m.key) for m in M.classify_all(counts, pdk_move_rules()))


@lru_cache(maxsize=1 << 17)
def lead_reading(counts: tuple[int, ...]) -> Reading:
    """Section 4.3: the longest trio chain, then the highest key (other plays have one reading).

    = `classify`'s choice, read from `readings` (the same readings in the same order, so no
    second classification): the greatest (bomb level, length, key), the first of equals."""
    rds = readings(counts)
    if not rds:
        raise ValueError(f"{counts_str(counts)} is no move")
    if len(rds) == 1:
        return rds[0]
    return max(rds, key=_preference)


def _preference(rd: Reading) -> tuple[bool, int, int]:
    """`classify`'s order of readings: (level, length, key), the level 2 for a bomb, else 0."""
    return (rd[0] == "bomb", rd[1], rd[2])


def short_shape(counts: tuple[int, ...], top: Reading) -> Reading | None:
    """`short_trio_last` (section 6): is the play the main part of the top move's type (a trio, or
    N consecutive trios for a winged plane) plus fewer kicker cards than the top move has?

    The reading (top type, N, the highest chain key among such main parts), whatever its key; None
    when the shape does not fit. The play need not have any reading of section 4 (a 7-card plane
    with one wing, `3334445`, has none)."""
    kind, n, _ = top
    per = KICKERS_PER_UNIT.get(kind)
    if per is None:
        return None
    total = sum(counts)
    if not 3 * n <= total < 3 * n + per * n:
        return None
    ranks = M.CHAIN if n > 1 else M.ALL13
    for hi in range(ranks[-1], n - 2, -1):
        lo = hi - n + 1
        if all(counts[r] >= 3 for r in range(lo, hi + 1)):
            return (kind, n, hi)
    return None


def _short_reading(counts: tuple[int, ...], top: Reading) -> Reading | None:
    """`short_trio_last`: the short shape when its key beats the top's (B3 option)."""
    got = short_shape(counts, top)
    return got if got is not None and got[2] > top[2] else None


@lru_cache(maxsize=1 << 17)
def beat_reading(counts: tuple[int, ...], top: Reading, short_ok: bool = False) -> Reading | None:
    """B1/B2 (and `short_trio_last` when `short_ok`): the reading recorded when the play beats
    `top`, with the highest key that does; None when it does not beat."""
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


def _top_move(top: Reading) -> M.Move:
    kind, n, key = top
    return M.Move(kind, n, key, M.LEVEL_BOMB if kind == "bomb" else M.LEVEL_NONE, ())


_COUNTS = itemgetter(4)
"""A Move's `counts` (its fifth field), read in C."""


@lru_cache(maxsize=1 << 17)
def all_counts(hand: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every distinct play (count vector) that can be made from `hand`, leading."""
    return tuple(dict.fromkeys(map(_COUNTS, M.generate(hand, pdk_move_rules()))))


@lru_cache(maxsize=1 << 17)
def beating_counts(hand: tuple[int, ...], top: Reading, short_ok: bool = False) -> tuple[tuple[int, ...], ...]:
    """Every distinct play from `hand` that beats `top` (B1–B3, and the short last play when
    `short_ok`): the top's type first by rising key, then the bombs."""
    found = dict.fromkeys(map(_COUNTS, M.generate(hand, pdk_move_rules(), _top_move(top))))
    if short_ok and hand not in found and _short_reading(hand, top) is not None:
        found[hand] = None
    return tuple(found)


def pick_cards(hand: tuple[int, ...], counts: tuple[int, ...]) -> tuple[int, ...]:
    """The lowest card ids of each rank (so `3s` comes first) for a count vector; `hand` sorted."""
    need = list(counts)
    out = []
    for c in hand:
        r = c >> 2
        if need[r]:
            need[r] -= 1
            out.append(c)
    return tuple(out)
