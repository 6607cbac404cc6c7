"""Pao De Kuai (跑得快, game id `paodekuai`): docs/rules/paodekuai.md, rule ids PDK-R*, B*, P*.

Three players, the 48-card deck (no jokers, no `2h 2c 2d`, no `As`), 16 cards each, no bidding.
`match_started.dealer` is the leader; a first match (`round` absent or 1) is led by the `3s`
holder whose first play must contain `3s` (PDK-R4). The engine enforces 报单 (PDK-R10), 有大必出
(PDK-R9), pays bombs at the moment of the play (P1), settles 关门 (P2) and forfeits (P4).

Cards are the ints of `engine.cards` (rank * 4 + suit, rank 0..12 = `3..2`); moves are rank-count
vectors of the shared climbing engine (`engine.climbing.moves`): `engine.climbing.pdk_moves` states
section 4 as one `MoveRules` value (kickers are any cards, the 4th card of a main rank included;
`trio_one`/`trio_two`, `four_two`/`four_three`, N / 2N-wing planes; bombs 3..K; no rocket) and adds
what Pao De Kuai needs on top (B2's highest beating key, the `short_trio_last` option).

Choices where the rule file is silent (recorded here, PDK-7):
- a `play` carrying an `as` field is refused `illegal_move` (PDK-R5: there are no wild cards);
- `timeout` and every event of another game are `wrong_phase` (the file never uses them);
- the check order of a `play` is: turn, cards held, shape (R6), 3s first lead (R4), beat (R8),
  报单 (R10); so a solo that neither beats nor is the highest card is `does_not_beat`;
- with `bomb_pay = if_unbeaten` a bomb pays when two passes end its trick, when it empties the hand,
  or when a forfeit ends the match while it is the top move (whoever forfeits);
- zero-point transfers (the 1-card loser under 报单不出不进, `bomb_points = 0`) are not itemised;
- `legal_actions` lists each legal play once per multiset of ranks, with the lowest cards of each
  rank (so `3s` first), plus `pass` when it is legal; `forfeit` (always legal) is not listed.

Settlement items (`seat` receives `points` from `from`): `bomb` (P1, with `rank`, `bomb_points`),
`cards_left` (P2, with `cards`), `guan_men` (P2 关门, with `cards`, `factor`), `forfeit` (P4, with
`cards` = 16 and `factor`). Winners: the seat that went out; after a forfeit, every seat whose delta
is positive (events.md §6).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from itertools import filterfalse
from typing import Annotated, Any, Literal

from pydantic import Field

from engine.base import GameRules, Settlement, item
from engine.base import parse_rules as _parse_rules
from engine.cards import CARD_ID, CARD_NAME, RANK_NAMES, shuffle
from engine.climbing import pdk_moves as mv
from engine.errors import Illegal
from events.models import AnyEvent, Dealt, Forfeit, MatchStarted, Pass, Play
from events.notation import parse_cards

N_SEATS = 3
HAND_SIZE = 16
THREE_SPADES = 0  # card id of `3s`


class Rules(GameRules):
    """Section 6 of docs/rules/paodekuai.md."""

    must_beat: bool = Field(True, description="PDK-R9 有大必出: a follower who can beat the top move may not pass")
    baodan: bool = Field(True, description="PDK-R10 报单: before a one-card player, a solo must be your highest card")
    first_play_3s: bool = Field(True, description="PDK-R4: the first play of a first match must contain 3s")
    bomb_points: Annotated[int, Field(ge=0, le=100)] = Field(
        10, description="P1: points (× base) each other seat pays for a bomb"
    )
    bomb_pay: Literal["immediate", "if_unbeaten", "none"] = Field(
        "immediate", description="P1: pay bombs at once, only unbeaten bombs (that end their trick), or never"
    )
    closed_factor: Annotated[int, Field(ge=1, le=4)] = Field(
        2, description="P2/P4 关门: multiplier on the cards of a loser who never played (and of a forfeit)"
    )
    one_card_exempt: bool = Field(
        True, description="P2 报单不出不进: a loser left with 1 card pays 0 (false: 1 × base)"
    )
    short_trio_last: bool = Field(
        False, description="B3 relaxed: a hand-emptying trio / winged plane may carry fewer kickers than the top move"
    )


PRESETS: dict[str, dict[str, Any]] = {"standard": {}}


@cache
def deck() -> tuple[int, ...]:
    """The 48 card ids, sorted (PDK section 2): no `As`, and `2s` the only 2."""
    removed = {CARD_ID[c] for c in ("As", "2h", "2c", "2d")}
    return tuple(c for c in range(52) if c not in removed)


@dataclass(frozen=True, slots=True)
class Top:
    """The move to beat: who played it, its recorded reading and its cards."""

    seat: int
    move: mv.Reading
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class State:
    """Immutable table state; `apply` returns a new one (copy-on-write of the tuples)."""

    rules: Rules
    base: int
    first_match: bool
    dealer: int
    hands: tuple[tuple[int, ...], ...]
    turn: int
    top: Top | None = None
    passes: int = 0
    plays: tuple[int, ...] = (0, 0, 0)
    led: bool = False
    items: tuple[dict[str, Any], ...] = ()
    bombs: tuple[tuple[int, int], ...] = ()
    last: dict[str, Any] | None = None
    winner: int | None = None
    forfeiter: int | None = None

    @property
    def finished(self) -> bool:
        return self.winner is not None or self.forfeiter is not None


def _names(cards: tuple[int, ...] | list[int]) -> list[str]:
    return [CARD_NAME[c] for c in cards]


def _short(cards: tuple[int, ...] | list[int]) -> str:
    return " ".join(CARD_NAME[c] for c in cards)


def describe(move: mv.Reading) -> str:
    """`trio_two 3` / `straight×7 9`: the reading as the messages show it."""
    kind, n, key = move
    return f"{kind}{'×' + str(n) if n > 1 else ''} {RANK_NAMES[key]}"


def _baodan_active(state: State, seat: int) -> bool:
    """PDK-R10: the next seat holds exactly one card."""
    return state.rules.baodan and len(state.hands[(seat + 1) % N_SEATS]) == 1


def _baodan_filter(
    state: State, seat: int, hand_counts: tuple[int, ...], plays: Sequence[tuple[int, ...]]
) -> Sequence[tuple[int, ...]]:
    """PDK-R10 报单: the plays allowed while the next seat holds one card (a solo must be the
    seat's highest card); `plays` itself otherwise."""
    if not (state.rules.baodan and len(state.hands[(seat + 1) % N_SEATS]) == 1):  # = _baodan_active
        return plays
    high = mv.highest_rank(hand_counts)
    return [c for c in plays if sum(c) != 1 or c.index(1) == high]


def _hand_counts(hand: tuple[int, ...]) -> tuple[int, ...]:
    return mv.hand_counts(hand)


class _Draft:
    """A `State`'s slots, set by plain attribute stores (the frozen dataclass's `__init__` calls
    `object.__setattr__` once a field), then the object made a `State` (the same layout)."""

    __slots__ = State.__slots__


def _evolve(
    state: State, hands: tuple[tuple[int, ...], ...], turn: int, top: Top | None, passes: int,
    plays: tuple[int, ...], led: bool, items: tuple[dict[str, Any], ...], bombs: tuple[tuple[int, int], ...],
    last: dict[str, Any], winner: int | None,
) -> State:
    """`dataclasses.replace(state, …)` of the fields a play or a pass changes, without the
    dataclass's `__init__` (the hot path of a simulation): tests/test_sim_speed_climbing3.py
    compares it with `State(...)`."""
    d: Any = _new_object(_Draft)
    d.rules, d.base, d.first_match, d.dealer = state.rules, state.base, state.first_match, state.dealer
    d.hands, d.turn, d.top, d.passes, d.plays, d.led = hands, turn, top, passes, plays, led
    d.items, d.bombs, d.last, d.winner, d.forfeiter = items, bombs, last, winner, state.forfeiter
    _set_attr(d, "__class__", State)
    return d  # type: ignore[no-any-return]


class _TopDraft:
    """A `Top`'s slots, set by plain attribute stores, then the object made a `Top`."""

    __slots__ = Top.__slots__


_new_object = object.__new__
_set_attr = object.__setattr__


class PaoDeKuai:
    """The `paodekuai` game object (engine/base.py `Game`)."""

    id = "paodekuai"
    deal_rule = "PDK-R2"  # `dealer` ∈ {0, 1, 2}
    seats = (3,)
    sim_players = 3
    Rules = Rules
    presets = PRESETS

    # ------------------------------------------------------------------ setup

    def parse_rules(self, raw: Mapping[str, Any]) -> Rules:
        return _parse_rules(Rules, PRESETS, raw)

    def start(self, started: MatchStarted, dealt: Dealt, rules: Rules) -> State:
        """PDK-R2: three 16-card hands forming the 48-card deck; a first match is led by the 3s holder."""
        if dealt.bottom is not None or dealt.wall is not None or dealt.stacks is not None:
            raise Illegal("bad_deal", "PDK-R2 a paodekuai deal has only `hands` (no bottom, wall or stacks)")
        if len(dealt.hands) != N_SEATS:
            raise Illegal("bad_deal", f"PDK-R2 three hands are dealt, got {len(dealt.hands)}")
        hands: list[tuple[int, ...]] = []
        seen: set[int] = set()
        full = set(deck())
        for s, h in enumerate(dealt.hands):
            if len(h) != HAND_SIZE:
                raise Illegal("bad_deal", f"PDK-R2 seat {s} was dealt {len(h)} cards, not {HAND_SIZE}")
            ids = []
            for c in h:
                cid = CARD_ID.get(c)
                if cid is None or cid not in full:
                    raise Illegal("bad_deal", f"PDK-R2 {c} is not in the 48-card deck (seat {s})")
                if cid in seen:
                    raise Illegal("bad_deal", f"PDK-R2 {c} is dealt twice (seat {s})")
                seen.add(cid)
                ids.append(cid)
            hands.append(tuple(sorted(ids)))
        first = started.round is None or started.round == 1
        if first and THREE_SPADES not in hands[started.dealer]:
            holder = next(s for s, h in enumerate(hands) if THREE_SPADES in h)
            raise Illegal(
                "bad_deal",
                f"PDK-R2 in a first match the leader is the 3s holder (seat {holder}), not dealer {started.dealer}",
            )
        return State(
            rules=rules, base=started.base, first_match=first, dealer=started.dealer,
            hands=tuple(hands), turn=started.dealer,
        )  # fmt: skip

    # ------------------------------------------------------------------ the reducer

    def apply(self, state: State, event: AnyEvent) -> State:
        if state.winner is not None or state.forfeiter is not None:  # = state.finished (no property call)
            raise Illegal("after_end", f"PDK-R13 {event.type} after the match ended")
        if isinstance(event, Play):
            return self._play(state, event)
        if isinstance(event, Pass):
            return self._pass(state, event.seat)
        if isinstance(event, Forfeit):
            return self._forfeit(state, event.seat)
        raise Illegal("wrong_phase", f"PDK-R1 paodekuai has no {event.type} event (play, pass or forfeit)")

    def _play(self, state: State, ev: Play) -> State:
        seat = ev.seat
        if seat != state.turn:
            raise Illegal("not_your_turn", f"PDK-R3 seat {state.turn} is to act, not seat {seat}")
        if ev.as_ is not None:
            raise Illegal("illegal_move", "PDK-R5 paodekuai has no wild cards: a play carries no `as`")
        hand = state.hands[seat]
        ids: list[int] = []
        for c in ev.cards:
            cid = CARD_ID[c]
            if cid in ids:
                raise Illegal("not_in_hand", f"PDK-R5 {c} is played twice by seat {seat}")
            if cid not in hand:
                raise Illegal("not_in_hand", f"PDK-R5 seat {seat} does not hold {c}")
            ids.append(cid)
        cards = tuple(sorted(ids))
        counts = mv.hand_counts(cards)
        r = state.rules
        empties = len(cards) == len(hand)
        # section 6 `short_trio_last`: a hand-emptying follow of the top's main part with fewer
        # kickers is a move although section 4 may give it no reading (3334445 after a winged plane)
        short_ok = r.short_trio_last and empties and state.top is not None
        short = mv.short_shape(counts, state.top.move) if short_ok and state.top is not None else None
        if not mv.readings(counts) and short is None:
            raise Illegal("illegal_move", f"PDK-R6 {_short(cards)} is not a Pao De Kuai move (section 4)")
        if r.first_play_3s and state.first_match and not state.led and THREE_SPADES not in cards:
            raise Illegal(
                "illegal_move", f"PDK-R4 the first play of a first match must contain 3s, got {_short(cards)}"
            )
        if state.top is None:
            move = mv.lead_reading(counts)
        else:
            got = mv.beat_reading(counts, state.top.move, short_ok)
            if got is None:
                rd = short if short is not None else mv.lead_reading(counts)
                raise Illegal(
                    "does_not_beat",
                    f"PDK-R8/B{1 if 'bomb' in (rd[0], state.top.move[0]) else 2} {describe(rd)} {_short(cards)} "
                    f"cannot beat {describe(state.top.move)} {_short(state.top.cards)}",
                )
            move = got
        if move[0] == "solo" and _baodan_active(state, seat):
            high = mv.highest_rank(_hand_counts(hand))
            if move[2] != high:
                raise Illegal(
                    "illegal_move",
                    f"PDK-R10 报单: seat {(seat + 1) % N_SEATS} holds 1 card, so seat {seat}'s solo must be "
                    f"its highest card ({RANK_NAMES[high]}), not {_short(cards)}",
                )
        left = tuple(filterfalse(frozenset(cards).__contains__, hand))  # hand order
        hands = state.hands[:seat] + (left,) + state.hands[seat + 1 :]
        plays = state.plays[:seat] + (state.plays[seat] + 1,) + state.plays[seat + 1 :]
        items = state.items
        bombs = state.bombs
        top: Any = _new_object(_TopDraft)  # = Top(seat, move, cards), as `_evolve` builds a State
        top.seat, top.move, top.cards = seat, move, cards
        _set_attr(top, "__class__", Top)
        if move[0] == "bomb":
            bombs = (*bombs, (seat, move[2]))
            if r.bomb_pay == "immediate":
                items = items + _bomb_items(state, top)
        last = {"seat": seat, "action": "play", "cards": list(map(CARD_NAME.__getitem__, cards)), "type": move[0], "length": move[1],
                "rank": RANK_NAMES[move[2]]}  # fmt: skip
        winner = state.winner
        if not left:
            winner = seat
            if move[0] == "bomb" and r.bomb_pay == "if_unbeaten":
                items = items + _bomb_items(state, top)
        return _evolve(state, hands, (seat + 1) % N_SEATS, top, 0, plays, True, items, bombs, last, winner)

    def _pass(self, state: State, seat: int) -> State:
        if seat != state.turn:
            raise Illegal("not_your_turn", f"PDK-R3 seat {state.turn} is to act, not seat {seat}")
        top = state.top
        if top is None:
            raise Illegal("must_play", f"PDK-R7 seat {seat} leads the trick and may not pass")
        if state.rules.must_beat:
            example = next(iter(self._beating_plays(state, seat)), None)
            if example is not None:
                raise Illegal(
                    "must_play",
                    f"PDK-R9 有大必出: seat {seat} can beat {describe(top.move)} {_short(top.cards)} "
                    f"(e.g. {_short(mv.pick_cards(state.hands[seat], example))}) and may not pass",
                )
        turn = (seat + 1) % N_SEATS
        last = {"seat": seat, "action": "pass"}
        if state.passes + 1 < N_SEATS - 1:
            return _evolve(state, state.hands, turn, top, state.passes + 1, state.plays, state.led, state.items, state.bombs, last, state.winner)
        items = state.items
        if top.move[0] == "bomb" and state.rules.bomb_pay == "if_unbeaten":
            items = items + _bomb_items(state, top)
        return _evolve(state, state.hands, turn, None, 0, state.plays, state.led, items, state.bombs, last, state.winner)

    def _forfeit(self, state: State, seat: int) -> State:
        items = state.items
        if state.top is not None and state.top.move[0] == "bomb" and state.rules.bomb_pay == "if_unbeaten":
            items = items + _bomb_items(state, state.top)
        return replace(state, forfeiter=seat, items=items, last={"seat": seat, "action": "forfeit"})

    # ------------------------------------------------------------------ the end

    def is_finished(self, state: State) -> bool:
        return state.winner is not None or state.forfeiter is not None  # = state.finished

    def settle(self, state: State) -> Settlement:
        """P1 (already itemised) + P2 loser payments, or P4 for a forfeit."""
        r, b = state.rules, state.base
        items = list(state.items)
        if state.forfeiter is not None:
            f = state.forfeiter
            pts = r.closed_factor * HAND_SIZE * b
            for s in range(N_SEATS):
                if s != f:
                    items.append(item("forfeit", s, f, pts, cards=HAND_SIZE, factor=r.closed_factor))
            s0 = Settlement.from_items(N_SEATS, items, [])
            return Settlement.from_items(N_SEATS, items, [s for s in range(N_SEATS) if s0.deltas[s] > 0])
        w = state.winner
        if w is None:
            return Settlement.from_items(N_SEATS, items, [])
        for s in range(N_SEATS):
            if s == w:
                continue
            left = len(state.hands[s])
            if left == 1:
                if not r.one_card_exempt:
                    items.append(item("cards_left", w, s, b, cards=1))
            elif state.plays[s] == 0:
                items.append(item("guan_men", w, s, r.closed_factor * left * b, cards=left, factor=r.closed_factor))
            else:
                items.append(item("cards_left", w, s, left * b, cards=left))
        return Settlement.from_items(N_SEATS, items, [w])

    next_dealer_rule = "PDK-R2"  # a later match's dealer is the previous winner of the room
    first_match_rule = "PDK-R16"  # after a forfeit the next match is a first match

    def next_dealer(self, state: State) -> int | None:
        """PDK-R16: the winner of a finished match leads the next one (engine/rooms.py)."""
        return state.winner

    def next_is_first_match(self, state: State) -> bool:
        """PDK-R16: after a forfeit the next match is a first match again (`round` 1)."""
        return state.forfeiter is not None

    # ------------------------------------------------------------------ what may happen now

    def _beating_plays(self, state: State, seat: int) -> Sequence[tuple[int, ...]]:
        """Count vectors of every play that would be legal now for `seat` following the top move."""
        assert state.top is not None  # only called while following
        counts = mv.hand_counts(state.hands[seat])
        return _baodan_filter(state, seat, counts, mv.beating_counts(counts, state.top.move, state.rules.short_trio_last))

    def legal_counts(self, state: State) -> list[tuple[int, ...]]:
        """Every legal play of the seat to act, as rank-count vectors (the bot's candidates)."""
        if state.winner is not None or state.forfeiter is not None:  # = state.finished
            return []
        seat = state.turn
        if state.top is not None:
            return list(self._beating_plays(state, seat))
        counts = mv.hand_counts(state.hands[seat])
        plays: Sequence[tuple[int, ...]] = mv.all_counts(counts)
        if state.rules.first_play_3s and state.first_match and not state.led:
            plays = [c for c in plays if c[0]]  # PDK-R4: the first play contains 3s
        return list(_baodan_filter(state, seat, counts, plays))

    def legal_plays(self, state: State) -> list[tuple[int, ...]]:
        """Every legal play of the seat to act as card ids (the lowest cards of each rank)."""
        hand = state.hands[state.turn]
        return [mv.pick_cards(hand, c) for c in self.legal_counts(state)]

    def pass_legal(self, state: State, plays: list[tuple[int, ...]] | None = None) -> bool:
        """PDK-R7/R9: `plays` = the legal plays when already known."""
        if state.finished or state.top is None:
            return False
        if not state.rules.must_beat:
            return True
        if plays is not None:
            return not plays
        return not self._beating_plays(state, state.turn)

    def legal_actions(self, state: State) -> list[dict[str, Any]]:
        plays = self.legal_plays(state)
        out: list[dict[str, Any]] = [{"type": "play", "seat": state.turn, "cards": _names(p)} for p in plays]
        if self.pass_legal(state, plays):
            out.append({"type": "pass", "seat": state.turn})
        return out

    def turn_phase(self, state: State) -> tuple[int | None, str]:
        """The `turn` and `phase` of `view(state)`, read straight from the state (the live referee)."""
        return (None if state.finished else state.turn), ("finished" if state.finished else ("lead" if state.top is None else "follow"))

    def view(self, state: State) -> dict[str, Any]:
        top = state.top
        return {
            "phase": "finished" if state.finished else ("lead" if top is None else "follow"),
            "turn": None if state.finished else state.turn,
            "hands": [_names(h) for h in state.hands],
            "cards_left": [len(h) for h in state.hands],
            "trick": None if top is None else {
                "seat": top.seat, "cards": _names(top.cards), "type": top.move[0], "length": top.move[1],
                "rank": RANK_NAMES[top.move[2]],
            },
            "last_play": state.last,
            "plays": list(state.plays),
            "baodan": [s for s in range(N_SEATS) if len(state.hands[s]) == 1],
            "bombs": [{"seat": s, "rank": RANK_NAMES[k]} for s, k in state.bombs],
            "first_match": state.first_match,
            "winner": state.winner,
            "forfeit": state.forfeiter,
        }  # fmt: skip

    # ------------------------------------------------------------------ simulator and calculator

    def deal(self, rules: Rules, n_players: int, rng: random.Random, dealer: int | None = None) -> dict[str, Any]:
        """`dealt` fields from a seeded shuffle of the sorted 48-card deck, 16 cards a seat.

        Given the `dealer` of a first match, the hands are rotated so that the dealer holds `3s`
        (PDK-R2: the 3s holder leads); the shuffle itself is unchanged.
        """
        if n_players != N_SEATS:
            raise ValueError(f"paodekuai is played by 3 players, not {n_players}")
        cards = list(deck())
        shuffle(cards, rng)  # = rng.shuffle(cards)
        hands = [sorted(cards[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(N_SEATS)]
        if dealer is not None:
            shift = next(s for s, h in enumerate(hands) if THREE_SPADES in h) - dealer
            hands = [hands[(s + shift) % N_SEATS] for s in range(N_SEATS)]
        return {"hands": [_names(h) for h in hands]}

    def hand(self, query: dict[str, Any]) -> dict[str, Any]:
        """`paiju hand paodekuai CARDS`: the move type as led (section 4.3) and every reading."""
        if query.get("laizi") is not None:
            raise ValueError("paodekuai has no wild cards (--laizi is for ddz_laizi)")
        raw = query.get("cards")
        if not isinstance(raw, str | list):
            raise ValueError('give the cards, e.g. "3s 3h 3d 4c"')
        names = parse_cards(raw) if isinstance(raw, str) else list(raw)
        if not names:
            raise ValueError("no cards given")
        rules_raw = query.get("rules") or {}
        try:
            self.parse_rules(rules_raw)
        except Illegal as e:
            raise ValueError(e.message) from None
        full = set(deck())
        ids = []
        for c in names:
            cid = CARD_ID.get(c)
            if cid is None or cid not in full:
                raise ValueError(f"{c} is not in the Pao De Kuai deck (no jokers, no As, 2s is the only 2)")
            if cid in ids:
                raise ValueError(f"{c} is given twice")
            ids.append(cid)
        counts = mv.counts_of(ids)
        rds = mv.readings(counts)
        if not rds:
            return {"valid": False, "reason": f"PDK-R6 {' '.join(names)} is not a Pao De Kuai move (section 4)"}
        kind, n, key = mv.lead_reading(counts)
        out: dict[str, Any] = {"valid": True, "type": kind, "rank": RANK_NAMES[key], "length": n}
        if kind == "bomb":
            out["bomb"] = True
        if len(rds) > 1:
            out["readings"] = [
                {"type": k, "rank": RANK_NAMES[r], "length": m} for k, m, r in sorted(rds, key=lambda x: (-x[1], -x[2]))
            ]
        return out


def _bomb_items(state: State, top: Top) -> tuple[dict[str, Any], ...]:
    """P1: each other seat pays `bomb_points` × base to the bomber (nothing itemised at 0)."""
    r = state.rules
    pts = r.bomb_points * state.base
    if r.bomb_pay == "none" or pts == 0:
        return ()
    rank = RANK_NAMES[top.move[2]]
    return tuple(
        item("bomb", top.seat, o, pts, rank=rank, bomb_points=r.bomb_points) for o in range(N_SEATS) if o != top.seat
    )


PAODEKUAI = PaoDeKuai()
