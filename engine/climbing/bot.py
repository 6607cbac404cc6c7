"""Bots for the climbing games and the shared hand splitter.

`split(counts)` (usable by Pao De Kuai with its own chain limits) splits a hand's rank counts into the
fewest "skeleton" groups — rocket, bombs, planes, pair straights, straights, trios, pairs, solos —
by a search over moves that contain the lowest remaining rank. No group spans an empty rank, so the
chainable ranks split into runs solved independently and memoised on the run's counts alone (as
bytes, wherever the run sits), the ranks above the chain top are each one group; `n_groups` counts
without building groups (the bot calls it once per candidate play). `attach_kickers` then lets
trios and planes take the lowest solos / pairs as kickers (validated by the move engine), so a
hand's plan is a list of legal moves.

Dou Dizhu bot (`ddz_bot_action`), playing like a person:
- system events: `laizi` draws its rank uniformly from 3..2 with the rng (DDZ-R13);
- bid / rob from hand strength (jokers, 2s, bombs, aces, laizi), with a little rng noise; in
  `ddz_laizi` the point bid grows with strength and must exceed earlier bids;
- leading: play the whole hand if it is one move; else lead the weakest non-bomb group of the plan
  (lowest key; a laizi-only hand plays its laizi as themselves); a farmer whose partner has one
  card left leads its lowest solo; when an opponent has 1 (2) cards left, no solo (no solo or pair)
  is led if another group exists, and with only solos left the highest goes first;
- following: a farmer does not beat its partner unless that empties its hand; otherwise the cheapest
  beating non-bomb move (fewest groups left, fewest laizi spent, lowest key), passing when it would
  break the plan while the opponent is not close to going out; bombs and the rocket only when they
  finish the game (at most one group left afterwards) or an opponent holding the trick has ≤ 4 cards.
"""

from __future__ import annotations

import random
from functools import lru_cache
from operator import itemgetter, sub
from typing import TYPE_CHECKING, Any

from engine.cards import CARD_NAME
from engine.climbing.laizi import Reading, _reading, best_reading, laizi_moves, readings
from engine.climbing.moves import (
    _MAIN,
    BJ_R,
    RJ_R,
    ROCKET_COUNTS,
    Counts,
    Move,
    classified_move,
    classify,
    ddz_move_rules,
    generate,
)

if TYPE_CHECKING:
    from engine.climbing.ddz import DDZState, DouDizhu

CHAIN_TOP = 11  # A


Groups = tuple[tuple[str, int, int], ...]
_WHOLE = ((1, "solo"), (2, "pair"), (3, "trio"), (4, "bomb"))
_CHAINS = ((1, 0, "chain1"), (2, 1, "chain2"), (3, 2, "chain3"))


@lru_cache(maxsize=1 << 17)
def _run_split(run: bytes, mins: tuple[int, int, int]) -> tuple[int, Groups]:
    """Fewest groups of one run (consecutive non-zero chainable ranks), positions relative to it.

    The options for the run's lowest rank are tried in a fixed order (solo, pair, trio, bomb, then
    straights, pair straights, planes by growing length) and the first with the fewest groups is
    kept. Cached on the run's counts (as bytes) alone: a run's split does not depend on where it sits.
    """
    v = run[0]
    best_n = 1 << 30
    best: Groups = ()
    n_run = len(run)
    tail = run[1:]
    # each option is counted first (`_runs_n`); its groups are built only when it is strictly better
    for k, name in _WHOLE:
        if v < k:
            break
        if n_run > 1 or v > k:
            rest = bytes((v - k,)) + tail
            if best_n <= 2 and rest.count(0) != len(rest):
                continue  # cards are left, so one group at least: not fewer than the best
            # = _runs_n(rest, mins): rest is one run (or the empty rank, then the tail's run)
            n = _run_split(rest if v > k else tail, mins)[0]
            if n + 1 < best_n:
                best_n, best = n + 1, ((name, 0, 0), *_runs_split(rest, mins)[1])
        elif best_n > 1:
            best_n, best = 1, ((name, 0, 0),)
    for unit, mi, name in _CHAINS:
        if v < unit:
            break
        min_len = mins[mi]
        lst = bytearray(run)
        hi = 0
        while hi < n_run and run[hi] >= unit:
            lst[hi] -= unit
            if hi + 1 >= min_len:
                rest = bytes(lst)
                if best_n <= 2 and rest.count(0) != len(rest):
                    hi += 1
                    continue  # cards are left: not fewer groups than the best
                n = _runs_n(rest, mins)
                if n + 1 < best_n:
                    best_n, best = n + 1, ((name, 0, hi), *_runs_split(rest, mins)[1])
            hi += 1
    return best_n, best


def _runs_split(c: bytes, mins: tuple[int, int, int]) -> tuple[int, Groups]:
    """Split a stretch of chainable ranks: its runs (maximal non-zero stretches) are independent,
    since no group spans an empty rank, so the split is the runs' splits one after another."""
    n_total = 0
    out: list[tuple[str, int, int]] = []
    pos = 0
    for run in c.split(b"\0"):
        if run:
            k, groups = _run_split_at(run, pos, mins) if pos else _run_split(run, mins)
            n_total += k
            out += groups
        pos += len(run) + 1
    return n_total, tuple(out)


@lru_cache(maxsize=1 << 16)
def _run_split_at(run: bytes, pos: int, mins: tuple[int, int, int]) -> tuple[int, Groups]:
    """`_run_split` with its groups moved to the run's position `pos` in the hand."""
    k, groups = _run_split(run, mins)
    return k, tuple((g, lo + pos, hi + pos) for g, lo, hi in groups)


def _runs_n(c: bytes, mins: tuple[int, int, int]) -> int:
    """The number of groups of `_runs_split`, without building them."""
    n_total = 0
    for run in c.split(b"\0"):
        if run:
            n_total += _run_split(run, mins)[0]
    return n_total


@lru_cache(maxsize=1 << 12)
def _high_split(tail: Counts, base: int) -> tuple[int, Groups]:
    """The ranks above the chain top (2, jokers): each rank whole, BJ+RJ a rocket, never chains."""
    n_total = 0
    out: list[tuple[str, int, int]] = []
    lst = list(tail)
    for i, v in enumerate(lst):
        r = base + i
        if r == BJ_R and v and i + 1 < len(lst) and lst[i + 1]:
            out.append(("rocket", BJ_R, RJ_R))
            lst[i + 1] -= 1
            v -= 1
            n_total += 1
        while v:  # a rank of more than four cards cannot happen with one deck
            k = min(v, 4)
            out.append((_WHOLE[k - 1][1], r, r))
            v -= k
            n_total += 1
    return n_total, tuple(out)


def _best_split(c: Counts, chain_top: int = CHAIN_TOP, mins: tuple[int, int, int] = (5, 3, 2)) -> tuple[int, Groups]:
    """(number of groups, groups) with groups as (kind, lo, hi), kind in solo/pair/trio/bomb/rocket/chain1/2/3.

    The fewest groups; among equals, the first found by a search that takes the lowest rank first
    and tries its options in the order of `_run_split`. Ranks up to `chain_top` split into runs
    cached on their counts alone; the ranks above are each one group (BJ+RJ the rocket).
    """
    top = chain_top + 1
    n1, g1 = _runs_split(bytes(c[:top]), mins)
    n2, g2 = _high_split(tuple(c[top:]), top)
    return n1 + n2, g1 + g2


_UNIT = {"solo": 1, "pair": 2, "trio": 3, "bomb": 4, "chain1": 1, "chain2": 2, "chain3": 3}


def _group_counts(g: tuple[str, int, int]) -> Counts:
    """The rank counts of one skeleton group (a constant table's entry)."""
    kind, lo, hi = g
    if kind == "rocket":
        return ROCKET_COUNTS
    return _MAIN[_UNIT[kind]][hi - lo + 1][lo]


def split(
    counts: Counts, mr: Any = None, chain_top: int = CHAIN_TOP, mins: tuple[int, int, int] = (5, 3, 2)
) -> list[Move]:
    """The hand as the fewest legal moves: skeleton split, then kickers attached.

    `chain_top` (highest chain rank) and `mins` (shortest straight, pair straight, plane) describe the
    game's chains: Dou Dizhu (A, 5/3/2) by default; Pao De Kuai passes (A, 5/2/2) and its MoveRules.
    """
    mr = mr or ddz_move_rules()
    _, groups = _best_split(tuple(counts), chain_top, mins)
    return attach_kickers(groups, mr)


def attach_kickers(groups: Groups, mr: Any) -> list[Move]:
    """Trios/planes take the lowest solos (or pairs) as kickers when the result is a legal move.

    Read from the groups' kinds (kind, lo, hi): a solo is one card below the 2 (a unit-1 group on
    one rank), a pair two cards of one rank below the 2, a body a unit-3 group (trio or plane);
    kickers are taken in rank order (tests/test_sim_speed_climbing.py compares the count-vector
    version it replaced)."""
    solos: list[int] = []
    pairs: list[int] = []
    bodies: list[int] = []
    for i, (kind, lo, hi) in enumerate(groups):
        if kind == "rocket":
            continue
        unit = _UNIT[kind]
        if unit == 3:
            bodies.append(i)
        elif lo == hi and lo < 12 and unit < 3:
            (solos if unit == 1 else pairs).append(i)
    out: list[Move] = []
    used: set[int] = set()
    memo = mr.classified  # `classify` by counts: `memo[c] if c in memo else classified_move(c, mr)`
    if bodies:
        solos.sort(key=lambda i: groups[i][1])
        pairs.sort(key=lambda i: groups[i][1])
        bodies.sort(key=lambda i: groups[i][1])
        for b in bodies:
            _, lo, hi = groups[b]
            L = hi - lo + 1
            body = _MAIN[3][L][lo]  # = _group_counts(groups[b]): a unit-3 group
            used.add(b)
            for pool, unit in ((solos, 1), (pairs, 2)):
                free = [g for g in pool if g not in used]
                if len(free) >= L:
                    c = list(body)
                    for gi in free[:L]:
                        c[groups[gi][1]] += unit
                    kicked = tuple(c)
                    mv = memo[kicked] if kicked in memo else classified_move(kicked, mr)
                    if mv is not None:
                        used.update(free[:L])
                        out.append(mv)
                        break
            else:
                mv = memo[body] if body in memo else classified_move(body, mr)
                if mv is not None:
                    out.append(mv)
    for i, g in enumerate(groups):
        if i in used:
            continue
        kind, lo, hi = g
        gc = ROCKET_COUNTS if kind == "rocket" else _MAIN[_UNIT[kind]][hi - lo + 1][lo]  # = _group_counts(g)
        mv = memo[gc] if gc in memo else classified_move(gc, mr)
        if mv is not None:
            out.append(mv)
        else:  # cannot happen for skeleton groups; fall back to solos
            for r, v in enumerate(_group_counts(g)):
                for _ in range(v):
                    one = [0] * 15
                    one[r] = 1
                    out.append(Move("solo", 1, r, 0, tuple(one)))
    return out


_DDZ_MINS = (5, 3, 2)
_DDZ_TOP = CHAIN_TOP + 1


def n_groups(counts: Counts | list[int]) -> int:
    """The number of groups of the Dou Dizhu split of `counts` (`_best_split(counts)[0]`), fast."""
    return _n_groups_bytes(bytes(counts))


_RUN_N: dict[bytes, int] = {}
_HIGH_N: dict[bytes, int] = {}
_HIGH8 = int.from_bytes(b"\x80" * 15, "little")
"""The top bit of each rank's byte in a packed hand: set after a rank's count went below 0."""


def _n_groups_bytes(b: bytes) -> int:
    """`n_groups` of the counts as bytes (one per rank): each run's count from `_run_n`, the
    ranks above the chain top from `_high_split`, both kept in plain dicts (bounded)."""
    high = b[_DDZ_TOP:]
    n = _HIGH_N.get(high)
    if n is None:
        if len(_HIGH_N) >= 1 << 10:
            _HIGH_N.clear()
        n = _HIGH_N[high] = _high_split(tuple(high), _DDZ_TOP)[0]
    for run in b[:_DDZ_TOP].split(b"\0"):
        if run:
            n += _run_n(run)
    return n


# ---------------------------------------------------------------- Dou Dizhu


def strength(counts: Counts, m_laizi: int = 0) -> float:
    """Hand strength for bidding: jokers, 2s, aces, bombs, laizi."""
    s = _strength_before_split(counts, m_laizi)
    s -= 0.3 * max(0, n_groups(counts) - 6)
    return s


def _strength_before_split(counts: Counts, m_laizi: int) -> float:
    """`strength` before its penalty for a hand of many groups (a penalty that only lowers it)."""
    s = 4.0 * counts[RJ_R] + 3.0 * counts[BJ_R] + 2.0 * counts[12] + 0.5 * counts[11] + 2.5 * m_laizi
    s += 4.0 * counts[:13].count(4)  # = sum(4.0 for each bomb rank): the same float
    if counts[RJ_R] and counts[BJ_R]:
        s += 2.0
    return s


def _noisy_strength(counts: Counts, m: int, rng: random.Random, least: float) -> float | None:
    """`strength(counts, m) + rng.uniform(-1, 1)` (one draw), or None when it is below `least`
    whatever the split: the hand's groups are counted only when the penalty can matter."""
    pre = _strength_before_split(counts, m)
    u = rng.uniform(-1.0, 1.0)
    if pre + u < least:  # pre - penalty + u <= pre + u (rounding is monotone): below as well
        return None
    return pre - 0.3 * max(0, n_groups(counts) - 6) + u  # = (strength(counts, m)) + u


_NIBBLE_BITS: tuple[tuple[int, ...], ...] = tuple(tuple(b for b in range(4) if n >> b & 1) for n in range(16))


_RANKS52 = (1 << 52) - 1
_POP_LO = bytes((v & 15).bit_count() for v in range(256))
_POP_HI = bytes((v >> 4).bit_count() for v in range(256))
"""`bytes.translate` tables: the cards in a byte's low / high nibble (one rank of a hand mask)."""


@lru_cache(maxsize=1 << 14)
def _mask_counts(mask: int, lr: int) -> tuple[Counts, int]:
    """(non-laizi rank counts, number of laizi cards) of a hand bit mask (card id = rank * 4 + suit,
    52 = BJ, 53 = RJ; `lr` the laizi rank or -1): `DouDizhu.hand_counts` from the mask, cached."""
    b = (mask & _RANKS52).to_bytes(7, "little")  # two ranks a byte: r in the low nibble, r + 1 high
    c = bytearray(15)
    c[0:14:2] = b.translate(_POP_LO)
    c[1:14:2] = b.translate(_POP_HI)
    c[13] = mask >> 52 & 1
    c[14] = mask >> 53 & 1
    m = 0
    if lr >= 0:
        m = c[lr]
        c[lr] = 0
    return tuple(c), m


_HAND_COUNTS: dict[int, tuple[Counts, int]] = {}
"""`_mask_counts(mask, -1)` by hand mask (no laizi rank), bounded; the hand a play of the bot
leaves is put in when the play is chosen (`_payload`), from the counts it played."""


def _plain_counts(mask: int) -> tuple[Counts, int]:
    """`_mask_counts(mask, -1)`, kept in `_HAND_COUNTS`."""
    got = _HAND_COUNTS.get(mask)
    if got is None:
        if len(_HAND_COUNTS) >= 1 << 14:
            _HAND_COUNTS.clear()
        got = _HAND_COUNTS[mask] = _mask_counts(mask, -1)
    return got


_LOW_NAMES: tuple[tuple[tuple[tuple[str, ...], ...], ...], ...] = tuple(
    tuple(tuple(tuple(CARD_NAME[4 * r + b] for b in _NIBBLE_BITS[n][:k]) for k in range(5)) for n in range(16))
    for r in range(13)
)
"""_LOW_NAMES[r][nibble][k]: the names of the k lowest cards of rank r held (the hand mask's
nibble of rank r), fewer when the hand holds fewer."""
_LOW_BITS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(sum(1 << 4 * r + b for b in _NIBBLE_BITS[n][:k]) for k in range(5)) for n in range(16))
    for r in range(13)
)
"""_LOW_BITS[r][nibble][k]: the card bits of those cards (the `_LOW_NAMES` entry's)."""


@lru_cache(maxsize=1 << 14)
def _rank_needs(counts: Counts) -> tuple[tuple[int, int], ...]:
    """(rank, count) of each rank a move uses, rising."""
    return tuple((r, k) for r, k in enumerate(counts) if k)


def _payload(st: DDZState, seat: int, rd: Reading, counts: Counts | None = None) -> dict[str, Any]:
    """`DouDizhu.play_payload` on the hand mask: the lowest card ids of each rank, laizi cards for
    the `as` entries (in rank order, then the laizi cards). Given the hand's `counts` and without a
    laizi rank, the hand left (`counts` less the play's) goes into `_HAND_COUNTS`."""
    mask = st.hands[seat]
    if rd.as_:
        need = list(rd.move.counts)
        for r in rd.as_:
            need[r] -= 1
        needs: Any = _rank_needs(tuple(need))
    else:
        needs = _rank_needs(rd.move.counts)
    cards: list[str] = []
    gone = 0
    for r, k in needs:
        if r < 13:
            nib = (mask >> 4 * r) & 15
            cards.extend(_LOW_NAMES[r][nib][k])
            gone |= _LOW_BITS[r][nib][k]
        else:
            cards.append(CARD_NAME[39 + r])
            gone |= 1 << 39 + r
    if counts is not None and st.laizi is None and len(_HAND_COUNTS) < 1 << 14:
        _HAND_COUNTS[mask & ~gone] = (tuple(map(sub, counts, rd.move.counts)), 0)
    if rd.as_:
        lr = st.laizi
        assert lr is not None
        cards.extend(_LOW_NAMES[lr][(mask >> 4 * lr) & 15][len(rd.as_)])
        return {"type": "play", "seat": seat, "cards": cards, "as": rd.as_names()}
    return {"type": "play", "seat": seat, "cards": cards}


def ddz_bot_action(game: DouDizhu, st: DDZState, rng: random.Random) -> dict[str, Any]:
    """The next event a decent player (or the system) logs."""
    if st.phase == "laizi":
        return {"type": "laizi", "rank": "3456789TJQKA2"[rng.randrange(13)]}
    seat = st.turn
    assert seat is not None
    if st.laizi is None:
        got = _HAND_COUNTS.get(st.hands[seat])
        counts, m = got if got is not None else _plain_counts(st.hands[seat])
    else:
        counts, m = _mask_counts(st.hands[seat], st.laizi)
    if st.phase == "bid":
        s = _noisy_strength(counts, m, rng, 7.0)  # below 7: no bid in either game
        if s is None:
            value = 0
        elif game.laizi_game:
            want = 3 if s >= 11 else 2 if s >= 9 else 1 if s >= 7 else 0
            value = want if want > st.high_bid else 0
        else:
            value = 1 if s >= 7 else 0
        return {"type": "bid", "seat": seat, "value": value}
    if st.phase == "rob":
        s = _noisy_strength(counts, m, rng, 10.0)
        return {"type": "rob", "seat": seat, "value": s is not None and s >= 10}
    mr = st.mr or game.move_rules(st.rules)
    size = sum(counts) + m
    if st.top is None:
        return _payload(st, seat, _lead(game, st, seat, counts, m, mr), counts)
    rd = _follow(game, st, seat, counts, m, size, mr)
    if rd is None:
        return {"type": "pass", "seat": seat}
    return _payload(st, seat, rd, counts)


def _lead(game: DouDizhu, st: DDZState, seat: int, counts: Counts, m: int, mr: Any) -> Reading:
    if m and sum(counts) == 0:
        lr = st.laizi
        assert lr is not None
        c = [0] * 15
        c[lr] = m
        mv = classify(tuple(c), mr)
        if mv is not None:
            from engine.climbing.laizi import _relabel

            return Reading(_relabel(mv, 0, m), (lr,) * m)
        one = [0] * 15
        one[lr] = 1
        return Reading(Move("solo", 1, lr, 0, tuple(one)), (lr,))
    if m and sum(counts) + m <= 20:  # a move using every card at once wins now
        lr = st.laizi
        assert lr is not None
        whole = best_reading(readings(counts, m, lr, mr), lr)
        if whole is not None:
            return whole
    plan = split(counts, mr)
    if len(plan) == 1:
        return Reading(plan[0], ())
    plain = [mv for mv in plan if not mv.level]
    pool = plain or plan
    # a partner farmer with one card left: lead the lowest solo
    nxt = (seat + 1) % 3
    if st.landlord is not None and seat != st.landlord and nxt != st.landlord and st.hands[nxt].bit_count() == 1:
        solos = [mv for mv in plan if mv.type == "solo"]
        if solos:
            return Reading(min(solos, key=lambda mv: mv.key), ())
    # an opponent about to go out with 1 (or 2) cards: do not feed it a solo (or a pair)
    L = st.landlord
    opponents = [s for s in range(3) if s != seat and (seat == L or s == L)]
    short = min((st.hands[s].bit_count() for s in opponents), default=99)
    if short <= 2:
        risky = {"solo"} if short == 1 else {"solo", "pair"}
        safe = [mv for mv in pool if mv.type not in risky]
        if safe:
            pool = safe
        elif short == 1:  # only solos left: lead the highest
            return Reading(max(pool, key=lambda mv: mv.key), ())
    return _reading(Reading, (_lowest(pool), ()))


_KEY = itemgetter(2)
"""A Move's `key` (its third field), read in C."""


def _lowest(pool: list[Move]) -> Move:
    """`min(pool, key=lambda mv: (mv.key, -sum(mv.counts)))`: the lowest key (read in C), then the
    most cards, the first of equals."""
    k = min(map(_KEY, pool))
    tied = [mv for mv in pool if mv.key == k]
    return tied[0] if len(tied) == 1 else min(tied, key=lambda mv: -sum(mv.counts))


@lru_cache(maxsize=1 << 14)
def _plain_groups(move_counts: Counts, as_: tuple[int, ...]) -> int:
    """`n_groups` of a move's own cards (its counts less the laizi standing in for `as_`)."""
    c = list(move_counts)
    for r in as_:
        c[r] -= 1
    return n_groups(c)


def _follow(game: DouDizhu, st: DDZState, seat: int, counts: Counts, m: int, size: int, mr: Any) -> Reading | None:
    top_seat = st.top_seat
    assert top_seat is not None and st.top is not None
    L = st.landlord
    partner_on_top = seat != L and top_seat != L
    if partner_on_top and size not in (sum(st.top.counts), 4, 2):
        return None  # only a play of the whole hand (same size as the top, a bomb or the rocket) would be made
    cands: list[Reading]  # Readings, not `tuple[Move, …]`: compiled, such a tuple is unboxed (no NamedTuple)
    if game.laizi_game:  # `DouDizhu.moves_for` on the counts already at hand
        cands = laizi_moves(counts, m, -1 if st.laizi is None else st.laizi, mr, st.top)
        for rd in cands:
            if sum(rd[0].counts) == size:
                return rd  # goes out
    else:
        plain = generate(counts, mr, st.top)
        for mv in plain:
            if mv.counts == counts:  # = its size is the hand's (a move of the hand, no laizi)
                return Reading(mv, ())  # goes out
        if not plain or partner_on_top:
            return None
        pick = _pick_plain(plain, counts, st.hands[top_seat].bit_count())
        return None if pick is None else _reading(Reading, (pick, ()))
    if not cands or partner_on_top:
        return None
    hb = bytes(counts)
    before = _n_groups_bytes(hb)
    hx = int.from_bytes(hb, "little")
    opp_cards = st.hands[top_seat].bit_count()
    best: tuple[Any, ...] | None = None
    b_level = b_used = b_after = b_key = 0
    for mv, as_ in cands:
        level = mv.level
        used_laizi = len(as_)
        if best is not None:
            # the key (bomb, level, laizi used, groups left, rank): bomb follows from level
            if level > b_level or (level == b_level and used_laizi > b_used):
                continue  # its key is larger whatever the groups left: not counted
            # the fewest groups are subadditive (a split of the rest plus one of the move's own
            # cards is a split of the hand), so `after` is at least this: beyond the best, not counted
            if level == b_level and used_laizi == b_used:
                low = before - _plain_groups(mv.counts, as_) + (1 if m - used_laizi > 0 else 0)
                if low > b_after or (low == b_after and mv.key > b_key):
                    continue
        # the cards left, packed a byte per rank: a rank gone below 0 sets its byte's top bit
        mx = int.from_bytes(bytes(mv.counts), "little")
        for r in as_:
            mx -= 1 << 8 * r
        rest = hx - mx
        if rest < 0 or rest & _HIGH8:
            continue
        after = _n_groups_bytes(rest.to_bytes(15, "little")) + (1 if m - used_laizi > 0 else 0)
        if level:
            if not (after <= 1 or opp_cards <= 4):
                continue
        elif (after > before and opp_cards > 5 and used_laizi == 0) or (
            used_laizi and opp_cards > 8 and after >= before
        ):
            continue
        if best is None or (level, used_laizi, after, mv.key) < (b_level, b_used, b_after, b_key):
            best = (mv, as_)
            b_level, b_used, b_after, b_key = level, used_laizi, after, mv.key
    return None if best is None else Reading(best[0], best[1])


def _pick_plain(cands: list[Move], counts: Counts, opp_cards: int) -> Move | None:
    """`_follow`'s pick among moves without laizi (none used, none left): the (move, as) loop with
    `as` empty, the key (bomb level, groups left, rank); a one-rank move's groups left counted on
    the one run it changes (`_n_groups_less`). tests/test_sim_speed_climbing4.py checks both."""
    hb = bytes(counts)
    before = _n_groups_bytes(hb)
    hx = int.from_bytes(hb, "little")
    best: Move | None = None
    b_level = b_after = b_key = 0
    for mv in cands:
        level = mv.level
        key = mv.key
        if best is not None:
            if level > b_level:
                continue  # its key is larger whatever the groups left: not counted
            if level == b_level:  # subadditive: `after` is at least `low` (as in `_follow`)
                low = before - _plain_groups(mv.counts, ())
                if low > b_after or (low == b_after and key > b_key):
                    continue
        if mv.length == 1 and key < CHAIN_TOP + 1 and mv.type in _ONE_RANK:
            after = _n_groups_less(hb, hx, before, key, mv.counts[key])
        else:
            rest = hx - int.from_bytes(bytes(mv.counts), "little")
            if rest < 0 or rest & _HIGH8:
                continue
            after = _n_groups_bytes(rest.to_bytes(15, "little"))
        if level:
            if not (after <= 1 or opp_cards <= 4):
                continue
        elif after > before and opp_cards > 5:
            continue
        if best is None or (level, after, key) < (b_level, b_after, b_key):
            best = mv
            b_level, b_after, b_key = level, after, key
    return best


_ONE_RANK = frozenset(("solo", "pair", "trio", "bomb"))
"""Dou Dizhu's move types of one rank and no kickers (key = that rank)."""


def _run_n(run: bytes) -> int:
    """`_run_split(run, _DDZ_MINS)[0]`, kept in `_RUN_N` (bounded)."""
    k = _RUN_N.get(run)
    if k is None:
        if len(_RUN_N) >= 1 << 17:
            _RUN_N.clear()
        k = _RUN_N[run] = _run_count(run)
    return k


_DDZ_CHAINS = ((1, _DDZ_MINS[0]), (2, _DDZ_MINS[1]), (3, _DDZ_MINS[2]))
"""(unit, shortest chain) of Dou Dizhu's straights, pair straights and planes."""


def _run_count(run: bytes) -> int:
    """`_run_split(run, _DDZ_MINS)[0]` by the same search counting only: the fewest groups over
    the options for the run's lowest rank (the whole rank as solo / pair / trio / bomb, or a chain
    of 1, 2, 3 cards a rank starting there), the rest's runs counted by `_run_n`; no groups built.
    An option that leaves cards is not counted once the best is 2 or fewer (it needs 2 at least)."""
    v = run[0]
    tail = run[1:]
    best = 1 << 30
    for k in range(1, min(v, 4) + 1):
        if v > k:
            if best <= 2:
                continue
            n = 1 + _run_n(bytes((v - k,)) + tail)
        elif tail:
            if best <= 2:
                continue
            n = 1 + _run_n(tail)
        else:
            return 1  # the whole run is this one group
        if n < best:
            best = n
    n_run = len(run)
    for unit, least in _DDZ_CHAINS:
        if v < unit:
            break
        lst = bytearray(run)
        hi = 0
        while hi < n_run and run[hi] >= unit:
            lst[hi] -= unit
            hi += 1
            if hi >= least:
                if not any(lst):
                    return 1  # the run is one chain
                if best > 2:
                    n = 1
                    for piece in bytes(lst).split(b"\0"):
                        if piece:
                            n += _run_n(piece)
                    if n < best:
                        best = n
    return best


def _n_groups_less(hb: bytes, hx: int, before: int, r: int, k: int) -> int:
    """`_n_groups_bytes` of the hand `hb` (packed `hx`, `before` its groups) less k cards of the
    chainable rank r: only the run holding r changes (no group spans an empty rank), so its groups
    are replaced by those of what is left of it (two runs when rank r is emptied)."""
    s = hb.rfind(b"\0", 0, r) + 1
    e = hb.find(b"\0", r, _DDZ_TOP)
    if e < 0:
        e = _DDZ_TOP
    rb = (hx - (k << 8 * r)).to_bytes(15, "little")
    n = before - _run_n(hb[s:e])
    if rb[r]:
        return n + _run_n(rb[s:e])
    if s < r:
        n += _run_n(rb[s:r])
    if r + 1 < e:
        n += _run_n(rb[r + 1 : e])
    return n
