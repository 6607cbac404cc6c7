"""Zha Jin Hua hand evaluator (zhajinhua.md section 4) against the rule text and an independent
reference classifier written here from the table of 4.1."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.zhajinhua.game import ZHAJINHUA
from engine.zhajinhua.hands import CATEGORIES, Evaluator, all_hands, evaluate, is_235, parse_hand

ROOT = Path(__file__).resolve().parents[1]
RANKS = "23456789TJQKA"  # 2 low .. A high (section 2)
SUITS = "shcd"
DECK = [r + s for r in RANKS for s in SUITS]

STANDARD_COUNTS = {
    "bao_zi": 52,
    "shun_jin": 48,
    "jin_hua": 1096,
    "shun_zi": 720,
    "dui_zi": 3744,
    "dan_zhang": 16440,
}


# ---------------------------------------------------------------- an independent reference (4.1 literally)


def ref_category(cards: list[str]) -> str:
    vals = sorted((RANKS.index(c[0]) + 2 for c in cards), reverse=True)
    one_suit = len({c[1] for c in cards}) == 1
    counts = sorted(Counter(vals).values())
    consecutive = (vals[0] - vals[1] == 1 and vals[1] - vals[2] == 1) or vals == [14, 3, 2]
    if counts == [3]:
        return "bao_zi"
    if consecutive and one_suit:
        return "shun_jin"
    if one_suit:
        return "jin_hua"
    if consecutive:
        return "shun_zi"
    if counts == [1, 2]:
        return "dui_zi"
    return "dan_zhang"


def ref_cmp(a: list[str], b: list[str], a23: str = "lowest", suits: bool = False) -> int:
    """-1/0/+1 from 4.1 and 4.2 (no 2-3-5)."""
    order = ["dan_zhang", "dui_zi", "shun_zi", "jin_hua", "shun_jin", "bao_zi"]
    ca, cb = ref_category(a), ref_category(b)
    if ca != cb:
        return 1 if order.index(ca) > order.index(cb) else -1

    def tiebreak(h: list[str], cat: str) -> list[float]:
        vals = sorted((RANKS.index(c[0]) + 2 for c in h), reverse=True)
        if cat in ("shun_zi", "shun_jin"):
            if vals == [14, 3, 2]:
                return [3] if a23 == "lowest" else [13.5]
            return [vals[0]]
        if cat == "dui_zi":
            p = next(v for v in vals if vals.count(v) == 2)
            return [p, next(v for v in vals if v != p)]
        return vals

    ta, tb = tiebreak(a, ca), tiebreak(b, cb)
    if ta != tb:
        return 1 if ta > tb else -1
    if not suits:
        return 0

    def first_suit(h: list[str], cat: str) -> int:
        vals = [RANKS.index(c[0]) + 2 for c in h]
        low_ace = a23 == "lowest" and sorted(vals) == [2, 3, 14] and cat in ("shun_zi", "shun_jin")

        def k(c: str) -> tuple[int, int, int]:
            v = RANKS.index(c[0]) + 2
            if low_ace and v == 14:
                v = 1
            return (vals.count(RANKS.index(c[0]) + 2) == 2, v, "dchs".index(c[1]))

        return "dchs".index(max(h, key=k)[1])

    fa, fb = first_suit(a, ca), first_suit(b, cb)
    return (fa > fb) - (fa < fb)


def key_of(cards: list[str], a23: str = "lowest", suits: bool = False) -> tuple[int, ...]:
    return evaluate(parse_hand(cards), a23 == "second", suits)


# ---------------------------------------------------------------- counts


@pytest.mark.parametrize("a23", ["lowest", "second"])
@pytest.mark.parametrize("suits", [False, True])
def test_category_counts_all_22100_hands(a23: str, suits: bool) -> None:
    hands = all_hands()
    assert len(hands) == 22100
    counts = Counter(CATEGORIES[evaluate(h, a23 == "second", suits)[0]] for h in hands)
    assert dict(counts) == STANDARD_COUNTS


def test_every_hand_matches_the_reference_category() -> None:
    for combo in combinations(DECK, 3):
        cards = list(combo)
        assert CATEGORIES[key_of(cards)[0]] == ref_category(cards), cards


def test_distinct_classes_and_special_235_count() -> None:
    keys = {evaluate(h) for h in all_hands()}
    # rank classes: 13 bao_zi, 12 straights (shun_jin), C(13,3)-12 flush patterns, 12 straights,
    # 13*12 pairs, C(13,3)-12 high cards
    assert len(keys) == 13 + 12 + (286 - 12) + 12 + 156 + (286 - 12)
    ids = all_hands()
    assert sum(1 for h in ids if is_235(h)) == 4**3 - 4  # off-suit 2-3-5: every suit mix but the 4 flushes
    with_suits = {evaluate(h, False, True) for h in ids}
    assert len(with_suits) > len(keys)


def test_disjoint_hands_never_tie_with_suit_tiebreak() -> None:
    """4.2: 'Two hands never share a card, so this always decides' — checked on every equal-rank class."""
    ev = Evaluator(suit_tiebreak=True)
    by_class: dict[tuple[int, ...], list[tuple[int, int, int]]] = {}
    for h in all_hands():
        by_class.setdefault(evaluate(h), []).append(h)
    for hands in by_class.values():
        for a, b in combinations(hands[:40], 2):
            if set(a) & set(b):
                continue
            assert ev.beats(a, b) != ev.beats(b, a)


# ---------------------------------------------------------------- order


def test_straight_order_and_a23_option() -> None:
    qka, jqk, a23, s234 = (["Qs", "Kh", "Ad"], ["Js", "Qh", "Kd"], ["As", "2h", "3d"], ["2s", "3h", "4d"])
    assert key_of(qka) > key_of(jqk) > key_of(s234) > key_of(a23)
    assert key_of(qka, "second") > key_of(a23, "second") > key_of(jqk, "second") > key_of(s234, "second")
    assert ref_category(["Ks", "Ah", "2d"]) == "dan_zhang" == CATEGORIES[key_of(["Ks", "Ah", "2d"])[0]]


def test_pair_then_kicker_and_high_cards() -> None:
    assert key_of(["8s", "8h", "3d"]) > key_of(["7s", "7h", "Ad"])
    assert key_of(["8s", "8h", "4d"]) > key_of(["8c", "8d", "3d"])
    assert key_of(["As", "Qh", "9d"]) > key_of(["Ac", "Qd", "8h"])
    assert key_of(["Ts", "9h", "4c"]) == key_of(["Td", "9d", "4h"])  # E2: equal without suits


def test_suit_tiebreak_first_card_rules() -> None:
    # pair cards first: the pair's higher suit decides, not the kicker
    a, b = ["8s", "8d", "2c"], ["8h", "8c", "2s"]
    assert ref_cmp(a, b, suits=True) == 1 and key_of(a, suits=True) > key_of(b, suits=True)
    # A low in A-2-3 (lowest): the 3 is the first card
    a, b = ["Ad", "2d", "3s"], ["As", "2s", "3h"]
    assert key_of(a, suits=True) > key_of(b, suits=True)
    # a23 = second: the A is the first card
    assert key_of(a, "second", True) < key_of(b, "second", True)
    # E5: K♣ beats K♦
    assert key_of(["Kc", "Qc", "9c"], suits=True) > key_of(["Kd", "Qd", "9d"], suits=True)


def test_special_235() -> None:
    ev = Evaluator(special_235=True)
    h235, trips, flush235 = parse_hand(["2s", "3h", "5d"]), parse_hand(["9s", "9h", "9c"]), parse_hand(["2c", "3c", "5c"])
    assert ev.beats(h235, trips) and not ev.beats(trips, h235)
    assert not Evaluator().beats(h235, trips)
    assert not ev.beats(flush235, trips)  # a suited 2-3-5 is a flush
    pair = parse_hand(["2h", "2d", "4s"])
    assert ev.beats(pair, h235)  # otherwise the ordinary lowest high card
    # 4.5 cycle 豹子 / 2-3-5 / 顺金: nobody beats all, 2-3-5 ignored -> the 豹子 wins
    sj = parse_hand(["9h", "Th", "Jh"])
    assert ev.showdown([trips, h235, sj]) == [0]


hand_st = st.lists(st.sampled_from(DECK), min_size=3, max_size=3, unique=True)


@settings(max_examples=400, deadline=None)
@given(a=hand_st, b=hand_st, c=hand_st, a23=st.sampled_from(["lowest", "second"]), suits=st.booleans())
def test_comparison_is_a_total_order_consistent_with_the_reference(
    a: list[str], b: list[str], c: list[str], a23: str, suits: bool
) -> None:
    ka, kb, kc = (key_of(x, a23, suits) for x in (a, b, c))
    assert ((ka > kb) - (ka < kb)) == ref_cmp(a, b, a23, suits)
    if ka >= kb and kb >= kc:
        assert ka >= kc
    ev = Evaluator(a23 == "second", suits)
    ha, hb = parse_hand(a), parse_hand(b)
    assert not (ev.beats(ha, hb) and ev.beats(hb, ha))
    assert ev.beats(ha, hb) or ev.beats(hb, ha) or ka == kb


# ---------------------------------------------------------------- paiju hand


def test_hand_query() -> None:
    out = ZHAJINHUA.hand({"cards": "As Ks Qs", "rules": {}})
    assert out["category"] == "shun_jin" and out["rank"] == [14, 13, 12]
    assert ZHAJINHUA.hand({"cards": "As 2s 3h", "rules": {"a23": "second"}})["rank"] == [14, 3, 2]
    assert ZHAJINHUA.hand({"cards": "2s 3h 5d", "rules": {"special_235": True}})["special_235"] is True
    for bad in ("As Ks", "As As Ks", "As Ks BJ", "Xx Ks Qs"):
        with pytest.raises(ValueError):
            ZHAJINHUA.hand({"cards": bad, "rules": {}})
    with pytest.raises(ValueError, match="unknown option"):
        ZHAJINHUA.hand({"cards": "As Ks Qs", "rules": {"nope": 1}})


def test_paiju_hand_cli() -> None:
    out = subprocess.run(
        [sys.executable, "paiju.py", "hand", "zhajinhua", "As Ks Qs", "--json"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    got = json.loads(out.stdout)
    assert got["category"] == "shun_jin" and got["rank"] == [14, 13, 12]


def test_rules_options_are_section_6() -> None:
    from engine.base import rules_doc

    doc = rules_doc(ZHAJINHUA.Rules, ZHAJINHUA.presets)
    defaults = {o["option"]: o["default"] for o in doc["options"]}
    assert defaults == {
        "mode": "room_card", "look_min_round": 1, "compare_min_round": 2, "max_rounds": 20,
        "blind_levels": [1, 2, 5, 10], "seen_levels": [2, 4, 10, 20], "cap_level": 4, "compare_cost_factor": 1,
        "suit_tiebreak": False, "a23": "lowest", "special_235": False, "special_rewards": "winner",
        "baozi_reward": 10, "shunjin_reward": 5, "reward_basis": "base", "turn_seconds": 12, "allin_threshold": 10,
    }  # fmt: skip
    assert all(o["help"] for o in doc["options"])
    assert "standard" in doc["presets"]
    assert ZHAJINHUA.parse_rules({"cap_level": 3}).cap_level == 3
