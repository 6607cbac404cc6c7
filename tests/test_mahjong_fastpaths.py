"""The bot's fast paths against their plain definitions, on random hands (seeded, hypothesis).

- core.discard_gains (discard profiles, per-suit regular shanten of every discard) == its per-discard
  definition `discard_gains_plain`; core.discard_shanten == `shanten` of every discard;
- bot.choose_discard (ukeire only for minimal discards, no masks when nothing is live, lazy ties)
  == `choose_discard_plain` (shanten and ukeire of every discard and draw by `core.shanten`);
- bot.best_after_discard == the minimum of `shanten` over the discards;
- sichuan.win_mask == `is_win` of the hand plus each kind;
- fastcopy.state_replacer == `dataclasses.replace` (its draft-twin copies are frozen `State`s);
- the Sichuan bot's discard (live counts made only when read) == `choose_discard`.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.mahjong import bot
from engine.mahjong.core import (
    SEQ,
    TRIP,
    Meld,
    Split,
    Wall,
    discard_gains,
    discard_gains_plain,
    discard_shanten,
    is_standard_win,
    is_win,
    min_discard_gains,
    shanten,
    waits,
)
from engine.mahjong.fastcopy import state_replacer
from engine.mahjong.sichuan import SichuanRules, State, win_mask, wins_with
from engine.tiles import N_SUITED
from tests.mj_hands import random_hand


def _suits(rng: random.Random, kind: int, red: bool) -> tuple[int, ...]:
    """0: every suit, 1: one suit, 2: two suits (hands with many pairs and runs)."""
    base = [(0, 1, 2), (rng.randrange(3),), tuple(sorted(rng.sample(range(3), 2)))][kind]
    return (*base, 3) if red else base


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.integers(0, 2), st.booleans(), st.booleans())
def test_discard_scans_are_their_definitions(seed: int, melds: int, kind: int, red: bool, seven: bool) -> None:
    rng = random.Random(seed)
    c = random_hand(rng, 14 - 3 * melds, _suits(rng, kind, red))
    c27 = c[:27] if not c[27] else c
    assert discard_gains(c27, melds, seven) == discard_gains_plain(c27, melds, seven)
    assert discard_gains(bytes(c27), melds, seven) == discard_gains(tuple(c27), melds, seven)
    minimal = [x for x in discard_gains(c27, melds, seven) if x[2] is not None]
    if len(minimal) == 1:
        minimal = [(minimal[0][0], minimal[0][1], None)]
    assert min_discard_gains(c27, melds, seven) == minimal
    want = []
    for k in range(len(c27)):
        if c27[k]:
            c27[k] -= 1
            want.append((k, shanten(c27, melds, seven)))
            c27[k] += 1
    assert discard_shanten(c27, melds, seven) == want


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.integers(0, 2), st.integers(-1, 2), st.integers(0, 2))
def test_choose_discard_is_its_definition(seed: int, melds: int, kind: int, void: int, live: int) -> None:
    rng = random.Random(seed)
    c = random_hand(rng, 14 - 3 * melds, _suits(rng, kind, False))[:27]
    # live tiles: none (claimflow far from ready), every unseen copy, or a random part of them
    unseen = [0 if live == 0 else rng.randint(0, 4 - c[t]) if live == 2 else 4 - c[t] for t in range(27)]
    got = bot.choose_discard(c, melds, void, unseen)
    assert got == bot.choose_discard_plain(c, melds, void, unseen)
    assert c[got] > 0


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 3), st.integers(0, 2), st.integers(-1, 2))
def test_best_after_discard_is_the_minimum(seed: int, melds: int, kind: int, void: int) -> None:
    rng = random.Random(seed)
    c = random_hand(rng, 14 - 3 * melds, _suits(rng, kind, False))[:27]
    stripped = bot._strip_void(c, void)
    want = 9
    for k in range(27):
        if stripped[k]:
            stripped[k] -= 1
            want = min(want, shanten(stripped, melds))
            stripped[k] += 1
    assert bot.best_after_discard(c, melds, void) == want


def _ready_hand(rng: random.Random, melds: int) -> list[int]:
    """A winning 14 − 3·melds hand (sets and a pair, or seven pairs) minus one random tile."""
    c = [0] * 27
    if melds == 0 and rng.random() < 0.3:
        for k in rng.sample(range(27), 7):
            c[k] += 2
    else:
        while sum(c) < 12 - 3 * melds:
            k = rng.randrange(27)
            if rng.random() < 0.5 and k % 9 <= 6 and all(c[k + d] < 4 for d in range(3)):
                for d in range(3):
                    c[k + d] += 1
            elif c[k] <= 1:
                c[k] += 3
        k = rng.choice([k for k in range(27) if c[k] <= 2])
        c[k] += 2
    k = rng.choice([k for k in range(27) if c[k]])
    c[k] -= 1
    return c


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.booleans())
def test_win_mask_is_is_win(seed: int, melds: int, ready: bool) -> None:
    rng = random.Random(seed)
    c = _ready_hand(rng, melds) if ready else random_hand(rng, 13 - 3 * melds, (0, 1, 2))[:27]
    hand = tuple(c)
    mask = win_mask(hand, melds)
    order = list(range(27))
    rng.shuffle(order)  # wins_with learns a hand tile by tile, in any order
    for t in order:
        c[t] += 1
        assert bool(mask >> t & 1) == is_win(c, melds) == wins_with(hand, melds, t), (hand, t)
        c[t] -= 1
    assert win_mask(hand, melds) == mask  # memoised: the same answer
    assert [wins_with(tuple(hand), melds, t) for t in range(27)] == [bool(mask >> t & 1) for t in range(27)]


def test_state_replacer_is_dataclasses_replace() -> None:
    fast = state_replacer(State)
    st0 = State(xueliu=False, rules=SichuanRules(), base=1, dealer=0, hands=((0,) * 27,) * 4, wall=Wall.of(range(5)))
    st1 = fast(st0, seq=4, melds=((Meld("peng", 3, 1),), (), (), ()), stage="act")
    assert st1 == dataclasses.replace(st0, seq=4, melds=((Meld("peng", 3, 1),), (), (), ()), stage="act")
    assert st0.seq == 1 and st0.stage == ""  # the input is untouched
    assert fast(st1) == st1 and fast(st1) is not st1
    by_pos = fast.positional("stage", "seq", "hus")  # type: ignore[attr-defined]
    assert by_pos(st1, "window", 9, (2,)) == dataclasses.replace(st1, stage="window", seq=9, hus=(2,))
    assert st1.stage == "act"

    @dataclasses.dataclass(frozen=True)
    class Plain:  # no slots: the copier falls back to object.__setattr__
        a: int
        b: tuple[int, ...] = ()

    p = Plain(1, (2,))
    assert state_replacer(Plain)(p, b=(3,)) == Plain(1, (3,))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=9, max_size=9))
def test_generated_suit_table_is_the_reading(counts: list[int]) -> None:
    """engine/mahjong/suit_ids.py (generated) gives every key the set `_key_id_computed` reads."""
    from engine.mahjong import core, suit_ids

    tab = suit_ids.table()
    assert tab is not None and len(tab) == suit_ids.N_CELLS
    if sum(counts) > suit_ids.MAX_TILES:
        assert tab[core._base5(bytes(counts))] == suit_ids.MISSING
        i = 0
        while sum(counts) > suit_ids.MAX_TILES:  # and a key of the table made from it
            counts[i % 9] = max(0, counts[i % 9] - 1)
            i += 4
    key = bytes(counts)
    cell = tab[core._base5(key)]
    assert suit_ids.SETS[cell] == core._SETS[core._key_id_computed(key)]
    assert core._SETS[core._key_id(key)] == suit_ids.SETS[cell]


def test_generated_suit_table_covers_every_key_once() -> None:
    from engine.mahjong import suit_ids

    tab = suit_ids.table()
    assert tab is not None
    assert len(tab) - tab.count(suit_ids.MISSING) == 405_350  # keys of 0..4 counts with at most 14 tiles
    assert len(set(suit_ids.SETS)) == len(suit_ids.SETS) == max(b for b in tab if b != suit_ids.MISSING) + 1


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 3), st.booleans())
def test_anshun_first_ready_discard_is_its_definition(seed: int, melds: int, ready: bool) -> None:
    from engine.mahjong.anshun import first_ready_discard, first_ready_discard_plain

    rng = random.Random(seed)
    c = _ready_hand(rng, melds) if ready else random_hand(rng, 13 - 3 * melds, (0, 1, 2))[:27]
    c[rng.randrange(27)] += 0 if sum(c) == 14 - 3 * melds else 1  # a 14-tile hand: one more tile
    while max(c) > 4:
        c[c.index(5)] -= 1
        c[rng.randrange(27)] += 1
    hand = (*c, 0)  # Anshun hands have the 28th (7z) count, always 0
    assert first_ready_discard(hand, melds) == first_ready_discard_plain(hand, melds)



def decompose_plain(counts: Sequence[int], n_melds: int = 0) -> list[Split]:
    """`core.decompose` by its definition: one pass over every kind (no per-suit tables)."""
    if sum(counts) != 14 - 3 * n_melds or not is_standard_win(counts, n_melds):
        return []
    c = list(counts)
    out: set[Split] = set()
    acc: list[tuple[int, int]] = []

    def rec(i: int, pair: int) -> None:
        while i < len(c) and c[i] == 0:
            i += 1
        if i == len(c):
            if pair >= 0:
                out.add(Split(pair, tuple(sorted(acc))))
            return
        if pair < 0 and c[i] >= 2:
            c[i] -= 2
            rec(i, i)
            c[i] += 2
        if c[i] >= 3:
            c[i] -= 3
            acc.append((TRIP, i))
            rec(i, pair)
            acc.pop()
            c[i] += 3
        if i < N_SUITED and i % 9 <= 6 and c[i + 1] and c[i + 2]:
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            acc.append((SEQ, i))
            rec(i, pair)
            acc.pop()
            c[i] += 1
            c[i + 1] += 1
            c[i + 2] += 1

    rec(0, -1)
    return sorted(out)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.booleans(), st.booleans())
def test_decompose_is_its_one_pass_definition(seed: int, melds: int, red: bool, one_suit: bool) -> None:
    from engine.mahjong.core import decompose

    rng = random.Random(seed)
    if one_suit:  # 清一色-like hands: many splits in one suit
        c = random_hand(rng, 14 - 3 * melds, (rng.randrange(3),))
    else:
        c = _ready_hand(rng, melds) + [0]
        ws = waits(c, melds)  # mostly a winning tile, sometimes any tile (a near miss)
        c[rng.choice(ws) if ws and rng.random() < 0.8 else rng.choice([t for t in range(27) if c[t] < 4])] += 1
    if red and melds < 4 and c[27] == 0:  # a 7z triplet instead of three other tiles
        for _ in range(3):
            c[rng.choice([k for k in range(27) if c[k]])] -= 1
        c[27] = 3
    assert decompose(c, melds) == decompose_plain(c, melds)
    assert decompose(bytes(c), melds) == decompose(tuple(c), melds)


def test_simulator_events_are_the_models() -> None:
    """engine/sim/simulate._event (the model's validator on the same data) == the model call."""
    import pytest
    from pydantic import ValidationError

    from engine.sim.simulate import _event, _ts
    from events.models import EVENT_TYPES

    payloads = [
        {"type": "draw", "seat": 1, "tile": "5m"},
        {"type": "discard", "seat": 0, "tile": "9s"},
        {"type": "peng", "seat": 3, "tile": "1p"},
        {"type": "gang", "seat": 2, "tile": "7z", "kind": "bu"},
        {"type": "hu", "seat": 1, "tile": "4p"},
        {"type": "exchange", "seat": 0, "tiles": ["1m", "2m", "3m"]},
        {"type": "exchange_direction", "direction": "opposite"},
        {"type": "dingque", "seat": 3, "suit": "p"},
        {"type": "play", "seat": 1, "cards": ["3h", "3s"]},
        {"type": "settled", "deltas": [1, -1, 0, 0]},
    ]
    for p in payloads:
        got = _event("sim-x-3-000007", 12, 7, p)
        want = EVENT_TYPES[p["type"]](match_id="sim-x-3-000007", seq=12, ts=_ts(7, 12), **p)
        assert got == want and type(got) is type(want)
        assert list(got.__dict__) == list(want.__dict__) and got.__pydantic_fields_set__ == want.__pydantic_fields_set__
        assert got.canonical_dict() == want.canonical_dict()
    for index, seq in ((0, 0), (143, 199), (143, 200), (144, 5), (10_000, 4999)):  # around midnight too
        ev = _event("sim-x-3-000007", seq, index, {"type": "draw", "seat": 1, "tile": "5m"})
        assert ev.ts == _ts(index, seq)
    with pytest.raises(ValidationError):
        _event("sim-x-3-000007", 12, 7, {"type": "draw", "seat": 9, "tile": "5m"})  # seat out of range
    with pytest.raises(ValidationError):
        _event("sim-x-3-000007", 12, 7, {"type": "discard", "seat": 0, "tile": "0m"})  # no such tile
    with pytest.raises(KeyError):
        _event("sim-x-3-000007", 12, 7, {"type": "no_such_event"})
    with pytest.raises(TypeError):
        _event("sim-x-3-000007", 12, 7, {"type": "draw", "seat": 0, "tile": "5m", "seq": 3})


def test_sichuan_unseen_is_unseen_counts() -> None:
    """The bot's one-pass live-tile count == unseen_counts(hand, _visible(state)) at every turn."""
    from engine.mahjong.bot import _unseen, _visible, unseen_counts
    from engine.registry import get_game
    from engine.sim.simulate import simulate_match

    for game_id in ("sichuan_xuezhan", "sichuan_xueliu"):
        game = get_game(game_id)
        events = simulate_match(game_id, None, seed=11, index=3, chain=False)
        state = game.start(events[0], events[1], game.parse_rules({}))
        turns = 0
        for ev in events[2:-1]:
            if state.stage == "act":
                s = state.turn
                assert _unseen(state, s) == unseen_counts(state.hands[s], _visible(state))
                turns += 1
            state = game.apply(state, ev)
        assert turns > 10


def test_sichuan_discard_is_choose_discard() -> None:
    """The Sichuan bot's discard with live counts made only when read == choose_discard with them,
    at every turn of simulated hands (both games, a few presets) and on random hands with nothing live."""
    from engine.mahjong.bot import _sichuan_discard, _unseen, choose_discard
    from engine.registry import get_game
    from engine.sim.simulate import simulate_match

    turns = 0
    for game_id, rules in (("sichuan_xuezhan", {}), ("sichuan_xueliu", {}), ("sichuan_xueliu", {"preset": "chengdu"})):
        game = get_game(game_id)
        for index in range(3):
            events = simulate_match(game_id, rules, seed=5, index=index, chain=False)
            state = game.start(events[0], events[1], game.parse_rules(rules))
            for ev in events[2:-1]:
                if state.stage == "act":
                    s = state.turn
                    hand, nm, void = state.hands[s], len(state.melds[s]), state.void[s]
                    assert _sichuan_discard(state, s, hand, nm, void) == choose_discard(hand, nm, void, _unseen(state, s))
                    turns += 1
                state = game.apply(state, ev)
    assert turns > 100


def test_draft_copies_are_frozen_states() -> None:
    """The draft-twin copier makes real, frozen, equal `State`s; a class it cannot mirror falls back."""
    import pytest

    from engine.mahjong.fastcopy import _draft_twin

    names = tuple(f.name for f in dataclasses.fields(State))
    assert _draft_twin(State, names) is not None  # the fast path is the one in use
    fast = state_replacer(State)
    st0 = State(xueliu=True, rules=SichuanRules(), base=2, dealer=1, hands=((1,) * 27,) * 4, wall=Wall.of(range(7)))
    for st1 in (fast(st0, turn=3, locks=(0, 1, 2, 3)), fast.positional("turn", "locks")(st0, 3, (0, 1, 2, 3))):  # type: ignore[attr-defined]
        assert type(st1) is State and st1 == dataclasses.replace(st0, turn=3, locks=(0, 1, 2, 3))
        with pytest.raises(dataclasses.FrozenInstanceError):
            st1.turn = 2  # type: ignore[misc]

    class Sub(State):  # a base other than object: no twin
        __slots__ = ()

    assert _draft_twin(Sub, names) is None
    assert _draft_twin(State, tuple(reversed(names))) is None  # not its slot order


def test_sichuan_claim_scan_is_can_claim_win() -> None:
    """`_first_claimer` (the bot's window scan) == the first seat with `_can_claim_win` not None, in
    every claim window of simulated hands, whether the memo is cold or already holds answers."""
    from engine.mahjong.sichuan import _ORDERS
    from engine.registry import get_game
    from engine.sim.simulate import simulate_match

    windows = claims = 0
    for game_id, rules in (("sichuan_xueliu", {}), ("sichuan_xuezhan", {"preset": "mianzhu"})):
        game = get_game(game_id)
        for index in range(4):
            events = simulate_match(game_id, rules, seed=9, index=index, chain=False)
            state = game.start(events[0], events[1], game.parse_rules(rules))
            for ev in events[2:-1]:
                if state.stage in ("window", "rob"):
                    order = _ORDERS[state.turn]
                    for start in range(3):
                        game._claims = (None, [])  # cold memo
                        got = game._first_claimer(state, order[start:])
                        game._claims = (None, [])
                        want = next((j for j in order[start:] if game._can_claim_win(state, j) is not None), -1)
                        assert got == want and game._first_claimer(state, order[start:]) == want  # warm memo
                        claims += want >= 0
                    windows += 1
                state = game.apply(state, ev)
    assert windows > 100 and claims > 0


def test_sichuan_tuple_edits() -> None:
    """`_set` / `_add` (through a list) == their slicing definitions."""
    from engine.mahjong.sichuan import _add, _set

    rng = random.Random(4)
    for _ in range(200):
        t = tuple(rng.randrange(5) for _ in range(rng.randrange(1, 35)))
        i, v = rng.randrange(len(t)), rng.randrange(-4, 5)
        assert _set(t, i, (v,)) == (*t[:i], (v,), *t[i + 1 :])
        assert _add(t, i, v) == (*t[:i], t[i] + v, *t[i + 1 :]) and _add(t, i) == (*t[:i], t[i] + 1, *t[i + 1 :])
