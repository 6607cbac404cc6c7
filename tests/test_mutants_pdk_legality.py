"""Mutation-killing tests for Pao De Kuai's legality code (issue 17): `PaoDeKuai._play`, `_pass`,
`_forfeit`, `pass_legal` and the move helpers of `engine.climbing.pdk_moves`.

Expected values are written by hand from docs/rules/paodekuai.md: the refusal's code and rule id
(PDK-R3/R8/R9/R10, B1/B2), the worked examples E1/E2/E4/E5 (section 8), P1/P2 (section 5) and the
`short_trio_last` option (section 6). Rank indices: 3 → 0, 4 → 1, … Q → 9, K → 10, A → 11, 2 → 12.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.cards import CARD_ID
from engine.climbing import pdk_moves as mv
from engine.climbing.paodekuai import PAODEKUAI as G
from tests.test_paodekuai import _replay_state, load, run


def _refusal(events: list[dict[str, Any]]) -> tuple[int, str, str]:
    r = run(events)
    assert r.status == "invalid", r.status
    return r.error["seq"], r.error["code"], r.error["message"]


def _log(rules: dict[str, Any], hands: list[str], actions: list[tuple[str, int, str]]) -> list[dict[str, Any]]:
    """A later match (`round` 2, so any first lead, PDK-R4) led by seat 0, base 1."""
    evs: list[dict[str, Any]] = [
        {"match_id": "m", "seq": 0, "type": "match_started", "game": "paodekuai", "rules": rules,
         "players": ["a", "b", "c"], "dealer": 0, "base": 1, "round": 2},
        {"match_id": "m", "seq": 1, "type": "dealt", "hands": [h.split() for h in hands]},
    ]  # fmt: skip
    for kind, seat, cards in actions:
        e: dict[str, Any] = {"match_id": "m", "seq": len(evs), "type": kind, "seat": seat}
        if cards:
            e["cards"] = cards.split()
        evs.append(e)
    return evs


def _counts(cards: str) -> tuple[int, ...]:
    return mv.counts_of(CARD_ID[c] for c in cards.split())


# ---------------------------------------------------------------- refusals and their wording


def test_a_pass_out_of_turn_names_both_seats() -> None:
    """PDK-R3: E4 event 2 is seat 2's pass; seat 0 passing at seq 3 is refused `not_your_turn`,
    naming seat 2 as the seat to act and seat 0."""
    e = load("e4_baodan_must_beat")
    e[3]["seat"] = 0
    seq, code, msg = _refusal(e)
    assert (seq, code) == (3, "not_your_turn")
    assert msg.startswith("PDK-R3") and "seat 2 is to act" in msg and "not seat 0" in msg


def test_a_play_with_as_says_there_are_no_wild_cards() -> None:
    """PDK-R5 / section 3.1: `play` has no `as` field (there are no wild cards)."""
    e = load("e2_bomb_paid_at_once_one_card_exempt")
    e[3]["as"] = ["4", "4", "4", "4"]
    seq, code, msg = _refusal(e)
    assert (seq, code) == (3, "illegal_move")
    assert msg.startswith("PDK-R5") and "no wild cards" in msg


def test_does_not_beat_cites_b2_between_plain_moves() -> None:
    """PDK-R8 / B2: in E4 seat 1 leads solo 6d at seq 5; seat 2's solo 3d (key 3 < 6) does not beat."""
    e = load("e4_baodan_must_beat")
    e[6]["cards"] = ["3d"]
    seq, code, msg = _refusal(e)
    assert (seq, code) == (6, "does_not_beat")
    assert msg.startswith("PDK-R8/B2 ")


def test_does_not_beat_cites_b1_against_a_bomb() -> None:
    """PDK-R8 / B1: in E2 seat 1's bomb 4444 is the top move (seq 3); seat 2's solo 5s cannot beat
    a bomb (only a higher bomb does)."""
    e = load("e2_bomb_paid_at_once_one_card_exempt")
    e[4] = {**e[4], "type": "play", "cards": ["5s"]}
    seq, code, msg = _refusal(e)
    assert (seq, code) == (4, "does_not_beat")
    assert msg.startswith("PDK-R8/B1 ")


def test_baodan_refusal_names_the_one_card_seat_and_the_highest_card() -> None:
    """PDK-R10, E4 event 6: seat 1 (seat 0's next player) holds 1 card, so `play {0, [Qs]}` is
    refused; seat 0's highest card is 2s."""
    e = load("e4_baodan_must_beat")
    e[7]["cards"] = ["Qs"]
    seq, code, msg = _refusal(e)
    assert (seq, code) == (7, "illegal_move")
    assert msg.startswith("PDK-R10") and "seat 1 holds 1 card" in msg and "seat 0's solo" in msg
    assert "highest card (2)" in msg


# ---------------------------------------------------------------- the table after legal events


def test_play_counts_per_seat_pdk_r14() -> None:
    """PDK-R14: E4 events 1–6 are plays by seats 1, 1, 2, 0 (passes do not count): [1, 2, 1].
    E1 after event 1: only seat 1 has played: [0, 1, 0]."""
    assert G.view(_replay_state(load("e4_baodan_must_beat")[:8]))["plays"] == [1, 2, 1]
    assert G.view(_replay_state(load("e1_guan_men_both_losers")[:3]))["plays"] == [0, 1, 0]


def test_last_play_shows_the_event_just_applied() -> None:
    """The view's `last_play` is the last event (the dashboard's "last play" line): E1 event 1 is
    seat 1's straight N = 12 key A (section 8); events 2 and 3 are passes (the second ends the trick);
    E5's last event is seat 2's forfeit."""
    e1 = load("e1_guan_men_both_losers")
    straight = ["3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts", "Js", "Qs", "Ks", "Ah"]
    assert G.view(_replay_state(e1[:3]))["last_play"] == {
        "seat": 1, "action": "play", "cards": straight, "type": "straight", "length": 12, "rank": "A",
    }  # fmt: skip
    assert G.view(_replay_state(e1[:4]))["last_play"] == {"seat": 2, "action": "pass"}
    after = G.view(_replay_state(e1[:5]))
    assert after["last_play"] == {"seat": 0, "action": "pass"} and after["trick"] is None
    assert G.view(_replay_state(load("e5_forfeit")[:4]))["last_play"] == {"seat": 2, "action": "forfeit"}


# ---------------------------------------------------------------- bombs (B1, P1)

# Seat 0 holds the bomb 5555; seat 1 only the lower bomb 3333; seat 2 the bombs QQQQ and KKKK.
BOMBS = [
    "5s 5h 5c 5d 6s 6h 6c 7s 7h 7c 8s 8h 8c 9s 9h 9c",
    "3s 3h 3c 3d 4s 4h 4c 6d 7d 8d 9d Ts Th Tc Js Jh",
    "4d Td Jc Jd Qs Qh Qc Qd Ks Kh Kc Kd Ah Ac Ad 2s",
]


def test_a_lower_bomb_does_not_oblige_a_pass_to_be_refused() -> None:
    """B1 + PDK-R9: after seat 0's bomb 5555, seat 1's only bomb 3333 is lower, so seat 1 has no
    beating play: its pass is legal and is its only legal action. Seat 2 holds QQQQ and KKKK,
    which beat 5555, so its pass is then refused `must_play`."""
    e = _log({}, BOMBS, [("play", 0, "5s 5h 5c 5d"), ("pass", 1, ""), ("pass", 2, "")])
    s = _replay_state(e[:3])
    assert G.pass_legal(s) is True
    assert G.legal_actions(s) == [{"type": "pass", "seat": 1}]
    s2 = _replay_state(e[:4])
    assert G.pass_legal(s2) is False
    seq, code, msg = _refusal(e)
    assert (seq, code) == (4, "must_play") and msg.startswith("PDK-R9")


# Seat 0: the bomb 3333, the straight 4h..Ah (11 cards, key A) and 2s; seats 1 and 2 hold at most
# three cards of a rank (no bomb), so nothing beats seat 0's straight, its 2s, or its bomb.
EMPTYING = [
    "3s 3h 3c 3d 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah 2s",
    "4s 5s 6s 7s 8s 9s Ts Js Qs Ks 4c 5c 6c 7c 8c 9c",
    "Tc Jc Qc Kc 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ac Ad",
]
EMPTYING_PLAYS = [
    ("play", 0, "4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah"), ("pass", 1, ""), ("pass", 2, ""),
    ("play", 0, "2s"), ("pass", 1, ""), ("pass", 2, ""), ("play", 0, "3s 3h 3c 3d"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("bomb_pay", "deltas"),
    [
        # P1: the bomb ends the match as top move (if_unbeaten pays it): seat 0 +2 × 10, each other −10;
        # P2: seats 1 and 2 never played (关门): 2 × 16 = 32 each. [20 + 64, −10 − 32, −10 − 32].
        ("if_unbeaten", [84, -42, -42]),
        ("immediate", [84, -42, -42]),  # paid at once, the same once
        ("none", [64, -32, -32]),  # P2 only
    ],
)
def test_a_hand_emptying_bomb_is_paid_under_if_unbeaten(bomb_pay: str, deltas: list[int]) -> None:
    r = run(_log({"bomb_pay": bomb_pay}, EMPTYING, EMPTYING_PLAYS))
    assert r.error is None and r.status == "finished", r.error
    assert r.deltas == deltas and r.winners == [0]


# ---------------------------------------------------------------- pdk_moves helpers


def test_highest_rank_reaches_the_lowest_ranks() -> None:
    """PDK-R10's "highest rank in the seat's hand": 3s alone → rank 3 (index 0); 3s 4h → 4 (index 1)."""
    assert mv.highest_rank(_counts("3s")) == 0
    assert mv.highest_rank(_counts("3s 4h")) == 1
    assert mv.highest_rank(_counts("3s 4h 2s")) == 12
    with pytest.raises(ValueError, match=r"^empty hand$"):
        mv.highest_rank(_counts(""))


def test_short_shape_takes_fewer_kickers_only() -> None:
    """Section 6 `short_trio_last`: 0 ≤ kickers < required. After a plane_n_wings N = 2 (2 wings),
    666777 + 3 cards has 3 wings: no short shape; 666777 + 1 card is one, key 7 (index 4)."""
    top = ("plane_n_wings", 2, 2)  # key 5
    assert mv.short_shape(_counts("6s 6h 6c 7s 7h 7c 3s 4s 9s"), top) is None
    assert mv.short_shape(_counts("6s 6h 6c 7s 7h 7c 3s"), top) == ("plane_n_wings", 2, 4)


def test_short_shape_chain_may_end_at_ace() -> None:
    """Section 6 + section 2 (chain ranks 3 … A): KKKAAA + one wing after a plane_n_wings key Q is
    the short shape with key A (index 11)."""
    top = ("plane_n_wings", 2, 9)  # key Q
    assert mv.short_shape(_counts("Ks Kh Kc Ah Ac Ad 5s"), top) == ("plane_n_wings", 2, 11)


def test_a_short_last_play_needs_a_strictly_higher_key() -> None:
    """Section 6: a short play "beats the top move iff its trio/chain key is higher": the trio 777
    (key 7, index 4) against trio_two key 7 does not; against trio_two key 6 it does."""
    trio = _counts("7s 7h 7c")
    assert mv.beat_reading(trio, ("trio_two", 1, 4), True) is None
    assert mv.beat_reading(trio, ("trio_two", 1, 3), True) == ("trio_two", 1, 4)
