"""Win check and waits with wild tiles (HZ-H2, HZ-H3) by table look-up.

Tiles are the mahjong core's ints: 0..26 = suit*9 + number - 1 for m, p, s and 27 = `7z`.
A hand is a count vector of length 28 (index 27 = natural `7z`, only when `7z` is a plain kind)
plus `w`, the number of wilds.

The table: for each suit's 9-count vector (and for the single honour kind) it stores the least
number of wilds that completes the suit into sets only (`need[0]`) and into sets plus the pair
(`need[1]`). Completion is monotone in steps of 3 (three more wilds make one more triplet), so a hand
with |C| = 3s + 2 wins iff for some suit p: need_p[1] + sum over the other suits of need[0] <= w.
The per-suit entries (`engine.mahjong.core.suit_need`) follow the reference procedure of HZ-H2 (first
tile in a triplet, pair or one of its three sequences, missing members filled by wilds) and cached
(a dict filled lazily; keys of at most 14 tiles read from the generated table of
engine/mahjong/suit_needs.py): no wild is ever tried as a concrete tile.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.mahjong import suit_needs as _generated
from engine.mahjong.core import _base5, suit_need
from engine.tiles import N_KINDS, RED

HONOUR_NEED: tuple[tuple[int, int], ...] = ((0, 2), (2, 1), (1, 0), (0, 2), (2, 1))
"""A plain `7z` kind (no sequences): count → (wilds for sets only, wilds for sets plus the pair)."""


_NEEDS: dict[bytes, tuple[int, int]] = {}
"""The per-suit table, filled lazily: 9 counts as bytes → (wilds for sets only, wilds with the pair)."""


def suit_needs(key: bytes) -> tuple[int, int]:
    """One suit's (no pair, pair) wild needs: a dict look-up, read once per key from the generated
    table (a key of at most 14 tiles) or computed by the core."""
    v = _NEEDS.get(key)
    if v is None:
        tab = _generated.table() if len(key) == 9 and max(key) <= 4 else None
        cell = _generated.MISSING if tab is None else tab[_base5(key)]
        if cell != _generated.MISSING:
            v = _NEEDS[key] = (cell >> 3, cell & 7)
        else:
            v = _NEEDS[key] = (suit_need(key, False), suit_need(key, True))
    return v


def min_wilds(counts: Sequence[int]) -> int:
    """Least wilds that complete the natural tiles `counts` into sets and exactly one pair (the
    counts as bytes once, the three suit keys sliced from them)."""
    c = counts if counts.__class__ is bytes else bytes(counts)
    get = _NEEDS.get
    k0, k1, k2 = c[0:9], c[9:18], c[18:27]
    v0 = get(k0) or suit_needs(k0)
    v1 = get(k1) or suit_needs(k1)
    v2 = get(k2) or suit_needs(k2)
    # the suit that carries the pair: the least (with pair − without pair)
    extra = min(v0[1] - v0[0], v1[1] - v1[0], v2[1] - v2[0])
    total = v0[0] + v1[0] + v2[0]
    if len(c) > RED and c[RED]:
        n, p = HONOUR_NEED[c[RED]]
        total += n
        extra = min(extra, p - n)
    return total + extra


def is_win(counts: Sequence[int], w: int = 0) -> bool:
    """HZ-H1/H2: natural `counts` plus `w` wilds split into one pair and sets (|C| = 3s + 2)."""
    if (sum(counts) + w) % 3 != 2:
        return False
    return min_wilds(counts) <= w


def is_seven_pairs(counts: Sequence[int], w: int = 0) -> bool:
    """HZ-H3: 14 concealed tiles, kinds with an odd natural count at most w (a quad = two pairs)."""
    if sum(counts) + w != 14:
        return False
    return sum(c & 1 for c in counts) <= w


def is_win_any(counts: Sequence[int], w: int = 0, qi_dui: bool = False, melds: int = 0) -> bool:
    """Standard shape, or seven pairs when allowed and there are no melds."""
    if is_win(counts, w):
        return True
    return qi_dui and melds == 0 and is_seven_pairs(counts, w)


def waits(counts: Sequence[int], w: int = 0, *, wild_mode: bool = True, qi_dui: bool = False, melds: int = 0) -> list[int]:
    """Tiles that complete a 3s + 1 hand. In wild mode a drawn `7z` is a wait iff any suited tile is."""
    c = list(counts) + [0] * (N_KINDS - len(counts))
    kinds = range(27) if wild_mode else range(N_KINDS)
    out = []
    for t in kinds:
        c[t] += 1
        if is_win_any(c, w, qi_dui, melds):
            out.append(t)
        c[t] -= 1
    if wild_mode and out:
        out.append(RED)
    return out


def split_wild(tiles: Sequence[int], wild_mode: bool) -> tuple[list[int], int]:
    """Count vector of the natural tiles and the number of wilds (`7z` in wild mode)."""
    counts = [0] * N_KINDS
    w = 0
    for t in tiles:
        if wild_mode and t == RED:
            w += 1
        else:
            counts[t] += 1
    return counts, w
