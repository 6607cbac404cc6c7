"""The one climbing-game move engine: classifier, comparator and generator on rank-count vectors.

Stable API (used by `ddz`, `ddz_laizi` and `paodekuai`; only extended, never changed):

- A hand or a play is a **count vector**: a tuple of 15 ints, index = rank (engine/cards.py:
  0..12 = `3 4 5 6 7 8 9 T J Q K A 2`, 13 = `BJ`, 14 = `RJ`), value = how many cards of that rank.
- `TypeSpec` describes one move type as data: cards per main rank (`unit`), chain lengths,
  allowed main ranks, kicker count and kicker constraints. `MoveRules` is a frozen set of
  `TypeSpec`s plus the rocket flag: the whole move vocabulary of one game. Build it once per
  rules object (`ddz_move_rules(kicker_rocket, four_two_solo_pair)` for Dou Dizhu); it is hashable
  so that lookup tables can be cached on it.
- `Move` (a NamedTuple) = `(type, length, key, level, counts)`: type id (`solo`, `plane_pair`, …),
  chain length L (1 for non-chains), key rank index, bomb level (0 = not a bomb, 1 = soft bomb,
  2 = bomb / hard bomb, 3 = pure laizi bomb, 4 = rocket) and the count vector of the play.
- `classify_all(counts, mr)` → every reading `Move` (Dou Dizhu: at most one, doudizhu.md §4.4;
  Pao De Kuai may have several). `classify(counts, mr)` → the unique / preferred reading or None
  (preference when several: bomb level, longest chain, then highest key — paodekuai.md §4.3);
  memoised on (counts, rules), classify_all finds chain starts with bit masks.
- `beats(a, b)` → does move `a` beat top move `b` (DDZ-C1..C4 and the laizi bomb order of §4.6,
  through `level`; Pao De Kuai B1/B2 with level 2 bombs only).
- `generate(hand, mr, top=None, wild=0)` → every legal move playable from a hand, optionally only
  those beating `top`; each distinct (counts, reading) once; `wild` extra wild cards (laizi) may
  stand for missing cards of ranks 3..2.
- `counts_of(card_ids)`, `counts_str(counts)`, `move_str(move)` helpers.

Kicker constraints as data (Dou Dizhu K1–K6): `kick_disjoint` (K1: no kicker of a main rank),
`kick_cap` (most cards of one rank among single kickers: 1 for trio_solo, 2 for four_two_solo with
`four_two_solo_pair`, 3 for plane_solo (K5: never four)), `kick_no_adjacent_trio` (K5), the rocket
is never split into kickers unless `MoveRules.kicker_rocket` (K2), pair kickers have distinct ranks
and never jokers (K4, K6).

Counts (doudizhu.md §4.7, tests/test_ddz_moves.py): `generate` on the full deck gives 27,471 card
moves with the defaults (the rule file's table, +pass = 27,472), 28,946 with `kicker_rocket` and
27,315 without `four_two_solo_pair`; the rule file's 28,947 / 27,316 (and 27,846 without the K5
adjacency) are those figures with `pass` counted, as the +1,475 / −156 / +374 decompositions show.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from functools import cache, lru_cache
from itertools import combinations
from typing import NamedTuple

from engine.cards import RANK_NAMES, rank_of

N_RANKS = 15
BJ_R, RJ_R = 13, 14
ACE = 11  # one name a line: its type is known before type checking (pdk_moves reads it)
TWO = 12

LEVEL_NONE, LEVEL_SOFT, LEVEL_BOMB, LEVEL_PURE, LEVEL_ROCKET = 0, 1, 2, 3, 4
"""Bomb levels: higher beats lower regardless of rank (doudizhu.md §4.6); classic bombs are 2."""

Counts = tuple[int, ...]


class Move(NamedTuple):
    """One reading of a play: type id, chain length, key rank, bomb level, the rank counts."""

    type: str
    length: int
    key: int
    level: int
    counts: Counts

    @property
    def n_cards(self) -> int:
        return sum(self.counts)

    @property
    def is_bomb(self) -> bool:
        return self.level > 0


_move = tuple.__new__
"""`_move(Move, (type, length, key, level, counts))` = `Move(type, length, key, level, counts)`
without the NamedTuple's Python `__new__` (the generator builds hundreds a turn)."""


@dataclass(frozen=True, slots=True)
class TypeSpec:
    """One move type as data.

    main part = `unit` cards of each of L consecutive ranks (L in [min_len, max_len]) starting at a
    rank of `ranks` (chains: all L ranks must be in `ranks`); kickers = `kick * L` units, each a
    single card (`kick_pairs` False) or a pair of one rank (True).
    """

    name: str
    unit: int
    min_len: int = 1
    max_len: int = 1
    ranks: tuple[int, ...] = tuple(range(13))
    kick: int = 0
    kick_pairs: bool = False
    kick_disjoint: bool = True
    kick_cap: int = 4
    kick_no_adjacent_trio: bool = False
    level: int = LEVEL_NONE

    @property
    def chain(self) -> bool:
        return self.max_len > 1

    def n_cards(self, length: int) -> int:
        return self.unit * length + self.kick * length * (2 if self.kick_pairs else 1)

    def __reduce__(self) -> tuple[type[TypeSpec], tuple[object, ...]]:
        """Pickled by its fields (compiled with mypyc, the default would assign the frozen fields)."""
        return TypeSpec, tuple(getattr(self, f) for f in _TYPE_FIELDS)


@dataclass(frozen=True, slots=True)
class MoveRules:
    """The move vocabulary of one game: its types (in reading-preference order) and the rocket."""

    types: tuple[TypeSpec, ...]
    rocket: bool = True
    kicker_rocket: bool = False
    by_name: dict[str, TypeSpec] = field(default_factory=dict, compare=False, hash=False, repr=False)
    classified: dict[Counts, Move | None] = field(default_factory=dict, compare=False, hash=False, repr=False)
    """`classify(counts, self)` by counts, filled by `classified_move` (no hash of the rules a look-up)."""
    _hash: list[int] = field(default_factory=list, compare=False, hash=False, repr=False)
    single: dict[tuple[str, int], tuple[tuple[bytes, int, bool, tuple[Move, ...]], ...] | None] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )
    """`_single_plan(self, top type, top level)` by (type, level): no hash of the rules a look-up."""

    def __post_init__(self) -> None:
        self.by_name.update({t.name: t for t in self.types})

    def __hash__(self) -> int:  # cached: MoveRules keys hot lookup caches
        if not self._hash:
            self._hash.append(hash((self.types, self.rocket, self.kicker_rocket)))
        return self._hash[0]

    def __reduce__(self) -> tuple[type[MoveRules], tuple[tuple[TypeSpec, ...], bool, bool]]:
        """Pickled by its compared fields, its memos left empty (as `TypeSpec.__reduce__`)."""
        return MoveRules, (self.types, self.rocket, self.kicker_rocket)


_TYPE_FIELDS = tuple(f.name for f in fields(TypeSpec))


CHAIN = tuple(range(12))  # 3..A
ALL13 = tuple(range(13))  # 3..2


@cache
def ddz_move_rules(kicker_rocket: bool = False, four_two_solo_pair: bool = True) -> MoveRules:
    """Dou Dizhu's move types, doudizhu.md §4.1–4.2 (K1–K6), with its two kicker options."""
    return MoveRules(
        types=(
            TypeSpec("solo", 1, ranks=tuple(range(15))),
            TypeSpec("pair", 2),
            TypeSpec("trio", 3),
            TypeSpec("trio_solo", 3, kick=1, kick_cap=1),
            TypeSpec("trio_pair", 3, kick=1, kick_pairs=True),
            TypeSpec("straight", 1, 5, 12, CHAIN),
            TypeSpec("pair_straight", 2, 3, 10, CHAIN),
            TypeSpec("plane", 3, 2, 6, CHAIN),
            TypeSpec("plane_solo", 3, 2, 5, CHAIN, kick=1, kick_cap=3, kick_no_adjacent_trio=True),
            TypeSpec("plane_pair", 3, 2, 4, CHAIN, kick=1, kick_pairs=True),
            TypeSpec("four_two_solo", 4, kick=2, kick_cap=2 if four_two_solo_pair else 1),
            TypeSpec("four_two_pair", 4, kick=2, kick_pairs=True),
            TypeSpec("bomb", 4, level=LEVEL_BOMB),
        ),
        rocket=True,
        kicker_rocket=kicker_rocket,
    )


# ---------------------------------------------------------------- helpers


_RANK_OF: tuple[int, ...] = tuple(rank_of(i) for i in range(54))


def counts_of(card_ids: Iterable[int]) -> Counts:
    """Rank count vector of card ids."""
    c = [0] * N_RANKS
    for x in card_ids:
        c[_RANK_OF[x]] += 1
    return tuple(c)


def counts_str(counts: Counts) -> str:
    """`(2,0,1,…)` → `"335"`; jokers as `BJ`/`RJ`."""
    return "".join(RANK_NAMES[r] * n for r, n in enumerate(counts) if n)


def move_str(m: Move) -> str:
    """Readable move: `pair_straight 8899TT`."""
    return f"{m.type} {counts_str(m.counts)}"


def rank_name(r: int) -> str:
    return RANK_NAMES[r]


ROCKET_COUNTS: Counts = (0,) * 13 + (1, 1)


_ROCKET = Move("rocket", 1, RJ_R, LEVEL_ROCKET, ROCKET_COUNTS)


def rocket_move() -> Move:
    return _ROCKET


# ---------------------------------------------------------------- classifier


@cache
def _by_size(mr: MoveRules) -> dict[int, tuple[tuple[TypeSpec, int], ...]]:
    """card count → the (type, length) pairs of that size, in preference order."""
    out: dict[int, list[tuple[TypeSpec, int]]] = {}
    for t in mr.types:
        for L in range(t.min_len, t.max_len + 1):
            out.setdefault(t.n_cards(L), []).append((t, L))
    return {k: tuple(v) for k, v in out.items()}


@cache
def _by_size8(mr: MoveRules) -> dict[int, tuple[tuple[TypeSpec, int, int], ...]]:
    """`_by_size` with each type's ranks as a mask of one byte per rank: (type, length, mask)."""
    return {n: tuple((t, L, sum(1 << 8 * r for r in t.ranks)) for t, L in v) for n, v in _by_size(mr).items()}


def _kick_ok(t: TypeSpec, rem: list[int], lo: int, hi: int, mr: MoveRules) -> bool:
    """Do the leftover counts `rem` form valid kickers for a main part on ranks lo..hi?"""
    if t.kick_disjoint:
        for r in range(lo, hi + 1):
            if rem[r]:
                return False
    if t.kick_pairs:
        for r in range(N_RANKS):
            v = rem[r]
            if v and (v != 2 or r >= BJ_R):
                return False
        return True
    cap = t.kick_cap
    for v in rem:
        if v > cap:
            return False
    if rem[BJ_R] and rem[RJ_R] and not mr.kicker_rocket:
        return False
    if t.kick_no_adjacent_trio:
        if lo - 1 >= 0 and rem[lo - 1] >= 3 and lo - 1 in t.ranks:
            return False
        if hi + 1 in t.ranks and rem[hi + 1] >= 3:
            return False
    return True


@cache
def _rank_mask(t: TypeSpec) -> int:
    m = 0
    for r in t.ranks:
        m |= 1 << r
    return m


def classify_all(counts: Counts, mr: MoveRules) -> list[Move]:
    """Every reading of a play's rank counts (empty list: not a legal move).

    Masks of one byte per rank: `ge` has byte r = 1 when rank r has at least `unit` cards (one
    `bytes.translate`); the valid chain starts of a (type, L) are the set bytes of
    ge & ge >> 8 & … & ge >> 8 (L - 1).
    """
    n = sum(counts)
    out: list[Move] = []
    if mr.rocket and n == 2 and counts[BJ_R] == 1 and counts[RJ_R] == 1:
        out.append(rocket_move())
        if not mr.kicker_rocket:
            return out
    cands = _by_size8(mr).get(n)
    if not cands:
        return out
    hb = bytes(counts)
    for t, L, mask8 in cands:
        unit = t.unit
        m = int.from_bytes(hb.translate(_AT_LEAST[unit]), "little") & mask8
        starts = m
        for i in range(1, L):
            starts &= m >> 8 * i
        while starts:
            low = starts & -starts
            starts ^= low
            lo = (low.bit_length() - 1) >> 3
            hi = lo + L - 1
            if t.kick == 0:
                out.append(_move(Move, (t.name, L, hi, t.level, counts)))
                continue
            rem = list(counts)
            for r in range(lo, hi + 1):
                rem[r] -= unit
            if _kick_ok(t, rem, lo, hi, mr):
                out.append(_move(Move, (t.name, L, hi, t.level, counts)))
    return out


@lru_cache(maxsize=1 << 18)
def classify(counts: Counts, mr: MoveRules) -> Move | None:
    """The reading of a play, or None. Several readings (not in Dou Dizhu): longest, then highest key.

    Memoised on (counts, rules): replays meet the same plays again and again.
    """
    found = classify_all(counts, mr)
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    return max(found, key=lambda m: (m.level, m.length, m.key))


def classified_move(counts: Counts, mr: MoveRules) -> Move | None:
    """`classify(counts, mr)`, kept in `mr.classified` (bounded) for callers that read it first."""
    memo = mr.classified
    if len(memo) >= 1 << 16:
        memo.clear()
    mv = memo[counts] = classify(counts, mr)
    return mv


# ---------------------------------------------------------------- comparator


def beats(a: Move, b: Move) -> bool:
    """Does `a` beat the top move `b`? DDZ-C1..C4; bombs by (level, key), §4.6."""
    if a.level:
        if a.level != b.level:
            return a.level > b.level
        return a.key > b.key
    if b.level:
        return False
    return a.type == b.type and a.length == b.length and a.key > b.key and sum(a.counts) == sum(b.counts)


# ---------------------------------------------------------------- generator


def _kickers(
    t: TypeSpec, avail: list[int], lo: int, hi: int, k: int, mr: MoveRules, wild: int = 0
) -> Iterator[list[int]]:
    """Every kicker count vector for a main part on lo..hi from the leftover hand `avail`.

    `wild`: how many wild cards may still stand for missing cards of ranks 3..2 (never jokers).
    """
    if k == 0:
        yield [0] * N_RANKS
        return
    main = range(lo, hi + 1)
    if t.kick_pairs:
        cands = [r for r in range(BJ_R) if avail[r] + wild >= 2 and not (t.kick_disjoint and r in main)]
        for combo in combinations(cands, k):
            if wild and sum(max(0, 2 - avail[r]) for r in combo) > wild:
                continue
            v = [0] * N_RANKS
            for r in combo:
                v[r] = 2
            yield v
        return
    caps: list[int] = []
    for r in range(N_RANKS):
        c = min(avail[r] + (wild if r < BJ_R else 0), t.kick_cap)
        if t.kick_disjoint and lo <= r <= hi:
            c = 0
        if t.kick_no_adjacent_trio and (r == lo - 1 or r == hi + 1) and r in t.ranks:
            c = min(c, 2)
        caps.append(c)
    no_rocket = not mr.kicker_rocket
    ranks = [r for r in range(N_RANKS) if caps[r]]
    v = [0] * N_RANKS
    suffix = [0] * (len(ranks) + 1)
    for i in range(len(ranks) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + caps[ranks[i]]

    out: list[list[int]] = []
    n_ranks = len(ranks)

    def rec(i: int, left: int, budget: int) -> None:  # appends in order: a plain recursion, no generator chain
        if left == 0:
            if not (no_rocket and v[BJ_R] and v[RJ_R]):
                out.append(list(v))
            return
        if i == n_ranks or suffix[i] < left:
            return
        r = ranks[i]
        have = avail[r]
        for take in range(min(caps[r], left), -1, -1):
            extra = take - have if take > have else 0
            if extra > budget:
                continue
            v[r] = take
            rec(i + 1, left - take, budget - extra)
        v[r] = 0

    rec(0, k, wild)
    yield from out


@cache
def _zero_based(t: TypeSpec) -> bool:
    """Are the type's ranks 0..n-1 (every built-in type)? Then chain starts can come from bit masks."""
    return t.ranks == tuple(range(len(t.ranks)))


_ZEROS = (0,) * N_RANKS


def _gen_type(
    hand: Counts, t: TypeSpec, L: int, min_key: int, mr: MoveRules, wild: int = 0, zero_based: bool | None = None
) -> Iterator[Move]:
    """The moves of type `t` and length L from `hand` (with up to `wild` wild cards) whose key is
    above `min_key`, by a window search; `zero_based`: `_zero_based(t)` when the caller has it."""
    unit = t.unit
    ranks = t.ranks
    k = t.kick * L
    if zero_based is None:
        zero_based = _zero_based(t)
    short: list[int] = []
    windows: Iterable[int] = ranks
    if zero_based:
        # wild cards: a window's cost is the sum of its ranks' shortfalls (a short joker: too dear)
        short = [unit - h if h < unit else 0 for h in hand]
        for r in (BJ_R, RJ_R):
            if short[r]:
                short[r] = wild + 1
        windows = range(max(0, min_key - L + 2), len(ranks) - L + 1)
    for lo in windows:
        hi = lo + L - 1
        if zero_based:
            cost = short[lo] if L == 1 else sum(short[lo : hi + 1])
            if cost > wild:
                continue
        else:
            if hi not in ranks:
                break
            if hi <= min_key:
                continue
            cost = 0
            for r in range(lo, hi + 1):
                if hand[r] < unit:
                    cost = wild + 1 if r >= BJ_R else cost + unit - hand[r]
            if cost > wild:
                continue
        if not k:  # the main part alone (= the one empty kicker vector of `_kickers`)
            yield _move(Move, (t.name, L, hi, t.level, _MAIN[unit][L][lo]))
            continue
        avail = list(hand)
        for r in range(lo, hi + 1):
            avail[r] = max(0, avail[r] - unit)
        for kv in _kickers(t, avail, lo, hi, k, mr, wild - cost):
            c = list(kv)
            for r in range(lo, hi + 1):
                c[r] += unit
            yield _move(Move, (t.name, L, hi, t.level, tuple(c)))


@cache
def _gen_plan(
    mr: MoveRules, top_type: str | None, top_level: int
) -> tuple[tuple[TypeSpec, bool, int, bool, bool], ...]:
    """The types `generate` tries against a top of this type and level (None: leading), in the
    order of `mr.types`: (type, ranks are 0..n-1, its ranks as a mask of one byte per rank, the
    top's length only, the top's key as the floor). Built once per (rules, top type, level)."""
    out = []
    for t in mr.types:
        mask8 = sum(1 << 8 * r for r in t.ranks)
        if top_type is not None and not t.level:
            if top_level or t.name != top_type:
                continue
            out.append((t, _zero_based(t), mask8, True, True))
        elif top_type is not None:
            if top_level > t.level:
                continue
            out.append((t, _zero_based(t), mask8, False, top_level == t.level))
        else:
            out.append((t, _zero_based(t), mask8, False, False))
    return tuple(out)


_AT_LEAST = tuple(bytes(1 if v >= u else 0 for v in range(256)) for u in range(5))
"""`bytes.translate` tables: a count → 1 when it is at least u, else 0 (u = 0..4)."""
_MAIN: tuple[tuple[tuple[Counts, ...], ...], ...] = tuple(
    tuple(
        tuple(_ZEROS[:lo] + (u,) * L + _ZEROS[lo + L :] for lo in range(N_RANKS - L + 1)) if L else ()
        for L in range(N_RANKS + 1)
    )
    for u in range(5)
)
"""_MAIN[unit][L][lo]: the counts of `unit` cards on each rank lo..lo+L-1 (a main part alone)."""


def _plain_kicked(hand: Counts, t: TypeSpec, L: int, lo: int, k: int, no_rocket: bool, out: list[Move]) -> None:
    """`_kickers` without wild cards for the main part on lo..lo+L-1, each kicker vector added to
    the main part as a Move appended to `out`, in `_kickers`'s order (ranks rising; at each rank
    the most cards first)."""
    unit = t.unit
    hi = lo + L - 1
    name, level = t.name, t.level
    base = list(_ZEROS)
    base[lo : hi + 1] = (unit,) * L
    if t.kick_pairs:
        disjoint = t.kick_disjoint
        cands = [
            r for r in range(BJ_R)
            if (hand[r] - unit if lo <= r <= hi else hand[r]) >= 2 and not (disjoint and lo <= r <= hi)
        ]  # fmt: skip
        for combo in combinations(cands, k):
            v = list(base)
            for r in combo:
                v[r] += 2
            out.append(_move(Move, (name, L, hi, level, tuple(v))))
        return
    cap = t.kick_cap
    ranks: list[int] = []
    caps: list[int] = []
    adj = t.kick_no_adjacent_trio
    for r in range(N_RANKS):
        if t.kick_disjoint and lo <= r <= hi:
            continue
        c = hand[r] - unit if lo <= r <= hi else hand[r]
        if c > cap:
            c = cap
        if adj and (r == lo - 1 or r == hi + 1) and r in t.ranks and c > 2:
            c = 2
        if c > 0:
            ranks.append(r)
            caps.append(c)
    n = len(ranks)
    if k == 1:
        for r in ranks:
            v = list(base)
            v[r] += 1
            out.append(_move(Move, (name, L, hi, level, tuple(v))))
        return
    if k == 2:
        for a in range(n):
            ra = ranks[a]
            if caps[a] >= 2:
                v = list(base)
                v[ra] += 2
                out.append(_move(Move, (name, L, hi, level, tuple(v))))
            for b in range(a + 1, n):
                rb = ranks[b]
                if no_rocket and ra == BJ_R and rb == RJ_R:
                    continue
                v = list(base)
                v[ra] += 1
                v[rb] += 1
                out.append(_move(Move, (name, L, hi, level, tuple(v))))
        return
    suffix = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + caps[i]
    v = base

    def rec(i: int, left: int) -> None:
        if left == 0:
            if not (no_rocket and v[BJ_R] and v[RJ_R]):
                out.append(_move(Move, (name, L, hi, level, tuple(v))))
            return
        if suffix[i] < left:
            return
        r = ranks[i]
        b = v[r]
        for take in range(min(caps[i], left), -1, -1):
            v[r] = b + take
            rec(i + 1, left - take)
        v[r] = b

    rec(0, k)


@cache
def _single_plan(
    mr: MoveRules, top_type: str, top_level: int
) -> tuple[tuple[bytes, int, bool, tuple[Move, ...]], ...] | None:
    """`_gen_plan` against a top when every type it tries is one rank, no kickers (solo, pair,
    trio, bomb): (the `_AT_LEAST` table of its unit, its ranks' byte mask, the top's key as the
    floor, its move at each rank); None when some type has a chain or kickers."""
    out = []
    for t, zero_based, mask8, _top_len, top_key in _gen_plan(mr, top_type, top_level):
        if t.kick or t.max_len != 1 or not zero_based:
            return None
        moves = tuple(_move(Move, (t.name, 1, r, t.level, _MAIN[t.unit][1][r])) for r in range(N_RANKS))
        out.append((_AT_LEAST[t.unit], mask8, top_key, moves))
    return tuple(out)


def generate(hand: Counts, mr: MoveRules, top: Move | None = None, wild: int = 0) -> list[Move]:
    """Every legal move from `hand` (count vector), only those beating `top` when given.

    `wild` (default 0): that many extra wild cards may each stand for any rank 3..2 (laizi); the
    moves are then effective moves, each once, and the wild cards used are E - hand where positive.
    Without wild cards the built-in (zero-based) types take `_plain_kicked`'s path: the same moves
    in the same order as `_gen_type`.
    """
    out: list[Move] = []
    hb = bytes(hand)
    if top is not None and not wild and top.length == 1:
        tk = (top.type, top.level)
        single = mr.single[tk] if tk in mr.single else mr.single.setdefault(tk, _single_plan(mr, *tk))
        if single is not None:  # the general path below for one-rank types: the same moves, same order
            floor = -1 << 8 * (top.key + 1)
            for table, mask8, keyed, moves in single:
                m = int.from_bytes(hb.translate(table), "little") & mask8
                if keyed:
                    m &= floor
                while m:
                    low = m & -m
                    m ^= low
                    out.append(moves[(low.bit_length() - 1) >> 3])
            if mr.rocket and hand[BJ_R] and hand[RJ_R] and top.level < LEVEL_ROCKET:
                out.append(_ROCKET)
            return out
    size = sum(hand) + wild
    no_rocket = not mr.kicker_rocket
    plan = _gen_plan(mr, None, 0) if top is None else _gen_plan(mr, top.type, top.level)
    for t, zero_based, mask8, top_len, top_key in plan:
        lens: Iterable[int] = (top.length,) if top_len and top is not None else range(t.min_len, t.max_len + 1)
        min_key = top.key if top_key and top is not None else -1
        if wild or not zero_based:
            for L in lens:
                if t.n_cards(L) > size:
                    break
                out.extend(_gen_type(hand, t, L, min_key, mr, wild, zero_based))
            continue
        unit = t.unit
        # the ranks holding `unit` cards, one byte per rank (bit 8r): chain starts by byte shifts
        m = int.from_bytes(hb.translate(_AT_LEAST[unit]), "little") & mask8
        if not m:
            continue
        k1 = t.kick
        per = t.n_cards(1)
        mains = _MAIN[unit]
        for L in lens:
            if per * L > size:
                break
            starts = m
            for i in range(1, L):
                starts &= m >> 8 * i
            if not starts:
                break  # a longer chain has no start either
            if min_key >= L - 1:
                starts &= -1 << 8 * (min_key - L + 2)  # hi = lo + L - 1 > min_key
            k = k1 * L
            while starts:
                low = starts & -starts
                starts ^= low
                lo = (low.bit_length() - 1) >> 3
                if not k:
                    out.append(_move(Move, (t.name, L, lo + L - 1, t.level, mains[L][lo])))
                else:
                    _plain_kicked(hand, t, L, lo, k, no_rocket, out)
    if mr.rocket and hand[BJ_R] and hand[RJ_R] and (top is None or top.level < LEVEL_ROCKET):
        out.append(rocket_move())
    return out


def sub(a: Counts, b: Counts) -> Counts:
    """a - b, rank by rank."""
    return tuple(x - y for x, y in zip(a, b, strict=True))


def fits(play: Counts, hand: Counts) -> bool:
    """Does the hand hold at least the play's counts?"""
    return all(p <= h for p, h in zip(play, hand, strict=True))
