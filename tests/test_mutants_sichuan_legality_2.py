"""More mutation-killing tests for Sichuan legality (issue 17), same hand-written tables as
tests/test_mutants_sichuan_legality.py: the event index of each flow as the reducer threads it
(SC-S11), the 血流 lock (SC-E5/SC-R19) and a pass lock at 0 fan (preset chengdu, SC-H6 素番 = 0).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_mutants_sichuan_legality import A_HANDS, Log, table_a, table_b, to_bu_gang

from engine.errors import Illegal
from engine.mahjong.sichuan import XUELIU
from events.codec import parse_event


def flows(lg: Log, kind: str) -> list[tuple[int, int, int, int]]:
    return [(f["seat"], f["from"], f["points"], f["seq"]) for f in lg.st.flows if f["kind"] == kind]


def test_discard_wins_carry_their_hu_seq() -> None:
    """SC-S3/S11 table A: events 0..5 are match_started, dealt, 4 dingque; 6 discard 5p, 7 hu by
    seat 1, 8 hu by seat 2; each ping_hu 1 → M = 2^(1−1) = 1, seat 0 pays 1 to each."""
    lg = table_a().x(0, "5p").hu(1, "5p").hu(2, "5p")
    assert flows(lg, "hu_dianpao") == [(1, 0, 1, 7), (2, 0, 1, 8)]


def test_kong_money_carries_the_gang_seq() -> None:
    """SC-S6/S11 table B (refused events take no seq): 6 an gang 1m → seats 1, 2, 3 pay
    an_gang_units 2 each, seq 6; then 7 draw, 8 discard 9p, 9 peng, 10 discard, 11..16 three
    draw/discard pairs, 17 draw 9p, 18 bu gang 9p: paid by 0, 2, 3 (bu_gang_units 1) only at the
    confirming draw, with the gang's own seq 18."""
    lg = to_bu_gang(table_b())
    assert flows(lg, "gang_an") == [(0, 1, 2, 6), (0, 2, 2, 6), (0, 3, 2, 6)]
    assert flows(lg, "gang_bu") == []
    lg.d(1, "4s")
    assert flows(lg, "gang_bu") == [(1, 0, 1, 18), (1, 2, 1, 18), (1, 3, 1, 18)]


def test_rob_pays_with_the_hu_seq() -> None:
    """SC-R13/S3: seat 2 robs 9p at seq 19: ping_hu 1 + qiang_gang_hu 1 = 2 → M = 2, seat 1 pays 2;
    the robbed kong pays nothing (SC-S6)."""
    lg = to_bu_gang(table_b()).hu(2, "9p")
    assert flows(lg, "hu_qianggang") == [(2, 1, 2, 19)]
    assert flows(lg, "gang_bu") == []


def test_xueliu_lock_after_the_first_win() -> None:
    """SC-E5/SC-R19: after its 6m win seat 1 is locked; at `draw {1,"3p"}` it must discard 3p, a
    held tile is refused (with que_discard_first off, so that SC-R6 does not decide first)."""
    path = Path(__file__).parent / "data" / "golden" / "sichuan_e5_xueliu_two_wins.jsonl"
    ds = [json.loads(x) for x in path.read_text().splitlines()]
    assert (ds[25]["type"], ds[25]["seat"], ds[25]["tile"]) == ("draw", 1, "3p")
    game = XUELIU
    rules = game.parse_rules({**ds[0]["rules"], "que_discard_first": False})  # 3p is seat 1's void suit
    st = game.start(parse_event(ds[0]), parse_event(ds[1]), rules)
    for d in ds[2:26]:
        st = game.apply(st, parse_event(d))
    with pytest.raises(Illegal) as ei:
        game.apply(st, parse_event({**ds[26], "tile": "1m"}))
    assert ei.value.code == "illegal_move" and "SC-R19" in ei.value.message and "must discard the drawn 3p" in ei.value.message
    st = game.apply(st, parse_event(ds[26]))
    assert st.stage == "window"


def test_pass_lock_at_zero_fan() -> None:
    """SC-R17 with preset chengdu (SC-H6: 素番 ping hu = 0 fan): seats 1 and 2 pass 5p by seat 3's
    peng and are locked at P = 0; seat 2's 0-fan win on 3's 2p is not > 0: refused."""
    lg = table_a(preset="chengdu").x(0, "5p").peng(3, "5p")
    assert lg.st.locks == (-1, 0, 0, -1)
    lg.x(3, "2p")
    lg.refuse("illegal_claim", ("SC-R17", "seat 2 is pass-locked at 0 fan", "0-fan win on 2p is not higher"), "hu", seat=2, tile="2p")




def test_self_draw_win() -> None:
    """SC-R14/S2: seat 0 discards 6p, seat 1 draws and discards 3s, seat 2 draws the last 2p:
    11p 234p 789p 234m 678m. With tian_di_hu off: ping_hu 1 + zi_mo 1 = 2 → M = 2, seats 0, 1, 3
    pay 2 each (seq 10: 6 discard, 7 draw, 8 discard, 9 draw, 10 hu); then seat 3 draws (SC-R20).
    With it on, this is seat 2's first draw with no claim before: di_hu 6 > 2 → M = 2^5 = 32."""
    lg = Log(A_HANDS, "sssm", head="3s2p", rules={"tian_di_hu": False})
    lg.x(0, "6p").d(1, "3s").x(1, "3s").d(2, "2p")
    lg.refuse("illegal_claim", ("SC-R7", "hu 2p by seat 1"), "hu", seat=1, tile="2p")
    lg.hu(2, "2p")
    assert flows(lg, "hu_zimo") == [(2, 0, 2, 10), (2, 1, 2, 10), (2, 3, 2, 10)]
    assert lg.st.wins[2] and (lg.st.stage, lg.st.turn) == ("draw", 3)
    lg.refuse("not_your_turn", ("SC-R16", "seat 3 draws next, not seat 0"), "draw", seat=0, tile="1m")
    di = Log(A_HANDS, "sssm", head="3s2p")
    di.x(0, "6p").d(1, "3s").x(1, "3s").d(2, "2p").hu(2, "2p")
    assert flows(di, "hu_zimo") == [(2, 0, 32, 10), (2, 1, 32, 10), (2, 3, 32, 10)]

