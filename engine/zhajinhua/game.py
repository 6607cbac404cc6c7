"""Zha Jin Hua (炸金花) betting engine and settlement — docs/rules/zhajinhua.md.

A pure reducer over the contract's events: `start` checks the deal (ZJH-R2) and takes the antes
(ZJH-R3); `apply` handles `look`, `bet`, `compare`, `open`, `fold`, `allin`, `timeout`, `forfeit`
(ZJH-R6..R15) and derives the turn order and rounds (ZJH-R4), the round cap showdown (ZJH-R5,
ZJH-R16) and the gold-mode automatic comparison of a short stack (ZJH-R14); `settle` gives the
pot (S1..S4) and the special rewards (S5) as itemised transfer lines.

Choices where the rule file leaves room (see also hands.py):
- Error codes follow ZJH-R1, which is more specific than the generic table of docs/rules/README.md:
  a bet amount outside the stake table, or a seat that cannot afford an action in `gold`, is
  `illegal_bet` (so is an `allin` whose smaller stack is not below `allin_threshold` × base: that is
  the betting rule refusing it); an action not allowed in the current state (a `look` by a seen seat
  or before `look_min_round`; `compare`/`open`/`allin` before `compare_min_round` or with the wrong
  number of active seats; a bad `target`; `allin` in `room_card`; a `bet`/`compare`/`open` while an
  all-in waits for its call; `timeout` with `turn_seconds` = 0; any action by a seat that is out; an
  event type this game does not have) is `wrong_phase`; an actor-only action (or a `timeout`) for a
  seat that is not the actor is `not_your_turn`. Checks run in that order: out, then mode/timer,
  then turn, then state, then amount.
- A `compare` is allowed with two seats left (it then ends the match like `open`).
- `seen_levels` may repeat a value (section 6 only asks each to be ≥ its blind level): a seen bet
  then names the lowest level j ≥ k with that amount (so a seen seat can always call; it raises to
  a higher level only with a higher amount); `max_rounds` is ignored in
  `gold` (section 6: room_card only); a gold-mode `deal` draws stacks for base 1 (the simulator's).
- The loser of an `open`/all-in call stays "active" in the state (the match is over); `view` marks
  it in `out`.
- An all-in opening does not start a new round; while it is pending nobody is auto-compared.
- Special rewards in `gold` (S5): the payer's remaining stack is its stack after S4 minus what it
  already paid; a rewarded seat's stack grows by what it receives.
- `winners` (events.md §6): the pot winner(s); in a match where a seat forfeited, the seats whose
  delta is positive (a forfeited seat paid a 豹子 reward under `any_holder` can be one, a pot winner
  who paid more rewards than it won is then none).
- Items: every chip that entered the pot is a line from the seat that put it in to the winner who
  receives it, one line per (payer, kind, receiver): kinds `ante`, `bet`, `compare_cost`,
  `open_cost`, `allin`, each with `seqs` (the events that put those chips in; the ante is seq 1).
  A winner's own chips go back to it first (no line); with a shared pot the remaining chips are
  handed to the winners in action order, payer by payer. Rewards are `special_reward` lines with
  `hand`, `per_payer` (reward × base × n for `ante_sum`) and `capped` (gold: paid less).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise, product
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from engine.base import GameRules, Settlement, item
from engine.base import parse_rules as _parse_rules
from engine.cards import CARD_NAME
from engine.cards import shuffle as _shuffle
from engine.errors import Illegal
from engine.zhajinhua.hands import BAO_ZI, CATEGORIES, SHUN_JIN, Evaluator, describe, parse_hand
from events.models import AnyEvent, Dealt, MatchStarted
from events.notation import parse_cards


class Rules(GameRules):
    """House-rule options of zhajinhua.md section 6."""

    mode: Literal["room_card", "gold"] = Field("room_card", description="room_card (房卡: round cap) or gold (金币: stacks, all-in, autocompare); ZJH-R5/R14/R15")
    look_min_round: Annotated[int, Field(ge=1, le=10)] = Field(1, description="first round in which a seat may look (闷牌 rounds = value - 1); ZJH-R7")
    compare_min_round: Annotated[int, Field(ge=1, le=10)] = Field(2, description="first round allowing compare, open and all-in (第几轮可以开牌和比牌); ZJH-R9/R10/R15")
    max_rounds: Annotated[int, Field(ge=0, le=100)] = Field(20, description="room_card round cap (封顶轮数): showdown after this round; 0 = none; ZJH-R5")
    blind_levels: list[int] = Field([1, 2, 5, 10], description="blind (闷) bet per level, in units of base; increasing, each >= 1")
    seen_levels: list[int] = Field([2, 4, 10, 20], description="seen (看牌) bet per level, in units of base; same length, each >= the blind level")
    cap_level: Annotated[int, Field(ge=1)] = Field(4, description="highest level allowed (封顶), 1..len(levels)")
    compare_cost_factor: Annotated[int, Field(ge=1, le=2)] = Field(1, description="compare/open cost as a multiple of the actor's call amount (一倍注); ZJH-R9/R10")
    suit_tiebreak: bool = Field(False, description="equal hands decided by the first card's suit s > h > c > d (4.2)")
    a23: Literal["lowest", "second"] = Field("lowest", description="A-2-3 is the lowest straight, or second only to Q-K-A (4.1)")
    special_235: bool = Field(False, description="off-suit 2-3-5 beats every 豹子 (4.3)")
    special_rewards: Literal["winner", "any_holder", "off"] = Field("winner", description="who collects the 豹子/顺金 reward (S5)")
    baozi_reward: Annotated[int, Field(ge=0, le=100)] = Field(10, description="豹子 reward per payer, × base (S5)")
    shunjin_reward: Annotated[int, Field(ge=0, le=100)] = Field(5, description="顺金 reward per payer, × base (S5)")
    reward_basis: Literal["base", "ante_sum"] = Field("base", description="ante_sum multiplies each reward payment by n (S5)")
    turn_seconds: Annotated[int, Field(ge=0, le=120)] = Field(12, description="action timer; 0 = no timer, `timeout` rejected; ZJH-R12")
    allin_threshold: Annotated[int, Field(ge=1, le=1000)] = Field(10, description="all-in allowed when the smaller active stack is below this × base; ZJH-R15")

    @model_validator(mode="after")
    def _levels(self) -> Rules:
        b, s = self.blind_levels, self.seen_levels
        if not b or any(x < 1 for x in b) or any(x >= y for x, y in pairwise(b)):
            raise ValueError(f"blind_levels must be increasing integers >= 1, got {b}")
        if len(s) != len(b) or any(x < y for x, y in zip(s, b, strict=True)):
            raise ValueError(f"seen_levels must have {len(b)} values, each >= its blind level, got {s}")
        if self.cap_level > len(b):
            raise ValueError(f"cap_level {self.cap_level} exceeds the {len(b)} levels")
        return self


PRESETS: dict[str, dict[str, Any]] = {"standard": {}}
"""docs/rules/README.md: every game has the preset `standard`; Zha Jin Hua has no other (gold play is the
option `mode: gold`, section 6)."""

OUT_REASONS = ("fold", "timeout", "forfeit", "compare", "autocompare", "open", "allin", "showdown")


@dataclass(frozen=True)
class State:
    """The table after an event. Immutable: every `apply` builds a new one (`_Work.freeze`: a copy
    of the previous state's field dict, a quarter of the cost of the 21-field frozen `__init__`;
    no `slots`, so that the copy is one C-level dict update)."""

    rules: Rules
    n: int
    dealer: int
    base: int
    hands: tuple[tuple[int, ...], ...]
    gold: bool
    start_stacks: tuple[int, ...] | None
    active: tuple[bool, ...]
    seen: tuple[bool, ...]
    out: tuple[str | None, ...]
    contrib: tuple[int, ...]
    stacks: tuple[int, ...] | None
    chips: tuple[tuple[int, str, int, int], ...]
    """Pot ledger: (seat, kind, amount, seq) for every chip put in (S1)."""
    level: int
    round: int
    actor: int | None
    allin: tuple[int, int] | None
    """Pending all-in: (opener, amount)."""
    finished: bool = False
    winners: tuple[int, ...] = ()
    end: str | None = None
    notes: tuple[str, ...] = ()

    def pos(self, seat: int) -> int:
        """Action position p(s) = (s - dealer - 1) mod n."""
        return (seat - self.dealer - 1) % self.n

    def call(self, seat: int) -> int:
        """The call amount of a seat: B[k] or S[k], × base (3.2)."""
        table = self.rules.seen_levels if self.seen[seat] else self.rules.blind_levels
        return table[self.level - 1] * self.base

    def active_seats(self) -> list[int]:
        return _seats_of(self.active, self.n)


_SEATS: dict[tuple[bool, ...], tuple[int, ...]] = {
    flags: tuple(s for s, f in enumerate(flags) if f) for k in range(2, 7) for flags in product((False, True), repeat=k)
}
"""Every `active` tuple of 2..6 seats -> its active seats (124 entries, data)."""


def _seats_of(active: Sequence[bool], n: int) -> list[int]:
    """`[s for s in range(n) if active[s]]`: the active seats in seat order, by table when `active`
    is a tuple of n bools."""
    try:
        if len(active) == n:
            return list(_SEATS[active])  # type: ignore[index]
    except (KeyError, TypeError):  # not a tuple of 2..6 bools
        pass
    return [s for s in range(n) if active[s]]


@lru_cache(maxsize=256)
def _stakes(table: tuple[int, ...], level: int, cap: int, base: int) -> dict[int, int]:
    """ZJH-R8: the allowed bet amounts at `level` (table[j-1] × base for level <= j <= cap), each
    naming its lowest level (a repeated seen amount). Shared: callers must not edit it."""
    allowed: dict[int, int] = {}
    for j in range(level, cap + 1):
        allowed.setdefault(table[j - 1] * base, j)
    return allowed


class _Work:
    """Mutable copy of a State used inside one `apply`; `freeze()` makes the new State.

    The work copy's `__dict__` is a copy of the state's field dict (one C-level dict copy, field
    order kept; `st`, the state before, lives in a slot outside it). Its sequences stay tuples,
    replaced (never edited) by the few methods that change them, so that `freeze` hands the dict
    over to the new State as it is: an apply copies the fields once, not twice."""

    __slots__ = ("__dict__", "st")
    active: tuple[bool, ...]
    seen: tuple[bool, ...]
    out: tuple[str | None, ...]
    contrib: tuple[int, ...]
    stacks: tuple[int, ...] | None
    chips: tuple[tuple[int, str, int, int], ...]
    notes: tuple[str, ...]
    level: int
    round: int
    actor: int | None
    allin: tuple[int, int] | None
    finished: bool
    winners: tuple[int, ...]
    end: str | None

    def __init__(self, st: State) -> None:
        self.st = st
        self.__dict__ = st.__dict__.copy()

    @property
    def ev(self) -> Evaluator:
        r = self.st.rules
        return _evaluator(r.a23 == "second", r.suit_tiebreak, r.special_235)

    # -- helpers
    def call(self, seat: int) -> int:
        r = self.st.rules
        table = r.seen_levels if self.seen[seat] else r.blind_levels
        return table[self.level - 1] * self.st.base

    def actives(self) -> list[int]:
        return _seats_of(self.active, self.st.n)

    def note(self, text: str) -> None:
        self.notes = (*self.notes, text)

    def set_out(self, seat: int, reason: str) -> None:
        self.out = _with(self.out, seat, reason)

    def put(self, seat: int, amount: int, kind: str, seq: int) -> None:
        self.contrib = _with(self.contrib, seat, self.contrib[seat] + amount)
        if self.stacks is not None:
            self.stacks = _with(self.stacks, seat, self.stacks[seat] - amount)
        self.chips = (*self.chips, (seat, kind, amount, seq))

    def beats(self, a: int, b: int) -> bool:
        return self.ev.beats(self.st.hands[a], self.st.hands[b])

    def knock_out(self, seat: int, reason: str) -> None:
        self.active = _with(self.active, seat, False)
        self.out = _with(self.out, seat, reason)

    def finish(self, winners: list[int], how: str, seq: int) -> None:
        self.finished, self.winners, self.end, self.actor = True, tuple(winners), how, None
        self.allin = None
        self.note(f"seq {seq}: match ends ({how}); winners {winners}")

    def showdown(self, seq: int, how: str) -> None:
        """ZJH-R16 / 4.5: all active hands compared; the winner(s) take the pot."""
        seats = self.actives()
        idx = self.ev.showdown([self.st.hands[s] for s in seats])
        for s in seats:
            if seats.index(s) not in idx:
                self.set_out(s, "showdown")
        self.finish([seats[i] for i in idx], how, seq)

    def enter(self, t: int, seq: int) -> None:
        """Seat t becomes the actor; ZJH-R14 autocompares a short gold stack."""
        self.actor = t
        if self.stacks is None or self.allin is not None or self.stacks[t] >= self.call(t):
            return
        others = [o for o in self.actives() if o != t]
        if all(self.beats(t, o) for o in others):
            self.note(f"seq {seq}: ZJH-R14 seat {t} stack {self.stacks[t]} < call {self.call(t)}: autocompare wins")
            self.finish([t], "autocompare", seq)
            return
        self.note(f"seq {seq}: ZJH-R14 seat {t} stack {self.stacks[t]} < call {self.call(t)}: autocompare loses, out")
        self.knock_out(t, "autocompare")
        self.after_turn(t, seq)

    def after_turn(self, s: int, seq: int) -> None:
        """ZJH-R4 turn passing after a turn-ending action of seat s (ZJH-R5 round cap, R17 end)."""
        act = self.actives()
        if len(act) == 1:
            self.finish(act, "last_standing", seq)
            return
        t, new_round = _next_actor(self.st, self.active, s)
        if new_round:
            r = self.st.rules
            if not self.st.gold and r.max_rounds > 0 and self.round + 1 == r.max_rounds + 1:
                self.note(f"seq {seq}: ZJH-R5 round {r.max_rounds} was the last: showdown")
                self.showdown(seq, "round_cap")
                return
            self.round += 1
        self.enter(t, seq)

    def freeze(self) -> State:
        """The new State: this work copy's field dict, handed over (the work copy is done)."""
        new = _new_state(State)
        _set_attr(new, "__dict__", self.__dict__)
        return new


_new_state = object.__new__
_set_attr = object.__setattr__


def _with(t: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    """The tuple t with item i replaced by v."""
    return (*t[:i], v, *t[i + 1 :])


@lru_cache(maxsize=8)
def _evaluator(a23_second: bool, suit_tiebreak: bool, special_235: bool) -> Evaluator:
    """The (stateless) Evaluator of a rule set, built once."""
    return Evaluator(a23_second, suit_tiebreak, special_235)


def _cards(hand: tuple[int, ...]) -> str:
    return " ".join(CARD_NAME[c] for c in hand)


class ZhaJinHua:
    """The `zhajinhua` game object (engine/base.py `Game`)."""

    id = "zhajinhua"
    deal_rule = "ZJH-R2"  # `dealer` ∈ 0..n−1
    seats = (2, 3, 4, 5, 6)
    sim_players = 5
    Rules = Rules
    presets = PRESETS

    # ------------------------------------------------------------------ setup
    def parse_rules(self, raw: Mapping[str, Any]) -> Rules:
        return _parse_rules(Rules, PRESETS, raw)

    def start(self, started: MatchStarted, dealt: Dealt, rules: Rules) -> State:
        """ZJH-R2 deal check, ZJH-R3 antes; the first actor is the seat after the dealer."""
        n = len(started.players)
        if not 2 <= n <= 6 or len(dealt.hands) != n:
            raise Illegal("bad_deal", f"ZJH-R2 {len(dealt.hands)} hands for {n} players (2..6)")
        hands: list[tuple[int, ...]] = []
        for s, h in enumerate(dealt.hands):
            try:
                hands.append(parse_hand(h))
            except ValueError as e:
                raise Illegal("bad_deal", f"ZJH-R2 seat {s}: {e}") from None
        allc = [c for h in hands for c in h]
        if len(set(allc)) != len(allc):
            dup = sorted({CARD_NAME[c] for c in allc if allc.count(c) > 1})
            raise Illegal("bad_deal", f"ZJH-R2 card(s) {' '.join(dup)} dealt twice")
        if dealt.bottom is not None or dealt.wall is not None:
            raise Illegal("bad_deal", "ZJH-R2 a Zha Jin Hua deal has no bottom and no wall")
        gold = rules.mode == "gold"
        base = started.base
        if gold:
            if dealt.stacks is None or len(dealt.stacks) != n:
                raise Illegal("bad_deal", f"ZJH-R2 gold mode needs stacks for the {n} seats")
            low = [s for s, x in enumerate(dealt.stacks) if x < base]
            if low:
                raise Illegal("bad_deal", f"ZJH-R2 seat {low[0]} stack {dealt.stacks[low[0]]} is below the base {base}")
        elif dealt.stacks is not None:
            raise Illegal("bad_deal", "ZJH-R2 stacks are only dealt in gold mode (mode is room_card)")
        stacks = tuple(x - base for x in dealt.stacks) if gold and dealt.stacks is not None else None
        st = State(
            rules=rules, n=n, dealer=started.dealer, base=base, hands=tuple(hands), gold=gold,
            start_stacks=tuple(dealt.stacks) if gold and dealt.stacks is not None else None,
            active=(True,) * n, seen=(False,) * n, out=(None,) * n, contrib=(base,) * n, stacks=stacks,
            chips=tuple((s, "ante", base, dealt.seq) for s in range(n)), level=1, round=1, actor=None, allin=None,
        )  # fmt: skip
        w = _Work(st)
        w.enter((started.dealer + 1) % n, dealt.seq)
        return w.freeze()

    # ------------------------------------------------------------------ the reducer
    def apply(self, state: State, event: AnyEvent) -> State:
        """One event (ZJH-R1): a new State, or `Illegal` with the contract code and the rule id.

        A look, or a room_card bet or fold that does not end the match, takes a short path
        (`_FAST`: the same new State, tests/test_sim_speed_zjh.py); anything else, every refusal
        included, the general one (`_apply_plain`)."""
        fast = _FAST.get(event.type)  # type: ignore[attr-defined]
        if fast is not None and not state.finished:
            new = fast(state, event)
            if new is not None:
                return new
        return _apply_plain(state, event)

    def is_finished(self, state: State) -> bool:
        return state.finished

    # ------------------------------------------------------------------ settlement
    def settle(self, state: State) -> Settlement:
        """S1..S6 as transfer lines: pot chips to the winner(s), then the special rewards."""
        n = state.n
        winners = sorted(state.winners, key=state.pos)
        pot = sum(state.contrib)
        items: list[dict[str, Any]] = []
        if winners:
            q, extra = divmod(pot, len(winners))
            share = {w: q + (1 if i < extra else 0) for i, w in enumerate(winners)}
            items.extend(_pot_items(state, winners, share))
        else:  # pragma: no cover - every end has a winner
            share = {}
        r = state.rules
        if r.special_rewards != "off":
            ev = _evaluator(r.a23 == "second", r.suit_tiebreak, r.special_235)
            order = _action_order(state)
            holders = winners if r.special_rewards == "winner" else order
            factor = n if r.reward_basis == "ante_sum" else 1
            left = None
            if state.start_stacks is not None:
                left = [state.start_stacks[s] - state.contrib[s] + share.get(s, 0) for s in range(n)]
            for w in holders:
                cat = ev.key(state.hands[w])[0]
                unit = {BAO_ZI: r.baozi_reward, SHUN_JIN: r.shunjin_reward}.get(cat, 0)
                per = unit * state.base * factor
                if per <= 0:
                    continue
                for payer in order:
                    if payer == w:
                        continue
                    pay = per if left is None else max(0, min(per, left[payer]))
                    if left is not None:
                        left[payer] -= pay
                        left[w] += pay
                    if pay > 0:
                        items.append(item("special_reward", w, payer, pay, hand=CATEGORIES[cat], per_payer=per,
                                          capped=pay < per))  # fmt: skip
        if "forfeit" in state.out:  # events.md §6: after a forfeit, the seats whose delta is positive
            pot_only = Settlement.from_items(n, items, winners)
            return Settlement.from_items(n, items, [s for s in range(n) if pot_only.deltas[s] > 0])
        return Settlement.from_items(n, items, winners)

    next_dealer_rule = "ZJH-R2"  # section 2: afterwards the previous match's winner deals

    def next_dealer(self, state: State) -> int | None:
        """Section 2 (checked across matches, ZJH-R2): the previous match's winner deals; for a shared
        pot the first winner in that match's action order (engine/rooms.py)."""
        if not state.finished or not state.winners:
            return None
        return min(state.winners, key=state.pos)

    # ------------------------------------------------------------------ for bots, views, the CLI
    def legal_actions(self, state: State) -> list[dict[str, Any]]:
        """Every event payload legal now (looks and forfeits of any active seat, the actor's turn)."""
        if state.finished:
            return []
        r = state.rules
        out: list[dict[str, Any]] = []
        for s in state.active_seats():
            if not state.seen[s] and state.round >= r.look_min_round:
                out.append({"type": "look", "seat": s})
        a = state.actor
        if a is not None:
            out.extend(_turn_actions(state, a))
            if r.turn_seconds > 0:
                out.append({"type": "timeout", "seat": a})
        out.extend({"type": "forfeit", "seat": s} for s in state.active_seats())
        return out

    def turn_phase(self, state: State) -> tuple[int | None, str]:
        """The `turn` and `phase` of `view(state)`, read straight from the state (the live referee)."""
        return state.actor, ("finished" if state.finished else ("allin_call" if state.allin else "betting"))

    def view(self, state: State) -> dict[str, Any]:
        """The table for the step-by-step replay (hands shown: it is an audit tool)."""
        ev = Evaluator(state.rules.a23 == "second", state.rules.suit_tiebreak, state.rules.special_235)
        phase = "finished" if state.finished else ("allin_call" if state.allin else "betting")
        return {
            "phase": phase,
            "turn": state.actor,
            "hands": [[CARD_NAME[c] for c in h] for h in state.hands],
            "categories": [CATEGORIES[ev.key(h)[0]] for h in state.hands],
            "dealer": state.dealer,
            "round": state.round,
            "level": state.level,
            "stake": {"blind": state.rules.blind_levels[state.level - 1] * state.base,
                      "seen": state.rules.seen_levels[state.level - 1] * state.base},
            "call": [state.call(s) if state.active[s] else None for s in range(state.n)],
            "seen": list(state.seen),
            "active": list(state.active),
            "out": list(state.out),
            "contributions": list(state.contrib),
            "pot": sum(state.contrib),
            "stacks": list(state.stacks) if state.stacks is not None else None,
            "allin": {"opener": state.allin[0], "amount": state.allin[1]} if state.allin else None,
            "winners": list(state.winners),
            "end": state.end,
            "notes": list(state.notes[-3:]),
        }  # fmt: skip

    def deal(self, rules: Rules, n_players: int, rng: random.Random) -> dict[str, Any]:
        """`dealt` fields from a seeded shuffle; gold stacks (for base 1) mix short and deep stacks."""
        deck = list(CARD_NAME[:52])
        _shuffle(deck, rng)
        out: dict[str, Any] = {"hands": [deck[3 * s: 3 * s + 3] for s in range(n_players)]}
        if rules.mode == "gold":
            out["stacks"] = [rng.randint(3, 30) if rng.random() < 0.4 else rng.randint(30, 300) for _ in range(n_players)]
        return out

    def hand(self, query: dict[str, Any]) -> dict[str, Any]:
        """`paiju hand zhajinhua "As Ks Qs"` -> {"category": "shun_jin", "rank": [14, 13, 12], "key": [...]}."""
        raw = query.get("cards")
        if not isinstance(raw, str | list):
            raise ValueError("give three cards, e.g. \"As Ks Qs\"")
        cards = parse_cards(raw) if isinstance(raw, str) else list(raw)
        try:
            rules = self.parse_rules(query.get("rules") or {})
        except Illegal as e:
            raise ValueError(e.message) from None
        ids = parse_hand(cards)
        return describe(ids, Evaluator(rules.a23 == "second", rules.suit_tiebreak, rules.special_235))


# ---------------------------------------------------------------------- handlers


def _need_actor(w: _Work, seat: int, what: str) -> None:
    if w.actor != seat:
        raise Illegal("not_your_turn", f"ZJH-R6 seat {seat} cannot {what}: seat {w.actor} is to act")


def _no_allin_pending(w: _Work, seat: int, what: str) -> None:
    if w.allin is not None:
        raise Illegal("wrong_phase", f"ZJH-R15 seat {w.allin[0]} went all-in: seat {seat} may only call (allin), look, fold or forfeit, not {what}")


def _compare_round(w: _Work, seat: int, what: str, rule: str) -> None:
    r = w.st.rules
    if w.round < r.compare_min_round:
        raise Illegal("wrong_phase", f"{rule} seat {seat} cannot {what} in round {w.round}: allowed from round {r.compare_min_round}")


def _afford(w: _Work, seat: int, amount: int, what: str, rule: str) -> None:
    if w.stacks is not None and amount > w.stacks[seat]:
        raise Illegal("illegal_bet", f"{rule} seat {seat} cannot afford {what} of {amount}: stack {w.stacks[seat]}")


def _look(w: _Work, ev: Any, seat: int, seq: int) -> None:
    """ZJH-R7: free, any time from `look_min_round`, not a turn."""
    if w.seen[seat]:
        raise Illegal("wrong_phase", f"ZJH-R7 seat {seat} has already looked")
    if w.round < w.st.rules.look_min_round:
        raise Illegal("wrong_phase", f"ZJH-R7 seat {seat} cannot look in round {w.round}: allowed from round {w.st.rules.look_min_round}")
    w.seen = _with(w.seen, seat, True)


def _bet(w: _Work, ev: Any, seat: int, seq: int) -> None:
    """ZJH-R8: amount = B[j] or S[j] × base for k <= j <= cap_level; call (j = k) or raise."""
    _need_actor(w, seat, "bet")
    _no_allin_pending(w, seat, "bet")
    r = w.st.rules
    allowed = _stakes(tuple(r.seen_levels if w.seen[seat] else r.blind_levels), w.level, r.cap_level, w.st.base)
    amount = ev.amount
    if amount not in allowed:
        status = "seen" if w.seen[seat] else "blind"
        raise Illegal("illegal_bet", f"ZJH-R8 {status} seat {seat} bet {amount} is not in the stake table at level {w.level}: allowed {sorted(allowed)}")
    _afford(w, seat, amount, "a bet", "ZJH-R8")
    w.level = allowed[amount]
    w.put(seat, amount, "bet", seq)
    w.after_turn(seat, seq)


def _compare(w: _Work, ev: Any, seat: int, seq: int) -> None:
    """ZJH-R9: pays the compare cost; the initiator loses a tie; the loser is out."""
    _need_actor(w, seat, "compare")
    _no_allin_pending(w, seat, "compare")
    _compare_round(w, seat, "compare", "ZJH-R9")
    tgt = ev.target
    if not 0 <= tgt < w.st.n:
        raise Illegal("wrong_phase", f"ZJH-R1/R9 seat {seat} cannot compare with seat {tgt}: a {w.st.n}-player match has no such seat")
    if tgt == seat or not w.active[tgt]:
        why = "itself" if tgt == seat else f"seat {tgt}, which is out ({w.out[tgt]})"
        raise Illegal("wrong_phase", f"ZJH-R9 seat {seat} cannot compare with {why}")
    cost = w.st.rules.compare_cost_factor * w.call(seat)
    _afford(w, seat, cost, "a compare", "ZJH-R9")
    w.put(seat, cost, "compare_cost", seq)
    won = w.beats(seat, tgt)
    loser = tgt if won else seat
    w.knock_out(loser, "compare")
    h = w.st.hands
    w.note(f"seq {seq}: ZJH-R9 seat {seat} ({_cards(h[seat])}) compares with seat {tgt} ({_cards(h[tgt])}): seat {loser} out")
    w.after_turn(seat, seq)


def _open(w: _Work, ev: Any, seat: int, seq: int) -> None:
    """ZJH-R10: two seats left; costs as compare; showdown of the two, the initiator loses a tie."""
    _need_actor(w, seat, "open")
    _no_allin_pending(w, seat, "open")
    act = w.actives()
    if len(act) != 2:
        raise Illegal("wrong_phase", f"ZJH-R10 seat {seat} cannot open with {len(act)} active seats: open needs exactly two")
    _compare_round(w, seat, "open", "ZJH-R10")
    cost = w.st.rules.compare_cost_factor * w.call(seat)
    _afford(w, seat, cost, "open", "ZJH-R10")
    w.put(seat, cost, "open_cost", seq)
    other = act[0] if act[1] == seat else act[1]
    winner = seat if w.beats(seat, other) else other
    w.set_out(other if winner == seat else seat, "open")
    w.finish([winner], "open", seq)


def _fold(w: _Work, ev: Any, seat: int, seq: int) -> None:
    """ZJH-R11: out; the chips stay in the pot."""
    _need_actor(w, seat, "fold")
    w.knock_out(seat, "fold")
    w.after_turn(seat, seq)


def _timeout(w: _Work, ev: Any, seat: int, seq: int) -> None:
    """ZJH-R12: the actor's timer ran out: same as fold; no timer when turn_seconds = 0."""
    if w.st.rules.turn_seconds == 0:
        raise Illegal("wrong_phase", f"ZJH-R12 timeout of seat {seat}: there is no timer (turn_seconds = 0)")
    if w.actor != seat:
        raise Illegal("not_your_turn", f"ZJH-R12 timeout concerns only the actor: seat {w.actor} is to act, not seat {seat}")
    w.knock_out(seat, "timeout")
    w.after_turn(seat, seq)


def _forfeit(w: _Work, ev: Any, seat: int, seq: int) -> None:
    """ZJH-R13: any active seat, any time; as fold; the turn passes only if it was the actor's."""
    w.knock_out(seat, "forfeit")
    if w.actor == seat:
        w.after_turn(seat, seq)
        return
    act = w.actives()
    if len(act) == 1:
        w.finish(act, "last_standing", seq)


def _allin(w: _Work, ev: Any, seat: int, seq: int) -> None:
    """ZJH-R15: gold only; open with two seats and a stack below the threshold, or call."""
    if w.stacks is None:
        raise Illegal("wrong_phase", f"ZJH-R15 seat {seat}: allin exists only in gold mode (mode is room_card)")
    _need_actor(w, seat, "go all-in")
    if w.allin is not None:  # (b) the call
        opener, amount = w.allin
        _afford(w, seat, amount, "the all-in call", "ZJH-R15")
        w.put(seat, amount, "allin", seq)
        winner = opener if w.beats(opener, seat) else seat
        w.set_out(seat if winner == opener else opener, "allin")
        w.note(f"seq {seq}: ZJH-R15 seat {seat} calls the all-in of seat {opener} ({amount})")
        w.finish([winner], "allin", seq)
        return
    act = w.actives()
    if len(act) != 2:
        raise Illegal("wrong_phase", f"ZJH-R15 seat {seat} cannot go all-in with {len(act)} active seats: all-in needs exactly two")
    _compare_round(w, seat, "go all-in", "ZJH-R15")
    other = act[0] if act[1] == seat else act[1]
    low = min(w.stacks[seat], w.stacks[other])
    limit = w.st.rules.allin_threshold * w.st.base
    if low >= limit:
        raise Illegal("illegal_bet", f"ZJH-R15 seat {seat} cannot go all-in: the smaller stack {low} is not below {limit}")
    w.put(seat, low, "allin", seq)
    w.allin = (seat, low)
    w.actor = other
    w.note(f"seq {seq}: ZJH-R15 seat {seat} goes all-in for {low}; seat {other} calls or folds")


_HANDLERS = {
    "look": _look,
    "bet": _bet,
    "compare": _compare,
    "open": _open,
    "fold": _fold,
    "timeout": _timeout,
    "forfeit": _forfeit,
    "allin": _allin,
}


def _apply_plain(state: State, event: AnyEvent) -> State:
    """`apply` by the handlers on a work copy: every event, every check (ZJH-R1)."""
    t = event.type  # type: ignore[attr-defined]
    if state.finished:
        raise Illegal("after_end", f"ZJH-R17 {t} after the match ended ({state.end})")
    handler = _HANDLERS.get(t)
    if handler is None:
        raise Illegal("wrong_phase", f"ZJH-R1 {t} is not a Zha Jin Hua action")
    seat: int = event.seat  # type: ignore[attr-defined]
    if not state.active[seat]:
        raise Illegal("wrong_phase", f"ZJH-R1 seat {seat} is out ({state.out[seat]}) and cannot {t}")
    w = _Work(state)
    handler(w, event, seat, event.seq)
    return w.freeze()


def _derived(state: State, changes: dict[str, Any]) -> State:
    """A new State: `state`'s fields with `changes` (what `_Work.freeze` makes of the same edits)."""
    d = state.__dict__.copy()
    d.update(changes)
    new = _new_state(State)
    _set_attr(new, "__dict__", d)
    return new


def _fast_look(state: State, event: Any) -> State | None:
    """ZJH-R7 (= `_look`), when legal: an active seat that has not looked, from `look_min_round`."""
    seat = event.seat
    if not (seat < state.n and state.active[seat]) or state.seen[seat] or state.round < state.rules.look_min_round:
        return None
    return _derived(state, {"seen": _with(state.seen, seat, True)})


def _room_turn(state: State, active: tuple[bool, ...], s: int) -> dict[str, Any] | None:
    """`_Work.after_turn` of seat s in room_card (no stacks: no ZJH-R14) when the match goes on:
    the next actor and round, or None when it would end (one seat left, the ZJH-R5 round cap)."""
    if active.count(True) < 2:
        return None
    t, new_round = _next_actor(state, active, s)
    rnd = state.round
    if new_round:
        r = state.rules
        if r.max_rounds > 0 and rnd + 1 == r.max_rounds + 1:
            return None
        rnd += 1
    return {"round": rnd, "actor": t}


def _fast_bet(state: State, event: Any) -> State | None:
    """ZJH-R8 (= `_bet`) in room_card, when legal and the match goes on."""
    seat = event.seat
    if state.gold or state.stacks is not None or state.actor != seat or state.allin is not None:
        return None
    if not (seat < state.n and state.active[seat]):
        return None
    r = state.rules
    allowed = _stakes(tuple(r.seen_levels if state.seen[seat] else r.blind_levels), state.level, r.cap_level, state.base)
    amount = event.amount
    if amount not in allowed:
        return None
    changes = _room_turn(state, state.active, seat)
    if changes is None:
        return None
    contrib = state.contrib
    changes["level"] = allowed[amount]
    changes["contrib"] = _with(contrib, seat, contrib[seat] + amount)
    changes["chips"] = (*state.chips, (seat, "bet", amount, event.seq))
    return _derived(state, changes)


def _fast_fold(state: State, event: Any) -> State | None:
    """ZJH-R11 (= `_fold`) in room_card, when the match goes on."""
    seat = event.seat
    if state.gold or state.stacks is not None or state.actor != seat or not (seat < state.n and state.active[seat]):
        return None
    active = _with(state.active, seat, False)
    changes = _room_turn(state, active, seat)  # type: ignore[arg-type]
    if changes is None:
        return None
    changes["active"] = active
    changes["out"] = _with(state.out, seat, "fold")
    return _derived(state, changes)


_FAST: dict[str, Callable[[State, Any], State | None]] = {"look": _fast_look, "bet": _fast_bet, "fold": _fast_fold}


def _next_actor(state: State, active: Sequence[bool], s: int) -> tuple[int, bool]:
    """ZJH-R4: the next active seat after s (two or more are active) and whether it starts a new
    round (its action position is not after s's)."""
    n = state.n
    t = s
    for i in range(1, n + 1):
        t = (s + i) % n
        if active[t]:
            break
    return t, state.pos(t) <= state.pos(s)


def _turn_options(state: State, a: int, act: list[int] | None = None) -> tuple[list[int], list[int], bool, bool]:
    """The actor's legal turn-taking actions (no look/timeout/forfeit) as data: (bet amounts, compare
    targets, open, allin), in the order `_turn_actions` lists them (fold is always legal). With an
    all-in pending only the call (allin, when affordable) and fold. `act`: the active seats, when
    the caller has them."""
    r = state.rules
    stacks = state.stacks
    if state.allin is not None:
        return [], [], False, stacks is None or stacks[a] >= state.allin[1]
    table = r.seen_levels if state.seen[a] else r.blind_levels
    base, level = state.base, state.level
    amounts = list(_stakes(tuple(table), level, r.cap_level, base))
    if stacks is not None:
        stack = stacks[a]
        amounts = [x for x in amounts if x <= stack]
    targets: list[int] = []
    can_open = can_allin = False
    if state.round >= r.compare_min_round:
        if act is None:
            act = state.active_seats()
        if stacks is None or r.compare_cost_factor * table[level - 1] * base <= stacks[a]:  # factor × call(a)
            targets = list(act)  # every active seat but a, in seat order
            if a in targets:
                targets.remove(a)
            can_open = len(act) == 2
        if stacks is not None and len(act) == 2:
            other = act[0] if act[1] == a else act[1]
            can_allin = min(stacks[a], stacks[other]) < r.allin_threshold * base
    return amounts, targets, can_open, can_allin


def _turn_actions(state: State, a: int) -> list[dict[str, Any]]:
    """The actor's legal turn-taking actions (no look/timeout/forfeit) as event payloads."""
    amounts, targets, can_open, can_allin = _turn_options(state, a)
    out: list[dict[str, Any]] = [{"type": "bet", "seat": a, "amount": x} for x in amounts]
    out.extend({"type": "compare", "seat": a, "target": t} for t in targets)
    if can_open:
        out.append({"type": "open", "seat": a})
    if can_allin:
        out.append({"type": "allin", "seat": a})
    out.append({"type": "fold", "seat": a})
    return out


def _action_order(state: State) -> list[int]:
    """The seats in action order: `sorted(range(n), key=state.pos)` (pos is a rotation)."""
    n, first = state.n, state.dealer + 1
    return [(first + i) % n for i in range(n)]


_POT_KINDS = ("ante", "bet", "compare_cost", "open_cost", "allin")


def _pot_items(state: State, winners: list[int], share: dict[int, int]) -> list[dict[str, Any]]:
    """S3/S4 as lines: each payer's chips (by kind) to the winner(s) receiving them."""
    chunks: dict[int, dict[str, list[Any]]] = {}  # seat -> kind -> [amount, seqs]
    for seat, kind, amount, seq in state.chips:
        by_kind = chunks.get(seat)
        if by_kind is None:
            by_kind = chunks[seat] = {}
        c = by_kind.get(kind)
        if c is None:
            by_kind[kind] = [amount, [seq]]
        else:
            c[0] += amount
            c[1].append(seq)
    need = dict(share)
    supply: list[tuple[int, str, int, list[int]]] = []
    for seat in _action_order(state):
        by_kind = chunks.get(seat)
        if by_kind is None:
            continue
        for kind in [k for k in _POT_KINDS if k in by_kind]:
            amt, seqs = by_kind[kind]
            if seat in need:
                own = min(amt, need[seat])
                need[seat] -= own
                amt -= own
            if amt:
                supply.append((seat, kind, amt, seqs))
    items: list[dict[str, Any]] = []
    for seat, kind, amt, seqs in supply:
        for w in winners:
            if amt == 0:
                break
            take = min(amt, need[w])
            if take:
                need[w] -= take
                amt -= take
                items.append(item(kind, w, seat, take, seqs=seqs))
    return items


ZHAJINHUA = ZhaJinHua()
