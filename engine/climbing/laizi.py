"""Laizi (wild card) readings for `ddz_laizi`, doudizhu.md §3.7, §4.3, §4.6.

A play is split into N = the count vector of its non-laizi cards and m = its number of laizi cards.
A declaration `as` is a multiset S of m ranks from 3..2 (DDZ-R23, never a joker); the effective
counts are E = N + S (DDZ-R25). The pure rule (DDZ-R24): when N is empty every entry of S is the
laizi rank. E is classified with the ordinary move engine (`moves.classify`); a four-of-a-rank
`bomb` is renamed by its class (§4.6): no laizi card → `hard_bomb`, only laizi cards →
`pure_laizi_bomb`, a mix → `soft_bomb`, with levels 2, 3, 1 so that `moves.beats` orders
rocket > pure > hard > soft and, within a class, by rank. A four_two_* whose four contains laizi is
not a bomb (it is not of type `bomb`). More than four cards of one effective rank never classify
(DDZ-R29).

API (stable):
- `Reading(move, as_)`: the move and its declaration, `as_` sorted by rank (ints).
- `judge(N, S, lr, mr)` → the `Move` of one declaration, or None (illegal shape or declaration).
- `readings(N, m, lr, mr, top=None)` → every legal reading of one exact card set (each `as`
  multiset once), only those beating `top` when given.
- `auto_reading(cards, laizi_rank, top=None, mr=None)` → DDZ-R27's `as` (list of rank strings,
  aligned with the laizi cards of `cards`; `[]` without laizi) or None when no reading is legal.
  For ingest of logs that lack `as`.
- `move_of(cards, laizi_rank, as_=None, mr=None)` → the `Move` of a logged play (e.g. the top move
  to pass to `auto_reading`), or None.
- `laizi_moves(N, m, lr, mr, top=None)` → the moves playable from a hand with m laizi (for bots and
  `bench/readings.py`): each effective move once, using laizi only where the hand lacks a real
  card (a laizi never replaces a real card the hand holds, which would only waste it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations_with_replacement
from typing import NamedTuple

from engine.cards import CARD_ID, RANK_INDEX, RANK_NAMES
from engine.climbing.moves import (
    LEVEL_BOMB,
    LEVEL_PURE,
    LEVEL_SOFT,
    N_RANKS,
    Counts,
    Move,
    MoveRules,
    _by_size,
    beats,
    classify,
    ddz_move_rules,
    generate,
)

BOMB_CLASS = {LEVEL_SOFT: "soft_bomb", LEVEL_BOMB: "hard_bomb", LEVEL_PURE: "pure_laizi_bomb"}
R27_TYPE_ORDER = (
    "plane_pair", "plane_solo", "plane", "pair_straight", "straight", "four_two_pair",
    "four_two_solo", "trio_pair", "trio_solo", "trio", "pair", "solo",
)  # fmt: skip
_TYPE_RANK = {t: i for i, t in enumerate(R27_TYPE_ORDER)}
_BOMB_GEN_TOP = Move("soft_bomb", 1, -1, LEVEL_SOFT, (0,) * N_RANKS)


class Reading(NamedTuple):
    """A legal reading of a laizi play: the move and its `as` multiset (rank ints, ascending)."""

    move: Move
    as_: tuple[int, ...]

    def as_names(self) -> list[str]:
        return [RANK_NAMES[r] for r in self.as_]


_reading = tuple.__new__
"""`_reading(Reading, (move, as_))` = `Reading(move, as_)` without the NamedTuple's Python `__new__`."""


def _relabel(mv: Move, n_plain: int, m: int) -> Move:
    """Give a four-of-a-rank bomb its laizi class (§4.6)."""
    if mv.type != "bomb":
        return mv
    if m == 0:
        return mv._replace(type="hard_bomb", level=LEVEL_BOMB)
    if n_plain == 0:
        return mv._replace(type="pure_laizi_bomb", level=LEVEL_PURE)
    return mv._replace(type="soft_bomb", level=LEVEL_SOFT)


def judge(N: Counts, S: Sequence[int], lr: int, mr: MoveRules) -> Move | None:
    """The move of the play (non-laizi counts N) declared as S, or None (DDZ-R23..R29)."""
    n_plain = sum(N)
    for r in S:
        if not 0 <= r <= 12:
            return None
        if n_plain == 0 and r != lr:
            return None
    E = list(N)
    for r in S:
        E[r] += 1
    mv = classify(tuple(E), mr)
    if mv is None:
        return None
    return _relabel(mv, n_plain, len(S))


def _windows(N: Counts, m: int, mr: MoveRules) -> Iterator[tuple[int, int, int, int]]:
    """The main windows that N plus m wild cards might read with, as (unit, lo, hi, laizi needed):
    some (type, length) of that many cards has a window of main ranks that the wild cards can
    complete, and the plain ranks outside the window fit in its kickers (each kicker unit, a
    single card or a pair, covers one rank). Each window's shortfall and plain ranks come from
    prefix sums (a rank outside the type's ranks, or a joker short of the unit, costs more than m)."""
    size = sum(N) + m
    cands = _by_size(mr).get(size)
    if not cands:
        return
    n_present = len(N) - N.count(0)
    present: list[int] = []
    for t, L in cands:
        unit = t.unit
        n_kick = t.kick * L
        if n_present > L + n_kick:  # a window holds at most L of the plain ranks: none fits
            continue
        if not present:
            present.append(0)
            for v in N:
                present.append(present[-1] + (1 if v else 0))
        allowed = t.ranks
        short = [0]
        for r, v in enumerate(N):
            if r not in allowed or (r >= 13 and v < unit):
                cost = m + 1
            else:
                cost = unit - v if v < unit else 0
            short.append(short[-1] + cost)
        top_rank = allowed[-1]
        for lo in allowed:
            hi = lo + L - 1
            if hi > top_rank:
                break
            need = short[hi + 1] - short[lo]
            if need > m:
                continue
            if n_present - (present[hi + 1] - present[lo]) <= n_kick:
                yield unit, lo, hi, need


def _declarations(N: Counts, m: int, mr: MoveRules) -> Iterable[tuple[int, ...]]:
    """The declarations (multisets of m ranks 3..2 where N has fewer than 4 cards, ascending) worth
    trying, in the order of `combinations_with_replacement`: a reading completes the main part of
    one of the `_windows`, so its declaration holds that window's shortfall plus any other ranks.
    Every declaration when a window needs no laizi; none when there is no window."""
    room = [r for r in range(13) if N[r] < 4]
    found: set[tuple[int, ...]] = set()
    for unit, lo, hi, need in _windows(N, m, mr):
        if need == 0:
            return combinations_with_replacement(room, m)
        short = tuple(r for r in range(lo, hi + 1) if N[r] < unit for _ in range(unit - N[r]))
        for extra in combinations_with_replacement(room, m - need):
            found.add(tuple(sorted(short + extra)))
    return sorted(found)


def readings(N: Counts, m: int, lr: int, mr: MoveRules, top: Move | None = None) -> list[Reading]:
    """Every legal reading of one exact card set (non-laizi counts N plus m laizi cards)."""
    out: list[Reading] = []
    n_plain = sum(N)
    if m == 0:
        mv = classify(N, mr)
        if mv is not None:
            mv = _relabel(mv, n_plain, 0)
            if top is None or beats(mv, top):
                out.append(_reading(Reading, (mv, ())))  # = Reading(mv, ())
        return out
    choices: Sequence[tuple[int, ...]]
    if n_plain == 0:
        choices = [(lr,) * m]
    else:
        choices = _declarations(N, m, mr)  # type: ignore[assignment]
    E = list(N)
    for S in choices:
        for r in S:
            E[r] += 1
        if max(E) <= 4:
            mv = classify(tuple(E), mr)
            if mv is not None:
                mv = _relabel(mv, n_plain, m)
                if top is None or beats(mv, top):
                    out.append(_reading(Reading, (mv, S)))  # = Reading(mv, S)
        for r in S:
            E[r] -= 1
    return out


def r27_key(rd: Reading, lr: int) -> tuple:
    """Sort key, smallest = DDZ-R27's choice."""
    mv = rd.move
    if mv.level:
        pref: tuple = (-mv.level, 0, -mv.key)
    else:
        pref = (0, _TYPE_RANK.get(mv.type, 99), -mv.key)
    return (*pref, -sum(1 for r in rd.as_ if r == lr), rd.as_)


def best_reading(rds: Sequence[Reading], lr: int) -> Reading | None:
    return min(rds, key=lambda rd: r27_key(rd, lr)) if rds else None


def auto_reading(
    cards: Sequence[str], laizi_rank: str, top: Move | None = None, mr: MoveRules | None = None
) -> list[str] | None:
    """DDZ-R27: the `as` an importer fills in for a play logged without it, or None if no reading is legal.

    `cards`: the play's card strings; `laizi_rank`: e.g. "7"; `top`: the move to beat when following
    (e.g. `state.top` of the `ddz_laizi` state), None when leading; `mr`: the move rules (defaults).
    """
    lr = RANK_INDEX[laizi_rank]
    mr = mr or ddz_move_rules()
    ids = [CARD_ID[c] for c in cards]
    plain, m = split_laizi(ids, lr)
    best = best_reading(readings(plain, m, lr, mr, top), lr)
    if best is None:
        return None
    return best.as_names()


def split_laizi(ids: Sequence[int], lr: int) -> tuple[Counts, int]:
    """Card ids → (rank counts of the non-laizi cards, number of laizi cards) (DDZ-R25)."""
    plain = [0] * N_RANKS
    m = 0
    for x in ids:
        r = x >> 2 if x < 52 else x - 39  # = rank_of(x)
        if r == lr:
            m += 1
        else:
            plain[r] += 1
    return tuple(plain), m


def _split_cards(cards: Sequence[str], lr: int) -> tuple[Counts, int]:
    return split_laizi([CARD_ID[c] for c in cards], lr)


def move_of(
    cards: Sequence[str], laizi_rank: str, as_: Sequence[str] | None = None, mr: MoveRules | None = None
) -> Move | None:
    """The move of a play as logged (cards + `as`), or None when the declaration is not legal."""
    lr = RANK_INDEX[laizi_rank]
    N, m = _split_cards(cards, lr)
    decl = list(as_ or ())
    if len(decl) != m or any(a not in RANK_INDEX for a in decl):
        return None
    return judge(N, [RANK_INDEX[a] for a in decl], lr, mr or ddz_move_rules())


def laizi_moves(N: Counts, m: int, lr: int, mr: MoveRules, top: Move | None = None) -> list[Reading]:
    """Moves playable from a hand (non-laizi counts N, m laizi), each with its `as`.

    Against a plain top the generator gives only moves of its type and length with a higher key,
    which beat it: `beats` is asked about bombs only."""
    if m == 0:
        out = []
        for mv in generate(N, mr, _BOMB_GEN_TOP if top is not None and top.level else top):
            if mv.type == "bomb":
                mv = _relabel(mv, 1, 0)
            if top is None or not (mv.level or top.level) or beats(mv, top):
                out.append(_reading(Reading, (mv, ())))  # = Reading(mv, ())
        return out
    gen_top = _BOMB_GEN_TOP if top is not None and top.level else top
    out = []
    nx = int.from_bytes(bytes(N), "little")
    for mv in generate(N, mr, gen_top, wild=m):
        E = mv.counts
        eb = bytes(E)
        # the laizi stand-ins S: rank r once per card of E above the hand's own N[r] (each byte of
        # the difference is 0x80 + E[r] - N[r]; the positive parts index a table of S)
        above = ((int.from_bytes(eb, "little") | _HIGH8) - nx).to_bytes(N_RANKS, "little").translate(_ABOVE)
        S = _STAND_INS.get(above)
        if S is None:
            S = _stand_ins(above)
        if len(S) > m or max(eb) > 4:
            continue
        n_plain = sum(E) - len(S)  # each rank gives min(E[r], N[r]) plain cards
        if n_plain == 0 and any(r != lr for r in S):
            continue
        mv2 = _relabel(mv, n_plain, len(S)) if mv.type == "bomb" else mv
        if top is None or not (mv2.level or top.level) or beats(mv2, top):
            out.append(_reading(Reading, (mv2, S)))  # = Reading(mv2, S)
    return out


_HIGH8 = int.from_bytes(b"\x80" * N_RANKS, "little")
_ABOVE = bytes(v - 0x80 if 0x80 < v < 0x90 else 0 for v in range(256))
"""`bytes.translate` table: a byte 0x80 + d → d when d > 0, else 0 (d = E[r] - N[r] in -4..4)."""
_STAND_INS: dict[bytes, tuple[int, ...]] = {}


def _stand_ins(above: bytes) -> tuple[int, ...]:
    """The ranks that laizi stand for, from the count above the hand of each rank (cached: a few
    thousand at most, multisets of at most 4 laizi)."""
    S = tuple(r for r, d in enumerate(above) for _ in range(d))
    if len(_STAND_INS) < 1 << 14:
        _STAND_INS[above] = S
    return S
