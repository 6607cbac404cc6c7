"""Every error code that can arise in `ddz` / `ddz_laizi`: a corrupted log → status, seq, code, rule id."""

from __future__ import annotations

from typing import Any

import pytest

from engine.replay import replay
from events.codec import parse_event
from tests.ddz_golden_src import events_of


def run(evs: list[dict[str, Any]]) -> tuple[str, int | None, str | None, str]:
    mid = evs[0]["match_id"]
    fixed = [{**e, "match_id": mid, "seq": i} for i, e in enumerate(evs)]
    r = replay([parse_event(e) for e in fixed])
    err = r.error or {}
    return r.status, err.get("seq"), err.get("code"), err.get("message", "")


def base(name: str) -> list[dict[str, Any]]:
    return events_of(name, with_settled=False)


def put(evs: list[dict[str, Any]], seq: int, **ev: Any) -> list[dict[str, Any]]:
    """Replace the event at `seq` (keeping the envelope)."""
    out = list(evs)
    out[seq] = {"match_id": evs[0]["match_id"], "seq": seq, **ev}
    return out


def ins(evs: list[dict[str, Any]], seq: int, **ev: Any) -> list[dict[str, Any]]:
    out = list(evs)
    out.insert(seq, {"match_id": evs[0]["match_id"], "seq": seq, **ev})
    return out


E1, E3, E4, E5 = base("e1_spring"), base("e3_forced_landlord"), base("e4_laizi_soft_hard"), base("e5_pure_laizi_rocket")

CASES: list[tuple[str, list[dict[str, Any]], int, str, str]] = [
    # (id, log, seq, code, rule id in the message)
    ("bid_out_of_turn", put(E1, 2, type="bid", seat=1, value=0), 2, "not_your_turn", "DDZ-R4"),
    ("play_out_of_turn", put(E1, 4, type="play", seat=0, cards=["3h"]), 4, "not_your_turn", "DDZ-R3"),
    ("pass_out_of_turn", put(E1, 5, type="pass", seat=0), 5, "not_your_turn", "DDZ-R3"),
    ("rob_with_rob_off", put(E1, 3, type="rob", seat=1, value=True), 3, "wrong_phase", "DDZ-R7"),
    ("bid_after_bidding", ins(E1, 4, type="bid", seat=1, value=1), 4, "wrong_phase", "DDZ-R1"),
    ("laizi_in_ddz", ins(E1, 4, type="laizi", rank="7"), 4, "wrong_phase", "DDZ-R13"),
    ("play_during_bidding", put(E1, 2, type="play", seat=0, cards=["3h"]), 2, "wrong_phase", "DDZ-R1"),
    ("other_game_event", put(E1, 2, type="look", seat=0), 2, "wrong_phase", "DDZ-R1"),
    ("play_before_laizi", E4[:4] + E4[5:], 4, "wrong_phase", "DDZ-R13"),
    ("second_laizi", ins(E4, 5, type="laizi", rank="8"), 5, "wrong_phase", "DDZ-R13"),
    ("laizi_during_bidding", ins(E4, 2, type="laizi", rank="8"), 2, "wrong_phase", "DDZ-R13"),
    ("rob_in_laizi", ins(E4, 3, type="rob", seat=0, value=True), 3, "wrong_phase", "DDZ-R11"),
    ("ddz_bid_value_2", put(E1, 3, type="bid", seat=1, value=2), 3, "illegal_move", "DDZ-R4"),
    ("laizi_bid_not_higher", put(E4, 3, type="bid", seat=0, value=1), 3, "illegal_move", "DDZ-R9"),
    ("laizi_bid_value_4", put(E4, 3, type="bid", seat=0, value=4), 3, "illegal_move", "DDZ-R9"),
    ("laizi_joker_rank", put(E4, 4, type="laizi", rank="BJ"), 4, "illegal_move", "DDZ-R13"),
    ("illegal_shape", put(E1, 4, type="play", seat=1, cards=["3s", "4s"]), 4, "illegal_move", "DDZ-R16"),
    ("duplicate_card", put(E1, 4, type="play", seat=1, cards=["3s", "3s"]), 4, "not_in_hand", "DDZ-R15"),
    ("as_in_ddz", put(E1, 4, type="play", seat=1, cards=["3s"], **{"as": ["3"]}), 4, "illegal_move", "DDZ-R23"),
    ("as_wrong_length", put(E4, 5, type="play", seat=0, cards=["4s", "4h", "5s", "5h", "6s", "7c"],
                            **{"as": ["6", "6"]}), 5, "illegal_move", "DDZ-R23"),
    # an absent `as` is filled with the auto-reading (DDZ-R27, tests/test_ddz_r27.py); an empty one is declared
    ("as_empty", put(E4, 5, type="play", seat=0, cards=["4s", "4h", "5s", "5h", "6s", "7c"], **{"as": []}),
     5, "illegal_move", "DDZ-R23"),
    ("as_joker", put(E4, 11, type="play", seat=0, cards=["Qs", "Qh", "Qc", "Ks", "Kh", "7s", "3d", "BJ"],
                     **{"as": ["BJ"]}), 11, "illegal_move", "DDZ-R23"),
    ("as_makes_illegal_shape", put(E4, 5, type="play", seat=0, cards=["4s", "4h", "5s", "5h", "6s", "7c"],
                                   **{"as": ["8"]}), 5, "illegal_move", "DDZ-R16"),
    ("pure_rule", put(E5, 6, type="play", seat=1, cards=["5s", "5h"], **{"as": ["A", "A"]}), 6, "illegal_move",
     "DDZ-R24"),
    ("not_in_hand", put(E1, 4, type="play", seat=1, cards=["3h"]), 4, "not_in_hand", "DDZ-R15"),
    ("does_not_beat_c3", put(E3, 6, type="play", seat=1, cards=["4s"]), 6, "does_not_beat", "DDZ-C3"),
    ("does_not_beat_other_type", put(E3, 6, type="play", seat=1, cards=["2s", "2h"]), 6, "does_not_beat", "DDZ-C3"),
    ("declared_reading_does_not_beat", put(E4, 7, type="play", seat=2, cards=["3s", "3h", "3c", "7h"],
                                           **{"as": ["7"]}), 7, "does_not_beat", "DDZ-C3"),
    ("solo_cannot_beat_soft_bomb", put(E4, 8, type="play", seat=0, cards=["Qs"]), 8, "does_not_beat", "DDZ-C2"),
    ("nothing_beats_the_rocket", put(E5, 11, type="play", seat=0, cards=["9d"]), 11, "does_not_beat", "DDZ-C1"),
    ("bottom_card_not_held_by_farmer", put(E5, 10, type="play", seat=2, cards=["2s", "2h", "2c", "2d"]), 10, "not_in_hand",
     "DDZ-R15"),
    ("pass_when_leading", put(E1, 4, type="pass", seat=1), 4, "must_play", "DDZ-R17"),
    ("pass_when_leading_new_trick", put(E1, 7, type="pass", seat=1), 7, "must_play", "DDZ-R17"),
    ("after_end", [*E1, {"type": "pass", "seat": 2}], 11, "after_end", ""),
    ("forfeit_after_end", [*E1, {"type": "forfeit", "seat": 2}], 11, "after_end", ""),
    ("settled_before_end", put(E1, 5, type="settled", deltas=[0, 0, 0]), 5, "wrong_phase", ""),
]


@pytest.mark.parametrize(("log", "seq", "code", "rule"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_corrupted_log_is_refused(log: list[dict[str, Any]], seq: int, code: str, rule: str) -> None:
    status, got_seq, got_code, message = run(log)
    assert (status, got_seq, got_code) == ("invalid", seq, code), message
    assert rule in message


def test_bottom_card_played_by_a_farmer() -> None:
    # seat 1 is the landlord in E1 and holds Kc from the bottom; seat 2 (farmer) does not
    log = put(E1, 5, type="play", seat=2, cards=["Kc"])
    assert run(log)[1:3] == (5, "not_in_hand")


def _deal_variant(**change: Any) -> list[dict[str, Any]]:
    evs = list(E1)
    evs[1] = {**evs[1], **change}
    return evs


@pytest.mark.parametrize(
    "change",
    [
        {"hands": [E1[1]["hands"][0][:-1], E1[1]["hands"][1], E1[1]["hands"][2]]},  # 16 cards
        {"bottom": ["Kc", "2d"]},
        {"bottom": ["Kc", "2d", "3h"]},  # 3h twice, RJ missing
        {"hands": [E1[1]["hands"][0], E1[1]["hands"][1]]},
    ],
    ids=["short_hand", "short_bottom", "duplicate_card", "two_hands"],
)
def test_bad_deal(change: dict[str, Any]) -> None:
    status, seq, code, _ = run(_deal_variant(**change))
    assert (status, seq, code) == ("invalid", 1, "bad_deal")


def test_missing_bottom_is_bad_deal() -> None:
    evs = list(E1)
    evs[1] = {k: v for k, v in evs[1].items() if k != "bottom"}
    assert run(evs)[1:3] == (1, "bad_deal")


@pytest.mark.parametrize(
    ("game", "rules"),
    [
        ("ddz", {"no_such_option": 1}),
        ("ddz", {"hard_bomb_factor": 4}),  # laizi-only option
        ("ddz_laizi", {"rob": True}),  # ddz-only option
        ("ddz_laizi", {"all_pass": "redeal"}),
        ("ddz", {"bomb_factor": 11}),
        ("ddz", {"all_pass": "nobody"}),
        ("ddz", {"preset": "chengdu"}),
        ("ddz", {"max_multiplier": -1}),
    ],
)
def test_bad_rules(game: str, rules: dict[str, Any]) -> None:
    evs = list(E1)
    evs[0] = {**evs[0], "game": game, "rules": rules}
    assert run(evs)[:3] == ("invalid", 0, "bad_rules")


# ---------------------------------------------------------------- bidding paths that are legal


def test_redeal_when_all_pass_is_void_and_then_closed() -> None:
    evs = list(E3[:5])
    evs[0] = {**evs[0], "rules": {"all_pass": "redeal"}}
    r = replay([parse_event({**e, "match_id": "m", "seq": i}) for i, e in enumerate(evs)])
    assert (r.status, r.deltas, r.items, r.winners) == ("finished", [0, 0, 0], [], [])
    status, seq, code, _ = run([*evs, {"type": "play", "seat": 0, "cards": ["5s"]}])
    assert (status, seq, code) == ("invalid", 5, "after_end")


def _rob_log(first: int, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    evs = list(E1[:2])
    evs[0] = {**evs[0], "rules": {"rob": True}, "dealer": first}
    return evs + actions


def test_rob_decliner_cannot_rob_and_caller_last_is_landlord_at_once() -> None:
    # first 0 declines, 1 calls: the only robber is 2 (0 bid 0)
    log = _rob_log(0, [{"type": "bid", "seat": 0, "value": 0}, {"type": "bid", "seat": 1, "value": 1},
                       {"type": "rob", "seat": 0, "value": True}])  # fmt: skip
    assert run(log)[1:3] == (4, "not_your_turn")
    # caller is first+2: landlord at once, no rob round
    log = _rob_log(1, [{"type": "bid", "seat": 1, "value": 0}, {"type": "bid", "seat": 2, "value": 0},
                       {"type": "bid", "seat": 0, "value": 1}, {"type": "rob", "seat": 1, "value": True}])  # fmt: skip
    assert run(log)[1:3] == (5, "wrong_phase")


def test_rob_all_declined_caller_keeps_it_and_has_no_rob_back() -> None:
    log = _rob_log(0, [{"type": "bid", "seat": 0, "value": 1}, {"type": "rob", "seat": 1, "value": False},
                       {"type": "rob", "seat": 2, "value": False}, {"type": "rob", "seat": 0, "value": True}])  # fmt: skip
    # the rob-back only happens if someone robbed: seat 0 is landlord and must play, not rob
    assert run(log)[1:3] == (5, "wrong_phase")
    log = [*log[:-1], {"type": "forfeit", "seat": 1}]
    r = replay([parse_event({**e, "match_id": "m", "seq": i}) for i, e in enumerate(log)])
    # landlord 0, R = 1, no bombs: U = 1, farmer 1 forfeits and pays 2U
    assert r.deltas == [2, -2, 0] and r.winners == [0]


def test_forfeit_before_landlord_is_fixed() -> None:
    log = [*E1[:2], {"type": "forfeit", "seat": 1}]
    r = replay([parse_event({**e, "match_id": "f", "seq": i}) for i, e in enumerate(log)])
    assert r.deltas == [1, -2, 1] and r.winners == [0, 2]
    assert [(i["kind"], i["seat"], i["from"], i["points"]) for i in r.items] == [("forfeit", 0, 1, 1), ("forfeit", 2, 1, 1)]


def test_laizi_forfeit_before_laizi_event_and_landlord_forfeit_after() -> None:
    log = [*E4[:4], {"type": "forfeit", "seat": 2}]
    r = replay([parse_event({**e, "match_id": "m", "seq": i}) for i, e in enumerate(log)])
    assert r.deltas == [1, 1, -2]
    log = [*E4[:5], {"type": "forfeit", "seat": 0}]  # landlord forfeits after the laizi: S7 with R = 3
    r = replay([parse_event({**e, "match_id": "m", "seq": i}) for i, e in enumerate(log)])
    assert r.deltas == [-6, 3, 3] and r.winners == [1, 2]


# ---------------------------------------------------------------- contract-level codes on a ddz log


def _file(tmp_path: Any, lines: list[str]) -> list[Any]:
    from engine.replay import group_lines
    from events.codec import read_log

    p = tmp_path / "m.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    g = group_lines(read_log(p))
    (entries,) = g.matches.values()
    return entries


def test_contract_codes_on_a_ddz_log(tmp_path: Any) -> None:
    import json

    from events.chain import fill_chain

    evs = [parse_event(e) for e in E1]
    lines = [json.dumps(e) for e in E1]
    # seat 3 does not exist (bad_field); dealer 3 does not exist (bad_deal, DDZ-R2)
    assert run(put(E1, 2, type="bid", seat=3, value=0))[1:3] == (2, "bad_field")
    bad0 = list(E1)
    bad0[0] = {**bad0[0], "dealer": 3}
    assert run(bad0)[1:3] == (0, "bad_deal")  # DDZ-R2: `first` ∈ {0, 1, 2}
    # four players for a 3-seat game
    bad0[0] = {**E1[0], "players": ["a", "b", "c", "d"]}
    assert run(bad0)[1:3] == (0, "bad_field")
    # a gap, a conflicting resend, a broken hash chain, no match_started
    r = replay(evs[:3] + evs[4:])
    assert (r.status, r.error["seq"], r.error["code"]) == ("invalid", 4, "seq_gap")
    other = parse_event({**E1[3], "value": 0})
    r = replay([*evs[:4], other, *evs[4:]])  # quarantined; the first event received stands (events.md §5)
    assert (r.status, r.error, [(e.code, e.seq) for e in r.refused]) == ("finished", None, [("conflict", 3)])
    chained = fill_chain(evs)
    d = chained[4].to_dict()
    d["cards"] = ["3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts", "Js", "Qs", "Ks"]
    r = replay([*chained[:4], parse_event(d), *chained[5:]])
    assert (r.status, r.error["seq"], r.error["code"], r.chain_ok) == ("invalid", 4, "bad_hash", False)
    r = replay(evs[1:])
    assert r.error["code"] == "not_started"
    # unreadable lines inside the match
    entries = _file(tmp_path, [*lines[:3], lines[3][:-5], *lines[4:]])
    r = replay(entries)  # a truncated line: refused where it stands, or a gap if it names no seq
    assert r.status == "invalid" and (r.error["seq"], r.error["code"]) in ((3, "bad_json"), (4, "seq_gap"))
    entries = _file(tmp_path, [*lines[:3], lines[3].replace('"bid"', '"bidx"'), *lines[4:]])
    assert replay(entries).error["code"] == "unknown_type"
    entries = _file(tmp_path, [*lines[:3], lines[3].replace('"value"', '"valu"'), *lines[4:]])
    assert replay(entries).error["code"] == "bad_field"


def test_tiles_in_a_ddz_deal_are_bad_deal() -> None:
    hands = [list(h) for h in E1[1]["hands"]]
    hands[0][0] = "1m"
    assert run(_deal_variant(hands=hands))[1:3] == (1, "bad_deal")


def test_laizi_bomb_classes_in_the_reducer() -> None:
    """§4.6 at the reducer: a soft bomb cannot beat a hard one of lower rank, beats a lower soft one."""
    from engine.cards import CARD_ID
    from engine.climbing.ddz import DDZState
    from engine.climbing.ddz_laizi import DDZ_LAIZI
    from engine.climbing.moves import LEVEL_BOMB, LEVEL_SOFT, Move
    from engine.errors import Illegal
    from events.models import Play

    def st(top: Move) -> DDZState:
        mask = 0
        for c in ("As", "Ah", "Ac", "7h", "9s"):
            mask |= 1 << CARD_ID[c]
        return DDZState(game="ddz_laizi", rules=DDZ_LAIZI.parse_rules({}), base=1, first=0, phase="play", turn=0,
                        hands=(mask, 1, 2), bottom=(), landlord=0, laizi=4, top=top, top_seat=2)  # fmt: skip

    four = (0,) * 15
    hard4 = Move("hard_bomb", 1, 1, LEVEL_BOMB, four)
    soft_k = Move("soft_bomb", 1, 10, LEVEL_SOFT, four)
    play = Play(match_id="m", seq=9, seat=0, cards=["As", "Ah", "Ac", "7h"], **{"as": ["A"]})
    with pytest.raises(Illegal) as e:
        DDZ_LAIZI.apply(st(hard4), play)
    assert e.value.code == "does_not_beat" and "DDZ-C2" in str(e.value)
    after = DDZ_LAIZI.apply(st(soft_k), play)
    assert after.top.type == "soft_bomb" and after.bombs == ((0, "soft_bomb", 11),)
    # the same cards declared as trio_solo cannot beat any bomb
    with pytest.raises(Illegal):
        DDZ_LAIZI.apply(st(soft_k), Play(match_id="m", seq=9, seat=0, cards=["As", "Ah", "Ac", "7h"], **{"as": ["9"]}))
