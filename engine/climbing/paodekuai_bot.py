"""The Pao De Kuai bot: plays like a careful person, always a legal event (PDK-R9/R10 obeyed).

It only ever chooses among the engine's legal plays (so 报单, must-beat and the 3s first lead hold
by construction) and scores each by the hand it leaves:
- `moves_left(counts)`: the fewest moves the remaining cards need, from a small search over chain
  removals (straights, pair straights, planes anchored at the ends of runs) and a count of the rest
  (bombs, trios carrying singles or a pair, pairs, singles); cached on the count vector. (The Dou
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
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine.cards import CARD_NAME
from engine.climbing import pdk_moves as mv

if TYPE_CHECKING:
    from engine.climbing.paodekuai import PaoDeKuai, State


def _rest_moves(c: tuple[int, ...]) -> int:
    """Moves for cards with no chains: bombs, trios (+ 2 singles, 1 single or 1 pair), pairs, singles."""
    trios, pairs, singles = c.count(3), c.count(2), c.count(1)
    moves = c.count(4) + trios + pairs + singles
    two = min(trios, singles // 2)
    moves -= 2 * two
    t = trios - two
    if singles - 2 * two and t:
        moves -= 1
        t -= 1
    return moves - min(t, pairs)


_UNITS = ((1, 5), (2, 2), (3, 2))
"""(cards per rank, shortest chain) of straights, pair straights and planes (section 4.1)."""


def _chains(c: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The chains worth trying in `c`: every straight (5+), pair straight (2+) and plane (2+) that
    starts where a run of ranks starts or ends where it ends (a middle piece never saves a move)."""
    out = []
    top = mv.CHAIN_TOP
    for unit, least in _UNITS:
        r = 0
        while r <= top:
            if c[r] < unit:
                r += 1
                continue
            a = r
            while r + 1 <= top and c[r + 1] >= unit:
                r += 1
            b = r
            r += 1
            if b - a + 1 < least:
                continue
            spans = {(a, hi) for hi in range(a + least - 1, b + 1)} | {(lo, b) for lo in range(a, b - least + 2)}
            for lo, hi in spans:
                t = list(c)
                for k in range(lo, hi + 1):
                    t[k] -= unit
                out.append(tuple(t))
    return out


@lru_cache(maxsize=400_000)
def moves_left(c: tuple[int, ...]) -> int:
    """The fewest moves that shed these cards (a heuristic search over chains, cached)."""
    best = _rest_moves(c)
    if best <= 1:
        return best
    for rest in _chains(c):
        best = min(best, 1 + moves_left(rest))
    return best


def _cost(state: State, seat: int, hc: tuple[int, ...], pc: tuple[int, ...], opp_low: int) -> float:
    rest = tuple(a - b for a, b in zip(hc, pc, strict=True))
    top = state.top
    kind, _, key = mv.lead_reading(pc) if top is None else (mv.beat_reading(pc, top.move, True) or ("", 0, 0))
    cost = 100.0 * moves_left(rest) + 4 * key
    if kind == "bomb":
        if opp_low > 3:
            cost += 60 if state.rules.bomb_pay == "immediate" else 120
    elif any(hc[r] == 4 and 0 < pc[r] < 4 for r in range(mv.N_RANKS)):
        cost += 80
    if top is None:
        # do not lead what an opponent about to go out can answer with its last cards
        if opp_low == 1 and kind == "solo":
            cost += 150
        elif opp_low == 2 and kind == "pair":
            cost += 60
        cost -= sum(pc)  # among equals, shed more cards
    return cost


def choose(game: PaoDeKuai, state: State, rng: random.Random) -> dict[str, Any]:
    """The next `play` / `pass` of the seat to act."""
    seat = state.turn
    hand = state.hands[seat]
    hc = mv.counts_of(hand)
    plays = game.legal_counts(state)
    if not plays:
        return {"type": "pass", "seat": seat}
    for p in plays:
        if p == hc:
            return _play(seat, hand, p)
    opp_low = min(len(state.hands[s]) for s in range(3) if s != seat)
    scored = [(_cost(state, seat, hc, p, opp_low), i) for i, p in enumerate(plays)]
    low = min(s for s, _ in scored)
    ties = [i for s, i in scored if s == low]
    pick = plays[ties[0] if len(ties) == 1 else rng.choice(ties)]
    if game.pass_legal(state, plays) and opp_low > 2 and low >= 100.0 * moves_left(hc):
        return {"type": "pass", "seat": seat}
    return _play(seat, hand, pick)


def _play(seat: int, hand: tuple[int, ...], counts: tuple[int, ...]) -> dict[str, Any]:
    return {"type": "play", "seat": seat, "cards": [CARD_NAME[c] for c in mv.pick_cards(hand, counts)]}
