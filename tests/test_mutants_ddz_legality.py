"""Mutation-killing tests for Dou Dizhu's legality checks (`DouDizhu._play`, `_pass`; issue 17):
the refusal must name what doudizhu.md's rule names — the seat that acted and the seat whose turn it
is (DDZ-R3), the cards the seat does not hold (DDZ-R15), the phase (DDZ-R1) — not only the code.
Logs: the E1 golden of doudizhu.md (seat 1 bids 1 and leads 3s…As at seq 4; seat 2 is next)."""

from __future__ import annotations

from tests.test_ddz_errors import E1, E4, put, run


def test_a_play_out_of_turn_names_both_seats() -> None:
    """DDZ-R3: at seq 4 the landlord, seat 1, leads; seat 0 playing 3h is refused naming seat 0,
    the verb, and seat 1 as the seat to act."""
    status, seq, code, msg = run(put(E1, 4, type="play", seat=0, cards=["3h"]))
    assert (status, seq, code) == ("invalid", 4, "not_your_turn")
    assert "seat 0 cannot play" in msg and "seat 1's turn" in msg and "DDZ-R3" in msg


def test_a_pass_out_of_turn_names_both_seats() -> None:
    """DDZ-R3: after seat 1's lead (seq 4) seat 2 acts; seat 0 passing at seq 5 is refused."""
    status, seq, code, msg = run(put(E1, 5, type="pass", seat=0))
    assert (status, seq, code) == ("invalid", 5, "not_your_turn")
    assert "seat 0 cannot pass" in msg and "seat 2's turn" in msg


def test_not_in_hand_names_exactly_the_missing_cards() -> None:
    """DDZ-R15: seat 1 holds 3s but not 3h (the E1 deal): the pair 3s 3h names 3h only."""
    status, seq, code, msg = run(put(E1, 4, type="play", seat=1, cards=["3s", "3h"]))
    assert (status, seq, code) == ("invalid", 4, "not_in_hand")
    held = msg.split("does not hold", 1)[1].split()
    assert "seat 1" in msg and held == ["3h"], msg


def test_a_pass_during_the_bidding_is_wrong_phase() -> None:
    """DDZ-R1: a `pass` event belongs to the play phase; at seq 2 the bidding is on."""
    status, seq, code, msg = run(put(E1, 2, type="pass", seat=0))
    assert (status, seq, code) == ("invalid", 2, "wrong_phase")
    assert "DDZ-R1" in msg and "bid" in msg


def test_the_laizi_note_only_before_the_laizi_event() -> None:
    """DDZ-R1 / DDZ-R13: a play during plain Dou Dizhu's bidding says nothing of a laizi event; a
    play in ddz_laizi after the bidding but before the `laizi` event says it is awaited."""
    msg_bid = run(put(E1, 2, type="play", seat=0, cards=["3h"]))[3]
    assert "DDZ-R1" in msg_bid and "laizi" not in msg_bid
    status, seq, code, msg_laizi = run(E4[:4] + E4[5:])
    assert (status, seq, code) == ("invalid", 4, "wrong_phase") and "before the laizi event" in msg_laizi
