"""Zha Jin Hua bot: the next event a decent human player (or the table) would log.

How it plays (all randomness from the seeded `rng`, never from the clock):
- Information: a blind seat never uses its cards; it decides only from the round, the stake level
  and the number of players. After `look` it uses its hand strength = the share of all 22,100
  hands its hand strictly beats under the match's rules, raised to the number of opponents
  (a rough chance of holding the best hand).
- Blind (闷): looks with a probability that grows with the round and with the stake level (always
  once the level reaches 3 or from round 4); otherwise calls blind, sometimes raises blind (a
  bluff, 10%), and from `compare_min_round` + 2 may compare blind or open.
- Seen: folds a weak hand (chance < 0.15) unless it bluffs (8%); with two left opens a medium hand
  or goes all-in in gold when allowed and strong; compares a middling hand against a blind seat
  (else the next active seat); raises a strong hand one level (to the cap with 豹子/顺金 strength);
  otherwise calls. After many rounds (round ≥ compare_min_round + 5) it compares or opens whenever
  it may, so a match without a round cap still ends.
- An all-in to call: looks first if blind, then calls with a better-than-average hand or a 10%
  bluff, else folds.
- The table: with small probabilities a timer runs out (`timeout` of the actor, 0.4%, when the
  timer is on) or an active player leaves (`forfeit`, 0.2%).
Whatever it picks is checked against `legal_actions`; fold is always legal for the actor.
"""

from __future__ import annotations

import random
from functools import cache
from typing import TYPE_CHECKING, Any

from engine.zhajinhua.game import _seats_of, _turn_actions, _turn_options
from engine.zhajinhua.hands import all_hands, evaluate

if TYPE_CHECKING:
    from engine.zhajinhua.game import State, ZhaJinHua


@cache
def _sorted_keys(a23_second: bool, suit_tiebreak: bool) -> list[tuple[int, ...]]:
    return sorted(evaluate(h, a23_second, suit_tiebreak) for h in all_hands())


@cache
def _first_index(a23_second: bool, suit_tiebreak: bool) -> dict[tuple[int, ...], int]:
    """Each key -> its first index in `_sorted_keys` (= `bisect_left` of a key the list holds: every
    hand's key is there), built in one pass over the sorted list."""
    first: dict[tuple[int, ...], int] = {}
    for i, k in enumerate(_sorted_keys(a23_second, suit_tiebreak)):
        first.setdefault(k, i)
    return first


_N_HANDS = 22100
"""len(all_hands()): C(52, 3)."""


def strength(state: State, seat: int) -> float:
    """Share of all hands that this seat's hand strictly beats (0..1, 2-3-5 special ignored):
    `bisect_left(_sorted_keys(...), key) / len(keys)`, by the first-index table."""
    r = state.rules
    a23_second = r.a23 == "second"
    key = evaluate(state.hands[seat], a23_second, r.suit_tiebreak)  # type: ignore[arg-type]
    return _first_index(a23_second, r.suit_tiebreak)[key] / _N_HANDS


def bot_action(game: ZhaJinHua, state: State, rng: random.Random) -> dict[str, Any]:
    """The next event payload (see the module docstring). The actor's options come as data
    (`_turn_options`: amounts and targets, no payload dicts); only the chosen payload is built."""
    a = state.actor
    if a is None:
        raise RuntimeError("bot_action is only called while the match runs")
    r = state.rules
    if r.turn_seconds > 0 and rng.random() < 0.004:
        return {"type": "timeout", "seat": a}
    act = _seats_of(state.active, state.n)  # = state.active_seats()
    if rng.random() < 0.002:
        return {"type": "forfeit", "seat": rng.choice(act)}
    seen = state.seen
    can_look = not seen[a] and state.round >= r.look_min_round and a in act
    amounts, targets, can_open, can_allin = _turn_options(state, a, act)

    if state.allin is not None:  # an all-in waits for this seat's call
        if can_look:
            return {"type": "look", "seat": a}
        s = strength(state, a)
        if can_allin and (s > 0.5 or rng.random() < 0.1):
            return {"type": "allin", "seat": a}
        return {"type": "fold", "seat": a}

    rnd = state.round
    late = rnd >= r.compare_min_round + 5

    if not seen[a]:
        p_look = 0.3 + 0.2 * (rnd - 1) + 0.2 * (state.level - 1)
        if can_look and (rng.random() < p_look or state.level >= 3 or rnd >= 4 or not amounts):
            return {"type": "look", "seat": a}
        if (late or rnd >= r.compare_min_round + 2) and targets and (late or rng.random() < 0.25):
            return {"type": "open", "seat": a} if can_open else _pick_target(state, targets, rng)
        if amounts:
            if len(amounts) > 1 and rng.random() < 0.1:
                return {"type": "bet", "seat": a, "amount": amounts[1]}
            return {"type": "bet", "seat": a, "amount": amounts[0]}
        if targets:
            return {"type": "open", "seat": a} if can_open else _pick_target(state, targets, rng)
        return {"type": "fold", "seat": a}

    s = strength(state, a)
    win = s ** max(1, len(act) - 1)
    if win < 0.15 and rng.random() > 0.08 and not late:
        return {"type": "fold", "seat": a}
    if can_allin and win > 0.55:
        return {"type": "allin", "seat": a}
    if can_open and (late or (0.3 < win < 0.8 and rng.random() < 0.5) or (win >= 0.8 and rnd >= 4)):
        return {"type": "open", "seat": a}
    if targets and (late or (win < 0.55 and rng.random() < 0.6)):
        return _pick_target(state, targets, rng)
    if amounts:
        if len(amounts) > 1 and win > 0.7:
            return {"type": "bet", "seat": a, "amount": amounts[-1] if s > 0.995 else amounts[1]}
        return {"type": "bet", "seat": a, "amount": amounts[0]}
    if targets:
        return _pick_target(state, targets, rng)
    if can_open:
        return {"type": "open", "seat": a}
    if can_allin:
        return {"type": "allin", "seat": a}
    return {"type": "fold", "seat": a}


def own_actions(state: State, a: int) -> list[dict[str, Any]]:
    """The entries of `legal_actions(state)` of the actor `a` but its timeout and forfeit, in that
    order (its look, then its turn actions), without building the other seats' entries."""
    look = not state.seen[a] and state.round >= state.rules.look_min_round and a in state.active_seats()
    turn = _turn_actions(state, a)
    return [{"type": "look", "seat": a}, *turn] if look else turn


def _pick_target(state: State, targets: list[int], rng: random.Random) -> dict[str, Any]:
    """Compare with a blind seat if there is one (its hand is average), else the next active seat."""
    a = state.actor or 0
    blind = [t for t in targets if not state.seen[t]]
    if blind:
        return {"type": "compare", "seat": a, "target": rng.choice(blind)}
    n = state.n
    return {"type": "compare", "seat": a, "target": min(targets, key=lambda t: (t - a) % n)}
