"""A brute-force referee for classic Dou Dizhu move legality, written from doudizhu.md §4.1, K1–K6 and
C1–C4 alone (no engine code), against the engine's classifier, its legal plays and its reducer.

Exhaustive: every multiset of at most 8 cards over ranks 3–7 plus the jokers and of at most 7 over
J–2 plus the jokers is classified by both (4.4: at most one reading each), with both kicker options;
every sub-multiset of a sample of those hands (1 in 41) is checked as a lead and as a follow of a list of tops
through `legal_actions`, and each legal play is applied by the reducer.
"""

from __future__ import annotations

import itertools

import pytest

from engine.cards import CARD_ID, rank_of
from engine.climbing.ddz import DDZ, DDZState
from engine.climbing.moves import classify, ddz_move_rules
from events.models import Play
from tests.rank_multisets import rank_multisets

ACE, TWO, BJ, RJ = 11, 12, 13, 14
RANKS = "3456789TJQKA2BR"
Reading = tuple[str, int, int]  # (type, length: chain length or 1, key)


def _chain(rs: list[int], lo: int) -> bool:
    return rs == list(range(rs[0], rs[0] + len(rs))) and len(rs) >= lo and rs[-1] <= ACE


def referee(c: tuple[int, ...], kicker_rocket: bool = False, four_two_solo_pair: bool = True) -> Reading | None:
    """The one reading of a multiset of ranks (4.4), or None when it is no move."""
    n = sum(c)
    present = [r for r in range(15) if c[r]]
    out: set[Reading] = set()
    both_jokers = c[BJ] and c[RJ]
    if n == 1:
        out.add(("solo", 1, present[0]))
    if n == 2 and both_jokers:
        out.add(("rocket", 1, RJ))
    if n == 2 and len(present) == 1:
        out.add(("pair", 1, present[0]))
    if n == 3 and len(present) == 1:
        out.add(("trio", 1, present[0]))
    if n == 4 and len(present) == 1:
        out.add(("bomb", 1, present[0]))
    for r in present:
        rest = [x for x in present if x != r]
        if c[r] == 3 and n == 4:  # K1: the kicker is of another rank (a joker may be, K2)
            out.add(("trio_solo", 1, r))
        if c[r] == 3 and n == 5 and len(rest) == 1 and c[rest[0]] == 2 and rest[0] <= TWO:
            out.add(("trio_pair", 1, r))
        if c[r] == 4 and n == 6 and (kicker_rocket or not both_jokers) and (len(rest) == 2 or four_two_solo_pair):
            out.add(("four_two_solo", 1, r))  # K3: the two kickers may be a pair
        if c[r] == 4 and n == 8 and len(rest) == 2 and all(c[x] == 2 and x <= TWO for x in rest):
            out.add(("four_two_pair", 1, r))  # K4: two pairs of different ranks
    if 5 <= n <= 12 and all(c[r] == 1 for r in present) and _chain(present, 5):
        out.add(("straight", n, present[-1]))
    if all(c[r] == 2 for r in present) and _chain(present, 3):
        out.add(("pair_straight", len(present), present[-1]))
    if all(c[r] == 3 for r in present) and _chain(present, 2):
        out.add(("plane", len(present), present[-1]))
    for length in range(2, 6):
        for lo in range(0, ACE - length + 2):
            chain = set(range(lo, lo + length))
            if any(c[r] != 3 for r in chain):  # K1: no kicker of a chain rank
                continue
            kick = {r: c[r] for r in present if r not in chain}
            k = sum(kick.values())
            if k == length and n == 4 * length:  # plane_solo, K2, K5
                ok = all(v < 4 for v in kick.values()) and (kicker_rocket or not (kick.get(BJ) and kick.get(RJ)))
                ok = ok and not (lo - 1 >= 0 and kick.get(lo - 1) == 3)
                ok = ok and not (lo + length <= ACE and kick.get(lo + length) == 3)
                if ok:
                    out.add(("plane_solo", length, lo + length - 1))
            if n == 5 * length and length <= 4 and len(kick) == length and all(v == 2 and r <= TWO for r, v in kick.items()):
                out.add(("plane_pair", length, lo + length - 1))  # K6
    assert len(out) <= 1, (c, out)  # 4.4
    return next(iter(out), None)


def referee_beats(a: Reading, top: Reading) -> bool:
    """C1–C3 (classic: a bomb beats a bomb of higher rank)."""
    if top[0] == "rocket":
        return False
    if a[0] == "rocket":
        return True
    if a[0] == "bomb":
        return top[0] != "bomb" or a[2] > top[2]
    return top[0] != "bomb" and a[:2] == top[:2] and a[2] > top[2]


def _engine(c: tuple[int, ...], mr: object) -> Reading | None:
    m = classify(c, mr)  # type: ignore[arg-type]
    if m is None:
        return None
    chain = m.type in ("straight", "pair_straight", "plane", "plane_solo", "plane_pair")
    return (m.type, m.length if chain else 1, RJ if m.type == "rocket" else m.key)


def _multisets(ranks: list[int], total: int) -> list[tuple[int, ...]]:
    return rank_multisets(ranks, [1 if r >= BJ else 4 for r in ranks], total, 15)


SETS = _multisets([0, 1, 2, 3, 4, BJ, RJ], 8) + _multisets([8, 9, 10, ACE, TWO, BJ, RJ], 7)


@pytest.mark.parametrize(("kicker_rocket", "four_two_solo_pair"), [(False, True), (True, False)])
def test_every_small_multiset_is_classified_as_the_rule_file_says(kicker_rocket: bool, four_two_solo_pair: bool) -> None:
    mr = ddz_move_rules(kicker_rocket, four_two_solo_pair)
    for c in SETS:
        assert _engine(c, mr) == referee(c, kicker_rocket, four_two_solo_pair), c


def test_the_rule_files_kicker_examples() -> None:
    def rd(s: str) -> Reading | None:
        c = [0] * 15
        for ch in s:
            c[RANKS.index(ch)] += 1
        return referee(tuple(c))

    assert rd("3334") == ("trio_solo", 1, 0) and rd("3333") == ("bomb", 1, 0)
    assert rd("33344445") is None  # K1: 333444+4+5
    assert rd("333BR") is None and rd("3334445BR") is None  # K2: the rocket is never split
    assert rd("444455") == ("four_two_solo", 1, 1)  # K3
    assert rd("44445555") is None  # K4
    assert rd("333444555777") == ("plane_solo", 3, 2)  # K5
    assert rd("333444555666") == ("plane", 4, 3)
    assert rd("3334445556667778") is None
    assert rd("QQQKKKAAA222") == ("plane_solo", 3, ACE)
    assert rd("BR") == ("rocket", 1, RJ)


def _mask(ids: list[int]) -> int:
    m = 0
    for x in ids:
        m |= 1 << x
    return m


def _cards(c: tuple[int, ...]) -> list[int]:
    out: list[int] = []
    for r, k in enumerate(c):
        out += [x for x in range(54) if rank_of(x) == r][:k]
    return out


HANDS = [c for c in SETS if sum(c) >= 4][::41]
"""A sample of the small hands for the legal-play check (every sub-multiset of each is refereed)."""
TOPS: list[Reading] = [("solo", 1, 2), ("pair", 1, 1), ("trio", 1, 0), ("trio_solo", 1, 0), ("trio_pair", 1, 0),
                       ("straight", 5, 4), ("pair_straight", 3, 2), ("plane", 2, 1), ("plane_solo", 2, 1),
                       ("four_two_solo", 1, 0), ("bomb", 1, 1), ("solo", 1, TWO)]  # fmt: skip


@pytest.mark.parametrize("top", [None, *TOPS], ids=lambda t: "lead" if t is None else f"{t[0]}-{t[1]}-{RANKS[t[2]]}")
def test_legal_plays_of_small_hands(top: Reading | None) -> None:
    rules = DDZ.parse_rules({})
    mr = DDZ.move_rules(rules)
    other = _mask([CARD_ID[c] for c in ("9d", "Td", "Jd", "Qd", "Kd")])
    top_move = None
    if top is not None:
        top_move = next(m for c in SETS if (m := classify(c, mr)) is not None
                        and _engine(c, mr) == top)  # fmt: skip
    for c in HANDS:
        st = DDZState(game="ddz", rules=rules, base=1, first=0, phase="play", turn=0, hands=(_mask(_cards(c)), other, other),
                      bottom=(), landlord=0, top=top_move, top_seat=None if top is None else 1, mr=mr)  # fmt: skip
        got = {}
        for a in DDZ.legal_actions(st):
            if a["type"] == "play":
                k = [0] * 15
                for x in a["cards"]:
                    k[rank_of(CARD_ID[x])] += 1
                got[tuple(k)] = a
        want = set()
        for sub in itertools.product(*(range(x + 1) for x in c)):
            rd = referee(sub) if any(sub) else None
            if rd is not None and (top is None or referee_beats(rd, top)):
                want.add(sub)
        assert set(got) == want, (c, top, sorted(set(got) ^ want))
        for a in got.values():
            DDZ.apply(st, Play(match_id="x", seq=9, seat=0, cards=a["cards"]))
