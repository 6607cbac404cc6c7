"""Property tests: for any house rules, bot playouts of anshun finish, zero-sum, deltas = net of items."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.replay import replay
from engine.sim.simulate import simulate_match
from tests.settlement_checks import assert_items_net_to_deltas

RULES = st.fixed_dictionaries(
    {},
    optional={
        "yaobai_ji_mode": st.sampled_from(["adjacent", "next_two", "next_one"]),
        "jin_ji": st.booleans(),
        "chong_feng_ji": st.booleans(),
        "ji_requires_ting": st.booleans(),
        "fan_fan": st.booleans(),
        "ping_hu_dian_pao": st.sampled_from(["restricted", "always"]),
        "qiang_gang_payment": st.sampled_from(["bao_san_jia", "single"]),
        "men_dou_units": st.integers(0, 3),
        "zhuan_wan_dou_units": st.integers(0, 3),
        "dian_dou_units": st.integers(0, 3),
        "tian_ting": st.booleans(),
        "tian_ting_units": st.integers(0, 10),
        "sha_bao_units": st.integers(0, 10),
        "yi_pao_duo_xiang": st.booleans(),
        "replacement_from": st.sampled_from(["head", "tail"]),
        "dealer_rule": st.sampled_from(["winner", "random"]),
    },
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=RULES, seed=st.integers(0, 10_000))
def test_any_rules_playout_finishes_zero_sum(rules: dict[str, Any], seed: int) -> None:
    res = replay(simulate_match("anshun", rules, seed, 0))
    assert res.status == "finished", res.error
    assert res.settlement_matches
    assert_items_net_to_deltas(res, min_points=1)
    if not res.winners:
        assert {it["kind"] for it in res.items} <= {"jiao_pai"}
