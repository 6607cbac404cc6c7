"""The third round of mahjong fast paths (issue 22) against brute force or the code they replaced
(copied below as references), on generated hands and on the states of simulated matches:

- core.win_tiles / core.win_mask == `is_win` of the hand plus each kind (brute force);
- core.min_discard_gains / discard_gains when every minimal discard is ready (masks = win tiles)
  == `discard_gains_plain` (the per-discard definition);
- core._dprof (the discard profile of a suit key) == the procedure it replaced;
- core.Wall.remaining (a slot) == tail − head after draws from either end;
- claimflow's one-copy draw and discard == the old copy plus `replace(seq=…)`;
- Hongzhong's `after` and its last-answer `win_kind` == the old `after` and `hand_wins`;
- Anshun's claim check `bot_may_hu_on` == `bot_may_hu` of the hand plus the tile;
- bot.want_peng (no search when ready) and bot._pick_by_ukeire (one loop) == their old code;
- sichuan.ting_value (waits from the win tiles) == its old scan of every kind; Sichuan wins_with ==
  `is_win`; Anshun `_ready_after` == its old `waits(...)` not empty.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from engine.mahjong import bot, core
from engine.mahjong.claimflow import _add, _set
from engine.mahjong.core import (
    Wall,
    discard_gains,
    discard_gains_plain,
    is_win,
    mask_bits,
    min_discard_gains,
    shanten,
    win_mask,
    win_tiles,
)
from engine.mahjong.hongzhong import hand_wins
from engine.mahjong.sichuan import wins_with
from engine.registry import get_game
from engine.sim.simulate import simulate_match
from engine.tiles import RED, tile_id
from tests.mj_hands import random_hand


def _winning(rng: random.Random, melds: int) -> list[int]:
    """A complete 14 − 3·melds hand of 28 counts: sets and a pair, or (no melds) seven pairs (a four
    as two pairs), in one, two or three suits."""
    suits = rng.sample(range(3), rng.randint(1, 3))
    kinds = [k for k in range(27) if k // 9 in suits]
    c = [0] * 28
    if melds == 0 and rng.random() < 0.3:
        while sum(c) < 14:
            k = rng.choice(kinds)
            if c[k] <= 2:
                c[k] += 2
        return c
    while sum(c) < 12 - 3 * melds:
        k = rng.choice(kinds)
        if rng.random() < 0.6 and k % 9 <= 6 and all(c[k + d] < 4 for d in range(3)):
            for d in range(3):
                c[k + d] += 1
        elif c[k] <= 1:
            c[k] += 3
    k = rng.choice([k for k in kinds if c[k] <= 2])
    c[k] += 2
    return c


def _near_hands(seed: int, n: int) -> Iterator[tuple[list[int], int]]:
    """(28 counts, melds): winning hands with one or two tiles changed, and plain random hands."""
    rng = random.Random(seed)
    for _ in range(n):
        melds = rng.choice((0, 0, 0, 1, 2, 3))
        c = _winning(rng, melds)
        for _ in range(rng.choice((1, 1, 2))):
            k = rng.choice([k for k in range(27) if c[k]])
            c[k] -= 1
            t = rng.choice([t for t in range(27) if c[t] < 4])
            c[t] += 1
        yield c, melds
        yield random_hand(rng, 14 - 3 * melds, tuple(sorted(rng.sample(range(3), rng.randint(1, 3))))), melds


def _brute_win_tiles(c: Sequence[int], melds: int, seven: bool) -> int:
    h = bytearray(c)
    m = 0
    for t in range(27):
        h[t] += 1
        if is_win(bytes(h), melds, seven):
            m |= 1 << t
        h[t] -= 1
    return m


@pytest.mark.parametrize("seed", range(4))
def test_win_tiles_is_is_win_of_each_draw(seed: int) -> None:
    rng = random.Random(seed)
    checked = ready = 0
    for c, melds in _near_hands(seed, 400):
        for k in [k for k in range(28) if c[k]]:  # every 13 − 3·melds hand one discard away
            h = list(c)
            h[k] -= 1
            if rng.random() < 0.05:
                h[RED] += 1  # a plain 7z held: the tile-by-tile path
            for seven in (True, False):
                want = _brute_win_tiles(h, melds, seven)
                assert win_tiles(h, melds, seven) == want, (h, melds, seven)
                assert win_tiles(bytes(h), melds, seven) == want
                checked += 1
                ready += want != 0
            hand = tuple(h)
            assert win_mask(hand, melds) == win_tiles(hand, melds) == win_mask(hand, melds)  # memo
    assert ready > checked // 20  # many hands are ready: the completion path is exercised


@pytest.mark.parametrize("seed", range(4))
def test_ready_discards_gain_masks_are_their_definition(seed: int) -> None:
    seen_ready = 0
    for c, melds in _near_hands(100 + seed, 300):
        c27 = c[:27]
        for seven in (True, False):
            plain = discard_gains_plain(c27, melds, seven)
            assert discard_gains(c27, melds, seven) == plain, (c27, melds, seven)
            minimal = [x for x in plain if x[2] is not None]
            if len(minimal) == 1:
                minimal = [(minimal[0][0], minimal[0][1], None)]
            assert min_discard_gains(c27, melds, seven) == minimal
            seen_ready += minimal[0][1] == 0 and len(minimal) > 1
    assert seen_ready > 50  # the ready (win tiles) path ran


def _dprof_old(key: bytes) -> tuple[Any, ...]:
    """core._dprof before issue 22's third round (copied; the profile id is compared through the
    interned id tuple, which the old and new share)."""
    tab, tid, top = core._TAB or core._load_tab()
    pos = core._pattern(key.translate(core._NZ))[0]
    idx = core._base5(key) if tab is not None and len(key) == 9 and max(key) <= 4 and sum(key) <= top + 1 else -1
    ids = []
    for i in pos:
        j = core._MISSING if idx < 0 else tab[idx - core._POW5[i]]
        ids.append(tid[j] if j != core._MISSING else core._key_id(key[:i] + core._BYTE[key[i] - 1] + key[i + 1 :]))
    t = tuple(ids)
    kid = core._KEY_ID.get(key)
    if kid is None:
        kid = core._key_id(key)
    return (tuple((i, key[i]) for i in pos), [None] * len(pos), t, kid)


def test_discard_profile_is_the_old_procedure() -> None:
    rng = random.Random(7)
    keys = {bytes(9)}
    for _ in range(3000):
        c = [0] * 9
        for k in rng.sample([i for i in range(9) for _ in range(4)], rng.randint(1, 16)):
            c[k] += 1
        keys.add(bytes(c))
    keys |= {bytes([5, 0, 1, 1, 1, 0, 0, 0, 0]), bytes([4, 4, 4, 3, 0, 0, 0, 0, 0])}  # a 5, 15 tiles
    for key in sorted(keys):
        core._DPROF.pop(key, None)
        new = core._dprof(key)
        assert new[1:] == _dprof_old(key), key
        assert core._DPROFS[new[0]] == new[3]


def test_wall_remaining_is_tail_minus_head() -> None:
    w = Wall.of(range(10))
    assert w.remaining == 10 and w == Wall(tuple(range(10)), 0, 10)
    rng = random.Random(1)
    seen = []
    while w.remaining:
        tail = rng.random() < 0.5
        assert w.peek(tail) == (w.tiles[w.tail - 1] if tail else w.tiles[w.head])
        k, w = w.draw(tail)
        seen.append(k)
        assert w.remaining == w.tail - w.head
        assert w == Wall(w.tiles, w.head, w.tail) and hash(w) == hash(Wall(w.tiles, w.head, w.tail))
    assert sorted(seen) == list(range(10))
    assert dataclasses.replace(w, head=0).remaining == w.tail
    assert "remaining" not in repr(w)


def _states(game_id: str, matches: int) -> Iterator[tuple[Any, Any, Any]]:
    """(state, event, state after) of every event of simulated matches, replayed by the reducer."""
    game = get_game(game_id)
    for i in range(matches):
        events = simulate_match(game_id, None, seed=3, index=i, chain=False)
        s = game.start(events[0], events[1], game.parse_rules({}))
        for ev in events[2:-1]:
            after = game.apply(s, ev)
            yield s, ev, after
            s = after


def _claimflow_draw_old(game: Any, s: Any, ev: Any, t: int) -> Any:
    """claimflow `_draw` before issue 22's third round (copied; the wall checks left out: the
    events are the simulator's), then `_apply`'s `replace(new, seq=ev.seq)`."""
    replace = dataclasses.replace
    seat, repl = game._expected_drawer(s)
    tail = repl and getattr(s.rules, "replacement_from", "head") == "tail"
    _, wall = s.wall.draw(tail)
    kongs = s.kongs
    repl_kong = None
    if repl:
        repl_kong = len(kongs) - 1
        k = kongs[-1]
        if not k.confirmed:
            kongs = _set(kongs, repl_kong, replace(k, confirmed=True, seq=ev.seq))
    new = replace(
        s, hands=_set(s.hands, seat, _add(s.hands[seat], t, 1)), melds=s.melds, kongs=kongs, wall=wall,
        phase="act", turn=seat, tile=t, drew=True, first=False, after_peng=False, repl_kong=repl_kong,
        last_drawer=seat, claim_hot=None,
    )  # fmt: skip
    return replace(new, seq=ev.seq)


def _claimflow_discard_old(s: Any, ev: Any, t: int) -> Any:
    replace = dataclasses.replace
    seat = ev.seat
    new = replace(
        s, hands=_set(s.hands, seat, _add(s.hands[seat], t, -1)), discards=_set(s.discards, seat, (*s.discards[seat], t)),
        phase="claim", tile=t, drew=False, first=False, after_peng=False, claim_seq=ev.seq, repl_kong=None,
    )  # fmt: skip
    return replace(new, seq=ev.seq)


def _hongzhong_after_old(game: Any, s: Any, ev: Any) -> Any:
    """Hongzhong `after` before issue 22's third round (copied)."""
    replace = dataclasses.replace
    if s.wins:
        return replace(s, forced_seat=None)
    s = replace(s, forced_seat=None)
    if ev.type == "draw":
        r = s.rules
        seat = s.turn
        can = hand_wins(r, s.hands[seat], len(s.melds[seat]), game._red_total(s, seat, s.hands[seat])) is not None
        if can and r.forced_zimo:
            return replace(s, forced_seat=seat)
        if s.wall.remaining <= r.zhama:
            return replace(s, done=True)
    return s


@pytest.mark.parametrize("game_id", ["hongzhong", "anshun"])
def test_claimflow_draw_and_discard_copies_are_the_old_ones(game_id: str) -> None:
    game = get_game(game_id)
    n = 0
    for s, ev, after in _states(game_id, 25):
        if ev.type not in ("draw", "discard") or s.done:
            continue
        t = tile_id(ev.tile)
        new = game._draw(s, ev, t) if ev.type == "draw" else game._discard(s, ev, t)
        old = _claimflow_draw_old(game, s, ev, t) if ev.type == "draw" else _claimflow_discard_old(s, ev, t)
        assert new == old
        if game_id == "hongzhong":
            assert game.after(new, ev, s) == _hongzhong_after_old(game, old, ev) == after
        n += 1
    assert n > 500


def test_hongzhong_win_kind_keeps_only_the_last_tuple_answer() -> None:
    game = get_game("hongzhong")
    rng = random.Random(5)
    for s, _ev, _after in _states("hongzhong", 10):
        for seat in range(4):
            h = s.hands[seat]
            want = hand_wins(s.rules, h, len(s.melds[seat]), game._red_total(s, seat, h))
            assert game.win_kind(s, seat, h) == want == game.win_kind(s, seat, h)
            lst = list(h)  # a list is never kept: changing it in place changes the answer
            assert game.win_kind(s, seat, lst) == want
            k = rng.randrange(27)
            lst[k] += 1
            assert game.win_kind(s, seat, lst) == hand_wins(
                s.rules, lst, len(s.melds[seat]), game._red_total(s, seat, lst)
            )


@pytest.mark.parametrize("game_id", ["hongzhong", "anshun"])
def test_claim_hu_check_is_bot_may_hu_of_the_hand_plus_tile(game_id: str) -> None:
    game = get_game(game_id)
    wins = 0
    for s, _ev, _after in _states(game_id, 20):
        for seat in range(4):
            for tile in range(27):
                for how in ("dianpao", "qianggang"):
                    want = game.bot_may_hu(s, seat, _add(s.hands[seat], tile, 1), how)
                    assert game.bot_may_hu_on(s, seat, tile, how) == want, (seat, tile, how)
                    wins += want
    assert wins > 0


def _want_peng_old(counts13: Sequence[int], n_melds: int, tile: int, void: int) -> bool:
    now = shanten(bot._strip_void(counts13, void), n_melds)
    c = list(counts13)
    c[tile] -= 2
    return bot.best_after_discard(c, n_melds + 1, void) < now


def test_want_peng_is_the_old_rule() -> None:
    rng = random.Random(11)
    ready = 0
    for c, melds in _near_hands(300, 400):
        if melds == 3:
            continue
        h = list(c[:27])
        h[rng.choice([k for k in range(27) if h[k]])] -= 1  # 13 − 3·melds tiles
        ready += shanten(h, melds) == 0
        for tile in [k for k in range(27) if h[k] >= 2]:
            for void in (-1, tile // 9, (tile // 9 + 1) % 3):
                assert bot.want_peng(h, melds, tile, void) == _want_peng_old(h, melds, tile, void)
    assert ready > 20


def _pick_by_ukeire_old(
    counts: Sequence[int],
    gains: Sequence[tuple[int, int, tuple[int, int, int] | None]],
    void: int,
    unseen: Sequence[int],
) -> int:
    """bot._pick_by_ukeire before issue 22's third round (copied)."""
    live = (unseen[0:9], unseen[9:18], unseen[18:27])
    sums: dict[int, int] = {}

    def ukeire(masks: Sequence[int]) -> int:
        uk = 0
        for s in range(3):
            m = masks[s]
            if m and s != void:
                key = m << 2 | s
                v = sums.get(key)
                if v is None:
                    v = sums[key] = sum(map(live[s].__getitem__, mask_bits(m)))
                uk += v
        return uk

    return bot._most_ukeire(counts, ((k, ukeire(masks)) for k, _sh, masks in gains if masks is not None))


def test_pick_by_ukeire_is_the_old_loop() -> None:
    rng = random.Random(13)
    for c, melds in _near_hands(400, 300):
        c27 = c[:27]
        gains = min_discard_gains(c27, melds)
        if len(gains) < 2:
            continue
        for void in (-1, 0, 1, 2):
            unseen = [rng.randint(0, 4 - min(c27[t], 4)) for t in range(27)]
            assert bot._pick_by_ukeire(c27, gains, void, unseen) == _pick_by_ukeire_old(c27, gains, void, unseen)


def test_sichuan_wins_with_is_is_win() -> None:
    for s, _ev, _after in _states("sichuan_xueliu", 5):
        for seat in range(4):
            h = s.hands[seat]
            n = len(s.melds[seat])
            for t in range(27):
                assert wins_with(h, n, t) == is_win(_add(h, t, 1), n)


def _ting_value_old(rules: Any, conc: Sequence[int], melds: Sequence[Any], void: int) -> tuple[list[int], int]:
    """sichuan.ting_value before issue 22's third round (copied): is_win of every kind added."""
    from engine.mahjong.sichuan import Situation, _has_void, score_win

    held = [a + b for a, b in zip(conc, core.meld_counts(melds), strict=True)]
    if _has_void(conc, void):
        return [], 0
    out: list[int] = []
    best = 0
    c = list(conc)
    for t in range(27):
        if held[t] >= 4 or t // 9 == void:
            continue
        c[t] += 1
        if is_win(c, len(melds)):
            out.append(t)
            sc = score_win(rules, c, melds, t, Situation())
            if sc is not None and sc.capped > best:
                best = sc.capped
        c[t] -= 1
    return out, best


@pytest.mark.parametrize("game_id", ["sichuan_xuezhan", "sichuan_xueliu"])
def test_ting_value_is_the_old_scan(game_id: str) -> None:
    from engine.mahjong.sichuan import ting_value

    ready = 0
    for s, _ev, _after in _states(game_id, 8):
        if s.phase != "play":
            continue
        for seat in range(4):
            h = s.hands[seat]
            if sum(h) + 3 * len(s.melds[seat]) != 13:
                continue
            for void in (s.void[seat], -1):
                want = _ting_value_old(s.rules, h, s.melds[seat], void)
                assert ting_value(s.rules, h, s.melds[seat], void) == want
                ready += bool(want[0])
    assert ready > 10


def test_anshun_ready_after_is_waits_not_empty() -> None:
    from engine.mahjong.anshun import _ready_after

    ready = 0
    for c, melds in _near_hands(500, 300):
        hand = tuple(c[:27]) + (0,)
        for k in [k for k in range(27) if hand[k]]:
            h = list(hand)
            h[k] -= 1
            want = bool(core.waits(tuple(h), melds, seven_pairs=True))  # the old `_ready_after`
            assert _ready_after(hand, melds, k) == want
            ready += want
    assert ready > 100
