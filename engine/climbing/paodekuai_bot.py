"""The Pao De Kuai bot: plays like a careful person, always a legal event (PDK-R9/R10 obeyed).

It only ever chooses among the engine's legal plays (so 报单, must-beat and the 3s first lead hold
by construction) and scores each by the hand it leaves:
- `moves_left(counts)`: the fewest moves the remaining cards need, from a small search over chain
  removals (straights, pair straights, planes) and a count of the rest (bombs, trios carrying
  singles or a pair, pairs, singles); cached on the count tuple;
- a play that empties the hand is always taken;
- otherwise the cost is 100 × moves left + 4 × the play's key (spend low cards first, keep 2 and A
  for control), + a bomb premium when the bomb is not needed (bombs still earn money at once under
  the default `bomb_pay`, so the premium is small), + a premium for breaking a bomb;
- while the next seat has one card (报单) solo leads cost more (they feed that seat);
- following without must-beat, it passes when every play would cost more moves than it saves,
  unless an opponent is down to two cards or fewer.
`rng` only breaks exact ties, so a seeded match is reproducible.
"""

from __future__ import annotations

import random
from functools import cache
from typing import TYPE_CHECKING, Any

from engine.cards import CARD_NAME
from engine.climbing import pdk_moves as mv

if TYPE_CHECKING:
    from engine.climbing.paodekuai import PaoDeKuai, State


def _rest_moves(c: tuple[int, ...]) -> int:
    """Moves for cards with no chains: bombs, trios (+ 2 singles, 1 single or 1 pair), pairs, singles."""
    quads = sum(1 for x in c if x == 4)
    trios = sum(1 for x in c if x == 3)
    pairs = sum(1 for x in c if x == 2)
    singles = sum(1 for x in c if x == 1)
    moves = quads + trios + pairs + singles
    two = min(trios, singles // 2)
    moves -= 2 * two
    t = trios - two
    s = singles - 2 * two
    if s and t:
        moves -= 1
        t -= 1
    moves -= min(t, pairs)
    return moves


def _chains(c: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every straight (5+), pair straight (2+ pairs) and plane (2+ trios) inside `c`."""
    out = []
    for unit, least in ((1, 5), (2, 2), (3, 2)):
        for lo in range(mv.CHAIN_TOP + 1):
            hi = lo
            while hi <= mv.CHAIN_TOP and c[hi] >= unit:
                if hi - lo + 1 >= least:
                    t = list(c)
                    for r in range(lo, hi + 1):
                        t[r] -= unit
                    out.append(tuple(t))
                hi += 1
    return out


@cache
def moves_left(c: tuple[int, ...]) -> int:
    """The fewest moves that shed these cards (a heuristic lower bound search, cached)."""
    if not any(c):
        return 0
    best = _rest_moves(c)
    for rest in _chains(c):
        best = min(best, 1 + moves_left(rest))
    return best


def _cost(state: State, seat: int, hand: tuple[int, ...], play: tuple[int, ...], leading: bool) -> float:
    hc = mv.counts_of(hand)
    pc = mv.counts_of(play)
    rest = tuple(a - b for a, b in zip(hc, pc, strict=True))
    kind, _, key = (
        mv.lead_reading(pc) if state.top is None else (mv.beat_reading(pc, state.top.move, True) or ("", 0, 0))
    )
    cost = 100.0 * moves_left(rest) + 4 * key
    opp_low = min(len(state.hands[s]) for s in range(3) if s != seat)
    if kind == "bomb":
        if opp_low > 3:
            cost += 60 if state.rules.bomb_pay == "immediate" else 120
    elif any(hc[r] == 4 and 0 < pc[r] < 4 for r in range(mv.N_RANKS)):
        cost += 80
    if leading and kind == "solo" and len(state.hands[(seat + 1) % 3]) == 1:
        cost += 150
    if leading:
        cost -= len(play)  # among equals, shed more cards
    return cost


def choose(game: PaoDeKuai, state: State, rng: random.Random) -> dict[str, Any]:
    """The next `play` / `pass` of the seat to act."""
    seat = state.turn
    hand = state.hands[seat]
    plays = game.legal_plays(state)
    can_pass = game.pass_legal(state, plays)
    for p in plays:
        if len(p) == len(hand):
            return _play(seat, p)
    if not plays:
        return {"type": "pass", "seat": seat}
    leading = state.top is None
    scored = [(_cost(state, seat, hand, p, leading), i) for i, p in enumerate(plays)]
    low = min(s for s, _ in scored)
    ties = [i for s, i in scored if s == low]
    pick = plays[ties[0] if len(ties) == 1 else rng.choice(ties)]
    if can_pass:
        hold = 100.0 * moves_left(mv.counts_of(hand))
        opp_low = min(len(state.hands[s]) for s in range(3) if s != seat)
        if opp_low > 2 and low >= hold:
            return {"type": "pass", "seat": seat}
    return _play(seat, pick)


def _play(seat: int, cards: tuple[int, ...]) -> dict[str, Any]:
    return {"type": "play", "seat": seat, "cards": [CARD_NAME[c] for c in cards]}
