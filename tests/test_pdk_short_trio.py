"""Pao De Kuai `short_trio_last` (docs/rules/paodekuai.md §6): a play that empties the hand may be the main
part of the top move's type (a trio, or N consecutive trios for a winged plane) plus fewer kickers
than the top has (0 ≤ kickers < required); it beats the top iff its trio/chain key is higher.

Every short shape of every kicker type is built from the option's text (N trios above the top's
chain plus k < per·N single kickers), so the 7-, 9-, 11-, 13- and 14-card short planes that have no
reading of section 4 are among them. Reducer, `legal_actions`, the pass rule and the bot must agree.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from engine.cards import CARD_ID, RANK_NAMES
from engine.climbing import pdk_moves as mv
from engine.climbing.paodekuai import PAODEKUAI as G
from engine.climbing.paodekuai import Top
from engine.errors import Illegal
from engine.registry import bot_action
from events.models import Pass, Play
from tests.test_paodekuai import _fill, _start

# (top type, N, kicker cards per trio) of section 4.1's kicker types
KICKER_TYPES = [("trio_one", 1, 1), ("trio_two", 1, 2), ("plane_n_wings", 2, 1), ("plane_n_wings", 3, 1),
                ("plane_n_wings", 4, 1), ("plane_2n_wings", 2, 2), ("plane_2n_wings", 3, 2)]  # fmt: skip
SUITS = "shcd"
KICKER_RANKS = ["Q", "K", "A", "2", "3"]  # singles outside every chain used below (2 = the deck's 2s)


def _cards(rank: str, n: int) -> list[str]:
    if rank == "2":
        return ["2s"]
    if rank == "A":
        return ["Ah", "Ac", "Ad"][:n]
    return [rank + s for s in SUITS[-n:]] if rank == "3" else [rank + s for s in SUITS[:n]]


def _cases() -> list[tuple[str, int, int]]:
    """(type, N, kickers) of every short play: 3N main cards + k kickers, 0 ≤ k < per·N."""
    return [(kind, n, k) for kind, n, per in KICKER_TYPES for k in range(per * n)]


def _table(kind: str, n: int, k: int, rules: dict[str, Any]) -> tuple[Any, list[str]]:
    """Seat 0's top move is `kind` N with the chain 3.. (key = rank index N − 1); seat 1 holds
    exactly N trios 8.. (above it) plus k single kickers and is to act."""
    chain = [RANK_NAMES[5 + i] for i in range(n)]  # 8, 9, T, J
    short = [c for r in chain for c in _cards(r, 3)] + [c for r in KICKER_RANKS[:k] for c in _cards(r, 1)]
    hands = _fill({1: " ".join(short)})
    s = _start(hands, dealer=0, rules=rules)
    seat1 = tuple(sorted(CARD_ID[c] for c in short))
    top_cards = tuple(sorted(CARD_ID[c] for c in hands[0][: 3 * n]))
    s = replace(
        s, hands=(s.hands[0], seat1, s.hands[2]), top=Top(0, (kind, n, n - 1), top_cards), turn=1, led=True,
        passes=0,
    )  # fmt: skip
    return s, short


@pytest.mark.parametrize(("kind", "n", "k"), _cases())
def test_every_short_last_play_is_accepted(kind: str, n: int, k: int) -> None:
    s, short = _table(kind, n, k, {"short_trio_last": True})
    total = 3 * n + k
    after = G.apply(s, Play(match_id="x", seq=9, seat=1, cards=short))
    assert after.winner == 1
    assert after.top is not None and after.top.move == (kind, n, 5 + n - 1)  # the chain 8.. key
    names = sorted(short)
    plays = [sorted(a["cards"]) for a in G.legal_actions(s) if a["type"] == "play"]
    assert names in plays, f"{kind} N={n} with {k} kickers ({total} cards) missing from legal_actions"
    # 有大必出: a legal beating play exists, so pass is refused ...
    with pytest.raises(Illegal) as err:
        G.apply(s, Pass(match_id="x", seq=9, seat=1))
    assert err.value.code == "must_play"
    assert {"type": "pass", "seat": 1} not in G.legal_actions(s)
    # ... and the bot (which always empties its hand when it can) plays it and the reducer takes it
    choice = bot_action(G, s, random.Random(0))
    assert choice["type"] == "play" and sorted(choice["cards"]) == names
    G.apply(s, Play(match_id="x", seq=9, **{a: b for a, b in choice.items() if a != "type"}))


@pytest.mark.parametrize(("kind", "n", "k"), _cases())
def test_short_play_needs_the_option_and_the_last_cards(kind: str, n: int, k: int) -> None:
    s, short = _table(kind, n, k, {})
    play = Play(match_id="x", seq=9, seat=1, cards=short)
    with pytest.raises(Illegal) as err:
        G.apply(s, play)
    # without a reading of section 4 it is no move (R6); with one it does not match the top (B3)
    has_reading = bool(mv.readings(mv.counts_of(CARD_ID[c] for c in short)))
    assert err.value.code == ("does_not_beat" if has_reading else "illegal_move")
    # the seat has no other play that beats: passing is legal, and is the only legal event
    assert G.legal_actions(s) == [{"type": "pass", "seat": 1}]
    G.apply(s, Pass(match_id="x", seq=9, seat=1))
    # with the option but one more card in hand the play no longer empties it
    on, _ = _table(kind, n, k, {"short_trio_last": True})
    extra = CARD_ID["4s"]
    more = replace(on, hands=(on.hands[0], tuple(sorted((*on.hands[1], extra))), on.hands[2]))
    with pytest.raises(Illegal):
        G.apply(more, play)


@pytest.mark.parametrize(("kind", "n"), [(kind, n) for kind, n, _ in KICKER_TYPES])
def test_short_play_with_a_lower_key_does_not_beat(kind: str, n: int) -> None:
    """The short shape beats only with a higher chain key; not beating is `does_not_beat`."""
    s, short = _table(kind, n, 1, {"short_trio_last": True})
    s = replace(s, top=replace(s.top, move=(kind, n, 11)))  # key A: no chain key is higher
    with pytest.raises(Illegal) as err:
        G.apply(s, Play(match_id="x", seq=9, seat=1, cards=short))
    assert err.value.code == "does_not_beat"
    assert G.legal_actions(s) == [{"type": "pass", "seat": 1}]
