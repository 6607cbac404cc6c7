"""Property tests: bot playouts of both Sichuan games under random house rules always finish, replay
to the same zero-sum settlement, and every logged event was a legal action; split properties."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.mahjong.core import SEQ, decompose
from engine.mahjong.sichuan import XUELIU, XUEZHAN
from engine.replay import replay
from engine.sim.simulate import simulate_match
from engine.tiles import N_KINDS
from tests.settlement_checks import assert_items_net_to_deltas

OPTIONS = st.fixed_dictionaries(
    {
        "preset": st.sampled_from(["standard", "chengdu", "mianzhu"]),
    },
    optional={
        "huan_san_zhang": st.booleans(),
        "que_discard_first": st.booleans(),
        "fan_cap": st.integers(0, 6),
        "zi_mo_bonus": st.sampled_from(["jia_fan", "jia_di", "none"]),
        "jin_gou_diao": st.sampled_from(["off", "any", "zimo_only"]),
        "hai_di": st.sampled_from(["off", "zimo", "zimo_and_pao"]),
        "tian_di_hu": st.booleans(),
        "di_hu_mode": st.sampled_from(["first_draw", "first_draw_or_dealer_discard"]),
        "dian_gang_hua": st.sampled_from(["bao", "zimo", "dian_pao"]),
        "gang_shang_pao_transfer": st.booleans(),
        "zhi_gang_units": st.integers(1, 3),
        "rob_gang": st.booleans(),
        "yi_pao_duo_xiang": st.booleans(),
        "last_four_auto_hu": st.booleans(),
        "guo_shou_hu": st.booleans(),
        "xueliu_lock_after_hu": st.booleans(),
        "replacement_from": st.sampled_from(["head", "tail"]),
        "huazhu_pays_winners": st.booleans(),
        "exchange_directions": st.sampled_from([["clockwise"], ["opposite", "counterclockwise"]]),
    },
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["sichuan_xuezhan", "sichuan_xueliu"]), OPTIONS, st.integers(0, 10_000))
def test_bot_playouts_finish_zero_sum(game_id: str, rules: dict[str, Any], seed: int) -> None:
    events = simulate_match(game_id, rules, seed=seed, index=0)
    r = replay(events)
    assert r.status == "finished", r.error
    assert r.settlement_matches is True
    assert_items_net_to_deltas(r, min_points=1)
    for it in r.items:
        if it["kind"].startswith("hu_") and it["kind"] != "hu_zhuanyi":
            cap = XUEZHAN.parse_rules(rules).fan_cap
            priced = min(it["fan"], cap) if cap else it["fan"]
            assert it["fan"] == sum(it["fans"].values())
            assert it["multiplier"] == 1 << max(0, priced - (1 if rules["preset"] == "standard" else 0))
    if game_id == "sichuan_xuezhan":
        assert len(r.winners) <= 3


def test_bots_play_like_people() -> None:
    """Over a few matches the bots win hands, make kongs and use the claim window."""
    kinds: dict[str, int] = {}
    types: dict[str, int] = {}
    for i in range(8):
        for ev in simulate_match("sichuan_xueliu", {}, seed=99, index=i):
            types[ev.type] = types.get(ev.type, 0) + 1
        for it in replay(simulate_match("sichuan_xuezhan", {}, seed=99, index=i)).items:
            kinds[it["kind"]] = kinds.get(it["kind"], 0) + 1
    assert kinds.get("hu_zimo", 0) + kinds.get("hu_dianpao", 0) > 5
    assert types.get("peng", 0) > 0 and types.get("hu", 0) > 0


def test_view_and_legal_actions_shape() -> None:
    events = simulate_match("sichuan_xuezhan", {}, seed=4, index=1)
    st_ = XUEZHAN.start(events[0], events[1], XUEZHAN.parse_rules({}))
    v = XUEZHAN.view(st_)
    assert v["phase"] == "exchange" and len(v["hands"]) == 4 and v["wall_left"] == 55
    acts = XUEZHAN.legal_actions(st_)
    assert acts and all(a["type"] == "exchange" for a in acts)
    assert XUELIU.id == "sichuan_xueliu" and XUEZHAN.id == "sichuan_xuezhan"


@st.composite
def winning_counts(draw: Any) -> list[int]:
    c = [0] * N_KINDS
    for _ in range(4):
        if draw(st.booleans()):
            c[draw(st.integers(0, 26))] += 3
        else:
            s, n = draw(st.integers(0, 2)), draw(st.integers(0, 6))
            for d in range(3):
                c[9 * s + n + d] += 1
    c[draw(st.integers(0, 26))] += 2
    return c


@settings(max_examples=200, deadline=None)
@given(winning_counts())
def test_every_split_recomposes_the_hand(c: list[int]) -> None:
    if max(c) > 4:
        return
    splits = decompose(c)
    assert splits, "a hand built from sets and a pair must split"
    for sp in splits:
        d = [0] * N_KINDS
        d[sp.pair] += 2
        for kind, f in sp.sets:
            for k in (f, f + 1, f + 2) if kind == SEQ else (f, f, f):
                d[k] += 1
        assert d == c
    assert len({tuple(s) for s in splits}) == len(splits)
