"""Property tests: for any house rules, bot playouts of hongzhong finish, zero-sum, deltas = net of items."""

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
        "hongzhong_wild": st.booleans(),
        "zhama": st.integers(2, 4),
        "wu_hongzhong_jia_ma": st.booleans(),
        "si_hongzhong": st.sampled_from(["off", "initial", "any_time"]),
        "forced_zimo": st.booleans(),
        "qiang_gang_hu": st.booleans(),
        "qi_dui": st.booleans(),
        "zhi_gang_payment": st.sampled_from(["discarder_3", "each_1"]),
        "bu_gang_units": st.integers(1, 3),
        "an_gang_units": st.integers(1, 4),
        "zimo_units": st.integers(1, 4),
        "bird_units": st.integers(0, 3),
        "bu_gang_immediate": st.booleans(),
        "hongzhong_discard": st.booleans(),
        "replacement_from": st.sampled_from(["head", "tail"]),
        "huang_zhuang_huang_gang": st.booleans(),
        "dian_gang_hua_bao": st.booleans(),
    },
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=RULES, seed=st.integers(0, 10_000))
def test_any_rules_playout_finishes_zero_sum(rules: dict[str, Any], seed: int) -> None:
    res = replay(simulate_match("hongzhong", rules, seed, 0))
    assert res.status == "finished", res.error
    assert res.settlement_matches
    assert_items_net_to_deltas(res, min_points=0)
    for it in res.items:
        if "birds" in it:
            assert it["hits"] <= len(it["birds"]) <= rules.get("zhama", 4) + 1
