"""Targeted Sichuan rules on scripted hands (tests/sichuan_builder.py plays them on the real engine):
exchange directions, 天胡/地胡, 海底, the compulsory self-draw in the last four tiles, the 血流 lock
with a kong that keeps the waits, the pass lock against a bigger win, and the exhaustive-draw checks
in 血流.
"""

from __future__ import annotations

from typing import Any

import pytest
from sichuan_builder import Builder

from engine.errors import Illegal
from engine.mahjong.sichuan import XUEZHAN
from engine.replay import replay
from engine.tiles import tile_id
from events.codec import parse_event


def finish(b: Builder, deltas: list[int] | None = None) -> Any:
    lines = b.lines(deltas or [0, 0, 0, 0])
    from events.codec import parse_line

    return replay([parse_line(x.encode()) for x in lines])


def wins(r: Any) -> list[dict[str, Any]]:
    return [i for i in r.items if i["kind"].startswith("hu_") and i["kind"] != "hu_zhuanyi"]


@pytest.mark.parametrize(("direction", "shift"), [("clockwise", 3), ("counterclockwise", 1), ("opposite", 2)])
def test_exchange_directions(direction: str, shift: int) -> None:
    b = Builder(f"x_{direction}", "sichuan_xuezhan", {}, 0, ["junk:mp:1m", "junk:ps", "junk:ms", "junk:mp"], "smpp", direction=direction)
    dealt = b.dealt_hands
    ex = {d["seat"]: d["tiles"] for d in b.events if d.get("type") == "exchange"}
    for s in range(4):
        got = sorted(b._hand(s))
        want = [tile_id(t) for t in dealt[s]]
        for t in ex[s]:
            want.remove(tile_id(t))
        want += [tile_id(t) for t in ex[(s - shift) % 4]]
        assert got == sorted(want)


def test_tian_hu() -> None:
    b = Builder("tian", "sichuan_xuezhan", {}, 0, ["123m456m789m234p55p", "junk:ps", "junk:ms", "junk:ms"], "smpp")
    b.do("hu", 0, "5p")
    b.fill_to_end()
    r = finish(b)
    assert [(w["from"], w["points"], w["fans"]) for w in wins(r)] == [(p, 32, {"tian_hu": 6}) for p in (1, 2, 3)]
    b = Builder("tian_off", "sichuan_xuezhan", {"tian_di_hu": False}, 0, ["123m456m789m234p55p", "junk:ps", "junk:ms", "junk:ms"], "smpp")
    b.do("hu", 0, "5p")
    b.fill_to_end()
    assert wins(finish(b))[0]["fans"] == {"ping_hu": 1, "zi_mo": 1}


def test_di_hu_on_first_draw_and_on_dealer_discard() -> None:
    hands = ["junk:ps:9s", "123m456m789m234p5p", "junk:ms", "junk:ms"]
    b = Builder("di", "sichuan_xuezhan", {}, 0, hands, "mspp", reserve="5p")
    b.do("discard", 0, "9s")
    b.draw(1, "5p")
    b.do("hu", 1, "5p")
    b.fill_to_end()
    assert wins(finish(b))[0]["fans"] == {"di_hu": 6}
    # with the option, a win on the dealer's first discard is 地胡 too
    hands = ["junk:ps:5p", "123m456m789m234p5p", "junk:ms", "junk:ms"]
    b = Builder("di2", "sichuan_xuezhan", {"di_hu_mode": "first_draw_or_dealer_discard"}, 0, hands, "mspp")
    b.do("discard", 0, "5p")
    b.do("hu", 1, "5p")
    b.fill_to_end()
    w = wins(finish(b))[0]
    assert (w["kind"], w["from"], w["fans"]) == ("hu_dianpao", 0, {"di_hu": 6})


def test_last_four_self_draw_is_compulsory_and_hai_di() -> None:
    hands = ["junk:ps:9s", "junk:ms", "junk:ms", "123m456m789m234p5p"]  # seat 3 draws the last tile
    b = Builder("haidi", "sichuan_xuezhan", {"hai_di": "zimo"}, 0, hands, "mpps", reserve="5p")
    b.do("discard", 0, "9s")
    b.fill_until(3, remaining=1, use_passes=True)
    b.draw(3, "5p")
    st = b.state
    assert st.wall.remaining == 0
    bad = parse_event({"match_id": "m", "seq": st.seq + 1, "type": "discard", "seat": 3, "tile": "5p"})
    with pytest.raises(Illegal) as e:
        XUEZHAN.apply(st, bad)
    assert e.value.code == "illegal_move" and "SC-R15" in str(e.value)
    b.do("hu", 3, "5p")
    r = finish(b)
    assert r.status == "finished"
    assert wins(r)[0]["fans"] == {"ping_hu": 1, "zi_mo": 1, "hai_di": 1}


def test_xueliu_lock_allows_a_kong_that_keeps_the_waits() -> None:
    hands = ["junk:ps:9p", "1m2m3m 4m5m6m 7m8m 2s2s2s 9s9s", "4m4m4m 5m5m5m 2p2p2p 7p7p 8p9p", "junk:ms:6m"]
    b = Builder("lockgang", "sichuan_xueliu", {"que_discard_first": False}, 0, hands, "mpsp", reserve="2s 9m")
    b.do("discard", 0, "9p")
    b.fill_until(3)
    b.draw(3, b.state and "1s")
    b.do("discard", 3, "6m")
    b.do("hu", 1, "6m")
    b.fill_until(1)
    b.draw(1, "2s")
    b.do("gang", 1, "2s", "an")  # waits 3m 6m 9m before and after
    b.filler()
    b.filler()
    b.fill_until(1)
    b.draw(1, "9m")
    b.do("hu", 1, "9m")
    b.fill_to_end()
    r = finish(b)
    kinds = [(i["kind"], i["seat"]) for i in r.items]
    assert ("gang_an", 1) in kinds
    assert [w["fans"] for w in wins(r)] == [{"ping_hu": 1}] + [{"ping_hu": 1, "gang": 1, "zi_mo": 1}] * 3


def test_pass_lock_compares_the_uncapped_fan() -> None:
    from dataclasses import replace

    from engine.replay import replay_with_steps

    steps, _ = replay_with_steps(_golden("e9_pass_lock_last_four"))
    window = next(s.state for s in steps if s.event is not None and s.event.type == "discard" and s.event.tile == "1p" and s.event.seat == 3)
    assert XUEZHAN._can_claim_win(window, 1).fan == 1  # seat 1 could win 1p for 1 fan
    assert XUEZHAN._can_claim_win(replace(window, locks=(-1, 0, -1, -1)), 1) is not None  # 1 > P = 0
    assert XUEZHAN._can_claim_win(replace(window, locks=(-1, 1, -1, -1)), 1) is None  # 1 is not > P = 1
    after = next(s.state for s in steps if s.seq == window.seq + 1)
    assert after.locks[1] == 1  # the log moved on with seat 0's draw: seat 1 passed a 1-fan win
    nxt = next(s.state for s in steps if s.event is not None and s.event.type == "draw" and s.event.seat == 1 and s.seq > window.seq)
    assert nxt.locks[1] == -1  # the lock ends at seat 1's next draw


def test_xueliu_exhaustion_checks_only_never_won_seats() -> None:
    r = replay([ln for ln in _golden("e5_xueliu_two_wins")])
    assert r.status == "finished"
    assert {i["kind"] for i in r.items} == {"hu_dianpao", "hu_zimo"}


def _golden(name: str) -> list[Any]:
    from pathlib import Path

    from events.codec import read_log

    return [ln.event for ln in read_log(Path(__file__).parent / "data" / "golden" / f"sichuan_{name}.jsonl")]  # type: ignore[union-attr]


def test_legal_actions_in_the_claim_window() -> None:
    from engine.replay import replay_with_steps

    steps, _ = replay_with_steps(_golden("e2_bu_gang_gang_shang_pao_yi_pao_duo_xiang"))
    i = next(k for k, s in enumerate(steps) if s.event is not None and s.event.type == "discard" and s.event.tile == "3p" and s.event.seat == 0)
    window = steps[i].state
    acts = XUEZHAN.legal_actions(window)
    hus = sorted(a["seat"] for a in acts if a["type"] == "hu")
    assert hus == [1, 3]
    assert {a["type"] for a in acts} >= {"hu", "draw"}
    after_first = steps[i + 1].state
    acts = XUEZHAN.legal_actions(after_first)
    assert [a for a in acts if a["type"] == "hu"] == [{"type": "hu", "seat": 3, "tile": "3p"}]
    assert not [a for a in acts if a["type"] in ("peng", "gang")]
    draws = [a for a in acts if a["type"] == "draw"]
    assert len(draws) == 1 and draws[0]["seat"] == 2  # next active after the last winner (seat 1)
