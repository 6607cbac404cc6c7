"""Issue 22 (simulator speed, part 4): the mahjong reducers' and the simulator loop's fast paths
against the plain computations they replace.

- fastshuffle.shuffle (getrandbits alone) == `random.Random.shuffle`: the same order and the same
  generator state after, for many seeds and lengths; other generators use their own shuffle;
- the decks kept once (claimflow's `deck`, Sichuan's `_DECK` / `_DECK_NAMES`) == `full_set`, and
  `deck()` is a new list each call (the deal shuffles it);
- wild.min_wilds (the counts as bytes once) == the per-slice loop, on lists, tuples and bytes;
- hongzhong.hand_wins (bytes, the wild count alone deciding) == the plain `is_win` reading, and
  `_red_total` == the generator sum, on random hands and rules;
- claimflow's `visible` (C-level counts) == the discards and melds counted one by one;
- Sichuan's `_next_active` (no `_active` call per seat), `_close_window` (the memo's None first)
  and `_claim_answer` (a bit of `win_mask`) == their previous bodies, at every state of simulated
  matches of both games;
- the simulator loop's timestamps (minute and second strings, the day string changing at
  midnight) == `_ts(index, seq)` == the f-string of the time of day, across midnight.
"""

from __future__ import annotations

import random
from itertools import chain
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.mahjong import claimflow, fastshuffle, sichuan, wild
from engine.mahjong.anshun import ANSHUN
from engine.mahjong.core import Meld
from engine.mahjong.hongzhong import HONGZHONG, HongzhongRules, hand_wins
from engine.mahjong.sichuan import XUELIU, XUEZHAN, State, _active, wins_with
from engine.sim.simulate import _ts, simulate_match
from engine.tiles import RED, TILE_ID, full_set, tile_names
from tests.mj_hands import random_hand

# ---------------------------------------------------------------- shuffle


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**64), st.integers(0, 140))
def test_shuffle_is_random_shuffle(seed: int, n: int) -> None:
    a, b = random.Random(seed), random.Random(seed)
    xa, xb = list(range(n)), list(range(n))
    a.shuffle(xa)
    fastshuffle.shuffle(b, xb)
    assert xa == xb
    assert a.getstate() == b.getstate()


def test_shuffle_of_other_generators_is_their_own() -> None:
    class Mine(random.Random):
        def shuffle(self, x: Any) -> None:  # type: ignore[override]
            x.reverse()

    x = [1, 2, 3]
    fastshuffle.shuffle(Mine(1), x)
    assert x == [3, 2, 1]
    sys_rng, want = random.SystemRandom(), [5]
    fastshuffle.shuffle(sys_rng, want)  # a SystemRandom shuffles with its own draws
    assert want == [5]


def test_decks_kept_once_are_the_full_sets() -> None:
    assert full_set() == sichuan._DECK
    assert list(sichuan._DECK_NAMES) == tile_names(full_set())
    for game in (HONGZHONG, ANSHUN):
        d1, d2 = game.deck(), game.deck()
        assert d1 == full_set(3, game.red) and d1 is not d2
        d1.pop()
        assert game.deck() == full_set(3, game.red)


@pytest.mark.parametrize("game", [XUEZHAN, HONGZHONG, ANSHUN])
def test_deals_are_the_random_shuffle_deals(game: Any) -> None:
    """The deal with `fastshuffle.shuffle` == the deal with `rng.shuffle` (the previous code)."""
    rules = game.parse_rules({})
    for seed in range(30):
        got = game.deal(rules, 4, random.Random(seed), dealer=seed % 4)
        rng = random.Random(seed)
        if game is XUEZHAN:
            deck = tile_names(full_set())
            rng.shuffle(deck)
            sizes = [14 if s == seed % 4 else 13 for s in range(4)]
            pos = [sum(sizes[:s]) for s in range(5)]
            want = {"hands": [deck[pos[s] : pos[s + 1]] for s in range(4)], "wall": deck[pos[4] :]}
        else:
            ids = full_set(3, game.red)
            rng.shuffle(ids)
            hands, pos = [], 0
            for s in range(4):
                k = 14 if s == seed % 4 else 13
                hands.append(tile_names(sorted(ids[pos : pos + k])))
                pos += k
            want = {"hands": hands, "wall": tile_names(ids[pos:])}
        assert got == want


# ---------------------------------------------------------------- wild win checks (HZ-H1..H4)


def _min_wilds_ref(counts: Any) -> int:
    """The previous `min_wilds`: one bytes key per suit slice."""
    total, extra = 0, 99
    for b in (0, 9, 18):
        v = wild.suit_needs(bytes(counts[b : b + 9]))
        total += v[0]
        extra = min(extra, v[1] - v[0])
    if len(counts) > RED and counts[RED]:
        n, p = wild.HONOUR_NEED[counts[RED]]
        total += n
        extra = min(extra, p - n)
    return total + extra


def _hand_wins_ref(rules: HongzhongRules, counts: Any, n_melds: int, red_total: int = 0) -> str | None:
    """The previous `hand_wins`."""
    if sum(counts) + 3 * n_melds != 14:
        return None
    nat = list(counts)
    w = 0
    if rules.hongzhong_wild:
        w, nat[RED] = nat[RED], 0
    if wild.is_win(nat, w):
        return "zi_mo"
    if rules.qi_dui and n_melds == 0 and wild.is_seven_pairs(nat, w):
        return "qi_dui"
    if rules.si_hongzhong == "any_time" and red_total == 4:
        return "si_hong_zhong"
    return None


@settings(max_examples=600, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 4), st.integers(0, 4), st.integers(0, 2))
def test_min_wilds_and_hand_wins_are_the_plain_ones(seed: int, melds: int, reds: int, kind: int) -> None:
    rng = random.Random(seed)
    base = [(0, 1, 2), (rng.randrange(3),), tuple(sorted(rng.sample(range(3), 2)))][kind]
    size = 14 - 3 * melds + rng.choice((0, 0, 0, -1, 1))  # some wrong sizes too
    c = list(random_hand(rng, max(0, size - reds), base))
    c[RED] += reds
    for form in (c, tuple(c), bytes(c), c[:27]):
        assert wild.min_wilds(form) == _min_wilds_ref(form)
    for rules in (
        HongzhongRules(),
        HongzhongRules(hongzhong_wild=False),
        HongzhongRules(qi_dui=True),
        HongzhongRules(qi_dui=True, hongzhong_wild=False, si_hongzhong="any_time"),
        HongzhongRules(si_hongzhong="any_time"),
    ):
        for red_total in (reds, 4):
            assert hand_wins(rules, tuple(c), melds, red_total) == _hand_wins_ref(rules, tuple(c), melds, red_total)


def test_red_total_is_the_generator_sum() -> None:
    rules = HongzhongRules(hongzhong_wild=False)
    for i in range(4):
        events = simulate_match("hongzhong", {"hongzhong_wild": False}, seed=3, index=i, chain=False)
        s = HONGZHONG.start(events[0], events[1], rules)
        for ev in events[2:-1]:
            for seat in range(4):
                h = s.hands[seat]
                want = h[RED] + sum(m.size for m in s.melds[seat] if m.tile == RED)
                assert HONGZHONG._red_total(s, seat, h) == want
            s = HONGZHONG.apply(s, ev)
    melds = claimflow.replace(s, melds=((Meld("peng", RED, 1), Meld("gang_an", 3, None)), (), (), ()))
    assert HONGZHONG._red_total(melds, 0, melds.hands[0]) == melds.hands[0][RED] + 3


# ---------------------------------------------------------------- claim flow


def _visible_ref(s: claimflow.Table) -> list[int]:
    v = [0] * 28
    for t in chain.from_iterable(s.discards):
        v[t] += 1
    for ms in s.melds:
        for m in ms:
            v[m.tile] += m.size
    return v


@pytest.mark.parametrize("game_id", ["hongzhong", "anshun"])
def test_visible_is_the_plain_count(game_id: str) -> None:
    game = HONGZHONG if game_id == "hongzhong" else ANSHUN
    for i in range(4):
        events = simulate_match(game_id, None, seed=9, index=i, chain=False)
        s = game.start(events[0], events[1], game.parse_rules({}))
        for ev in events[2:-1]:
            assert game.visible(s) == _visible_ref(s)
            s = game.apply(s, ev)


# ---------------------------------------------------------------- Sichuan


def _claim_ref(game: Any, st_: State, j: int) -> Any:
    """The previous `_claim_answer`: `wins_with` first, then `_can_claim_win_now`."""
    off = st_.offered
    if off >= 0 and not wins_with(st_.hands[j], len(st_.melds[j]), off):
        return None
    return game._can_claim_win_now(st_, j, False)


def _next_active_ref(st_: State, s: int) -> int:
    for i in range(1, 5):
        j = (s + i) % 4
        if _active(st_, j):
            return j
    return s


def _close_window_ref(game: Any, st_: State) -> State:
    """The previous `_close_window` (the seats that won skipped before the memo is read)."""
    if not st_.rules.guo_shou_hu or (not st_.rules.yi_pao_duo_xiang and st_.hus):
        return st_
    locks = list(st_.locks)
    for j in sichuan._ORDERS[st_.turn]:
        if j in st_.hus:
            continue
        sc = game._can_claim_win(st_, j)
        if sc is not None:
            locks[j] = max(locks[j], sc.fan)
            if not st_.rules.yi_pao_duo_xiang:
                break
    return st_ if tuple(locks) == st_.locks else sichuan.replace(st_, locks=tuple(locks))


def _sichuan_states(game_id: str, rules: dict[str, Any] | None, n: int) -> list[State]:
    game = XUELIU if game_id == "sichuan_xueliu" else XUEZHAN
    out = []
    for i in range(n):
        events = simulate_match(game_id, rules, seed=4, index=i, chain=False)
        s = game.start(events[0], events[1], game.parse_rules(rules or {}))
        for ev in events[2:-1]:
            out.append(s)
            s = game.apply(s, ev)
        out.append(s)
    return out


@pytest.mark.parametrize("game_id", ["sichuan_xuezhan", "sichuan_xueliu"])
@pytest.mark.parametrize("rules", [None, {"yi_pao_duo_xiang": False}])
def test_sichuan_window_paths_are_the_previous_ones(game_id: str, rules: dict[str, Any] | None) -> None:
    game = XUELIU if game_id == "sichuan_xueliu" else XUEZHAN
    windows = 0
    for s in _sichuan_states(game_id, rules, 5):
        for seat in range(4):
            assert sichuan._next_active(s, seat) == _next_active_ref(s, seat)
        if s.phase != "play" or s.stage not in ("window", "rob"):
            continue
        windows += 1
        # a fresh memo each time: `_claim_answer` (a bit of win_mask) == the plain definition
        for j in range(4):
            game._claims = (None, [])
            got = game._can_claim_win(s, j)
            want = _claim_ref(game, s, j)
            assert (got is None) == (want is None) and (got is None or got.fan == want.fan)
        game._claims = (None, [])
        want_closed = _close_window_ref(game, s)
        game._claims = (None, [])
        got_closed = game._close_window(s)
        assert got_closed.locks == want_closed.locks
    assert windows > 100


# ---------------------------------------------------------------- the simulator's timestamps


def test_ts_is_the_formatted_time() -> None:
    from datetime import timedelta

    from engine.sim.simulate import EPOCH

    for index in (0, 1, 143, 144, 287, 10_000):
        for seq in (0, 1, 2, 199, 200, 201, 399, 4999):
            t = EPOCH + timedelta(seconds=index * 600 + seq * 3)
            assert _ts(index, seq) == t.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize("game_id", ["sichuan_xueliu", "hongzhong", "ddz", "zhajinhua"])
def test_loop_timestamps_are_ts_across_midnight(game_id: str) -> None:
    """Match 143 starts 600 s before midnight (index · 600 = 85,800 s): its events cross it."""
    for index in (0, 143, 287):
        for e in simulate_match(game_id, None, seed=2, index=index, chain=False):
            assert e.ts == _ts(index, e.seq)


# ---------------------------------------------------------------- the dealt builder


class _S(str):
    """A str subclass: the validator's business, never the builder's."""


def _dealt_payloads(rng: random.Random, n: int) -> list[dict[str, Any]]:
    """Mahjong deals of every game, then broken copies (wrong types, names, sizes, keys)."""
    good = []
    for game in (XUEZHAN, HONGZHONG, ANSHUN):
        for seed in range(5):
            good.append({"type": "dealt", **game.deal(game.parse_rules({}), 4, random.Random(seed), dealer=seed % 4)})
    odd: list[Any] = ["8z", "1x", "", _S("1m"), 5, None, ["1m"], "3h", "BJ", ("1m",), 1.0]
    out: list[dict[str, Any]] = [dict(p) for p in good]
    for _ in range(n):
        p = rng.choice(good)
        p = {"type": "dealt", "hands": [list(h) for h in p["hands"]], "wall": list(p["wall"])}
        how = rng.random()
        if how < 0.3:
            p["wall"][rng.randrange(len(p["wall"]))] = rng.choice(odd)
        elif how < 0.55:
            h = rng.choice(p["hands"])
            h[rng.randrange(len(h))] = rng.choice(odd)
        elif how < 0.65:
            p["hands"] = p["hands"][: rng.choice((0, 1, 7))] if rng.random() < 0.5 else p["hands"] * 2
        elif how < 0.75:
            p[rng.choice(("wall", "hands"))] = rng.choice([tuple(p["wall"]), "1m", None, {}])
        elif how < 0.85:
            p[rng.choice(("bottom", "stacks", "seat", "hash"))] = rng.choice([["3h"], [1, 2], 0, None])
        elif how < 0.9:
            del p[rng.choice(("wall", "hands"))]
        else:
            p["hands"][rng.randrange(len(p["hands"]))] = rng.choice([("1m",), "1m", None, []])
        out.append(p)
    return out


def test_dealt_builder_is_the_model() -> None:
    from engine.sim.simulate import _event
    from tests.test_sim_speed_shared import MATCH_ID, _by_model, _outcome

    built = refused = 0
    for p in _dealt_payloads(random.Random(7), 1500):
        got = _outcome(lambda p=p: _event(MATCH_ID, 1, 7, p))
        assert got == _outcome(lambda p=p: _by_model(MATCH_ID, 1, 7, p)), p
        built += got[0] == "event"
        refused += got[0] == "error"
    assert built > 200 and refused > 500
    hands = [["1m", "2m"], ["3h"]]
    ev = _event(MATCH_ID, 1, 7, {"type": "dealt", "hands": hands, "wall": ["5p"]})
    hands[0].append("9s")
    assert ev.hands == [["1m", "2m"], ["3h"]]  # type: ignore[attr-defined]


# ---------------------------------------------------------------- Anshun's after()


def _anshun_after_ref(s: claimflow.Table, ev: Any, before: claimflow.Table) -> claimflow.Table:
    """The previous `after` of a discard (every field rewritten, the tile read by tile_id)."""
    from engine.mahjong.anshun import YAO_JI
    from engine.tiles import tile_id

    seat = ev.seat
    ch: dict[str, Any] = {"has_discarded": claimflow._set(s.has_discarded, seat, True)}
    if before.ting_pending == seat:
        ch["ting"] = claimflow._set(s.ting, seat, True)
        ch["ting_pending"] = None
    ch["claim_hot"] = before.hot_pending[seat]
    ch["hot_pending"] = claimflow._set(s.hot_pending, seat, None)
    if tile_id(ev.tile) == YAO_JI and s.first_1s is None:
        ch["first_1s"] = (seat, ev.seq, False)
    if s.wall.remaining == 0:
        ch["done"] = True
    return claimflow.replace(s, **ch)


def test_anshun_after_a_discard_is_the_previous_one() -> None:
    import dataclasses

    seen = 0
    for i in range(12):
        events = simulate_match("anshun", None, seed=6, index=i, chain=False)
        s = ANSHUN.start(events[0], events[1], ANSHUN.parse_rules({}))
        for ev in events[2:-1]:
            new = ANSHUN.apply(s, ev)
            if ev.type == "discard":
                mid = ANSHUN._discard(s, ev, TILE_ID[ev.tile])
                want = _anshun_after_ref(mid, ev, s)
                assert dataclasses.astuple(new) == dataclasses.astuple(want)
                seen += 1
            s = new
    assert seen > 200
