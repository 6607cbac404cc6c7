"""The Pao De Kuai bot: plays like a careful person, always a legal event (PDK-R9/R10 obeyed).

It only ever chooses among the engine's legal plays (so 报单, must-beat and the 3s first lead hold
by construction) and scores each by the hand it leaves:
- `moves_left(counts)`: the fewest moves the remaining cards need, from a small search over chain
  removals (straights, pair straights, planes anchored at the ends of runs) and a count of the rest
  (bombs, trios carrying singles or a pair, pairs, singles); cached on the hand packed into an
  int (one byte per rank), the chains found by C-speed byte operations on it. (The Dou
  Dizhu splitter in `engine.climbing.bot` counts kickers as groups and needs 3 pairs for a pair
  straight, where Pao De Kuai allows 2 and 3带2 takes any two cards, so it is not reused here);
- a play that empties the hand is always taken;
- otherwise the cost is 100 × moves left + 4 × the play's key (spend low cards first, keep 2 and A
  for control), + a bomb premium when the bomb is not needed (bombs still earn money at once under
  the default `bomb_pay`, so the premium is small), + a premium for breaking a bomb;
- while an opponent has one card (报单) solo leads cost more, and pair leads while one has two
  (they feed that seat; the 报单 rule already forces the highest solo before a one-card seat);
- following without must-beat, it passes when every play would cost more moves than it saves,
  unless an opponent is down to two cards or fewer.
`rng` only breaks exact ties, so a seeded match is reproducible.
"""

from __future__ import annotations

import random
from functools import cache, lru_cache
from itertools import compress
from typing import TYPE_CHECKING, Any

from engine.cards import CARD_NAME
from engine.climbing import pdk_moves as mv

if TYPE_CHECKING:
    from engine.climbing.paodekuai import PaoDeKuai, State


_BITS = 8
"""A hand is packed into an int, one byte per rank (rank r at bits 8r..8r+7), so that
`x.to_bytes(15, "little")` gives the count vector back as bytes for C-speed counting."""


@lru_cache(maxsize=1 << 16)
def _pack(c: tuple[int, ...]) -> int:
    return int.from_bytes(bytes(c), "little")


def _rest_moves(b: bytes) -> int:
    """Moves for cards with no chains: bombs, trios (+ 2 singles, 1 single or 1 pair), pairs, singles."""
    trios, pairs, singles = b.count(3), b.count(2), b.count(1)
    moves = b.count(4) + trios + pairs + singles
    two = min(trios, singles // 2)
    moves -= 2 * two
    t = trios - two
    if singles - 2 * two and t:
        moves -= 1
        t -= 1
    return moves - min(t, pairs)


_UNITS = ((1, 5), (2, 2), (3, 2))
"""(cards per rank, shortest chain) of straights, pair straights and planes (section 4.1)."""


@cache
def _at_least(unit: int) -> bytes:
    """A `bytes.translate` table: a count → 1 when it is at least `unit`, else 0."""
    return bytes(1 if v >= unit else 0 for v in range(256))


@cache
def _chain_masks(pattern: bytes, unit: int, least: int) -> tuple[int, ...]:
    """The packed chains worth removing when `pattern[r]` (ranks up to the chain top) tells whether
    rank r holds `unit` cards: for every run a..b of such ranks at least `least` long, the chains
    that start where the run starts or end where it ends (a middle piece never saves a move)."""
    out: tuple[int, ...] = ()
    pos = 0
    for run in pattern.split(b"\0"):
        if len(run) >= least:
            out += _run_chain_masks(pos, pos + len(run) - 1, unit, least)
        pos += len(run) + 1
    return out


@cache
def _run_chain_masks(a: int, b: int, unit: int, least: int) -> tuple[int, ...]:
    """`_chain_masks` of one run a..b (at least `least` ranks), longest first (at most 78 runs a unit)."""
    spans = {(a, hi) for hi in range(a + least - 1, b + 1)} | {(lo, b) for lo in range(a, b - least + 2)}
    return tuple(
        sum(unit << _BITS * r for r in range(lo, hi + 1))
        for lo, hi in sorted(spans, key=lambda sp: (sp[0] - sp[1], sp))
    )


_AT1, _AT2, _AT3 = (_at_least(u) for u in (1, 2, 3))


def _chains(b: bytes) -> tuple[int, ...]:
    """The packed chains worth trying in hand `b` (longest of each run first): straights (5+), pair
    straights (2+) and planes (2+) anchored at an end of a run of ranks up to the chain top.
    Without two adjacent ranks of 2+ cards there is no pair straight nor plane, and without five
    adjacent ranks no straight: most hands stop at these two byte searches."""
    low = b[: mv.CHAIN_TOP + 1]
    p1 = low.translate(_AT1)
    p2 = low.translate(_AT2)
    if b"\1\1" not in p2:
        return _chain_masks(p1, 1, 5) if b"\1\1\1\1\1" in p1 else ()
    return (
        _chain_masks(p1, 1, 5) + _chain_masks(p2, 2, 2) + _chain_masks(low.translate(_AT3), 3, 2)
    )  # = the (unit, least) of _UNITS in order


_SHAPES: dict[tuple[bytes, ...], int] = {}
"""`_moves_left` by the hand's shape (its runs up to the chain top sorted, then the ranks above),
bounded: hands of one shape need as many moves."""
_LOW: int = mv.CHAIN_TOP + 1


@lru_cache(maxsize=400_000)
def _moves_left(x: int) -> int:
    """min(the chain-free count, 1 + moves left after each chain worth trying). Branch and bound
    with the same result: a hand that is one chain needs 1 move; otherwise every chain leaves
    cards (so costs 2 at least) and the search stops once 2 is reached.

    Kept by the hand's shape: the chain-free count reads only how many ranks hold 1, 2, 3, 4
    cards, and chains lie inside the runs of ranks up to the chain top (non-empty ranks between
    empty ones), so neither where a run sits nor the order of the runs changes the search
    (tests/test_sim_speed_climbing3.py compares the search without it)."""
    b = x.to_bytes(mv.N_RANKS, "little")
    key = (*sorted(b[:_LOW].split(b"\0")), b[_LOW:])
    n = _SHAPES.get(key)
    if n is None:
        if len(_SHAPES) >= 1 << 18:
            _SHAPES.clear()
        n = _SHAPES[key] = _search(x, b)
    return n


def _search(x: int, b: bytes) -> int:
    """`_moves_left` of the packed hand `x` (`b` its bytes), searched."""
    best = _rest_moves(b)
    if best <= 1:
        return best
    chains = _chains(b)
    if not chains:
        return best
    if x in chains:
        return 1
    for s in chains:
        if best <= 2:
            break
        n = 1 + _moves_left(x - s)
        if n < best:
            best = n
    return best


def moves_left(c: tuple[int, ...]) -> int:
    """The fewest moves that shed these cards (a heuristic search over chains, cached on the hand
    packed into an int)."""
    return _moves_left(_pack(tuple(c)))


@lru_cache(maxsize=1 << 17)
def _lead_info(pc: tuple[int, ...]) -> tuple[int, str, int, int]:
    """(the play packed, its lead reading's type and key, its number of cards): one look-up per
    led play instead of one per field."""
    kind, _, key = mv.lead_reading(pc)
    return _pack(pc), kind, key, sum(pc)


def choose(game: PaoDeKuai, state: State, rng: random.Random) -> dict[str, Any]:
    """The next `play` / `pass` of the seat to act."""
    seat = state.turn
    hand = state.hands[seat]
    hc = mv.hand_counts(hand)
    plays = game.legal_counts(state)
    if not plays:
        return {"type": "pass", "seat": seat}
    if hc in plays:  # a play that empties the hand
        return _play(seat, hand, hc)
    hands = state.hands
    opp_low = min(len(hands[(seat + 1) % 3]), len(hands[(seat + 2) % 3]))  # the other two seats
    hx = _pack(hc)
    bomb_ranks = tuple(compress(range(mv.N_RANKS), map((4).__eq__, hc)))  # the ranks held four times
    # the cost of each play (integers; see the module docstring)
    bomb_cost = (60 if state.rules.bomb_pay == "immediate" else 120) if opp_low > 3 else 0
    ml = _moves_left
    scores: list[int] = []
    top = state.top
    if top is None:
        # do not lead what an opponent about to go out can answer with its last cards
        feed = "solo" if opp_low == 1 else "pair" if opp_low == 2 else ""
        feed_cost = 150 if opp_low == 1 else 60
        for pc in plays:
            px, kind, key, n = _lead_info(pc)
            cost = 100 * ml(hx - px) + 4 * key - n  # among equals, shed more cards
            if kind == "bomb":
                cost += bomb_cost
            elif bomb_ranks and any(0 < pc[r] < 4 for r in bomb_ranks):
                cost += 80
            if kind == feed:
                cost += feed_cost
            scores.append(cost)
    else:
        tm = top.move
        for pc in plays:
            rd = mv.beat_reading(pc, tm, True)
            cost = 100 * ml(hx - _pack(pc)) + (4 * rd[2] if rd is not None else 0)
            if rd is not None and rd[0] == "bomb":
                cost += bomb_cost
            elif bomb_ranks and any(0 < pc[r] < 4 for r in bomb_ranks):
                cost += 80
            scores.append(cost)
    low = min(scores)
    if scores.count(low) == 1:
        pick = plays[scores.index(low)]
    else:
        pick = plays[rng.choice([i for i, s in enumerate(scores) if s == low])]
    if game.pass_legal(state, plays) and opp_low > 2 and low >= 100 * ml(hx):
        return {"type": "pass", "seat": seat}
    return _play(seat, hand, pick)


def _play(seat: int, hand: tuple[int, ...], counts: tuple[int, ...]) -> dict[str, Any]:
    return {"type": "play", "seat": seat, "cards": [CARD_NAME[c] for c in mv.pick_cards(hand, counts)]}
