"""The laizi reading generator against brute force (every `as` list tried through the reducer),
DDZ-R27 auto-reading, and `paiju hand` for both games."""

from __future__ import annotations

from functools import cache
from itertools import product

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.cards import CARD_ID, RANK_NAMES
from engine.climbing.ddz import DDZ, DDZState
from engine.climbing.ddz_laizi import DDZ_LAIZI
from engine.climbing.laizi import auto_reading, laizi_moves, readings
from engine.climbing.moves import LEVEL_BOMB, LEVEL_SOFT, Move, ddz_move_rules, generate
from engine.errors import Illegal
from events.models import Play

SUITS = "shcd"


@cache
def _tops() -> dict[int, list[Move]]:
    out: dict[int, list[Move]] = {}
    for m in generate(tuple([4] * 13 + [1, 1]), ddz_move_rules()):
        out.setdefault(m.n_cards, []).append(m)
        if m.type == "bomb":
            out[4].append(m._replace(type="soft_bomb", level=LEVEL_SOFT))
            out[4].append(m._replace(type="hard_bomb", level=LEVEL_BOMB))
    return out


def _state(cards: list[str], lr: int, top: Move | None) -> DDZState:
    mask = 0
    for c in cards:
        mask |= 1 << CARD_ID[c]
    return DDZState(
        game="ddz_laizi", rules=DDZ_LAIZI.parse_rules({}), base=1, first=0, phase="play", turn=0,
        hands=(mask, 1 << 53, 1 << 52), bottom=(), landlord=0, laizi=lr, top=top,
        top_seat=None if top is None else 2, passes=0,
    )  # fmt: skip


def _legal(state: DDZState, cards: list[str], as_: list[str] | None) -> bool:
    ev = Play(match_id="m", seq=9, seat=0, cards=cards, **({} if as_ is None else {"as": as_}))
    try:
        DDZ_LAIZI.apply(state, ev)
    except Illegal:
        return False
    return True


@st.composite
def laizi_plays(draw: st.DrawFn) -> tuple[list[str], int, Move | None]:
    lr = draw(st.integers(0, 12))
    m = draw(st.integers(0, 3))
    lo = draw(st.integers(0, 12))
    pool = [f"{RANK_NAMES[r]}{s}" for r in range(lo, min(lo + 5, 13)) if r != lr for s in SUITS]
    pool += ["BJ", "RJ"]
    plain = draw(st.lists(st.sampled_from(pool), min_size=0 if m else 1, max_size=7, unique=True))
    laizi = [f"{RANK_NAMES[lr]}{s}" for s in SUITS[:m]]
    cards = draw(st.permutations(plain + laizi))
    top = None
    if draw(st.booleans()):
        tops = _tops().get(len(cards), [])
        if tops:
            top = tops[draw(st.integers(0, len(tops) - 1))]
    return list(cards), lr, top


@settings(max_examples=300, deadline=None)
@given(laizi_plays())
def test_readings_agree_with_brute_force(play: tuple[list[str], int, Move | None]) -> None:
    cards, lr, top = play
    m = sum(1 for c in cards if c[:-1] == RANK_NAMES[lr] and c not in ("BJ", "RJ"))
    assume(m <= 3)
    state = _state(cards, lr, top)
    plain = [0] * 15
    for c in cards:
        r = CARD_ID[c] >> 2 if CARD_ID[c] < 52 else CARD_ID[c] - 39
        if r != lr:
            plain[r] += 1
    got = readings(tuple(plain), m, lr, ddz_move_rules(), top)
    got_as = {rd.as_ for rd in got}
    assert len(got_as) == len(got)
    if m == 0:
        brute = {()} if _legal(state, cards, None) else set()
    else:
        brute = set()
        for assign in product(RANK_NAMES, repeat=m):  # jokers included: they must be refused
            if _legal(state, cards, list(assign)):
                brute.add(tuple(sorted(RANK_NAMES.index(a) for a in assign)))
    assert got_as == brute
    for rd in got:  # every reading replays as legal, as declared
        names = rd.as_names()
        assert _legal(state, cards, names if names else None)
        after = DDZ_LAIZI.apply(state, Play(match_id="m", seq=9, seat=0, cards=cards, **({"as": names} if names else {})))
        assert after.top == rd.move


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 12), st.booleans())
def test_laizi_moves_are_legal_plays(seed: int, lr: int, follow: bool) -> None:
    import random

    rng = random.Random(seed)
    deck = list(range(54))
    rng.shuffle(deck)
    hand = [c for c in deck[:17]]
    names = [RANK_NAMES[c >> 2] + SUITS[c & 3] if c < 52 else ("BJ", "RJ")[c - 52] for c in hand]
    top = None
    if follow:
        tops = _tops()[rng.choice((1, 2, 4, 5, 6))]
        top = tops[rng.randrange(len(tops))]
    state = _state(names, lr, top)
    for rd in laizi_moves(*DDZ_LAIZI.hand_counts(state, 0), lr, ddz_move_rules(), top)[:300]:
        p = DDZ_LAIZI.play_payload(state, 0, rd)
        after = DDZ_LAIZI.apply(state, Play(match_id="m", seq=9, **{k: v for k, v in p.items() if k != "type"}))
        assert after.top == rd.move


def test_auto_reading_ddz_r27() -> None:
    from engine.climbing.moves import classify

    ps = classify((2, 2, 2) + (0,) * 12, ddz_move_rules())
    # DDZ-R26: 3s 3h 3c + laizi 7 → the soft bomb first
    assert auto_reading(["3s", "3h", "3c", "7h"], "7") == ["3"]
    assert auto_reading(["3s", "3h", "3c", "7h"], "7", top=ps) == ["3"]
    # the pure rule: two laizi are the pair of 7
    assert auto_reading(["7s", "7h"], "7") == ["7", "7"]
    # E4: 445566 with one laizi
    assert auto_reading(["4s", "4h", "5s", "5h", "6s", "7c"], "7") == ["6"]
    # no laizi: no declaration; an illegal play: None
    assert auto_reading(["3s", "3h"], "7") == []
    assert auto_reading(["3s", "4h"], "7") is None
    # 3 + laizi: pair of 3 beats solo readings? pair (order) before solo; only 2 cards: pair 33
    assert auto_reading(["3s", "7h"], "7") == ["3"]
    # laizi standing for its own rank wins a tie on type and key (step 3): 7 + 8 + 9 + T + laizi(J)…
    assert auto_reading(["8s", "9s", "Ts", "Js", "7h"], "7") == ["Q"]  # straight 89TJQ beats 789TJ (key)


def test_auto_reading_prefers_own_rank_then_smallest() -> None:
    # laizi 5: 4 4 4 + 5 → trio_solo 444+5 (own rank) vs 444+x for every other x: same type and key
    assert auto_reading(["4s", "4h", "4c", "5d"], "5") == ["4"]  # soft bomb 4444 first (class)
    # laizi 5: 3 3 3 6 6 + 5 as 6 → no: 33366+5 — trio_pair needs a pair; plane? 6 cards
    assert auto_reading(["9s", "9h", "9c", "Kd", "5d"], "5") == ["K"]  # trio_pair 999KK


def test_hand_ddz() -> None:
    assert DDZ.hand({"cards": "3s 3h 3d 4c"}) == {"valid": True, "type": "trio_solo", "rank": "3", "length": 1}
    assert DDZ.hand({"cards": "3s 4h 5d 6c 7s"}) == {"valid": True, "type": "straight", "rank": "7", "length": 5}
    assert DDZ.hand({"cards": "3s 3h 4d 4c 5s 5h"})["length"] == 3
    bad = DDZ.hand({"cards": "3s 4h"})
    assert bad["valid"] is False and "DDZ-R16" in bad["reason"]
    assert DDZ.hand({"cards": "4s 4h 4d 4c BJ RJ", "rules": {"kicker_rocket": True}})["type"] == "four_two_solo"
    for q in ({"cards": "3x"}, {"cards": ""}, {"cards": "3s 3s"}, {"cards": "3s", "laizi": "7"},
              {"cards": "3s", "rules": {"nope": 1}}, {"cards": "3s", "rules": {"hard_bomb_factor": 4}}):
        with pytest.raises(ValueError):
            DDZ.hand(q)


def test_hand_ddz_laizi_readings() -> None:
    res = DDZ_LAIZI.hand({"cards": "3s 3h 3c 7h", "laizi": "7"})
    types = {(r["type"], tuple(r["as"])) for r in res["readings"]}
    assert ("soft_bomb", ("3",)) in types and ("trio_solo", ("7",)) in types and ("trio_solo", ("4",)) in types
    assert res["valid"] is True
    assert DDZ_LAIZI.hand({"cards": "7s 7h 7c 7d", "laizi": "7"})["readings"] == [
        {"valid": True, "type": "pure_laizi_bomb", "rank": "7", "length": 1, "as": ["7", "7", "7", "7"]}
    ]
    none = DDZ_LAIZI.hand({"cards": "3s 4h 9c 7h", "laizi": "7"})
    assert none["readings"] == [] and none["valid"] is False
    assert DDZ_LAIZI.hand({"cards": "3s 3h"}) == {"valid": True, "type": "pair", "rank": "3", "length": 1}
    with pytest.raises(ValueError):
        DDZ_LAIZI.hand({"cards": "3s", "laizi": "BJ"})


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 12))
def test_laizi_moves_equal_virtual_hand_filter(seed: int, lr: int) -> None:
    """laizi_moves (wild budget in the generator) = plain generation on the hand where every rank
    3..2 may have up to m more cards, kept when the missing cards number at most m (and the pure rule)."""
    import random

    rng = random.Random(seed)
    deck = list(range(54))
    rng.shuffle(deck)
    N = [0] * 15
    m = 0
    for c in deck[:20]:
        r = c >> 2 if c < 52 else c - 39
        if r == lr:
            m += 1
        else:
            N[r] += 1
    mr = ddz_move_rules()
    V = [min(4, N[r] + m) if r < 13 else N[r] for r in range(15)]
    expected = set()
    for mv in generate(tuple(V), mr):
        S = tuple(r for r in range(15) for _ in range(max(0, mv.counts[r] - N[r])))
        plain = sum(min(mv.counts[r], N[r]) for r in range(15))
        if len(S) <= m and not (plain == 0 and any(r != lr for r in S)):
            expected.add((mv.counts, S))
    got = {(rd.move.counts, rd.as_) for rd in laizi_moves(tuple(N), m, lr, mr)}
    assert got == expected


def test_auto_as_in_a_replayed_state_matches_the_e4_log() -> None:
    """Ingest's view: E4 with every `as` stripped gets back exactly the declarations of the log."""
    from engine.replay import replay_with_steps
    from events.codec import parse_event
    from tests.ddz_golden_src import events_of

    evs = events_of("e4_laizi_soft_hard")
    steps, _ = replay_with_steps([parse_event(e) for e in evs])
    by_seq = {s.seq: s.state for s in steps}
    checked = 0
    for e in evs:
        if e["type"] == "play":
            assert DDZ_LAIZI.auto_as(by_seq[e["seq"] - 1], e["cards"]) == e.get("as", [])
            checked += 1
    assert checked == 6


def test_readings_exhaustive_small_sets() -> None:
    """Thousands of card sets: every multiset of up to 4 non-laizi cards over 3 4 5 6 8 9 BJ RJ with
    0–2 laizi (0–3 when at most 2 other cards), laizi 7; every ordered `as` list judged."""
    from engine.climbing.laizi import judge
    from engine.climbing.moves import counts_str

    mr = ddz_move_rules()
    lr = 4
    kinds = [0, 1, 2, 3, 5, 6, 13, 14]
    sets = 0

    def rec(i: int, left: int, cur: list[int]) -> list[tuple[int, ...]]:
        if i == len(kinds):
            return [tuple(cur)]
        out = []
        r = kinds[i]
        for k in range(0, min(left, 1 if r >= 13 else 4) + 1):
            cur[r] = k
            out += rec(i + 1, left - k, cur)
        cur[r] = 0
        return out

    for N in rec(0, 4, [0] * 15):
        n = sum(N)
        for m in range(0, (3 if n <= 2 else 2) + 1):
            if n + m == 0:
                continue
            sets += 1
            brute = set()
            for assign in product(range(15), repeat=m):
                mv = judge(N, list(assign), lr, mr)
                if mv is not None:
                    brute.add((tuple(sorted(assign)), mv))
            got = {(rd.as_, rd.move) for rd in readings(N, m, lr, mr)}
            assert got == brute, (counts_str(N), m)
    assert sets > 1000


def test_move_of_a_logged_play_feeds_auto_reading() -> None:
    from engine.climbing.laizi import move_of

    top = move_of(["4s", "4h", "5s", "5h", "6s", "7c"], "7", ["6"])
    assert top is not None and (top.type, top.length, top.key) == ("pair_straight", 3, 3)
    assert auto_reading(["8s", "8h", "9s", "9h", "Ts", "7d"], "7", top) == ["T"]
    assert move_of(["7s", "7h"], "7", ["A", "A"]) is None  # DDZ-R24
    assert move_of(["3s", "7h"], "7") is None  # `as` missing
    assert move_of(["3s", "3h", "3c", "7h"], "7", ["3"]).type == "soft_bomb"
