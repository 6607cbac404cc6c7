"""The simulator's fast paths give the same results as the plain definitions they replace.

- `_batch` (one model_dump per event, the chain computed on the fly) writes the same text as
  `event_to_json` over `fill_chain`; `_ts` is the strftime of EPOCH + 600 s × index + 3 s × seq.
- The Dou Dizhu hand splitter (runs cached by their counts) equals the plain lowest-rank-first
  search it replaced, groups and tie-breaks included; `n_groups` is its count.
- Pao De Kuai's `moves_left` (packed ints, cached run patterns) equals the plain tuple search.
- The laizi `readings` pre-filter never drops a reading: same list as trying every declaration.
"""

from __future__ import annotations

import random
from datetime import timedelta
from functools import cache
from itertools import combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.climbing import bot, paodekuai_bot
from engine.climbing.laizi import _relabel, readings
from engine.climbing.moves import BJ_R, RJ_R, ddz_move_rules
from engine.errors import Illegal
from engine.sim.simulate import EPOCH, _batch, _ts, simulate_match
from events.codec import event_to_json

# ---------------------------------------------------------------- simulator


@pytest.mark.parametrize("game_id", ["ddz", "ddz_laizi", "paodekuai", "zhajinhua"])
def test_batch_text_is_event_to_json_of_the_chained_events(game_id: str) -> None:
    texts = _batch((game_id, {}, 5, 0, 3, None))
    assert len(texts) == 3
    for i, text in enumerate(texts):
        events = simulate_match(game_id, {}, 5, i)
        assert text == "\n".join(event_to_json(e) for e in events) + "\n"
        assert all(e.hash for e in events)


def test_batch_with_rules_is_the_same_text() -> None:
    rules = {"rob": True, "kicker_rocket": True}
    (text,) = _batch(("ddz", rules, 9, 4, 5, None))
    assert text == "\n".join(event_to_json(e) for e in simulate_match("ddz", rules, 9, 4)) + "\n"
    assert '"rob":true' in text.splitlines()[0]


def test_rules_cache_keeps_bad_rules_refused() -> None:
    for _ in range(2):  # a refused option is never cached as parsed
        with pytest.raises(Illegal):
            simulate_match("ddz", {"rob": "yes"}, 1, 0)
    a = simulate_match("ddz", {"all_pass": "redeal"}, 1, 0, chain=False)
    b = simulate_match("ddz", {}, 1, 0, chain=False)
    assert a[0].rules == {"all_pass": "redeal"} and b[0].rules == {"preset": "standard"}


@pytest.mark.parametrize("index", [0, 1, 143, 144, 145, 1000, 99_999])
@pytest.mark.parametrize("seq", [0, 1, 19, 20, 1199, 1200, 4999])
def test_ts_is_the_strftime_of_the_offset(index: int, seq: int) -> None:
    want = (EPOCH + timedelta(seconds=index * 600 + seq * 3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert _ts(index, seq) == want


# ---------------------------------------------------------------- Dou Dizhu splitter


def _sub(c: tuple[int, ...], r0: int, r1: int, k: int) -> tuple[int, ...]:
    lst = list(c)
    for r in range(r0, r1 + 1):
        lst[r] -= k
    return tuple(lst)


@cache
def _ref_split(c: tuple[int, ...], chain_top: int, mins: tuple[int, int, int]) -> tuple[int, tuple]:
    """The plain search: options for the lowest rank in a fixed order, the first fewest kept."""
    r0 = next((r for r, v in enumerate(c) if v), -1)
    if r0 < 0:
        return 0, ()
    options = []
    v = c[r0]
    if r0 == BJ_R and c[RJ_R]:
        options.append((("rocket", BJ_R, RJ_R), _sub(c, BJ_R, RJ_R, 1)))
    for k, name in ((1, "solo"), (2, "pair"), (3, "trio"), (4, "bomb")):
        if v >= k:
            options.append(((name, r0, r0), _sub(c, r0, r0, k)))
    if r0 <= chain_top:
        for unit, min_len, name in ((1, mins[0], "chain1"), (2, mins[1], "chain2"), (3, mins[2], "chain3")):
            hi = r0
            while hi <= chain_top and c[hi] >= unit:
                if hi - r0 + 1 >= min_len:
                    options.append(((name, r0, hi), _sub(c, r0, hi, unit)))
                hi += 1
    best = None
    for g, rest in options:
        n, groups = _ref_split(rest, chain_top, mins)
        if best is None or n + 1 < best[0]:
            best = (n + 1, (g, *groups))
    assert best is not None
    return best


_DDZ_DECK = [r for r in range(13) for _ in range(4)] + [BJ_R, RJ_R]


def _hand(cards: list[int]) -> tuple[int, ...]:
    c = [0] * 15
    for r in cards:
        c[r] += 1
    return tuple(c)


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 20), st.sampled_from([(5, 3, 2), (5, 2, 2)]))
def test_split_equals_the_plain_search(seed: int, size: int, mins: tuple[int, int, int]) -> None:
    c = _hand(random.Random(seed).sample(_DDZ_DECK, size))
    assert bot._best_split(c, 11, mins) == _ref_split(c, 11, mins)
    if mins == (5, 3, 2):
        assert bot.n_groups(c) == _ref_split(c, 11, mins)[0]


def test_split_examples() -> None:
    # 33 + 34567: the solo 3 joins the straight (the whole-rank pair would leave four solos)
    assert bot._best_split(_hand([0, 0, 1, 2, 3, 4]))[1] == (("solo", 0, 0), ("chain1", 0, 4))
    # 333444 + 2 + rocket: the plane beats two trios
    want = (3, (("chain3", 0, 1), ("solo", 12, 12), ("rocket", 13, 14)))
    assert bot._best_split(_hand([0, 0, 0, 1, 1, 1, 12, 13, 14])) == want
    assert bot.n_groups(_hand([])) == 0


# ---------------------------------------------------------------- Pao De Kuai moves_left


@cache
def _ref_moves_left(c: tuple[int, ...]) -> int:
    """Every chain choice tried, each remainder priced by the bot's own chain-free count."""
    best = paodekuai_bot._rest_moves(bytes(c))
    if best <= 1:
        return best
    for unit, least in ((1, 5), (2, 2), (3, 2)):
        r = 0
        while r <= 11:
            if c[r] < unit:
                r += 1
                continue
            a = r
            while r + 1 <= 11 and c[r + 1] >= unit:
                r += 1
            b = r
            r += 1
            if b - a + 1 < least:
                continue
            for lo, hi in {(a, h) for h in range(a + least - 1, b + 1)} | {(lo, b) for lo in range(a, b - least + 2)}:
                best = min(best, 1 + _ref_moves_left(_sub(c, lo, hi, unit)))
    return best


_PDK_DECK = [r for r in range(11) for _ in range(4)] + [11] * 3 + [12]


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 16))
def test_moves_left_equals_the_plain_search(seed: int, size: int) -> None:
    c = _hand(random.Random(seed).sample(_PDK_DECK, size))
    assert paodekuai_bot.moves_left(c) == _ref_moves_left(c)


def test_moves_left_examples() -> None:
    assert paodekuai_bot.moves_left(_hand([])) == 0
    assert paodekuai_bot.moves_left(_hand([0, 1, 2, 3, 4])) == 1  # 34567
    assert paodekuai_bot.moves_left(_hand([0, 0, 1, 1, 5])) == 2  # 3344 + 8
    assert (
        paodekuai_bot.moves_left(_hand([0, 0, 0, 1, 1, 1, 5, 6, 7, 8])) == 2
    )  # two trio_two (a plane would leave four solos)


# ---------------------------------------------------------------- laizi readings filter


def _ref_readings(N: tuple[int, ...], m: int, lr: int) -> list[tuple]:
    from engine.climbing.moves import classify

    mr = ddz_move_rules()
    n_plain = sum(N)
    choices = [(lr,) * m] if n_plain == 0 else combinations_with_replacement([r for r in range(13) if N[r] < 4], m)
    out = []
    for S in choices:
        E = list(N)
        for r in S:
            E[r] += 1
        if max(E) <= 4 and (mv := classify(tuple(E), mr)) is not None:
            out.append((_relabel(mv, n_plain, m), S))
    return out


def test_readings_filter_keeps_every_reading() -> None:
    rng = random.Random(12)
    found = 0
    for _ in range(250):
        lr = rng.randrange(13)
        m = rng.randint(1, 4)
        deck = [r for r in _DDZ_DECK if r != lr]
        if rng.random() < 0.5:  # near-chains, where readings exist
            L, unit = rng.randint(2, 6), rng.randint(1, 3)
            lo = rng.randrange(0, 13 - L)
            cards = [r for r in range(lo, lo + L) if r != lr for _ in range(unit)]
            cards = rng.sample(cards, max(1, len(cards) - rng.randint(0, m)))
            cards += rng.sample(deck, rng.randint(0, 2))
        else:
            cards = rng.sample(deck, rng.randint(1, 20 - m))
        N = _hand(cards)
        if max(N) > 4 or sum(N) + m > 20:
            continue
        got = [(rd.move, rd.as_) for rd in readings(N, m, lr, ddz_move_rules())]
        assert got == _ref_readings(N, m, lr)
        found += bool(got)
    assert found > 20  # the cases did exercise hands that read as a move
