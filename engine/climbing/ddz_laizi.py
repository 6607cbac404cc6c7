"""Wild-card Dou Dizhu (`ddz_laizi`), doudizhu.md §3.4–3.7, §4.3, §4.6; the reducer of ddz.py plus
point bidding (DDZ-R9/R10), the system `laizi` event (DDZ-R13) and `as` declarations checked
exactly as declared (DDZ-R23..R29, via engine/climbing/laizi.py; never re-interpreted).

Choices where the rule file is silent:
- A `rob` event is `wrong_phase` (DDZ-R11); bid values outside 0..3 and non-zero bids not above
  every earlier bid are `illegal_move` (DDZ-R9).
- A `play` with laizi whose `as` has the wrong length, names a joker or a non-rank, or breaks the
  pure rule (DDZ-R24) is `illegal_move`; `as` with no laizi in the play must be absent or empty.
- DDZ-R27 is applied where the event is read: a `play` with laizi cards and no `as` field (an
  imported log; the platform's own logs always carry `as`) is replayed as if it carried the
  auto-reading (`auto_as`), and that reading is recorded. An explicit `as` (even `[]`) is checked as
  declared (DDZ-R23/R26). When no `as` list gives a legal move, the play is `illegal_move`; when
  some does but none beats the top move, `does_not_beat`.
- A `forfeit` before the `laizi` event is settled as "before the landlord is fixed" (S8).
- Bombs are recorded with their class (`soft_bomb`, `hard_bomb`, `pure_laizi_bomb`, `rocket`);
  S2 multiplies `bomb_factor` per soft bomb and `hard_bomb_factor` per other bomb and the rocket.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from engine.base import GameRules
from engine.cards import CARD_ID, RANK_INDEX, RANK_NAMES, rank_of
from engine.climbing.ddz import DDZState, DouDizhu, DouDizhuOptions, _parse_card_query, readings_json
from engine.climbing.laizi import auto_reading, judge, split_laizi
from engine.climbing.moves import Move
from engine.errors import Illegal
from events.models import Bid, Laizi, Play

_NAMES_OF_RANK: tuple[frozenset[str], ...] = tuple(
    frozenset(c for c, i in CARD_ID.items() if rank_of(i) == r) for r in range(len(RANK_NAMES))
)
"""The card names of each rank index (a laizi rank's cards)."""


class DDZLaiziRules(DouDizhuOptions):
    """`ddz_laizi` options, doudizhu.md §6."""

    bomb_factor: Annotated[int, Field(ge=1, le=10)] = Field(2, description="S2: factor per soft bomb played")
    hard_bomb_factor: Annotated[int, Field(ge=1, le=10)] = Field(
        2, description="S2: factor per hard bomb, the pure laizi bomb and the rocket (common variant 4)"
    )


class DouDizhuLaizi(DouDizhu):
    """The `ddz_laizi` game object."""

    id = "ddz_laizi"
    Rules: type[GameRules] = DDZLaiziRules
    presets = {"standard": {}}
    laizi_game = True

    def _bid(self, state: DDZState, ev: Bid) -> DDZState:
        """DDZ-R9/R10: point bids 0..3, strictly rising; 3 or three bids end the bidding."""
        if state.phase != "bid":
            raise Illegal("wrong_phase", f"DDZ-R1 bid during the {state.phase} phase: bidding is over")
        self._turn(state, ev.seat, "bid", "DDZ-R9")
        if ev.value not in (0, 1, 2, 3):
            raise Illegal("illegal_move", f"DDZ-R9 bid value {ev.value}: ddz_laizi bids are 0 (不叫), 1, 2 or 3")
        if ev.value and ev.value <= state.high_bid:
            raise Illegal("illegal_move", f"DDZ-R9 bid {ev.value} is not higher than the earlier bid {state.high_bid}")
        bids = list(state.bids)
        bids[ev.seat] = ev.value
        st = state._replace(bids=tuple(bids), high_bid=max(state.high_bid, ev.value))
        if ev.value == 3:
            return self._fix_landlord(st, ev.seat, 3)
        nxt = (ev.seat + 1) % 3
        if nxt == state.first:
            if st.high_bid == 0:
                return self._fix_landlord(st, state.first, 1)
            winner = next(s for s in range(3) if bids[s] == st.high_bid)
            return self._fix_landlord(st, winner, st.high_bid)
        return st._replace(turn=nxt)

    def bid_values(self, state: DDZState) -> list[int]:
        return [0] + [v for v in (1, 2, 3) if v > state.high_bid]

    def _laizi(self, state: DDZState, ev: Laizi) -> DDZState:
        """DDZ-R13: one laizi event after the landlord is fixed, before the first play."""
        if state.phase != "laizi":
            when = "a second laizi event" if state.laizi is not None else f"laizi during the {state.phase} phase"
            raise Illegal("wrong_phase", f"DDZ-R13 {when}: it comes once, after the landlord is fixed")
        r = RANK_INDEX[ev.rank]
        if r > 12:
            raise Illegal("illegal_move", f"DDZ-R13 laizi rank {ev.rank}: a joker is never the laizi (3..A, 2)")
        return state._replace(laizi=r, phase="play", turn=state.landlord)

    def _play(self, state: DDZState, ev: Play) -> DDZState:
        """DDZ-R27: a play with laizi logged without `as` is read with the auto-reading filled in."""
        lr = state.laizi
        # a card of the laizi rank among the cards (= any(rank_of(CARD_ID[c]) == lr for c in ev.cards))
        if ev.as_ is None and state.phase == "play" and lr is not None and not _NAMES_OF_RANK[lr].isdisjoint(ev.cards):
            auto = self.auto_as(state, ev.cards)
            if auto is not None:
                ev = ev.model_copy(update={"as_": auto})
        return super()._play(state, ev)

    def _declared(self, state: DDZState, ev: Play, ids: tuple[int, ...]) -> Move | None:
        """DDZ-R23..R29: the move of exactly the declared reading."""
        lr = state.laizi
        if lr is None:  # unreachable: play phase comes after the laizi event
            raise Illegal("wrong_phase", "DDZ-R13 play before the laizi event")
        plain, m = split_laizi(ids, lr)
        if ev.as_ is None and m:  # no auto-reading beats the top (or none is a move at all): DDZ-R27
            mr = state.mr or self.move_rules(state.rules)
            if state.top is not None and auto_reading(ev.cards, RANK_NAMES[lr], None, mr) is not None:
                raise Illegal("does_not_beat", f"DDZ-R27 no reading of {' '.join(ev.cards)} (no `as` logged) beats the top move")
            raise Illegal("illegal_move", f"DDZ-R27 no reading of {' '.join(ev.cards)} (no `as` logged) is a move of section 4")
        decl = list(ev.as_ or ())
        if len(decl) != m:
            raise Illegal("illegal_move", f"DDZ-R23 {' '.join(ev.cards)} has {m} laizi but `as` has {len(decl)} entries")
        S = []
        for a in decl:
            if a not in RANK_INDEX or RANK_INDEX[a] > 12:
                raise Illegal("illegal_move", f"DDZ-R23 `as` entry {a!r}: a laizi stands for a rank 3..A, 2, never a joker (DDZ-R28)")
            S.append(RANK_INDEX[a])
        if m and not sum(plain) and any(r != lr for r in S):
            raise Illegal("illegal_move", f"DDZ-R24 a play of laizi only stands for the laizi rank itself, not {decl}")
        return judge(plain, S, lr, state.mr or self.move_rules(state.rules))

    def auto_as(self, state: DDZState, cards: list[str]) -> list[str] | None:
        """DDZ-R27 for ingest: the `as` of a play logged without it, in this state (None: no legal reading)."""
        if state.laizi is None:
            return None
        return auto_reading(cards, RANK_NAMES[state.laizi], state.top, self.move_rules(state.rules))

    def bomb_factor_of(self, rules: Any, kind: str) -> int:
        return int(rules.bomb_factor if kind == "soft_bomb" else rules.hard_bomb_factor)

    def hand(self, query: dict[str, Any]) -> dict[str, Any]:
        """`paiju hand ddz_laizi CARDS [--laizi R]`: without laizi as ddz, with it every reading."""
        rules = self.hand_rules(query)
        lz = query.get("laizi")
        if lz in (None, ""):
            return DouDizhu.hand(self, query)
        ids = _parse_card_query(query)
        return readings_json(ids, str(lz), self.move_rules(rules))


DDZ_LAIZI = DouDizhuLaizi()
