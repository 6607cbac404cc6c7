"""Dou Dizhu classic (`ddz`), doudizhu.md; the shared reducer also serves `ddz_laizi` (ddz_laizi.py).

State: an immutable NamedTuple (copy-on-write; `steps()` keeps every state), hands as 54-bit masks
of the card ids of engine/cards.py, moves from engine/climbing/moves.py (rank-count vectors, the
classifier memoised). Phases: `bid` → (`rob`, ddz with option rob) → (`laizi`, ddz_laizi) → `play`
→ `end`. Error codes follow docs/rules/README.md; every message names its rule id. Checks of a `play`
in order: phase (`wrong_phase`), turn (`not_your_turn`), distinct cards and cards held
(`not_in_hand`), `as` and shape (`illegal_move`), beats the top (`does_not_beat`).

Choices where the rule file is silent:
- Event types of other games (`look`, `discard`, …) are `wrong_phase` (DDZ-R1 "an event type not
  allowed in the current phase").
- A `play` listing the same card twice is `not_in_hand` (DDZ-R15 "distinct cards … in the seat's
  hand": the second copy is a card the seat does not hold, as PDK-R5 says outright); a card not held
  is `not_in_hand`; both are checked before the shape.
- A `laizi` event with a joker rank is `illegal_move` (DDZ-R13: a bad value, like a bad bid).
- `forfeit` during the rob round counts as "before the landlord is fixed" (S8); a void match
  (`all_pass` = `redeal`) has no items and no winners; after a forfeit the winners are the seats
  with a positive delta (events.md §6).
- The rob round (DDZ-R7): the robbers are the seats after the caller up to (not including)
  `first`, since bidding stops at the first call and every earlier seat bid 0.
- §4.7's option totals (28,947 / 27,316) and the 27,846 of the K5 note count `pass` as well
  (27,472 + 1,475, 27,472 − 156, 27,472 + 374); the engine gives 28,946 / 27,315 card moves.
- `legal_actions` lists one canonical card choice per move (lowest card ids of each rank, laizi
  cards only where the hand lacks a real card) plus `pass` when following; `forfeit` (always legal,
  DDZ-R30) is not listed.
- Settlement items (S6–S8): one transfer per paying seat, kind `landlord_win`, `farmer_win` or
  `forfeit`, detail keys `base`, `unit`, `bid_factor`, `bomb_factor`, `bombs` (list of
  {seat, type, rank, factor}), `spring` (1 or 2), `spring_kind` (`spring`/`anti_spring`/None),
  `multiplier` (after the `max_multiplier` cap).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import lru_cache
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import Field

from engine.base import GameRules, Settlement, item
from engine.base import parse_rules as _parse_rules
from engine.cards import CARD_ID, CARD_NAME, RANK_INDEX, RANK_NAMES, rank_of, shuffle
from engine.climbing.laizi import Reading, laizi_moves, r27_key, readings, split_laizi
from engine.climbing.moves import (
    LEVEL_ROCKET,
    N_RANKS,
    Move,
    MoveRules,
    beats,
    classify,
    counts_of,
    counts_str,
    ddz_move_rules,
    generate,
    move_str,
)
from engine.errors import Illegal
from events.models import AnyEvent, Bid, Dealt, Forfeit, Laizi, MatchStarted, Pass, Play, Rob

DECK: frozenset[int] = frozenset(range(54))
RANK_OF: tuple[int, ...] = tuple(rank_of(i) for i in range(54))
CARD_BIT: dict[str, int] = {c: 1 << i for c, i in CARD_ID.items()}


class DouDizhuOptions(GameRules):
    """The options both Dou Dizhu games have, doudizhu.md §6."""

    spring: bool = Field(True, description="S3: spring / anti-spring doubles the unit")
    max_multiplier: Annotated[int, Field(ge=0)] = Field(0, description="S4: cap on the multiplier M (0 = no cap)")
    kicker_rocket: bool = Field(False, description="K2: allow BJ+RJ together as kickers (not a rocket then)")
    four_two_solo_pair: bool = Field(True, description="K3: the two four_two_solo kickers may be a pair (4444+55)")
    forfeit_mode: Literal["forfeiter_pays", "side_loses"] = Field(
        "forfeiter_pays", description="S8: a farmer forfeits: it pays 2U alone, or both farmers pay U"
    )


class DDZRules(DouDizhuOptions):
    """`ddz` options, doudizhu.md §6."""

    rob: bool = Field(False, description="DDZ-R7/R8: rob round (抢地主) after a call; each rob doubles the bid factor")
    all_pass: Literal["force_first", "redeal"] = Field(
        "force_first", description="DDZ-R6: all three decline: force `first` to be landlord, or void the match"
    )
    bomb_factor: Annotated[int, Field(ge=1, le=10)] = Field(2, description="S2: factor per bomb and rocket played")


class DDZState(NamedTuple):
    """One moment of a Dou Dizhu match (immutable; `_replace` copies on write)."""

    game: str
    rules: Any
    base: int
    first: int
    phase: str  # bid | rob | laizi | play | end
    turn: int | None
    hands: tuple[int, ...]  # bit masks: bit i = card id i
    bottom: tuple[int, ...]
    bids: tuple[int | None, ...] = (None, None, None)
    high_bid: int = 0
    caller: int | None = None
    rob_queue: tuple[int, ...] = ()
    robs: tuple[tuple[int, bool], ...] = ()
    landlord: int | None = None
    bid_factor: int = 1
    laizi: int | None = None
    top: Move | None = None
    top_seat: int | None = None
    passes: int = 0
    last_play: tuple[int, tuple[int, ...], tuple[str, ...], str] | None = None
    plays: tuple[int, ...] = (0, 0, 0)
    bombs: tuple[tuple[int, str, int], ...] = ()
    winner: int | None = None
    forfeit: int | None = None
    void: bool = False
    mr: MoveRules | None = None  # the move rules of `rules`, looked up once at `start`


_FIELD = {f: i for i, f in enumerate(DDZState._fields)}
_I_HANDS, _I_PLAYS, _I_BOMBS, _I_TOP, _I_TOP_SEAT = (_FIELD[f] for f in ("hands", "plays", "bombs", "top", "top_seat"))
_I_PASSES, _I_LAST_PLAY, _I_TURN, _I_PHASE, _I_WINNER = (
    _FIELD[f] for f in ("passes", "last_play", "turn", "phase", "winner")
)
_new_state = tuple.__new__


def _names(ids: Any) -> list[str]:
    return [CARD_NAME[i] for i in sorted(ids)]


def _mask(ids: Any) -> int:
    m = 0
    for i in ids:
        m |= 1 << i
    return m


def ids_of(mask: int) -> list[int]:
    """Card ids of a hand bit mask, ascending."""
    return [i for i in range(54) if mask >> i & 1]


def hand_size(mask: int) -> int:
    return mask.bit_count()


@lru_cache(maxsize=1 << 16)
def _counts(ids: tuple[int, ...]) -> tuple[int, ...]:
    c = [0] * N_RANKS
    for x in ids:
        c[RANK_OF[x]] += 1
    return tuple(c)


@lru_cache(maxsize=1 << 16)
def _play_info(cards: tuple[str, ...], mr: MoveRules) -> tuple[tuple[int, ...], int, bool, Move | None]:
    """(card ids, bit mask, all distinct, the move read without laizi) of a play's cards."""
    ids = tuple(CARD_ID[c] for c in cards)
    m = _mask(ids)
    return ids, m, m.bit_count() == len(ids), classify(_counts(ids), mr)


class DouDizhu:
    """The `ddz` game object (engine/base.py `Game`)."""

    id = "ddz"
    deal_rule = "DDZ-R2"  # `first` (the dealer) ∈ {0, 1, 2}
    seats = (3,)
    sim_players = 3
    Rules: type[GameRules] = DDZRules
    presets: Mapping[str, Mapping[str, Any]] = {"standard": {}}
    laizi_game = False

    # ---------------------------------------------------------------- setup

    def parse_rules(self, raw: Mapping[str, Any]) -> GameRules:
        return _parse_rules(self.Rules, self.presets, raw)

    def move_rules(self, rules: Any) -> MoveRules:
        return ddz_move_rules(rules.kicker_rocket, rules.four_two_solo_pair)

    def start(self, started: MatchStarted, dealt: Dealt, rules: Any) -> DDZState:
        """DDZ-R2: three hands of 17, 3 bottom cards, together the 54-card deck once."""
        if len(dealt.hands) != 3:
            raise Illegal("bad_deal", f"DDZ-R2 Dou Dizhu deals 3 hands, got {len(dealt.hands)}")
        for s, h in enumerate(dealt.hands):
            if len(h) != 17:
                raise Illegal("bad_deal", f"DDZ-R2 seat {s} was dealt {len(h)} cards, not 17")
        bottom = dealt.bottom or []
        if len(bottom) != 3:
            raise Illegal("bad_deal", f"DDZ-R2 the bottom must be 3 cards, got {len(bottom)}")
        masks = []
        union = 0
        for h in (*dealt.hands, bottom):
            m = 0
            for c in h:
                bit = CARD_BIT.get(c)
                if bit is None:
                    raise Illegal("bad_deal", f"DDZ-R2 {c!r} is not a card of the 54-card deck")
                m |= bit
            masks.append(m)
            if m & union or m.bit_count() != len(h):
                every = [c for h in dealt.hands for c in h] + list(bottom)
                dup = next(c for i, c in enumerate(every) if c in every[:i])
                raise Illegal("bad_deal", f"DDZ-R2 the deal is not the 54-card deck: {dup} appears twice")
            union |= m
        if dealt.wall is not None or dealt.stacks is not None:
            raise Illegal("bad_deal", "DDZ-R2 a Dou Dizhu deal has only hands and bottom")
        if not 0 <= started.dealer <= 2:
            raise Illegal("bad_deal", f"DDZ-R2 first {started.dealer} is not a seat")
        return DDZState(
            game=self.id,
            rules=rules,
            base=started.base,
            first=started.dealer,
            phase="bid",
            turn=started.dealer,
            hands=tuple(masks[:3]),
            bottom=tuple(CARD_ID[c] for c in bottom),
            mr=self.move_rules(rules),
        )

    # ---------------------------------------------------------------- reducer

    def __init__(self) -> None:
        self._handlers: dict[type, Any] = {
            Play: self._play, Pass: self._pass, Bid: self._bid, Rob: self._rob, Laizi: self._laizi,
            Forfeit: self._forfeit,
        }  # fmt: skip

    def reducers(self) -> Mapping[type, Any]:
        """The driver's optional hook (engine/replay.py `_Run._plain`): event class → the function
        `apply` calls for it, `fn(state, event)`, once `apply`'s own first check passes (not
        after the end, DDZ-R22, which the driver checks first itself); a class not listed is
        `apply`'s to refuse (DDZ-R1)."""
        return self._handlers

    def apply(self, state: DDZState, event: AnyEvent) -> DDZState:
        if state.phase == "end":
            raise Illegal("after_end", f"DDZ-R22 {event.type} after the match ended")
        fn = self._handlers.get(event.__class__)
        if fn is None:
            raise Illegal("wrong_phase", f"DDZ-R1 a {event.type} event is not part of Dou Dizhu ({state.phase} phase)")
        return fn(state, event)  # type: ignore[no-any-return]

    def _forfeit(self, state: DDZState, ev: Forfeit) -> DDZState:
        """DDZ-R30: any seat, any time before the end; settled by S8."""
        return state._replace(phase="end", turn=None, forfeit=ev.seat)

    def _turn(self, state: DDZState, seat: int, what: str, rule: str = "DDZ-R3") -> None:
        if seat != state.turn:
            raise Illegal("not_your_turn", f"{rule} seat {seat} cannot {what}: it is seat {state.turn}'s turn")

    # --- bidding

    def _bid(self, state: DDZState, ev: Bid) -> DDZState:
        if state.phase != "bid":
            raise Illegal("wrong_phase", f"DDZ-R1 bid during the {state.phase} phase: bidding is over")
        self._turn(state, ev.seat, "bid", "DDZ-R4")
        if ev.value not in (0, 1):
            raise Illegal("illegal_move", f"DDZ-R4 bid value {ev.value}: ddz bids are 0 (不叫) or 1 (叫地主) (DDZ-R11)")
        bids = list(state.bids)
        bids[ev.seat] = ev.value
        st = state._replace(bids=tuple(bids))
        if ev.value == 1:
            if not state.rules.rob:
                return self._fix_landlord(st, ev.seat, 1)
            robbers = []
            s = (ev.seat + 1) % 3
            while s != state.first:
                robbers.append(s)
                s = (s + 1) % 3
            if not robbers:
                return self._fix_landlord(st, ev.seat, 1)
            return st._replace(phase="rob", caller=ev.seat, rob_queue=tuple(robbers), turn=robbers[0])
        nxt = (ev.seat + 1) % 3
        if nxt == state.first:  # DDZ-R6 all three declined
            if state.rules.all_pass == "redeal":
                return st._replace(phase="end", turn=None, void=True)
            return self._fix_landlord(st, state.first, 1)
        return st._replace(turn=nxt)

    def _rob(self, state: DDZState, ev: Rob) -> DDZState:
        if state.phase != "rob":
            why = "rob is off" if not getattr(state.rules, "rob", False) else f"no rob round now ({state.phase})"
            rule = "DDZ-R11" if self.laizi_game else "DDZ-R7"
            raise Illegal("wrong_phase", f"{rule} rob event rejected: {why}")
        self._turn(state, ev.seat, "rob", "DDZ-R7")
        robs = (*state.robs, (ev.seat, ev.value))
        queue = state.rob_queue[1:]
        caller = state.caller
        if caller is None:  # unreachable: the rob phase always has a caller
            raise Illegal("wrong_phase", "DDZ-R7 rob without a caller")
        if not queue and ev.seat != caller and any(v for _, v in robs):
            queue = (caller,)
        if queue:
            return state._replace(robs=robs, rob_queue=queue, turn=queue[0])
        k = sum(1 for _, v in robs if v)
        landlord = next((s for s, v in reversed(robs) if v), caller)
        return self._fix_landlord(state._replace(robs=robs, rob_queue=()), landlord, 2**k)

    def _fix_landlord(self, state: DDZState, landlord: int, factor: int) -> DDZState:
        """DDZ-R12: the bottom joins the landlord's hand; the landlord leads (DDZ-R14)."""
        hands = list(state.hands)
        hands[landlord] = hands[landlord] | _mask(state.bottom)
        if self.laizi_game:
            return state._replace(hands=tuple(hands), landlord=landlord, bid_factor=factor, phase="laizi", turn=None)
        return state._replace(hands=tuple(hands), landlord=landlord, bid_factor=factor, phase="play", turn=landlord)

    def _laizi(self, state: DDZState, ev: Laizi) -> DDZState:
        raise Illegal("wrong_phase", "DDZ-R13 a laizi event is not part of ddz (classic has no wild card)")

    # --- play

    def _declared(self, state: DDZState, ev: Play, ids: tuple[int, ...]) -> Move | None:
        """The move of a play as declared (classic: no `as`)."""
        if ev.as_:
            raise Illegal("illegal_move", f"DDZ-R23 `as` {ev.as_} in ddz: classic plays have no declarations")
        return classify(_counts(ids), state.mr or self.move_rules(state.rules))

    def _shown(self, state: DDZState, ev: Play, ids: tuple[int, ...]) -> str:
        """The play's ranks for a message (laizi: which `as` was declared)."""
        lr = state.laizi
        plain = counts_str(counts_of(x for x in ids if RANK_OF[x] != lr))
        m = sum(1 for x in ids if RANK_OF[x] == lr)
        return plain + (f" + {m} laizi as {list(ev.as_ or ())}" if m else "")

    def _play(self, state: DDZState, ev: Play) -> DDZState:
        if state.phase != "play":
            extra = " (before the laizi event, DDZ-R13)" if state.phase == "laizi" else ""
            raise Illegal("wrong_phase", f"DDZ-R1 play during the {state.phase} phase{extra}")
        fields = ev.__dict__  # plain dict look-ups: a pydantic attribute goes through its __getattr__ hook
        seat, as_ = fields["seat"], fields["as_"]
        if seat != state.turn:
            self._turn(state, seat, "play")
        mr = state.mr or self.move_rules(state.rules)
        ids, pm, distinct, plain_mv = _play_info(tuple(fields["cards"]), mr)
        if not distinct:
            raise Illegal("not_in_hand", f"DDZ-R15 a play lists a card twice: {' '.join(ev.cards)}")
        hand = state.hands[seat]
        if pm & ~hand:
            missing = [CARD_NAME[i] for i in ids if not hand >> i & 1]
            raise Illegal("not_in_hand", f"DDZ-R15 seat {seat} does not hold {' '.join(missing)}")
        mv = plain_mv if not self.laizi_game and not as_ else self._declared(state, ev, ids)
        if mv is None:
            raise Illegal("illegal_move", f"DDZ-R16 {self._shown(state, ev, ids)} is not a move of section 4 (K1–K6)")
        if state.top is not None and not beats(mv, state.top):
            top_level = state.top.level
            rule = "DDZ-C1" if top_level == LEVEL_ROCKET else "DDZ-C2" if top_level or mv.level else "DDZ-C3"
            if self.laizi_game and top_level and mv.level:
                rule += "/§4.6"
            raise Illegal(
                "does_not_beat",
                f"{rule} {move_str(mv)} cannot beat {move_str(state.top)} (seat {state.top_seat})",
            )
        hands = list(state.hands)
        left = hands[seat] = hand & ~pm
        plays = list(state.plays)
        plays[seat] += 1
        bombs = state.bombs
        if mv.level:
            bombs = (*bombs, (seat, mv.type, mv.key))
        lst = list(state)
        lst[_I_HANDS] = tuple(hands)
        lst[_I_PLAYS] = tuple(plays)
        lst[_I_BOMBS] = bombs
        lst[_I_TOP] = mv
        lst[_I_TOP_SEAT] = seat
        lst[_I_PASSES] = 0
        lst[_I_LAST_PLAY] = (seat, ids, tuple(as_) if as_ else (), mv.type)
        if left:
            lst[_I_TURN] = (seat + 1) % 3
        else:
            lst[_I_PHASE], lst[_I_TURN], lst[_I_WINNER] = "end", None, seat
        return _new_state(DDZState, lst)

    def _pass(self, state: DDZState, ev: Pass) -> DDZState:
        if state.phase != "play":
            raise Illegal("wrong_phase", f"DDZ-R1 pass during the {state.phase} phase")
        seat = ev.__dict__["seat"]  # a plain dict look-up, as in `_play`
        if seat != state.turn:
            self._turn(state, seat, "pass")
        if state.top is None:
            raise Illegal("must_play", f"DDZ-R17 seat {seat} leads the trick and cannot pass")
        lst = list(state)  # copy-on-write by index: the hot path of a replay
        if state.passes == 1:  # DDZ-R20: two passes end the trick
            lst[_I_TOP], lst[_I_PASSES], lst[_I_TURN] = None, 0, state.top_seat
        else:
            lst[_I_PASSES], lst[_I_TURN] = 1, (seat + 1) % 3
        return _new_state(DDZState, lst)

    # ---------------------------------------------------------------- end and settlement

    def is_finished(self, state: DDZState) -> bool:
        return state.phase == "end"

    def bomb_factor_of(self, rules: Any, kind: str) -> int:
        return int(rules.bomb_factor)

    def settle(self, state: DDZState) -> Settlement:
        """S1–S9, itemised: one transfer per paying seat."""
        b = state.base
        rules = state.rules
        if state.void:
            return Settlement.from_items(3, [], [])
        L = state.landlord
        if state.forfeit is not None and (L is None or (self.laizi_game and state.laizi is None)):
            f = state.forfeit
            items = [item("forfeit", s, f, b, base=b, stage="before_landlord") for s in range(3) if s != f]
            return Settlement.from_items(3, items, [s for s in range(3) if s != f])
        assert L is not None
        bombs = []
        bm = 1
        for seat, kind, key in state.bombs:
            fac = self.bomb_factor_of(rules, kind)
            bm *= fac
            bombs.append({"seat": seat, "type": kind, "rank": RANK_NAMES[key] if kind != "rocket" else "", "factor": fac})
        farmers = [s for s in range(3) if s != L]
        sp, sp_kind = 1, None
        if state.forfeit is None and rules.spring:
            if state.winner == L and all(state.plays[f] == 0 for f in farmers):
                sp, sp_kind = 2, "spring"
            elif state.winner != L and state.plays[L] == 1:
                sp, sp_kind = 2, "anti_spring"
        m = state.bid_factor * bm * sp
        if rules.max_multiplier > 0:
            m = min(m, rules.max_multiplier)
        u = b * m
        detail = {
            "base": b, "unit": u, "bid_factor": state.bid_factor, "bomb_factor": bm, "bombs": bombs,
            "spring": sp, "spring_kind": sp_kind, "multiplier": m,
        }  # fmt: skip
        if state.forfeit is None:
            if state.winner == L:
                items = [item("landlord_win", L, f, u, **detail) for f in farmers]
                return Settlement.from_items(3, items, [L])
            items = [item("farmer_win", f, L, u, **detail) for f in farmers]
            return Settlement.from_items(3, items, farmers)
        f = state.forfeit
        if f == L:
            items = [item("forfeit", s, L, u, **detail) for s in farmers]
        elif rules.forfeit_mode == "forfeiter_pays":
            items = [item("forfeit", L, f, 2 * u, **detail)]
        else:
            items = [item("forfeit", L, s, u, **detail) for s in farmers]
        s = Settlement.from_items(3, items, [])
        return Settlement(s.deltas, tuple(i for i, d in enumerate(s.deltas) if d > 0), s.items)

    # ---------------------------------------------------------------- actions and view

    def hand_counts(self, state: DDZState, seat: int) -> tuple[tuple[int, ...], int]:
        """(non-laizi rank counts, number of laizi cards) of a seat's hand."""
        lr = state.laizi
        c = [0] * N_RANKS
        m = 0
        for x in ids_of(state.hands[seat]):
            r = rank_of(x)
            if r == lr:
                m += 1
            else:
                c[r] += 1
        return tuple(c), m

    def moves_for(self, state: DDZState, seat: int, top: Move | None) -> list[Reading]:
        """Every playable move of a seat (one card choice each), beating `top` when given."""
        mr = self.move_rules(state.rules)
        counts, m = self.hand_counts(state, seat)
        if self.laizi_game:
            return laizi_moves(counts, m, state.laizi if state.laizi is not None else -1, mr, top)
        return [Reading(mv, ()) for mv in generate(counts, mr, top)]

    def cards_for(self, state: DDZState, seat: int, rd: Reading) -> list[str]:
        """Canonical cards of a reading: lowest ids of each rank, laizi cards for the `as` entries."""
        lr = state.laizi
        by_rank: dict[int, list[int]] = {}
        lz: list[int] = []
        for x in ids_of(state.hands[seat]):
            r = rank_of(x)
            (lz if r == lr else by_rank.setdefault(r, [])).append(x)
        need = list(rd.move.counts)
        for r in rd.as_:
            need[r] -= 1
        out: list[int] = []
        for r, k in enumerate(need):
            if k:
                out.extend(by_rank[r][:k])
        out.extend(lz[: len(rd.as_)])
        return [CARD_NAME[i] for i in out]

    def play_payload(self, state: DDZState, seat: int, rd: Reading) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "play", "seat": seat, "cards": self.cards_for(state, seat, rd)}
        if rd.as_:
            d["as"] = rd.as_names()
        return d

    def bid_values(self, state: DDZState) -> list[int]:
        return [0, 1]

    def legal_actions(self, state: DDZState) -> list[dict[str, Any]]:
        if state.phase == "end":
            return []
        if state.phase == "bid":
            return [{"type": "bid", "seat": state.turn, "value": v} for v in self.bid_values(state)]
        if state.phase == "rob":
            return [{"type": "rob", "seat": state.turn, "value": v} for v in (False, True)]
        if state.phase == "laizi":
            return [{"type": "laizi", "rank": r} for r in RANK_NAMES[:13]]
        seat = state.turn
        assert seat is not None
        out = [self.play_payload(state, seat, rd) for rd in self.moves_for(state, seat, state.top)]
        if state.top is not None:
            out.append({"type": "pass", "seat": seat})
        return out

    def turn_phase(self, state: DDZState) -> tuple[int | None, str]:
        """The `turn` and `phase` of `view(state)`, read straight from the state (the live referee)."""
        return state.turn, state.phase

    def view(self, state: DDZState) -> dict[str, Any]:
        lp = state.last_play
        top = state.top
        bm = 1
        for _, kind, _ in state.bombs:
            bm *= self.bomb_factor_of(state.rules, kind)
        return {
            "phase": state.phase,
            "turn": state.turn,
            "hands": [_names(ids_of(h)) for h in state.hands],
            "landlord": state.landlord,
            "first": state.first,
            "bottom": _names(state.bottom) if state.landlord is not None else None,
            "bids": list(state.bids),
            "robs": [[s, v] for s, v in state.robs],
            "laizi": RANK_NAMES[state.laizi] if state.laizi is not None else None,
            "trick": None if top is None else {"seat": state.top_seat, "type": top.type, "cards": counts_str(top.counts)},
            "last_play": None if lp is None else {"seat": lp[0], "cards": [CARD_NAME[i] for i in lp[1]], "as": list(lp[2]), "type": lp[3]},
            "plays": list(state.plays),
            "bombs": [{"seat": s, "type": k, "rank": RANK_NAMES[r] if k != "rocket" else ""} for s, k, r in state.bombs],
            "multiplier": state.bid_factor * bm,
            "winner": state.winner,
            "forfeit": state.forfeit,
            "void": state.void,
        }

    # ---------------------------------------------------------------- simulator and calculator

    def deal(self, rules: Any, n_players: int, rng: random.Random) -> dict[str, Any]:
        """A seeded shuffle of the sorted 54-card deck: 17 cards each, 3 bottom cards."""
        deck = sorted(range(54))
        shuffle(deck, rng)  # = rng.shuffle(deck)
        hands = [[CARD_NAME[i] for i in sorted(deck[17 * s : 17 * s + 17])] for s in range(3)]
        return {"hands": hands, "bottom": [CARD_NAME[i] for i in sorted(deck[51:])]}

    def hand_rules(self, query: dict[str, Any]) -> Any:
        """The `rules` of a `paiju hand` query; a bad option is a ValueError with the reason."""
        try:
            return self.parse_rules(query.get("rules") or {})
        except Illegal as e:
            raise ValueError(str(e)) from None

    def hand(self, query: dict[str, Any]) -> dict[str, Any]:
        """`paiju hand ddz CARDS`: the move type of a set of cards (docs/cli.md)."""
        rules = self.hand_rules(query)
        ids = _parse_card_query(query)
        if query.get("laizi") not in (None, ""):
            raise ValueError("ddz has no laizi; use ddz_laizi")
        mv = classify(counts_of(ids), self.move_rules(rules))
        if mv is None:
            return {"valid": False, "reason": f"DDZ-R16 {counts_str(counts_of(ids))} is not a move of section 4 (K1–K6)"}
        return _move_json(mv)


def _parse_card_query(query: dict[str, Any]) -> list[int]:
    from events.notation import parse_cards

    raw = query.get("cards")
    if isinstance(raw, list):
        raw = " ".join(raw)
    if not isinstance(raw, str) or not raw.strip():
        raise ValueError("cards: give the cards, e.g. '3s 3h 3d 4c'")
    names = parse_cards(raw)
    if len(set(names)) != len(names):
        raise ValueError(f"a card appears twice in {raw!r}")
    return [CARD_ID[c] for c in names]


def _move_json(mv: Move) -> dict[str, Any]:
    return {"valid": True, "type": mv.type, "rank": RANK_NAMES[mv.key], "length": mv.length}


def readings_json(ids: list[int], laizi_rank: str, rules_mr: MoveRules) -> dict[str, Any]:
    """`paiju hand ddz_laizi CARDS --laizi R`: every legal reading with its `as`."""
    if laizi_rank not in RANK_INDEX or RANK_INDEX[laizi_rank] > 12:
        raise ValueError(f"laizi {laizi_rank!r}: the laizi rank is one of 3..A, 2 (DDZ-R13)")
    lr = RANK_INDEX[laizi_rank]
    plain, m = split_laizi(ids, lr)
    rds = sorted(readings(plain, m, lr, rules_mr), key=lambda rd: r27_key(rd, lr))  # DDZ-R27 choice first
    out = []
    for rd in rds:
        d = _move_json(rd.move)
        d["as"] = rd.as_names()
        out.append(d)
    res: dict[str, Any] = {"valid": bool(out), "readings": out}
    if not out:
        res["reason"] = f"DDZ-R16 no declaration makes {counts_str(plain)} + {m} laizi a move of section 4"
    return res


DDZ = DouDizhu()
