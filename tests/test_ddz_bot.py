"""Bot behaviour in set positions: farmers do not beat each other, the cheapest beating move,
bombs kept unless they win, the weakest lead, laizi readings, bids from hand strength."""

from __future__ import annotations

import random

from engine.cards import CARD_ID
from engine.climbing.ddz import DDZ, DDZState
from engine.climbing.ddz_laizi import DDZ_LAIZI
from engine.climbing.moves import classify, ddz_move_rules
from engine.registry import bot_action


def _mask(cards: str) -> int:
    m = 0
    for c in cards.split():
        m |= 1 << CARD_ID[c]
    return m


def _counts(ranks: str) -> tuple[int, ...]:
    c = [0] * 15
    for ch in ranks:
        c["3456789TJQKA2BR".index(ch)] += 1
    return tuple(c)


def state(hands: list[str], turn: int, top: str | None = None, top_seat: int | None = None, landlord: int = 0,
          game=DDZ, laizi: int | None = None) -> DDZState:  # type: ignore[no-untyped-def]  # fmt: skip
    mv = None if top is None else classify(_counts(top), ddz_move_rules())
    return DDZState(
        game=game.id, rules=game.parse_rules({}), base=1, first=0, phase="play", turn=turn,
        hands=tuple(_mask(h) for h in hands), bottom=(), landlord=landlord, top=mv, top_seat=top_seat,
        laizi=laizi,
    )  # fmt: skip


REST = "5s 6h 8c 9d Jh Qc Kd"


def test_farmer_does_not_beat_partner() -> None:
    st = state(["3s 4s 7h 9s Ts Js Qs Kh", "3h " + REST, "4h " + REST], turn=2, top="3", top_seat=1)
    assert bot_action(DDZ, st, random.Random(1)) == {"type": "pass", "seat": 2}


def test_farmer_beats_landlord_cheaply() -> None:
    st = state(["3s 4s 7h 9s Ts Js Qs Kh", "3h " + REST, "4h 2s BJ " + REST], turn=1, top="3", top_seat=0)
    a = bot_action(DDZ, st, random.Random(1))
    assert a["type"] == "play" and len(a["cards"]) == 1 and a["cards"][0] not in ("2s", "BJ", "RJ")


def test_bomb_is_kept_when_the_opponent_is_far_from_out() -> None:
    st = state(["As 4s 7h 9s Ts Js Qs Kh 3d", "3h 3s 3c 3d 5s 6h 8c 9d Jh", "4h " + REST], turn=1, top="A", top_seat=0)
    assert bot_action(DDZ, st, random.Random(1)) == {"type": "pass", "seat": 1}


def test_bomb_wins_the_game() -> None:
    st = state(["As 4s 7h 9s Ts Js Qs Kh 3d", "3h 3s 3c 3d 5s", "4h " + REST], turn=1, top="A", top_seat=0)
    a = bot_action(DDZ, st, random.Random(1))
    assert sorted(a["cards"]) == sorted(["3h", "3s", "3c", "3d"])


def test_lead_goes_out_with_a_whole_hand_move_else_the_weakest() -> None:
    st = state(["3s 4s 5s 6s 7s", "3h " + REST, "4h " + REST], turn=0)
    assert sorted(bot_action(DDZ, st, random.Random(1))["cards"]) == sorted(["3s", "4s", "5s", "6s", "7s"])
    # plan: KKK+3 (the solo 3 rides as a kicker) and 99: the weakest group, 99, leads
    st = state(["3s 9h 9d Ks Kh Kd", "3h " + REST, "4h " + REST], turn=0)
    assert sorted(bot_action(DDZ, st, random.Random(1))["cards"]) == ["9d", "9h"]


def test_laizi_bot_uses_a_declared_reading() -> None:
    # laizi 7 (rank index 4): 3s 3h 3c + 7h goes out as the soft bomb 3333 or a trio_solo
    st = state(["3s 3h 3c 7h", "4h " + REST, "4d " + REST], turn=0, game=DDZ_LAIZI, laizi=4)
    a = bot_action(DDZ_LAIZI, st, random.Random(1))
    assert a["type"] == "play" and sorted(a["cards"]) == sorted(["3s", "3h", "3c", "7h"]) and a["as"] == ["3"]


def test_bids_follow_strength() -> None:
    from engine.climbing.bot import strength

    strong = _counts("BR2222AAKQJT98765")
    weak = _counts("33445567899TJQK56")
    assert strength(strong) > 10 > 4 > strength(weak)
