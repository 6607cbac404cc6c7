"""The mahjong core shared by Sichuan, Hongzhong and Anshun: wall, melds, win check, decomposition,
ready/waits and shanten, all on count vectors (engine/tiles.py).

Stable API (backward compatible; new things are only added):

Wall and melds
- `Wall(tiles, head, tail)`: frozen; `remaining` (R), `peek_head()`, `peek_tail()`, `draw(from_tail)`
  → (kind, new wall). `Wall.of(kinds)`.
- `Meld(kind, tile, frm)`: kind ∈ MELD_KINDS (`peng`, `gang_zhi`, `gang_bu`, `gang_an`), `is_gang`.
- `meld_counts(melds)`: count vector of the tiles in melds (a gang counts 4).

Win check by table look-up (fast path)
- `suit_key(counts, s)`: the 9 counts of suit s as `bytes` (the per-suit code).
- `suit_table()`: dict per-suit key → 0 (the suit splits into sets only) or 1 (sets plus one pair);
  every complete suit pattern of at most 14 tiles. Built once, lazily (functools.cache).
- `suit_need(key, with_pair)`: minimal number of wild tiles that make that suit complete (sets only,
  or sets plus one pair); cached per key. Hongzhong adds wilds with it: a hand with w wilds wins if
  the sum over suits of needs, one suit taking the pair, is ≤ w (remaining wilds in groups of 3).
- `is_standard_win(counts, n_melds)`: exactly one pair plus (4 - n_melds) sets, suited kinds and 7z
  (7z only as an ordinary kind: triplet or pair).
- `is_seven_pairs(counts, four_as_two_pairs=True)`: 14 concealed tiles forming seven pairs.
- `is_win(counts, n_melds, seven_pairs=True, four_as_two_pairs=True)`: either. Any count vector may
  be given as `bytes` (one byte per kind): the fastest input.

Every interpretation
- `decompose(counts, n_melds)`: every distinct standard split as `Split(pair, sets)` where `sets` is
  a sorted tuple of (SEQ | TRIP, first kind) for the concealed tiles only (melds are added by the
  caller); `[]` if none.

Ready and waits
- `waits(counts, n_melds, held=None, seven_pairs=True, kinds=range(27))`: kinds t with held[t] < 4 and
  counts + t a win (`held` = concealed + melds; defaults to counts).

Shanten (for bots)
- `shanten(counts, n_melds, seven_pairs=True)`: fewest tiles from ready (−1 = complete hand).

The turn and claim-window state machines live with the games: `engine/mahjong/sichuan.py` (its
reducer, with the pass lock, the last-four rule and the 血流 lock) and `engine/mahjong/claimflow.py`
(Hongzhong, Anshun). The shared bot policy is `engine/mahjong/bot.py`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal, NamedTuple

from engine.tiles import N_KINDS, N_SUITED, RED

SEQ, TRIP = 0, 1
MeldKind = Literal["peng", "gang_zhi", "gang_bu", "gang_an"]
MELD_KINDS: tuple[str, ...] = ("peng", "gang_zhi", "gang_bu", "gang_an")


# ---------------------------------------------------------------- wall and melds


@dataclass(frozen=True, slots=True)
class Wall:
    """Undrawn tiles in draw order; `head` = next head index, `tail` = one past the last undrawn."""

    tiles: tuple[int, ...]
    head: int
    tail: int

    @staticmethod
    def of(kinds: Iterable[int]) -> Wall:
        t = tuple(kinds)
        return Wall(t, 0, len(t))

    @property
    def remaining(self) -> int:
        return self.tail - self.head

    def peek_head(self) -> int:
        return self.tiles[self.head]

    def peek_tail(self) -> int:
        return self.tiles[self.tail - 1]

    def peek(self, from_tail: bool = False) -> int:
        return self.peek_tail() if from_tail else self.peek_head()

    def draw(self, from_tail: bool = False) -> tuple[int, Wall]:
        """(kind drawn, wall after). The caller checks `remaining > 0`."""
        if from_tail:
            return self.tiles[self.tail - 1], Wall(self.tiles, self.head, self.tail - 1)
        return self.tiles[self.head], Wall(self.tiles, self.head + 1, self.tail)


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared set: `peng` (3 tiles) or a gang (4 tiles). `frm` = the feeding seat, or None."""

    kind: str
    tile: int
    frm: int | None = None

    @property
    def is_gang(self) -> bool:
        return self.kind != "peng"

    @property
    def size(self) -> int:
        return 3 if self.kind == "peng" else 4


def meld_counts(melds: Iterable[Meld]) -> tuple[int, ...]:
    c = [0] * N_KINDS
    for m in melds:
        c[m.tile] += m.size
    return tuple(c)


# ---------------------------------------------------------------- per-suit tables


def suit_key(counts: Sequence[int], s: int) -> bytes:
    """The per-suit code: the 9 counts of suit s as bytes."""
    b = 9 * s
    return bytes(counts[b : b + 9])


_GROUPS: tuple[tuple[int, ...], ...] = tuple((i, i + 1, i + 2) for i in range(7)) + tuple((i, i, i) for i in range(9))


@cache
def suit_table() -> dict[bytes, int]:
    """Every complete one-suit pattern (≤ 4 sets, optionally one pair): key → 0 sets only, 1 with pair."""
    table: dict[bytes, int] = {}
    for n in range(5):
        for combo in itertools.combinations_with_replacement(range(len(_GROUPS)), n):
            base = [0] * 9
            for g in combo:
                for i in _GROUPS[g]:
                    base[i] += 1
            if max(base) > 4:
                continue
            table.setdefault(bytes(base), 0)
            for p in range(9):
                if base[p] <= 2:
                    base[p] += 2
                    table.setdefault(bytes(base), 1)
                    base[p] -= 2
    return table


@cache
def suit_need(key: bytes, with_pair: bool) -> int:
    """Minimal wilds completing one suit's counts into sets (and one pair if `with_pair`)."""
    c = list(key)
    return _need(c, with_pair)


def _need(c: list[int], with_pair: bool) -> int:
    i = 0
    while i < 9 and c[i] == 0:
        i += 1
    if i == 9:
        return 2 if with_pair else 0
    best = 99
    # triplet of i
    u = min(c[i], 3)
    c[i] -= u
    best = min(best, 3 - u + _need(c, with_pair))
    c[i] += u
    # pair of i
    if with_pair:
        u = min(c[i], 2)
        c[i] -= u
        best = min(best, 2 - u + _need(c, False))
        c[i] += u
    # sequences containing i as their lowest natural tile
    for start in (i - 2, i - 1, i):
        if start < 0 or start + 2 > 8:
            continue
        if start < i and any(c[j] for j in range(start, i)):
            continue
        miss = 0
        used = []
        for j in range(start, start + 3):
            if c[j] > 0:
                c[j] -= 1
                used.append(j)
            else:
                miss += 1
        best = min(best, miss + _need(c, with_pair))
        for j in used:
            c[j] += 1
    return best


# ---------------------------------------------------------------- win check


def is_standard_win(counts: Sequence[int], n_melds: int = 0) -> bool:
    """One pair plus (4 − n_melds) sets in the concealed counts (suited kinds; 7z as an ordinary kind).

    Three look-ups in `_TABLE` (per-suit key → tiles in that complete suit, 3·sets + 2·pair); the
    total is 14 − 3·n_melds ≡ 2 (mod 3) exactly when one suit holds the pair. `counts` may be bytes.
    """
    b = counts if type(counts) is bytes else bytes(counts)
    table = _TABLE or _load_table()
    v0 = table.get(b[0:9])
    if v0 is None:
        return False
    v1 = table.get(b[9:18])
    if v1 is None:
        return False
    v2 = table.get(b[18:27])
    if v2 is None:
        return False
    total = v0 + v1 + v2
    if len(b) > N_SUITED:
        r = b[RED]
        if r == 1 or r > 3:
            return False
        total += r
        if len(b) > N_KINDS and any(b[N_KINDS:]):
            return False
    return total == 14 - 3 * n_melds


_TABLE: dict[bytes, int] = {}


def _load_table() -> dict[bytes, int]:
    """suit_table() with the tile count of each complete suit as the value (3·sets + 2·pair)."""
    _TABLE.update({k: sum(k) for k in suit_table()})
    return _TABLE


def is_seven_pairs(counts: Sequence[int], four_as_two_pairs: bool = True) -> bool:
    """Seven pairs from 14 concealed tiles; a kind held 4 times is two pairs if `four_as_two_pairs`."""
    b = counts if type(counts) is bytes else bytes(counts)
    twos = b.count(2)
    if not four_as_two_pairs:
        return twos == 7 and b.count(0) == len(b) - 7
    fours = b.count(4)
    return twos + 2 * fours == 7 and b.count(0) == len(b) - twos - fours


def is_win(
    counts: Sequence[int],
    n_melds: int = 0,
    seven_pairs: bool = True,
    four_as_two_pairs: bool = True,
    _t: dict[bytes, int] = _TABLE,
    _get: Callable[[bytes], int | None] = _TABLE.get,
) -> bool:
    """Standard shape or (no melds) seven pairs (a four counting as two pairs unless told otherwise).

    The hot path of every game: three per-suit look-ups, then C-level counts for seven pairs.
    """
    b = counts if type(counts) is bytes else bytes(counts)
    if not _t:
        _load_table()
    v0 = _get(b[0:9])
    if v0 is not None:
        v1 = _get(b[9:18])
        if v1 is not None:
            v2 = _get(b[18:27])
            if v2 is not None:
                if len(b) <= 27 or not any(b[27:]):
                    if v0 + v1 + v2 == 14 - 3 * n_melds:
                        return True
                elif is_standard_win(b, n_melds):
                    return True
    if not seven_pairs or n_melds:
        return False
    twos = b.count(2)
    if four_as_two_pairs:
        fours = b.count(4)
        return twos + 2 * fours == 7 and b.count(0) == len(b) - twos - fours
    return twos == 7 and b.count(0) == len(b) - 7


# ---------------------------------------------------------------- decomposition


class Split(NamedTuple):
    """One standard interpretation of the concealed tiles: the pair kind and the sets (kind, first)."""

    pair: int
    sets: tuple[tuple[int, int], ...]


def decompose(counts: Sequence[int], n_melds: int = 0) -> list[Split]:
    """Every distinct standard split of the concealed tiles into one pair and (4 − n_melds) sets."""
    if sum(counts) != 14 - 3 * n_melds or not is_standard_win(counts, n_melds):
        return []
    c = list(counts)
    out: set[Split] = set()
    acc: list[tuple[int, int]] = []

    def rec(i: int, pair: int) -> None:
        while i < len(c) and c[i] == 0:
            i += 1
        if i == len(c):
            if pair >= 0:
                out.add(Split(pair, tuple(sorted(acc))))
            return
        if pair < 0 and c[i] >= 2:
            c[i] -= 2
            rec(i, i)
            c[i] += 2
        if c[i] >= 3:
            c[i] -= 3
            acc.append((TRIP, i))
            rec(i, pair)
            acc.pop()
            c[i] += 3
        if i < N_SUITED and i % 9 <= 6 and c[i + 1] and c[i + 2]:
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            acc.append((SEQ, i))
            rec(i, pair)
            acc.pop()
            c[i] += 1
            c[i + 1] += 1
            c[i + 2] += 1

    rec(0, -1)
    return sorted(out)


# ---------------------------------------------------------------- waits


def waits(
    counts: Sequence[int],
    n_melds: int = 0,
    held: Sequence[int] | None = None,
    seven_pairs: bool = True,
    kinds: Iterable[int] = range(N_SUITED),
) -> list[int]:
    """Kinds t (among `kinds`) with held[t] < 4 such that counts + t wins (standard or seven pairs).

    Fast path: a standard wait in suit s needs the other two suits complete, so only the changed
    suit's key is looked up again.
    """
    h = counts if held is None else held
    b = bytes(counts)
    if len(b) < N_KINDS:
        b += bytes(N_KINDS - len(b))
    want = set(kinds)
    table = _TABLE or _load_table()
    goal = 14 - 3 * n_melds
    out: set[int] = set()
    red = b[RED] if len(b) > N_SUITED else 0
    rest_ok = red in (0, 2, 3) and not any(b[N_KINDS:])
    keys = [b[0:9], b[9:18], b[18:27]]
    vals = [table.get(k) for k in keys]
    for s in range(3):
        others = [vals[o] for o in range(3) if o != s]
        if not rest_ok or None in others:
            continue
        base = sum(others) + red  # type: ignore[arg-type]
        kb = bytearray(keys[s])
        for i in range(9):
            t = 9 * s + i
            if t not in want or h[t] >= 4:
                continue
            kb[i] += 1
            v = table.get(bytes(kb))
            kb[i] -= 1
            if v is not None and base + v == goal:
                out.add(t)
    c = bytearray(b)
    for t in want:
        if t in out or h[t] >= 4:
            continue
        if t >= N_SUITED or (seven_pairs and n_melds == 0 and c[t] in (1, 3)):
            c[t] += 1
            if is_win(bytes(c), n_melds, seven_pairs):
                out.add(t)
            c[t] -= 1
    return sorted(out)


# ---------------------------------------------------------------- shanten


@cache
def _suit_blocks(key: bytes) -> tuple[tuple[int, int, int], ...]:
    """Pareto-best (sets, partials, head pair 0/1) readings of one suit's counts."""
    res = _blocks(tuple(key))
    best = [x for x in res if not any(y != x and y[0] >= x[0] and y[1] >= x[1] and y[2] >= x[2] for y in res)]
    return tuple(sorted(best))


@cache
def _blocks(c: tuple[int, ...]) -> frozenset[tuple[int, int, int]]:
    i = 0
    n = len(c)
    while i < n and c[i] == 0:
        i += 1
    if i == n:
        return frozenset({(0, 0, 0)})
    out: set[tuple[int, int, int]] = set()

    def sub(deltas: tuple[tuple[int, int], ...], dm: int, dt: int, dp: int) -> None:
        cc = list(c)
        for j, d in deltas:
            cc[j] -= d
        for m, t, p in _blocks(tuple(cc)):
            if p + dp <= 1:
                out.add((m + dm, t + dt, p + dp))

    sub(((i, 1),), 0, 0, 0)  # isolated
    if c[i] >= 3:
        sub(((i, 3),), 1, 0, 0)
    if c[i] >= 2:
        sub(((i, 2),), 0, 0, 1)
        sub(((i, 2),), 0, 1, 0)
    if i + 2 < n and c[i + 1] and c[i + 2]:
        sub(((i, 1), (i + 1, 1), (i + 2, 1)), 1, 0, 0)
    if i + 1 < n and c[i + 1]:
        sub(((i, 1), (i + 1, 1)), 0, 1, 0)
    if i + 2 < n and c[i + 2]:
        sub(((i, 1), (i + 2, 1)), 0, 1, 0)
    return frozenset(out)


def shanten(counts: Sequence[int], n_melds: int = 0, seven_pairs: bool = True) -> int:
    """Fewest tile changes from ready (0 = ready, −1 = complete). Counts hold 13 − 3·melds or 14 − 3·melds."""
    options: list[tuple[tuple[int, int, int], ...]] = [_suit_blocks(suit_key(counts, s)) for s in range(3)]
    if len(counts) > N_SUITED and counts[RED]:
        options.append(_suit_blocks(bytes((counts[RED],))))
    best = 8
    for combo in itertools.product(*options):
        m = n_melds + sum(x[0] for x in combo)
        t = sum(x[1] for x in combo)
        p = sum(x[2] for x in combo)
        if p > 1:
            t += p - 1
            p = 1
        if m + t > 4:
            t = 4 - m
        s = 8 - 2 * m - t - p
        if s < best:
            best = s
    if seven_pairs and n_melds == 0:
        pairs = sum(n // 2 for n in counts)
        best = min(best, 6 - min(pairs, 7))
    return best
