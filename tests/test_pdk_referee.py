"""A brute-force referee for Pao De Kuai move legality, written from docs/rules/paodekuai.md section 4 alone
(no engine code), against the engine's `legal_counts` / `pass_legal` / readings.

The referee classifies a multiset of ranks by the table of 4.1 (with its notes), picks the lead
reading by 4.3 and decides beating by B1–B3; the legal plays of a hand are then every sub-multiset
the referee accepts. Exhaustive over every hand of at most 8 cards of ranks 3–7 and at most 6 cards
of ranks 9–2 (leading, and following each top of a list covering every type), plus seeded random
16-card hands. First-lead 3s and 报单 are off the table here (a later match, the next seat holds 5).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest

from engine.cards import CARD_NAME
from engine.climbing import pdk_moves as mv
from engine.climbing.paodekuai import PAODEKUAI as G
from engine.climbing.paodekuai import State, Top, deck
from events.models import Play
from tests.rank_multisets import rank_multisets

RANKS = "3456789TJQKA2"
CAP = [4] * 11 + [3, 1]  # the 48-card deck: three A, one 2 (section 2)
ACE, TWO, KING = 11, 12, 10
Reading = tuple[str, int, int]


# ---------------------------------------------------------------- the referee (section 4)


def _chain(ranks: list[int]) -> bool:
    """Consecutive ranks, all chain ranks 3..A (2 is never in a chain)."""
    return ranks == list(range(ranks[0], ranks[0] + len(ranks))) and ranks[-1] <= ACE


def referee_readings(c: tuple[int, ...]) -> set[Reading]:
    n = sum(c)
    present = [r for r in range(13) if c[r]]
    out: set[Reading] = set()
    if n == 0:
        return out
    if n == 1:
        out.add(("solo", 1, present[0]))
    if n == 2 and len(present) == 1:
        out.add(("pair", 1, present[0]))
    if n == 3 and len(present) == 1:
        out.add(("trio", 1, present[0]))
    if n == 4 and len(present) == 1 and present[0] <= KING:
        out.add(("bomb", 1, present[0]))  # four of a rank 3..K; a trio + its own 4th card is the bomb
    if n == 4 and len(present) == 2:
        out |= {("trio_one", 1, r) for r in present if c[r] == 3}  # kicker of another rank
    if n == 5:
        out |= {("trio_two", 1, r) for r in present if c[r] >= 3}  # 3 + any 2 (4+1 = 3+2)
    if n == 6:
        out |= {("four_two", 1, r) for r in present if c[r] == 4}
    if n == 7:
        out |= {("four_three", 1, r) for r in present if c[r] == 4}
    if 5 <= n <= 12 and all(c[r] == 1 for r in present) and _chain(present):
        out.add(("straight", n, present[-1]))
    if n >= 4 and len(present) >= 2 and all(c[r] == 2 for r in present) and _chain(present):
        out.add(("pair_straight", len(present), present[-1]))
    if len(present) >= 2 and all(c[r] == 3 for r in present) and _chain(present):
        out.add(("plane", len(present), present[-1]))
    for k, wings, lo_n, hi_n in (("plane_n_wings", 1, 2, 4), ("plane_2n_wings", 2, 2, 3)):
        for big in range(lo_n, hi_n + 1):
            if n != (3 + wings) * big:
                continue
            for lo in range(0, ACE - big + 2):
                chain = range(lo, lo + big)
                if all(c[r] >= 3 for r in chain):  # wings: any other cards, a 4th card of the chain too
                    out.add((k, big, lo + big - 1))
    return out


def referee_lead(rds: set[Reading]) -> Reading:
    """4.3: the longest trio chain (plane family), then the highest key; otherwise the one reading."""
    planes = [r for r in rds if r[0] in ("plane", "plane_n_wings", "plane_2n_wings")]
    if planes:
        return max(planes, key=lambda r: (r[1], r[2]))
    assert len(rds) == 1, rds
    return next(iter(rds))


def referee_beat(rds: set[Reading], top: Reading) -> Reading | None:
    """B1–B3: the reading recorded when the play beats `top` (the highest such key), else None."""
    bombs = [r for r in rds if r[0] == "bomb"]
    if top[0] == "bomb":
        return bombs[0] if bombs and bombs[0][2] > top[2] else None
    if bombs:
        return bombs[0]
    same = [r for r in rds if r[:2] == top[:2] and r[2] > top[2]]
    return max(same, key=lambda r: r[2]) if same else None


KICKERS = {"trio_one": 1, "trio_two": 2, "plane_n_wings": 1, "plane_2n_wings": 2}


def referee_short(c: tuple[int, ...], top: Reading) -> Reading | None:
    """Section 6 `short_trio_last` for a play that empties the hand: the main part of the top's type
    (a trio, or N consecutive trios) plus 0 ≤ kickers < required; it beats iff its key is higher."""
    per = KICKERS.get(top[0])
    if per is None:
        return None
    n = top[1]
    if not 3 * n <= sum(c) < 3 * n + per * n:
        return None
    keys = [hi for hi in range(13) if hi - n + 1 >= 0 and all(c[r] >= 3 for r in range(hi - n + 1, hi + 1))
            and (n == 1 or hi <= ACE)]  # fmt: skip
    best = max(keys, default=None)
    return (top[0], n, best) if best is not None and best > top[2] else None


def submultisets(c: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    for sub in itertools.product(*(range(x + 1) for x in c)):
        if any(sub):
            yield sub


# ---------------------------------------------------------------- the engine side


def _ids(c: tuple[int, ...]) -> tuple[int, ...]:
    out: list[int] = []
    for r, k in enumerate(c):
        out += [x for x in deck() if x >> 2 == r][:k]
    return tuple(sorted(out))


OTHER = _ids((0,) * 8 + (1, 1, 1, 1, 1, 0, 0))  # the next seats hold 5 cards: no 报单


def _state(c: tuple[int, ...], top: Reading | None, must_beat: bool = True, short: bool = False) -> State:
    return State(
        rules=G.parse_rules({"must_beat": must_beat, "first_play_3s": False, "short_trio_last": short}), base=1,
        first_match=False, dealer=0,
        hands=(_ids(c), OTHER, OTHER), turn=0, top=None if top is None else Top(1, top, ()), led=True,
    )  # fmt: skip


def _engine_plays(c: tuple[int, ...], top: Reading | None, short: bool = False) -> set[tuple[int, ...]]:
    return {tuple(x[:13]) for x in G.legal_counts(_state(c, top, short=short))}


def _referee_plays(c: tuple[int, ...], top: Reading | None, short: bool = False) -> dict[tuple[int, ...], Reading]:
    out = {}
    for sub in submultisets(c):
        rds = referee_readings(sub)
        got = None
        if rds:
            got = referee_lead(rds) if top is None else referee_beat(rds, top)
        if got is None and short and top is not None and sub == c:
            got = referee_short(sub, top)
        if got is not None:
            out[sub] = got
    return out


def _hands(ranks: range, total: int) -> list[tuple[int, ...]]:
    return rank_multisets(list(ranks), [CAP[r] for r in ranks], total, 13)


SMALL = _hands(range(0, 5), 8) + _hands(range(6, 13), 6)
TOPS: list[Reading] = [
    ("solo", 1, 2), ("solo", 1, 11), ("pair", 1, 1), ("pair", 1, 9), ("trio", 1, 0), ("trio", 1, 8),
    ("trio_one", 1, 0), ("trio_one", 1, 7), ("trio_two", 1, 1), ("trio_two", 1, 9), ("straight", 5, 4),
    ("straight", 5, 10), ("straight", 6, 11), ("pair_straight", 2, 1), ("pair_straight", 3, 3), ("pair_straight", 2, 10),
    ("plane", 2, 1), ("plane", 2, 9), ("plane_n_wings", 2, 1), ("plane_2n_wings", 2, 1), ("four_two", 1, 0),
    ("four_three", 1, 1), ("bomb", 1, 0), ("bomb", 1, 3), ("bomb", 1, 10),
]  # fmt: skip


def _check(c: tuple[int, ...], top: Reading | None, short: bool = False) -> None:
    want = _referee_plays(c, top, short)
    got = _engine_plays(c, top, short)
    assert got == set(want), (c, top, sorted(got ^ set(want)))
    for sub, rd in want.items():
        padded = (*sub, 0, 0)
        if top is None:
            assert mv.lead_reading(padded) == rd, (sub, rd)
        else:
            assert mv.beat_reading(padded, top, short and sub == c) == rd, (sub, top, rd)
    if top is not None:  # PDK-R9: pass is refused exactly when a beating play exists
        assert G.pass_legal(_state(c, top, short=short)) == (not want)
        assert G.pass_legal(_state(c, top, must_beat=False, short=short))
    if short:  # the reducer takes every play the referee allows (the whole hand included)
        st = _state(c, top, short=True)
        for sub in want:
            cards = [CARD_NAME[x] for x in mv.pick_cards(st.hands[0], (*sub, 0, 0))]
            G.apply(st, Play(match_id="x", seq=5, seat=0, cards=cards))


def test_referee_agrees_with_the_rule_files_examples() -> None:
    def rd(s: str) -> set[Reading]:
        c = [0] * 13
        for ch in s:
            c[RANKS.index(ch)] += 1
        return referee_readings(tuple(c))

    assert rd("333444555666") == {("plane", 4, 3), ("plane_n_wings", 3, 2), ("plane_n_wings", 3, 3)}  # 4.2
    assert referee_lead(rd("333444555666")) == ("plane", 4, 3)  # 4.3: plane N = 4, key 6
    assert rd("3334445555") == {("plane_2n_wings", 2, 1), ("plane_2n_wings", 2, 2)}
    assert referee_lead(rd("3334445555")) == ("plane_2n_wings", 2, 2)  # key 5
    assert rd("33334444") == {("plane_n_wings", 2, 1)}  # wings 3 and 4, key 4
    assert rd("55558") == {("trio_two", 1, 2)}  # 4带1 = 3带2
    assert rd("3333") == {("bomb", 1, 0)} and rd("AAA") == {("trio", 1, ACE)} and rd("2") == {("solo", 1, TWO)}
    assert not rd("JQKA2")  # 2 is never in a chain


@pytest.mark.parametrize("part", range(4))
def test_leading_every_small_hand(part: int) -> None:
    for c in SMALL[part::4]:
        _check(c, None)


@pytest.mark.parametrize("top", TOPS, ids=lambda t: f"{t[0]}-{t[1]}-{RANKS[t[2]]}")
def test_following_small_hands(top: Reading) -> None:
    for c in SMALL[::4]:
        _check(c, top)


@pytest.mark.parametrize("top", [t for t in TOPS if t[0] in KICKERS], ids=lambda t: f"{t[0]}-{t[1]}-{RANKS[t[2]]}")
def test_following_with_short_trio_last_every_small_hand(top: Reading) -> None:
    """Section 6 `short_trio_last`: every small hand (exhaustive), the whole hand as the short play."""
    for c in SMALL:
        if sum(c) >= 3 * top[1]:
            _check(c, top, short=True)


def test_random_sixteen_card_hands() -> None:
    rng = random.Random(17)
    cards = list(deck())
    for _ in range(12):
        rng.shuffle(cards)
        c = [0] * 13
        for x in cards[:16]:
            c[x >> 2] += 1
        hand = tuple(c)
        plays = _referee_plays(hand, None)
        _check(hand, None)
        for sub in rng.sample(sorted(plays), 3):
            _check(hand, plays[sub])
