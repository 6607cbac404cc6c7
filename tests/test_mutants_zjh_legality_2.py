"""Mutation-killing tests for Zha Jin Hua's `_bet`, `_open`, `_timeout`, `_forfeit` and `_allin`
(issue 17, second part): the refusal names what the rule names (blind/seen, the action that cannot be
afforded, the rule id), and a legal end records who is out, how the match ended and at which seq.

Expected values are written by hand from docs/rules/zhajinhua.md (ZJH-R4/R8/R10/R12/R13/R15, the E6
and E7 examples, S1..S4). The labels of `out` and `end` ("open", "allin", "last_standing") are the
engine's frozen names of the ZJH-R17 ends, written here before reading them back.
"""

from __future__ import annotations

from typing import Any

from engine.replay import replay_final
from tests.test_zhajinhua_errors import E6_HANDS, log, refused

GOLD = {"mode": "gold"}
E6_ACTIONS = ["bet 0 1", "bet 1 1", "fold 2", "look 0", "allin 0", "allin 1"]  # seq 2..7
PAIR_K, HIGH_A = "Kh Kd 7s", "As Qd 9c"  # pair K beats A-high (4.4)


def _final(events: list[Any]) -> tuple[Any, Any]:
    r, st = replay_final(events)
    assert r.error is None, r.error
    return r, st


def _pot(r: Any) -> list[tuple[str, int, int, int, list[int]]]:
    return [(i["kind"], i["seat"], i["from"], i["points"], i["seqs"]) for i in r.items]


# ---------------------------------------------------------------- bet (ZJH-R8)


def test_a_bad_blind_and_a_bad_seen_amount_say_which_table() -> None:
    """ZJH-R8: at level 1 a blind seat may bet B[1..4] × 1 = 1, 2, 5, 10, a seen seat S[1..4] × 1 =
    2, 4, 10, 20; 3 is in neither. The refusal says blind or seen and lists that table."""
    msg = refused(log(["bet 1 3"]), 2, "illegal_bet", "ZJH-R8")
    assert "blind seat 1 bet 3" in msg and msg.endswith("allowed [1, 2, 5, 10]"), msg
    msg = refused(log(["look 1", "bet 1 3"]), 3, "illegal_bet", "ZJH-R8")
    assert "seen seat 1 bet 3" in msg and msg.endswith("allowed [2, 4, 10, 20]"), msg


def test_a_bet_above_the_stack_names_the_bet_and_the_stack() -> None:
    """ZJH-R8 (gold: amount ≤ stack), E6 stacks [30, 8, 50]: after the ante seat 1 holds 7; after
    `bet {0, 1}` its blind raise of 10 (B[4] × 1) is in the table but above its stack."""
    ev = log(["bet 0 1", "bet 1 10"], rules=GOLD, hands=E6_HANDS, dealer=2, stacks=[30, 8, 50])
    msg = refused(ev, 3, "illegal_bet", "ZJH-R8")
    assert msg == "ZJH-R8 seat 1 cannot afford a bet of 10: stack 7", msg


# ---------------------------------------------------------------- open (ZJH-R10)


def test_an_open_above_the_stack_names_open_and_its_cost() -> None:
    """ZJH-R10 costs as compare: `compare_cost_factor` 2 × call. Gold, n = 2, dealer 1 (order 0, 1),
    stacks [3, 50]: ante → [2, 49]; `bet {0, 1}`, `bet {1, 1}` → seat 0 holds 1 = its call 1 (no
    autocompare, ZJH-R14); round 2: open costs 2 × 1 = 2 > 1."""
    ev = log(["bet 0 1", "bet 1 1", "open 0"], rules={**GOLD, "compare_cost_factor": 2},
             hands=[PAIR_K, HIGH_A], dealer=1, stacks=[3, 50])  # fmt: skip
    msg = refused(ev, 4, "illegal_bet", "ZJH-R10")
    assert msg == "ZJH-R10 seat 0 cannot afford open of 2: stack 1", msg


def test_an_open_the_initiator_wins_puts_the_other_out() -> None:
    """ZJH-R10, n = 2, dealer 1 (order 0, 1): `bet {0, 1}`, `bet {1, 1}`; round 2 `open {0}` costs 1;
    pair K (seat 0) beats A-high: seat 1 is out by the open, seat 0 wins at seq 4.
    c = [1 + 1 + 1, 1 + 1] = [3, 2], P = 5: Δ = [+2, −2]."""
    r, st = _final(log(["bet 0 1", "bet 1 1", "open 0"], hands=[PAIR_K, HIGH_A], dealer=1))
    assert r.deltas == [2, -2] and r.winners == [0]
    assert st.out == (None, "open") and st.end == "open"
    assert st.notes[-1] == "seq 4: match ends (open); winners [0]"
    assert st.chips[-1] == (0, "open_cost", 1, 4)


def test_an_open_the_initiator_loses_puts_the_initiator_out() -> None:
    """ZJH-R10, the same log with the hands swapped: seat 0 (A-high) opens and loses to pair K.
    c = [3, 2], P = 5: Δ = [−3, +3]."""
    r, st = _final(log(["bet 0 1", "bet 1 1", "open 0"], hands=[HIGH_A, PAIR_K], dealer=1))
    assert r.deltas == [-3, 3] and r.winners == [1]
    assert st.out == ("open", None) and st.end == "open"
    assert st.notes[-1] == "seq 4: match ends (open); winners [1]"


def test_an_open_tie_is_lost_by_the_initiator() -> None:
    """ZJH-R10: the initiator loses a tie. Ah Kh 2c and Ad Kd 2s are equal A-K-2 high cards (no
    suit_tiebreak); seat 0 opens and loses: Δ = [−3, +3]."""
    r, st = _final(log(["bet 0 1", "bet 1 1", "open 0"], hands=["Ah Kh 2c", "Ad Kd 2s"], dealer=1))
    assert r.deltas == [-3, 3] and st.out == ("open", None)


# ---------------------------------------------------------------- timeout / forfeit (ZJH-R12/R13)


def test_a_timeout_that_leaves_one_seat_ends_at_its_seq() -> None:
    """ZJH-R12 = fold, then ZJH-R4: n = 2, dealer 1, seat 0 times out at seq 2; seat 1 is the last
    one standing (ZJH-R17). c = [1, 1]: Δ = [−1, +1]."""
    r, st = _final(log(["timeout 0"], hands=[PAIR_K, HIGH_A], dealer=1))
    assert r.deltas == [-1, 1] and st.out == ("timeout", None) and st.end == "last_standing"
    assert st.notes[-1] == "seq 2: match ends (last_standing); winners [1]"


def test_the_actor_forfeiting_ends_at_its_seq() -> None:
    """ZJH-R13 by the actor: the turn passes (ZJH-R4), one seat is left: seat 1 wins at seq 2."""
    r, st = _final(log(["forfeit 0"], hands=[PAIR_K, HIGH_A], dealer=1))
    assert r.deltas == [-1, 1] and st.out == ("forfeit", None) and st.end == "last_standing"
    assert st.notes[-1] == "seq 2: match ends (last_standing); winners [1]"


def test_an_off_turn_forfeit_leaving_one_seat_ends_at_its_seq() -> None:
    """ZJH-R13 off turn: after `bet {1, 1}`, `fold {2}` (seq 2, 3) seat 0 acts; seat 1 forfeits at
    seq 4 and seat 0 is the last one standing. c = [1, 2, 1], P = 4: Δ = [+3, −2, −1]."""
    r, st = _final(log(["bet 1 1", "fold 2", "forfeit 1"]))
    assert r.deltas == [3, -2, -1] and st.end == "last_standing"
    assert st.notes[-1] == "seq 4: match ends (last_standing); winners [0]"


# ---------------------------------------------------------------- allin (ZJH-R15)


def test_e6_allin_call_records_kinds_seqs_and_the_loser() -> None:
    """E6: `allin {0}` at seq 6 puts in A = min(28, 6) = 6, `allin {1}` at seq 7 calls 6; pair 7 beats
    A-high: seat 1 wins. c = [8, 8, 1], P = 17, Δ = [−8, +9, −1]. Seat 0 is out by the all-in, seat 2
    by its fold; the notes name both all-in events with their seq."""
    ev = log(E6_ACTIONS, rules=GOLD, hands=E6_HANDS, dealer=2, stacks=[30, 8, 50])
    _, opened = _final(ev[:-1])
    assert opened.notes[-1] == "seq 6: ZJH-R15 seat 0 goes all-in for 6; seat 1 calls or folds"
    r, st = _final(ev)
    assert r.deltas == [-8, 9, -1] and r.winners == [1]
    assert st.out == ("allin", None, "fold") and st.end == "allin"
    assert st.notes[-2:] == ("seq 7: ZJH-R15 seat 1 calls the all-in of seat 0 (6)",
                             "seq 7: match ends (allin); winners [1]")  # fmt: skip
    pot = _pot(r)
    assert ("allin", 1, 0, 6, [6]) in pot, pot
    assert st.chips[-1] == (1, "allin", 6, 7)


def test_the_allin_opener_who_wins_puts_the_caller_out() -> None:
    """ZJH-R15 (b), E6 with seats 0 and 1's hands swapped: the opener (pair 7) beats the caller
    (A-high). c = [8, 8, 1], P = 17: Δ = [+9, −8, −1]; seat 1 is out by the all-in."""
    hands = [E6_HANDS[1], E6_HANDS[0], E6_HANDS[2]]
    r, st = _final(log(E6_ACTIONS, rules=GOLD, hands=hands, dealer=2, stacks=[30, 8, 50]))
    assert r.deltas == [9, -8, -1] and r.winners == [0]
    assert st.out == (None, "allin", "fold")


def test_an_allin_tie_is_lost_by_the_opener() -> None:
    """ZJH-R15 (b): the opener is the initiator and loses a tie (Ah Kh 2c vs Ad Kd 2s, no
    suit_tiebreak): seat 1 wins, Δ = [−8, +9, −1] as in E6."""
    hands = ["Ah Kh 2c", "Ad Kd 2s", E6_HANDS[2]]
    r, st = _final(log(E6_ACTIONS, rules=GOLD, hands=hands, dealer=2, stacks=[30, 8, 50]))
    assert r.deltas == [-8, 9, -1] and st.out == ("allin", None, "fold")


def test_allin_in_round_one_names_the_rule_and_round() -> None:
    """ZJH-R15 (a) needs r ≥ `compare_min_round` (2): n = 2, dealer 1, seat 0 in round 1."""
    msg = refused(log(["allin 0"], rules=GOLD, hands=[PAIR_K, HIGH_A], dealer=1, stacks=[5, 5]), 2,
                  "wrong_phase", "ZJH-R15")  # fmt: skip
    assert msg == "ZJH-R15 seat 0 cannot go all-in in round 1: allowed from round 2", msg


def _two_seat_allin(stacks: list[int], base: int) -> list[Any]:
    """n = 2, dealer 1 (order 0, 1): blind calls of 1 × base each, then round 2 `allin {0}` (seq 4)."""
    return log([f"bet 0 {base}", f"bet 1 {base}", "allin 0"], rules=GOLD, hands=[PAIR_K, HIGH_A], dealer=1,
               stacks=stacks, base=base)  # fmt: skip


def test_the_allin_threshold_is_times_base() -> None:
    """ZJH-R15 (a): the smaller stack must be < `allin_threshold` (10) × base. Base 2, stacks [10, 100]:
    ante and call 2 each → seat 0 holds 6 < 20: legal, A = 6 (a threshold of 10 / 2 = 5 would refuse)."""
    r, st = _final(_two_seat_allin([10, 100], 2))
    assert r.status == "incomplete" and st.allin == (0, 6) and st.actor == 1


def test_a_smaller_stack_equal_to_the_threshold_is_refused() -> None:
    """ZJH-R15 (a): "< threshold × base" is strict. Base 1, stacks [12, 100]: ante and call 1 each →
    seat 0 holds 10 = 10 × 1: refused, naming the stack and the limit."""
    msg = refused(_two_seat_allin([12, 100], 1), 4, "illegal_bet", "ZJH-R15")
    assert "the smaller stack 10 is not below 10" in msg, msg


def test_an_allin_call_above_the_stack_is_refused_on_a_hand_built_state() -> None:
    """ZJH-R15 (b) with ZJH-R1 (a seat that cannot afford an action in gold: illegal_bet). A log cannot
    get there (A = the smaller stack); a hand-built state can: E6 after `allin {0}` (A = 6) with
    seat 1's stack cut to 3."""
    from dataclasses import replace

    from engine.errors import Illegal
    from engine.zhajinhua.game import ZHAJINHUA

    ev = log(E6_ACTIONS, rules=GOLD, hands=E6_HANDS, dealer=2, stacks=[30, 8, 50])
    _, st = _final(ev[:-1])
    assert st.allin == (0, 6) and st.stacks[1] == 6
    short = replace(st, stacks=(st.stacks[0], 3, st.stacks[2]))
    try:
        ZHAJINHUA.apply(short, ev[-1])
    except Illegal as e:
        assert (e.code, e.message) == ("illegal_bet", "ZJH-R15 seat 1 cannot afford the all-in call of 6: stack 3")
    else:
        raise AssertionError("an all-in call above the stack was accepted")
