"""Property tests: for any house rules, bot playouts of anshun finish, zero-sum, deltas = net of items."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.replay import replay
from engine.sim.simulate import simulate_match

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
    assert sum(res.deltas) == 0 and res.settlement_matches
    net = [0, 0, 0, 0]
    for it in res.items:
        net[it["seat"]] += it["points"]
        net[it["from"]] -= it["points"]
        assert it["points"] > 0 and it["seat"] != it["from"]
    assert net == res.deltas
    if not res.winners:
        assert {it["kind"] for it in res.items} <= {"jiao_pai"}


def test_random_corruptions_never_crash() -> None:
    """Any event replacing a logged one is refused with a contract code (or accepted), never a traceback."""
    import json
    import random
    from pathlib import Path

    from events.codec import parse_line

    tiles = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + ["7z"]
    files = sorted((Path(__file__).parent / "data" / "golden").glob("anshun_*.jsonl"))
    rng = random.Random(5)
    codes = set()
    for _ in range(400):
        ev = [json.loads(ln) for ln in rng.choice(files).read_text().splitlines()]
        i = rng.randrange(2, len(ev))
        t = rng.choice(["draw", "discard", "peng", "gang", "hu", "ting"])
        e: dict[str, Any] = {"match_id": ev[0]["match_id"], "seq": i, "type": t, "seat": rng.randrange(4)}
        if t != "ting":
            e["tile"] = rng.choice(tiles)
        if t == "gang":
            e["kind"] = rng.choice(["zhi", "bu", "an"])
        res = replay([parse_line(json.dumps(x)) for x in [*ev[:i], e]])
        if res.error:
            assert res.error["seq"] == i
            assert res.error["code"] == "after_end" or "AS-" in res.error["message"], res.error
            codes.add(res.error["code"])
    assert {"not_your_turn", "illegal_claim", "illegal_move", "not_in_hand"} <= codes
