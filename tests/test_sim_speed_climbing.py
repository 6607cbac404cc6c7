"""The climbing games' fast paths (issue 22) give the same results as the general code they bypass.

- `moves.generate` without wild cards (bit-mask chain starts, `_plain_kicked`) lists the same moves
  in the same order as the general window search `_gen_type` run with no wild card.
- The Dou Dizhu bot's `split` (kickers attached from the groups' kinds) gives the same moves in the
  same order as the count-vector `attach_kickers` it replaced.
- Laizi: `readings` (declarations from the possible main windows only) equals trying every
  declaration; `laizi_moves` (stand-ins from a packed difference) equals the per-rank formula.
- `bot._mask_counts` (nibble tables) equals counting the cards one by one; `bot._payload` (name
  tables) is the game's `play_payload` for every playable reading.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from itertools import combinations_with_replacement

import pytest

from engine.climbing import bot
from engine.climbing.laizi import Reading, _relabel, laizi_moves, readings
from engine.climbing.moves import (
    BJ_R,
    LEVEL_ROCKET,
    RJ_R,
    Counts,
    Move,
    MoveRules,
    _gen_type,
    beats,
    classify,
    ddz_move_rules,
    generate,
    rocket_move,
)
from engine.climbing.pdk_moves import pdk_move_rules

_DDZ_DECK = [r for r in range(13) for _ in range(4)] + [BJ_R, RJ_R]
_PDK_DECK = [r for r in range(11) for _ in range(4)] + [11, 11, 11, 12]
_RULES = [
    ("ddz", ddz_move_rules()),
    ("ddz_kr", ddz_move_rules(True, False)),
    ("pdk", pdk_move_rules()),
]


def _ref_generate(hand: Counts, mr: MoveRules, top: Move | None = None) -> list[Move]:
    """`generate` as it was: every (type, length) through the general `_gen_type` (wild = 0)."""
    out: list[Move] = []
    size = sum(hand)
    for t in mr.types:
        if top is not None and not t.level:
            if top.level or t.name != top.type:
                continue
            lens: Iterable[int] = (top.length,)
            min_key = top.key
        else:
            lens = range(t.min_len, t.max_len + 1)
            min_key = -1
            if top is not None and t.level:
                if top.level > t.level:
                    continue
                if top.level == t.level:
                    min_key = top.key
        for L in lens:
            if t.n_cards(L) > size:
                break
            out.extend(_gen_type(hand, t, L, min_key, mr, 0))
    if mr.rocket and hand[BJ_R] and hand[RJ_R] and (top is None or top.level < LEVEL_ROCKET):
        out.append(rocket_move())
    return out


def _hand(ranks: list[int]) -> Counts:
    c = [0] * 15
    for r in ranks:
        c[r] += 1
    return tuple(c)


@pytest.mark.parametrize(("name", "mr"), _RULES)
@pytest.mark.parametrize("seed", range(40))
def test_generate_equals_the_general_search(name: str, mr: MoveRules, seed: int) -> None:
    rng = random.Random(seed)
    deck = _PDK_DECK if name == "pdk" else _DDZ_DECK
    for size in (5, 9, 13, 17, 20):
        hand = _hand(rng.sample(deck, min(size, len(deck))))
        leads = generate(hand, mr)
        assert leads == _ref_generate(hand, mr)
        # following: every top drawn from the moves of another hand (bombs and the rocket too)
        other = generate(_hand(rng.sample(deck, 17)), mr)
        for top in rng.sample(other, min(12, len(other))):
            assert generate(hand, mr, top) == _ref_generate(hand, mr, top)


# ---------------------------------------------------------------- Dou Dizhu split


def _ref_attach(groups: list[list[int]], mr: MoveRules) -> list[Move]:
    """The count-vector `attach_kickers` as it was."""
    solos = sorted((g for g in groups if sum(g) == 1 and max(g) == 1 and (g.index(1) < 12)), key=lambda g: g.index(1))
    pairs = sorted((g for g in groups if max(g) == 2 and sum(g) == 2 and g.index(2) < 12), key=lambda g: g.index(2))
    used: set[int] = set()
    out: list[Move] = []
    bodies = [g for g in groups if max(g) == 3 and all(v in (0, 3) for v in g)]
    for body in sorted(bodies, key=lambda g: g.index(3)):
        L = sum(body) // 3
        done = False
        for pool in (solos, pairs):
            free = [g for g in pool if id(g) not in used]
            if len(free) >= L:
                take = free[:L]
                c = [a + sum(t[i] for t in take) for i, a in enumerate(body)]
                mv = classify(tuple(c), mr)
                if mv is not None:
                    used.update(id(t) for t in take)
                    used.add(id(body))
                    out.append(mv)
                    done = True
                    break
        if not done:
            used.add(id(body))
            mv = classify(tuple(body), mr)
            if mv is not None:
                out.append(mv)
    for g in groups:
        if id(g) in used:
            continue
        mv = classify(tuple(g), mr)
        if mv is not None:
            out.append(mv)
        else:  # cannot happen for skeleton groups; fall back to solos
            for r, v in enumerate(g):
                for _ in range(v):
                    one = [0] * 15
                    one[r] = 1
                    out.append(Move("solo", 1, r, 0, tuple(one)))
    return out


def _ref_group_counts(g: tuple[str, int, int]) -> list[int]:
    kind, lo, hi = g
    c = [0] * 15
    if kind == "rocket":
        c[BJ_R] = c[RJ_R] = 1
        return c
    unit = {"solo": 1, "pair": 2, "trio": 3, "bomb": 4, "chain1": 1, "chain2": 2, "chain3": 3}[kind]
    for r in range(lo, hi + 1):
        c[r] = unit
    return c


@pytest.mark.parametrize(("name", "mr"), _RULES)
@pytest.mark.parametrize("seed", range(60))
def test_split_equals_the_count_vector_attach(name: str, mr: MoveRules, seed: int) -> None:
    rng = random.Random(seed)
    deck = _PDK_DECK if name == "pdk" else _DDZ_DECK
    mins = (5, 2, 2) if name == "pdk" else (5, 3, 2)
    for size in (3, 6, 9, 12, 15, 17, 20):
        hand = _hand(rng.sample(deck, size))
        groups = bot._best_split(hand, 11, mins)[1]
        want = _ref_attach([_ref_group_counts(g) for g in groups], mr)
        assert bot.split(hand, mr, 11, mins) == want


# ---------------------------------------------------------------- laizi


def _ref_readings(N: Counts, m: int, lr: int, mr: MoveRules, top: Move | None) -> list[Reading]:
    """Every declaration tried, in `combinations_with_replacement` order."""
    n_plain = sum(N)
    choices = [(lr,) * m] if n_plain == 0 else combinations_with_replacement([r for r in range(13) if N[r] < 4], m)
    out = []
    for S in choices:
        E = list(N)
        for r in S:
            E[r] += 1
        if max(E) <= 4 and (mv := classify(tuple(E), mr)) is not None:
            mv = _relabel(mv, n_plain, m)
            if top is None or beats(mv, top):
                out.append(Reading(mv, S))
    return out


def _ref_laizi_moves(N: Counts, m: int, lr: int, mr: MoveRules, top: Move | None) -> list[Reading]:
    """`laizi_moves` with the stand-ins by the per-rank formula it had (m > 0)."""
    gen_top = Move("soft_bomb", 1, -1, 1, (0,) * 15) if top is not None and top.level else top
    out = []
    for mv in generate(N, mr, gen_top, wild=m):
        E = mv.counts
        S = [r for r, e, have in zip(range(15), E, N, strict=True) if e > have for _ in range(e - have)]
        if len(S) > m or max(E) > 4:
            continue
        n_plain = sum(E) - len(S)
        if n_plain == 0 and any(r != lr for r in S):
            continue
        mv2 = _relabel(mv, n_plain, len(S))
        if top is None or beats(mv2, top):
            out.append(Reading(mv2, tuple(S)))
    return out


@pytest.mark.parametrize("mr", [ddz_move_rules(), ddz_move_rules(True, False)])
@pytest.mark.parametrize("seed", range(8))
def test_laizi_readings_and_moves_equal_the_plain_search(mr: MoveRules, seed: int) -> None:
    rng = random.Random(seed)
    found = 0
    for _ in range(50):
        lr = rng.randrange(13)
        m = rng.randint(1, 4)
        deck = [r for r in _DDZ_DECK if r != lr]
        if rng.random() < 0.6:  # near-shapes (chains, planes with wings, fours with kickers): readings exist
            L, unit = rng.randint(1, 6), rng.randint(1, 4)
            lo = rng.randrange(0, 13 - L)
            cards = [r for r in range(lo, lo + L) if r != lr for _ in range(unit)]
            if cards:
                cards = rng.sample(cards, max(1, len(cards) - rng.randint(0, m)))
            cards += rng.sample(deck, rng.randint(1, 4))
        else:
            cards = rng.sample(deck, rng.randint(1, 20 - m))
        N = _hand(cards)
        if max(N) > 4 or sum(N) + m > 20:
            continue
        got = readings(N, m, lr, mr)
        assert got == _ref_readings(N, m, lr, mr, None)
        found += bool(got)
        tops = [rd.move for rd in laizi_moves(_hand(rng.sample(deck, 12)), 1, lr, mr)]
        for top in [None, *rng.sample(tops, min(4, len(tops)))]:
            assert readings(N, m, lr, mr, top) == _ref_readings(N, m, lr, mr, top)
            assert laizi_moves(N, m, lr, mr, top) == _ref_laizi_moves(N, m, lr, mr, top)
    assert found  # the cases did exercise hands that read as a move


@pytest.mark.parametrize("seed", range(5))
def test_mask_counts_equal_the_card_by_card_count(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        ids = rng.sample(range(54), rng.randint(0, 20))
        lr = rng.randrange(-1, 13)
        mask = sum(1 << i for i in ids)
        c = [0] * 15
        m = 0
        for i in ids:
            r = i >> 2 if i < 52 else i - 39
            if r == lr:
                m += 1
            else:
                c[r] += 1
        assert bot._mask_counts(mask, lr) == (tuple(c), m)


@pytest.mark.parametrize("game_id", ["ddz", "ddz_laizi"])
def test_bot_payload_is_the_games_play_payload(game_id: str) -> None:
    from engine.registry import get_game
    from engine.sim.simulate import simulate_match

    game = get_game(game_id)
    seen = 0
    for i in range(12):
        events = simulate_match(game_id, {}, 4, i, chain=False)
        state = game.start(events[0], events[1], game.parse_rules({}))
        for ev in events[2:-1]:
            if state.phase == "play":
                for rd in game.moves_for(state, state.turn, state.top):
                    assert bot._payload(state, state.turn, rd) == game.play_payload(state, state.turn, rd)
                    seen += 1
            state = game.apply(state, ev)
    assert seen > 100
