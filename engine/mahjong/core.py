"""The mahjong core shared by Sichuan, Hongzhong and Anshun: wall, melds, win check, decomposition,
ready/waits and shanten, all on count vectors (engine/tiles.py).

Stable API (backward compatible; new things are only added):

Wall and melds
- `Wall(tiles, head, tail)`: frozen; `remaining` (R), `peek_head()`, `peek_tail()`, `draw(from_tail)`
  → (kind, new wall). `Wall.of(kinds)`.
- `Meld(kind, tile, frm)`: kind ∈ MELD_KINDS (`peng`, `gang_zhi`, `gang_bu`, `gang_an`), `is_gang`.
  Both are defined in engine/mahjong/wall.py (plain Python even when this module is compiled).
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
  caller); `[]` if none. Combines per-suit splits (cached per suit key); the one-pass definition
  it is tested against is tests/test_mahjong_fastpaths.py `decompose_plain`.

Ready and waits
- `waits(counts, n_melds, held=None, seven_pairs=True, kinds=range(27))`: kinds t with held[t] < 4 and
  counts + t a win (`held` = concealed + melds; defaults to counts).
- `win_tiles(counts, n_melds, seven_pairs=True)`: the same as a 27-bit mask, every kind t < 27 with
  `is_win(counts + t)` (per suit the tiles completing it, cached per key; no `held` limit);
  `win_mask(hand, n_melds)`: `win_tiles` of a hand tuple, memoised per hand object.

Shanten (for bots)
- `shanten(counts, n_melds, seven_pairs=True)`: fewest tiles from ready (−1 = complete hand); the
  regular term is 8 − p − M − min(M + T, 4) over the readings (M sets with melds, T partials, p ≤ 1
  head pair). Fast path: each suit's key → an interned Pareto set of (m, min(m + t, 4), p) (a suit is
  the merge of its pieces between double gaps, each piece read once), merges of two sets and the
  final value cached by id: a few dict look-ups per call. `shanten_reference` is the plain
  every-combination definition the tests compare it with.
- `draw_gains(counts13, n_melds)`: (shanten, per suit a 9-bit mask of the kinds whose draw lowers
  it) — ukeire kinds; `mask_bits(mask)` lists a mask's positions.
- `discard_gains(counts14, n_melds)`: for every kind held, (kind, shanten after discarding it, the
  gain masks after that discard, or None unless the shanten is minimal) — the bot's discard scan
  (per suit one interned discard profile and one row of regular shanten values);
  `discard_gains_plain` is its per-discard definition.
- `discard_shanten(counts14, n_melds)`: (kind, shanten after discarding it) for every kind held;
  `min_discard_shanten(counts14, n_melds)`: the least of them and the kinds reaching it.
Suit keys of at most 14 tiles read their reading set from a generated table
(engine/mahjong/suit_ids.py, every one of the 405,350 keys; `_key_id_computed` is the procedure it
was generated with), so a fresh process computes no key. Every cache is filled on first use and
bounded (by the keys met, or cleared at `_CACHE_CAP` entries).

The turn and claim-window state machines live with the games: `engine/mahjong/sichuan.py` (its
reducer, with the pass lock, the last-four rule and the 血流 lock) and `engine/mahjong/claimflow.py`
(Hongzhong, Anshun). The shared bot policy is `engine/mahjong/bot.py`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any, Literal, NamedTuple

from engine.mahjong.wall import Meld as Meld
from engine.mahjong.wall import Wall as Wall
from engine.tiles import N_KINDS, N_SUITED, RED

SEQ, TRIP = 0, 1
MeldKind = Literal["peng", "gang_zhi", "gang_bu", "gang_an"]
MELD_KINDS: tuple[str, ...] = ("peng", "gang_zhi", "gang_bu", "gang_an")


# ---------------------------------------------------------------- wall and melds (engine/mahjong/wall.py)


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
    return _need(bytes(key), with_pair)


@cache
def _need(c: bytes, with_pair: bool) -> int:
    """The reference procedure (HZ-H2): the first tile in a triplet, the pair or one of its three
    sequences, missing members filled by wilds; memoised per remaining counts."""
    n = len(c)
    i = 0
    while i < n and c[i] == 0:
        i += 1
    if i == n:
        return 2 if with_pair else 0
    cc = bytearray(c)
    # triplet of i
    u = min(c[i], 3)
    cc[i] -= u
    best = 3 - u + _need(bytes(cc), with_pair)
    cc[i] += u
    # pair of i
    if with_pair:
        u = min(c[i], 2)
        cc[i] -= u
        best = min(best, 2 - u + _need(bytes(cc), False))
        cc[i] += u
    # sequences containing i (the first natural tile, so nothing below it is held)
    for start in (i - 2, i - 1, i):
        if start < 0 or start + 2 > 8:
            continue
        miss = 0
        for j in range(start, start + 3):
            if cc[j] > 0:
                cc[j] -= 1
            else:
                miss += 1
        best = min(best, miss + _need(bytes(cc), with_pair))
        cc[start : start + 3] = c[start : start + 3]
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


_DONE: dict[bytes, int] = {}
"""Suit key → 9-bit mask of the positions where one more tile makes it a complete suit (`_TABLE`)."""


def _done_mask(key: bytes) -> int:
    """The positions i where `key` plus one tile at i is a complete suit (kept in `_DONE`)."""
    table = _TABLE or _load_table()
    m = 0
    for i in range(9):
        if key[i] < 4 and key[:i] + _BYTE[key[i] + 1] + key[i + 1 :] in table:
            m |= 1 << i
    if len(_DONE) >= _CACHE_CAP:
        _DONE.clear()
    _DONE[key] = m
    return m


def win_tiles(counts: Sequence[int], n_melds: int = 0, seven_pairs: bool = True) -> int:
    """Bit t (t < 27) set iff `is_win(counts + t, n_melds, seven_pairs)` (four as two pairs).

    A standard win needs every suit complete after the draw: with two suits complete, the tiles of
    the third that complete it (`_done_mask`, cached per key), when the tile count is 14 − 3·melds;
    seven pairs only for the one kind held an odd number of times. A held 7z kind: tile by tile."""
    b = counts if type(counts) is bytes else bytes(counts)
    if len(b) > N_SUITED and any(b[N_SUITED:]):
        c = bytearray(b)
        m = 0
        for t in range(N_SUITED):
            c[t] += 1
            if is_win(c, n_melds, seven_pairs):
                m |= 1 << t
            c[t] -= 1
        return m
    get = (_TABLE or _load_table()).get
    k0, k1, k2 = b[0:9], b[9:18], b[18:27]
    v0, v1, v2 = get(k0), get(k1), get(k2)
    m = 0
    if sum(b) == 13 - 3 * n_melds:
        done = _DONE.get
        if v1 is not None and v2 is not None:
            x = done(k0)
            m |= _done_mask(k0) if x is None else x
        if v0 is not None and v2 is not None:
            x = done(k1)
            m |= (_done_mask(k1) if x is None else x) << 9
        if v0 is not None and v1 is not None:
            x = done(k2)
            m |= (_done_mask(k2) if x is None else x) << 18
    if seven_pairs and n_melds == 0 and b.count(1) + b.count(3) == 1:
        t = b.find(1)
        if t < 0:
            t = b.find(3)
        c = bytearray(b)
        c[t] += 1
        twos, fours = c.count(2), c.count(4)
        if twos + 2 * fours == 7 and c.count(0) == len(c) - twos - fours:
            m |= 1 << t
    return m


_WIN_MASK_ID: dict[int, tuple[tuple[int, ...], int, int]] = {}


def win_mask(hand: tuple[int, ...], n_melds: int) -> int:
    """`win_tiles(hand, n_melds)` memoised per hand object (its id, the entry holding it): a seat's
    hand is checked against every discard until it changes, by the bot and by the reducer."""
    e = _WIN_MASK_ID.get(id(hand))
    if e is not None and e[0] is hand and e[1] == n_melds:
        return e[2]
    m = win_tiles(hand, n_melds)
    if len(_WIN_MASK_ID) >= 50_000:
        _WIN_MASK_ID.clear()
    _WIN_MASK_ID[id(hand)] = (hand, n_melds, m)  # the entry keeps `hand` alive: its id stays its own
    return m


# ---------------------------------------------------------------- decomposition


class Split(NamedTuple):
    """One standard interpretation of the concealed tiles: the pair kind and the sets (kind, first)."""

    pair: int
    sets: tuple[tuple[int, int], ...]


def decompose(counts: Sequence[int], n_melds: int = 0) -> list[Split]:
    """Every distinct standard split of the concealed tiles into one pair and (4 − n_melds) sets.

    Sets never cross suits, so the splits are the combinations of each suit's own splits (cached
    per suit key) with exactly one pair among them; tests/test_mahjong_fastpaths.py holds the
    one-pass definition it is compared with."""
    if sum(counts) != 14 - 3 * n_melds or not is_standard_win(counts, n_melds):
        return []
    b = counts if type(counts) is bytes else bytes(counts)
    groups = [(_suit_splits(b[9 * s : 9 * s + 9], True), 9 * s) for s in range(3) if any(b[9 * s : 9 * s + 9])]
    groups += [(_suit_splits(b[k : k + 1], False), k) for k in range(N_SUITED, len(b)) if b[k]]
    out: set[Split] = set()
    for combo in itertools.product(*(g[0] for g in groups)):
        pair = -1
        sets: list[tuple[int, int]] = []
        for (p, ss), (_, base) in zip(combo, groups, strict=True):
            if p >= 0:
                if pair >= 0:
                    break
                pair = base + p
            sets += [(kind, base + f) for kind, f in ss]
        else:
            if pair >= 0:
                out.add(Split(pair, tuple(sorted(sets))))
    return sorted(out)


@cache
def _suit_splits(key: bytes, seqs: bool) -> tuple[tuple[int, tuple[tuple[int, int], ...]], ...]:
    """Every split of one suit's counts into sets and at most one pair: (pair position or −1, the
    sorted sets (SEQ | TRIP, first position)); sequences only if `seqs` (not for 7z)."""
    c = list(key)
    n = len(c)
    out: set[tuple[int, tuple[tuple[int, int], ...]]] = set()
    acc: list[tuple[int, int]] = []

    def rec(i: int, pair: int) -> None:
        while i < n and c[i] == 0:
            i += 1
        if i == n:
            out.add((pair, tuple(sorted(acc))))
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
        if seqs and i + 2 < n and c[i + 1] and c[i + 2]:
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
    return tuple(sorted(out))


# ---------------------------------------------------------------- waits


def waits(
    counts: Sequence[int],
    n_melds: int = 0,
    held: Sequence[int] | None = None,
    seven_pairs: bool = True,
    kinds: Iterable[int] = range(N_SUITED),
) -> list[int]:
    """Kinds t (among `kinds`) with held[t] < 4 such that counts + t wins (standard or seven pairs).

    The suited kinds are the bits of `win_tiles` (per suit the tiles completing it); a 7z kind, tile
    by tile."""
    h = counts if held is None else held
    b = bytes(counts)
    if len(b) < N_KINDS:
        b += bytes(N_KINDS - len(b))
    suited = win_tiles(b, n_melds, seven_pairs)
    out: list[int] = []
    c = bytearray(b)
    for t in sorted(set(kinds)):
        if h[t] >= 4:
            continue
        if t < N_SUITED:
            if suited >> t & 1:
                out.append(t)
            continue
        c[t] += 1
        if is_win(bytes(c), n_melds, seven_pairs):
            out.append(t)
        c[t] -= 1
    return out


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


# The fast path. Shanten of the regular shape is 8 − p − M − min(M + T, 4) for the best reading
# (M sets including melds, T partials, p ≤ 1 head pair); the formula is the same as the one used
# with the cap `t ≤ 4 − m`. So each suit only matters through its Pareto set of (m, k = min(m + t, 4),
# p) triples, and two suits merge into another such set (min(a + b, 4) = min(min(a, 4) + min(b, 4), 4);
# a second pair is already offered as a partial by `_blocks`, so merges keep p ≤ 1). Those sets are
# interned as small ints: per-suit key → id, (id, id) → merged id, (id, melds) → shanten; each table
# is filled on first use and stays bounded (the sets live on a 5 × 5 × 2 grid).

_SET_ID: dict[tuple[tuple[int, int, int], ...], int] = {}
_SETS: list[tuple[tuple[int, int, int], ...]] = []
_KEY_ID: dict[bytes, int] = {}
_MERGE: dict[int, int] = {}
_FINAL: dict[int, int] = {}
_ID_BITS = 20


def _pareto(opts: Iterable[tuple[int, int, int]]) -> tuple[tuple[int, int, int], ...]:
    """The undominated triples (a dominator sorts before what it dominates)."""
    out: list[tuple[int, int, int]] = []
    for x in sorted(set(opts), reverse=True):
        m, k, p = x
        for y in out:
            if y[0] >= m and y[1] >= k and y[2] >= p:
                break
        else:
            out.append(x)
    out.reverse()
    return tuple(out)


def _intern(opts: tuple[tuple[int, int, int], ...]) -> int:
    i = _SET_ID.get(opts)
    if i is None:
        i = _SET_ID[opts] = len(_SETS)
        _SETS.append(opts)
    return i


def _key_id(key: bytes) -> int:
    """Id of a suit key's (m, k, p) set (a 1-byte key is the plain 7z kind).

    A 9-count key of at most 14 tiles is read from the generated table (engine/mahjong/suit_ids.py);
    anything else is computed (`_key_id_computed`)."""
    i = _KEY_ID.get(key)
    if i is None:
        if len(key) == 9 and max(key) <= 4:
            tab, tid, _top = _TAB or _load_tab()
            if tab is not None:
                j = tab[_base5(key)]
                if j != _MISSING:
                    i = _KEY_ID[key] = tid[j]
                    return i
        i = _key_id_computed(key)
    return i


def _key_id_computed(key: bytes) -> int:
    """`_key_id` by reading the key: tiles two or more empty places apart share no set or partial,
    so the suit is the merge of its pieces between double gaps; each piece is read once (`_piece_id`).
    Stored in the key cache; never read from it (the tests compare it with the generated table)."""
    i = -1
    for piece in key.split(b"\0\0"):
        piece = piece.strip(b"\0")
        if piece:
            j = _PIECE_ID.get(piece)
            if j is None:
                j = _piece_id(piece)
            i = j if i < 0 else _merge(i, j)
    if i < 0:
        i = _piece_id(b"")
    _KEY_ID[key] = i
    return i


_MISSING = 255
_POW5 = tuple(5 ** (8 - i) for i in range(9))
_TAB: list[Any] = []
"""[the generated base-5 table of engine/mahjong/suit_ids.py or None, its set index → set id here,
the most tiles of a key in it], filled on first use."""


def _load_tab() -> list[Any]:
    """Decode the generated table once and intern its sets (ids here may differ from its order)."""
    if not _TAB:
        from engine.mahjong import suit_ids

        tab = suit_ids.table()
        _TAB.extend((tab, tuple(_intern(s) for s in suit_ids.SETS) if tab is not None else (), suit_ids.MAX_TILES))
    return _TAB


def _base5(k: bytes) -> int:
    """A 9-count key (counts 0..4) as a base-5 number (first count most significant): its index in
    the table (its counts as ASCII digits, read by `int`)."""
    return int(k.translate(_DIGITS), 5)


_DIGITS = bytes(48 + n if n < 5 else 57 for n in range(256))
"""`key.translate(_DIGITS)`: counts 0..4 as the ASCII digits 0..4 (a larger count gives a 9, which
`int(…, 5)` refuses)."""


_PIECE_ID: dict[bytes, int] = {}


def _piece_id(piece: bytes) -> int:
    i = _PIECE_ID[piece] = _intern(_piece_opts(piece))
    return i


_MOVES: tuple[tuple[tuple[int, ...], int, int, int], ...] = (
    ((1,), 0, 0, 0),  # the first tile left isolated
    ((3,), 1, 0, 0),  # triplet
    ((2,), 0, 0, 1),  # head pair
    ((2,), 0, 1, 0),  # pair as a partial
    ((1, 1, 1), 1, 0, 0),  # sequence
    ((1, 1), 0, 1, 0),  # two-sided / edge partial
    ((1, 0, 1), 0, 1, 0),  # closed partial
)


@cache
def _piece_opts(c: bytes) -> tuple[tuple[int, int, int], ...]:
    """Pareto set of (sets m, k = min(m + partials, 4), head pair p ≤ 1) over the readings of the
    counts `c` (no leading zero): the first tile is isolated or starts a set / partial / the pair."""
    if not c:
        return ((0, 0, 0),)
    n = len(c)
    found: set[tuple[int, int, int]] = set()
    for take, dm, dt, dp in _MOVES:
        if len(take) > n:
            continue
        cc = bytearray(c)
        ok = True
        for j, d in enumerate(take):
            if cc[j] < d:
                ok = False
                break
            cc[j] -= d
        if not ok:
            continue
        for m, k, p in _piece_opts(bytes(cc).lstrip(b"\0")):
            if p + dp <= 1:
                found.add((m + dm, min(k + dm + dt, 4), p + dp))
    return _pareto(found)


def _merge(a: int, b: int) -> int:
    """Id of the merge of two (m, k, p) sets."""
    x = (a << _ID_BITS) | b
    i = _MERGE.get(x)
    if i is None:
        opts = [
            (m1 + m2, min(k1 + k2, 4), p1 + p2) for m1, k1, p1 in _SETS[a] for m2, k2, p2 in _SETS[b] if p1 + p2 <= 1
        ]
        i = _MERGE[x] = _intern(_pareto(opts))
    return i


def _final(i: int, n_melds: int) -> int:
    x = (i << 3) | n_melds
    v = _FINAL.get(x)
    if v is None:
        v = _FINAL[x] = min(8 - p - (m + n_melds) - min(k + n_melds, 4) for m, k, p in _SETS[i])
    return v


def shanten(counts: Sequence[int], n_melds: int = 0, seven_pairs: bool = True) -> int:
    """Fewest tile changes from ready (0 = ready, −1 = complete). Counts hold 13 − 3·melds or 14 − 3·melds.

    Regular shape: sets, partials (pairs, two-sided/edge/closed), one head pair; seven pairs counts
    n // 2 pairs per kind (a four as two). Per-suit tables, interned merges: a few dict look-ups.
    """
    b = counts if type(counts) is bytes else bytes(counts)
    kid = _KEY_ID
    i0 = kid.get(b[0:9])
    if i0 is None:
        i0 = _key_id(b[0:9])
    i1 = kid.get(b[9:18])
    if i1 is None:
        i1 = _key_id(b[9:18])
    i2 = kid.get(b[18:27])
    if i2 is None:
        i2 = _key_id(b[18:27])
    mg = _MERGE
    a = mg.get((i0 << _ID_BITS) | i1)
    if a is None:
        a = _merge(i0, i1)
    x = mg.get((a << _ID_BITS) | i2)
    if x is None:
        x = _merge(a, i2)
    if len(b) > N_SUITED and b[RED]:
        x = _merge(x, _key_id(b[RED : RED + 1]))
    best = _FINAL.get((x << 3) | n_melds)
    if best is None:
        best = _final(x, n_melds)
    if seven_pairs and n_melds == 0:
        pairs = b.count(2) + b.count(3) + 2 * b.count(4)
        if 6 - min(pairs, 7) < best:
            best = 6 - min(pairs, 7)
    return best


def shanten_reference(counts: Sequence[int], n_melds: int = 0, seven_pairs: bool = True) -> int:
    """The plain definition (every combination of per-suit readings); checks the fast `shanten`."""
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


_GAIN: dict[int, int] = {}
_PROFILE: dict[bytes, int] = {}
_PROFILES: list[tuple[int, ...]] = []
_PROFILE_ID: dict[tuple[int, ...], int] = {}
_EMPTY = bytes(9)
_NZ = bytes(min(n, 1) for n in range(256))
"""`key.translate(_NZ)`: a suit key's held pattern (1 where a kind is held)."""


@cache
def mask_bits(mask: int) -> tuple[int, ...]:
    """The set bit positions of a 9-bit mask (for `draw_gains`)."""
    return tuple(i for i in range(9) if mask >> i & 1)


@cache
def _pattern(nz: bytes) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """(held positions, positions within two places of a held one, 5^(8 − i) of each held position
    i: its step in a 9-count key's base-5 index) of a held pattern."""
    held = tuple(i for i in range(len(nz)) if nz[i])
    near = tuple(i for i in range(len(nz)) if any(nz[max(0, i - 2) : i + 3]))
    return held, near, tuple(5 ** (8 - i) for i in held)


def _profile(key: bytes) -> int:
    """Interned draw profile of a suit key: (its set id, then per position the set id after one
    more tile there, −1 where no gain is possible: four held, or no neighbour within two places)."""
    tab, tid, top = _TAB or _load_tab()
    near = _pattern(key.translate(_NZ))[1]
    ids = [-1] * 10
    if tab is not None and len(key) == 9 and max(key) <= 4 and sum(key) < top:
        idx = _base5(key)  # every key one tile more is in the table: index + 5^(8 − i)
        ids[0] = tid[tab[idx]]
        for i in near:
            if key[i] < 4:
                ids[i + 1] = tid[tab[idx + _POW5[i]]]
    else:
        ids[0] = _key_id(key)
        for i in near:
            if key[i] < 4:
                ids[i + 1] = _key_id(key[:i] + _BYTE[key[i] + 1] + key[i + 1 :])
    t = tuple(ids)
    j = _PROFILE_ID.get(t)
    if j is None:
        j = _PROFILE_ID[t] = len(_PROFILES)
        _PROFILES.append(t)
    _PROFILE[key] = j
    return j


_CACHE_CAP = 1_000_000
"""The (rest, profile) caches are cleared when they reach this size (long simulations)."""
_FM: dict[int, dict[int, int]] = {}
"""(rest set id, melds) → {suit set id: regular shanten of rest merged with it}: one look-up where a
merge and a final would be two (the rows of `_gain_mask` and `_dreg`)."""


def _fm_row(rest: int, n_melds: int) -> dict[int, int]:
    row = _FM[(rest << 3) | n_melds] = {}
    return row


def _fm_fill(row: dict[int, int], rest: int, j: int, n_melds: int) -> int:
    """`_final(_merge(rest, j), n_melds)` kept in `row`, read from the pairs of the two sets without
    building the merged set: a dominated triple never gives the minimum, and min(min(k1 + k2, 4) +
    n, 4) = min(k1 + k2 + n, 4)."""
    best = -1
    b = _SETS[j]
    for m1, k1, p1 in _SETS[rest]:
        for m2, k2, p2 in b:
            p = p1 + p2
            if p <= 1:
                k = k1 + k2 + n_melds
                x = p + m1 + m2 + (k if k < 4 else 4)
                if x > best:
                    best = x
    if best < 0:  # no pair of readings: the merge is empty (`_final` refuses it)
        return _final(_merge(rest, j), n_melds)
    v = row[j] = 8 - n_melds - best
    return v


def _gain_mask(rest: int, n_melds: int, profile: int) -> int:
    """9-bit mask of the positions where one more tile lowers the regular shanten of a suit with
    this draw profile, the other suits being the interned set `rest`."""
    ids = _PROFILES[profile]
    row = _FM.get((rest << 3) | n_melds)
    if row is None:
        row = _fm_row(rest, n_melds)
    get = row.get
    j = ids[0]
    now = get(j)
    if now is None:
        now = _fm_fill(row, rest, j, n_melds)
    m = 0
    for i in range(9):
        j = ids[i + 1]
        if j >= 0:
            v = get(j)
            if v is None:
                v = _fm_fill(row, rest, j, n_melds)
            if v < now:
                m |= 1 << i
    if len(_GAIN) >= _CACHE_CAP:
        _GAIN.clear()
    _GAIN[(((rest << 40) | profile) << 3) | n_melds] = m
    return m


def _suit_key_ids(b: bytes) -> tuple[tuple[bytes, bytes, bytes], int, int, int]:
    """The three suit keys of a hand (counts as bytes) and their set ids (computed on a miss)."""
    keys = (b[0:9], b[9:18], b[18:27])
    kid = _KEY_ID.get
    i0 = kid(keys[0])
    if i0 is None:
        i0 = _key_id(keys[0])
    i1 = kid(keys[1])
    if i1 is None:
        i1 = _key_id(keys[1])
    i2 = kid(keys[2])
    if i2 is None:
        i2 = _key_id(keys[2])
    return keys, i0, i1, i2


def draw_gains(counts: Sequence[int], n_melds: int = 0, seven_pairs: bool = True) -> tuple[int, tuple[int, int, int]]:
    """(shanten(counts), per suit the 9-bit mask of the kinds whose draw lowers it) — the ukeire
    kinds of a bot, with only one suit's table changed per draw (cached per (other suits, suit key)).

    A draw lowers min(regular, seven pairs) iff it lowers a term that is the minimum: the regular
    term (mask above) and/or the seven-pairs term (a kind held once or three times, < 7 pairs)."""
    b = counts if type(counts) is bytes else bytes(counts)
    keys, i0, i1, i2 = _suit_key_ids(b)
    red = -1
    if len(b) > N_SUITED and b[RED]:
        red = _key_id(b[RED : RED + 1])
    rests = [_merge(i1, i2), _merge(i0, i2), _merge(i0, i1)]
    if red >= 0:
        rests = [_merge(r, red) for r in rests]
    reg = _final(_merge(rests[0], i0), n_melds)
    sp = 99
    if seven_pairs and n_melds == 0:
        pairs = b.count(2) + b.count(3) + 2 * b.count(4)
        sp = 6 - min(pairs, 7)
    masks = [0, 0, 0]
    if reg <= sp:
        get = _GAIN.get
        for s in range(3):
            k = keys[s]
            if k != _EMPTY:
                pf = _PROFILE.get(k)
                if pf is None:
                    pf = _profile(k)
                m = get((((rests[s] << 40) | pf) << 3) | n_melds)
                masks[s] = _gain_mask(rests[s], n_melds, pf) if m is None else m
    if sp <= reg and sp > -1 and b.count(2) + b.count(3) + 2 * b.count(4) < 7:
        for s in range(3):
            k = keys[s]
            for i in range(9):
                if k[i] == 1 or k[i] == 3:
                    masks[s] |= 1 << i
    return min(reg, sp), (masks[0], masks[1], masks[2])


_DProf = tuple[int, tuple[tuple[int, int], ...], list[bytes | None], tuple[int, ...], int]
_DPROF: dict[bytes, _DProf] = {}
_DPROF_ID: dict[tuple[int, ...], int] = {}
_DPROFS: list[tuple[int, ...]] = []
_DREG: dict[int, tuple[int, ...]] = {}


def _dprof(key: bytes) -> _DProf:
    """Discard profile of a suit key: (interned id of the set ids after each discard, the held
    (position, count) pairs, the keys after each discard (made when first needed: `_after_key`),
    their set ids, the key's own set id), in position order."""
    tab, tid, top = _TAB or _load_tab()
    pos, _near, pows = _pattern(key.translate(_NZ))
    kid = _KEY_ID.get(key)
    n = sum(key)
    if tab is not None and len(key) == 9 and max(key) <= 4 and n <= top + 1:
        # every key one tile fewer is in the table: index − 5^(8 − i)
        idx = int(key.translate(_DIGITS), 5)  # = _base5(key)
        t = tuple([tid[tab[idx - p]] for p in pows])
        if kid is None:
            kid = tid[tab[idx]] if n <= top else _key_id(key)
    else:
        t = tuple([_key_id(key[:i] + _BYTE[key[i] - 1] + key[i + 1 :]) for i in pos])
        if kid is None:
            kid = _key_id(key)
    d = _DPROF_ID.get(t)
    if d is None:
        d = _DPROF_ID[t] = len(_DPROFS)
        _DPROFS.append(t)
    v = _DPROF[key] = (d, tuple(zip(pos, key.replace(b"\0", b""), strict=True)), [None] * len(pos), t, kid)
    return v


_BYTE = tuple(bytes((n,)) for n in range(256))


def _after_key(key: bytes, dp: _DProf, e: int) -> bytes:
    """The suit key after discard `e` of its discard profile `dp` (kept in the profile)."""
    i, n = dp[1][e]
    nk = dp[2][e] = key[:i] + _BYTE[n - 1] + key[i + 1 :]
    return nk


def _dreg(other: int, dp: int, n_melds: int) -> tuple[int, ...]:
    """Regular shanten after each discard of a discard profile, the other suits being the set `other`."""
    row = _FM.get((other << 3) | n_melds)
    if row is None:
        row = _fm_row(other, n_melds)
    get = row.get
    out = []
    for j in _DPROFS[dp]:
        f = get(j)
        out.append(_fm_fill(row, other, j, n_melds) if f is None else f)
    if len(_DREG) >= _CACHE_CAP:
        _DREG.clear()
    v = _DREG[(((other << 24) | dp) << 3) | n_melds] = tuple(out)
    return v


_Cand = tuple[int, int, int, int, int, int]


def _scan(
    b: bytes, n_melds: int, seven_pairs: bool, only_min: bool
) -> tuple[tuple[bytes, bytes, bytes], tuple[_DProf, _DProf, _DProf], tuple[int, int, int], list[_Cand], int, int]:
    """The shanten of every discard of a hand without 7z: (suit keys, their discard profiles, per
    suit the merged set of the other two, the entries (kind, shanten, regular, seven pairs, suit,
    index in the suit's profile) in kind order — only those of minimal shanten if `only_min` —, the
    minimal shanten, the pairs count of seven pairs). One look-up per suit for its profile, one
    for the regular shanten of all its discards given the other suits; seven pairs by counting."""
    k0, k1, k2 = keys = (b[0:9], b[9:18], b[18:27])
    dget = _DPROF.get
    p0 = dget(k0)
    if p0 is None:
        p0 = _dprof(k0)
    p1 = dget(k1)
    if p1 is None:
        p1 = _dprof(k1)
    p2 = dget(k2)
    if p2 is None:
        p2 = _dprof(k2)
    i0, i1, i2 = p0[4], p1[4], p2[4]
    mg = _MERGE.get
    o0 = mg((i1 << _ID_BITS) | i2)
    if o0 is None:
        o0 = _merge(i1, i2)
    o1 = mg((i0 << _ID_BITS) | i2)
    if o1 is None:
        o1 = _merge(i0, i2)
    o2 = mg((i0 << _ID_BITS) | i1)
    if o2 is None:
        o2 = _merge(i0, i1)
    others = (o0, o1, o2)
    profs = (p0, p1, p2)
    sp_on = seven_pairs and n_melds == 0
    # seven pairs after a discard: one pair fewer when the kind was held 2 or 4 times
    pairs0 = b.count(2) + b.count(3) + 2 * b.count(4) if sp_on else 0
    spa = 6 - min(pairs0, 7) if sp_on else 99
    spb = 6 - min(pairs0 - 1, 7) if sp_on else 99
    rget = _DREG.get
    drs: list[tuple[int, ...] | None] = [None, None, None]
    rlow = 99
    for s in range(3):
        dp = profs[s]
        if dp[1]:
            other = others[s]
            regs = rget((((other << 24) | dp[0]) << 3) | n_melds)
            if regs is None:
                regs = _dreg(other, dp[0], n_melds)
            drs[s] = regs
            r = min(regs)
            if r < rlow:
                rlow = r
    cands: list[_Cand] = []
    if only_min and spa > rlow:
        # seven pairs cannot reach the best regular discard (spb ≥ spa): the minimal discards are
        # those of minimal regular shanten
        for s in range(3):
            regs = drs[s]
            if regs is not None and rlow in regs:
                held = profs[s][1]
                base = 9 * s
                for e, (i, n) in enumerate(held):
                    if regs[e] == rlow:
                        cands.append((base + i, rlow, rlow, spb if n == 2 or n == 4 else spa, s, e))
        return keys, profs, others, cands, rlow, pairs0
    low = 99
    for s in range(3):
        regs = drs[s]
        if regs is None:
            continue
        base = 9 * s
        for e, (i, n) in enumerate(profs[s][1]):
            reg = regs[e]
            sp = spb if n == 2 or n == 4 else spa
            sh = reg if reg < sp else sp
            if sh < low:
                low = sh
                if only_min:
                    cands = []
            if sh == low or not only_min:
                cands.append((base + i, sh, reg, sp, s, e))
    return keys, profs, others, cands, low, pairs0


def discard_shanten(counts: Sequence[int], n_melds: int = 0, seven_pairs: bool = True) -> list[tuple[int, int]]:
    """For each kind k held (in kind order): (k, shanten(counts − k)). No ukeire: one look-up per suit
    (the regular shanten of all its discards given the other suits), seven pairs by counting."""
    b = counts if type(counts) is bytes else bytes(counts)
    if len(b) > N_SUITED and any(b[N_SUITED:]):  # a plain 7z kind held: the generic path
        c = bytearray(b)
        out = []
        for k in range(len(c)):
            if c[k]:
                c[k] -= 1
                out.append((k, shanten(bytes(c), n_melds, seven_pairs)))
                c[k] += 1
        return out
    return [(x[0], x[1]) for x in _scan(b, n_melds, seven_pairs, False)[3]]


def min_discard_shanten(counts: Sequence[int], n_melds: int = 0, seven_pairs: bool = True) -> tuple[int, list[int]]:
    """(the least shanten after one discard, the kinds whose discard reaches it, in kind order):
    `discard_shanten` reduced to its minimum (a suit's minimal discards are kept with its row of
    regular shanten values, so the others are not listed); (99, []) for no tile."""
    b = counts if type(counts) is bytes else bytes(counts)
    if len(b) > N_SUITED and any(b[N_SUITED:]):  # a plain 7z kind held: the generic path
        scan = discard_shanten(b, n_melds, seven_pairs)
        low = min((sh for _, sh in scan), default=99)
        return low, [k for k, sh in scan if sh == low]
    got = _scan(b, n_melds, seven_pairs, True)
    return got[4], [x[0] for x in got[3]]


def discard_gains(
    counts: Sequence[int], n_melds: int = 0, seven_pairs: bool = True
) -> list[tuple[int, int, tuple[int, int, int] | None]]:
    """For each kind k held (in kind order): (k, shanten after discarding k, the `draw_gains` masks
    after that discard — only for the discards of minimal shanten, else None).

    The bot's discard scan in one pass: per suit one look-up of its discard profile (the set ids
    after each discard, interned) and one of the regular shanten of every discard of that suit given
    the merged other suits; masks (cached per (rest, draw profile)) only for the minimal discards.
    `discard_gains_plain` is the per-discard definition the tests compare it with."""
    return _gains(counts, n_melds, seven_pairs, False)


def min_discard_gains(
    counts: Sequence[int], n_melds: int = 0, seven_pairs: bool = True
) -> list[tuple[int, int, tuple[int, int, int] | None]]:
    """The entries of `discard_gains` of minimal shanten only (kind order); a lone minimal discard
    comes without masks (None): nothing to compare its ukeire with (the bot's discard)."""
    return _gains(counts, n_melds, seven_pairs, True)


def _gains(
    counts: Sequence[int], n_melds: int, seven_pairs: bool, only_min: bool
) -> list[tuple[int, int, tuple[int, int, int] | None]]:
    b = counts if type(counts) is bytes else bytes(counts)
    if len(b) > N_SUITED and any(b[N_SUITED:]):  # a plain 7z kind held: the generic path
        got = discard_gains_plain(b, n_melds, seven_pairs)
        if only_min:
            got = [x for x in got if x[2] is not None]
            if len(got) == 1:
                got = [(got[0][0], got[0][1], None)]
        return got
    keys, profs, others, scan, low, pairs0 = _scan(b, n_melds, seven_pairs, only_min)
    if only_min and len(scan) == 1:
        return [(scan[0][0], low, None)]
    mg = _MERGE.get
    gget = _GAIN.get
    res: list[tuple[int, int, tuple[int, int, int] | None]] = []
    if low == 0 and sum(b) == 14 - 3 * n_melds and max(b) <= 4:
        # ready after each minimal discard: the kinds whose draw lowers the shanten (to −1) are
        # exactly the winning ones (a complete reading uses every tile; seven pairs as its term)
        for k, sh, _reg, _sp, _s, _e in scan:
            if sh != 0:
                res.append((k, sh, None))
                continue
            w = win_tiles(b[:k] + _BYTE[b[k] - 1] + b[k + 1 :], n_melds, seven_pairs)
            res.append((k, 0, (w & 511, w >> 9 & 511, w >> 18)))
        return res
    pfs: list[int] = [-1, -1, -1]
    seen: dict[int, int] = {}
    for k, sh, reg, sp, s, e in scan:
        if sh != low:
            res.append((k, sh, None))
            continue
        dp = profs[s]
        nk = dp[2][e]
        if nk is None:
            nk = _after_key(keys[s], dp, e)
        masks = [0, 0, 0]
        if reg <= sp:
            j = dp[3][e]
            for o in range(3):
                if o == s:
                    if nk == _EMPTY:
                        continue  # no tile of this suit left
                    rest = others[s]
                    pf = _PROFILE.get(nk, -1)
                    if pf < 0:
                        pf = _profile(nk)
                else:
                    if not profs[o][1]:
                        continue
                    # an untouched suit's mask depends only on the discarded suit and its set after
                    om = (j << 4) | (s << 2) | o
                    m = seen.get(om)
                    if m is not None:
                        masks[o] = m
                        continue
                    pf = pfs[o]
                    if pf < 0:
                        pf = pfs[o] = _PROFILE.get(keys[o], -1)
                        if pf < 0:
                            pf = pfs[o] = _profile(keys[o])
                    t = profs[3 - o - s][4]
                    r = mg((j << _ID_BITS) | t)
                    rest = _merge(j, t) if r is None else r
                    m = gget((((rest << 40) | pf) << 3) | n_melds)
                    masks[o] = seen[om] = _gain_mask(rest, n_melds, pf) if m is None else m
                    continue
                m = gget((((rest << 40) | pf) << 3) | n_melds)
                masks[o] = _gain_mask(rest, n_melds, pf) if m is None else m
        if sp <= reg and pairs0 - (b[k] == 2 or b[k] == 4) < 7:
            for o in range(3):
                key = nk if o == s else keys[o]
                for i in range(9):
                    if key[i] == 1 or key[i] == 3:
                        masks[o] |= 1 << i
        res.append((k, sh, (masks[0], masks[1], masks[2])))
    return res


def discard_gains_plain(
    counts: Sequence[int], n_melds: int = 0, seven_pairs: bool = True
) -> list[tuple[int, int, tuple[int, int, int] | None]]:
    """`discard_gains` by its definition: `draw_gains` of every discard, masks kept for the minimal ones."""
    out: list[tuple[int, int, tuple[int, int, int] | None]] = []
    c = bytearray(counts)
    for k in range(len(c)):
        if c[k]:
            c[k] -= 1
            out.append((k, *draw_gains(bytes(c), n_melds, seven_pairs)))
            c[k] += 1
    low = min(x[1] for x in out)
    return [(k, sh, m if sh == low else None) for k, sh, m in out]
