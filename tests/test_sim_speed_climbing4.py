"""Issue 22 (climbing, 4th pass): each fast path against the plain computation it replaced.

- `generate` against a top whose types are all one rank, no kickers (solo, pair, trio, bomb,
  rocket): the moves read from `_single_plan`'s per-rank tables equal the general window search's,
  in the same order, for Dou Dizhu (both kicker options) and Pao De Kuai rules.
- the Dou Dizhu bot's plain (no laizi) follow pick against the (move, as) loop it replaced.
"""

from __future__ import annotations

import random

import pytest

import engine.climbing.moves as M
from engine.climbing.pdk_moves import pdk_move_rules

_DECK = [r for r in range(13) for _ in range(4)] + [13, 14]


def _hand(rng: random.Random, lo: int = 1, hi: int = 20) -> tuple[int, ...]:
    c = [0] * 15
    for x in rng.sample(_DECK, rng.randint(lo, hi)):
        c[x] += 1
    return tuple(c)


def _general(hand: M.Counts, mr: M.MoveRules, top: M.Move | None, monkeypatch: pytest.MonkeyPatch) -> list[M.Move]:
    """`generate` with the one-rank fast path switched off (the general window search)."""
    memo = dict(mr.single)  # the rules' memo of `_single_plan`, emptied for the call
    mr.single.clear()
    try:
        with monkeypatch.context() as mp:
            mp.setattr(M, "_single_plan", lambda *a: None)
            return M.generate(hand, mr, top)
    finally:
        mr.single.clear()
        mr.single.update(memo)


@pytest.mark.parametrize(
    "mr", [M.ddz_move_rules(), M.ddz_move_rules(True, False), pdk_move_rules()], ids=["ddz", "ddz_kicker_rocket", "pdk"]
)
def test_generate_single_rank_tops_equal_the_general_search(mr: M.MoveRules, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(22)
    n_fast = 0
    for _ in range(1500):
        hand = _hand(rng)
        tops = M.generate(_hand(rng), mr)
        for top in rng.sample(tops, min(6, len(tops))):
            got = M.generate(hand, mr, top)
            assert got == _general(hand, mr, top, monkeypatch), (hand, top)
            assert all(type(mv) is M.Move for mv in got)
            n_fast += M._single_plan(mr, top.type, top.level) is not None
    assert n_fast > 1000  # the fast path was taken


def test_n_groups_less_equals_the_whole_count() -> None:
    """The groups of a hand less k cards of one chainable rank, counted on the one run it changes,
    equal `_n_groups_bytes` of the whole rest."""
    from engine.climbing import bot as B

    rng = random.Random(4)
    for _ in range(5000):
        c = _hand(rng)
        hb = bytes(c)
        hx = int.from_bytes(hb, "little")
        before = B._n_groups_bytes(hb)
        for r in range(12):
            for k in range(1, c[r] + 1):
                rest = list(c)
                rest[r] -= k
                assert B._n_groups_less(hb, hx, before, r, k) == B._n_groups_bytes(bytes(rest)), (c, r, k)


def _pick_reference(cands: list[M.Move], counts: M.Counts, opp_cards: int) -> M.Move | None:
    """The plain follow's pick as `_follow`'s (move, as) loop made it (as empty, no laizi left)."""
    from engine.climbing.bot import _HIGH8, _n_groups_bytes, _plain_groups

    hb = bytes(counts)
    before = _n_groups_bytes(hb)
    hx = int.from_bytes(hb, "little")
    best = None
    b_level = b_used = b_after = b_key = 0
    for mv in cands:
        level, used_laizi = mv.level, 0
        if best is not None:
            if level > b_level or (level == b_level and used_laizi > b_used):
                continue
            if level == b_level and used_laizi == b_used:
                low = before - _plain_groups(mv.counts, ())
                if low > b_after or (low == b_after and mv.key > b_key):
                    continue
        rest = hx - int.from_bytes(bytes(mv.counts), "little")
        if rest < 0 or rest & _HIGH8:
            continue
        after = _n_groups_bytes(rest.to_bytes(15, "little"))
        if level:
            if not (after <= 1 or opp_cards <= 4):
                continue
        elif after > before and opp_cards > 5 and used_laizi == 0:
            continue
        if best is None or (level, used_laizi, after, mv.key) < (b_level, b_used, b_after, b_key):
            best = mv
            b_level, b_used, b_after, b_key = level, used_laizi, after, mv.key
    return best


def test_pick_plain_equals_the_move_as_loop() -> None:
    from engine.climbing.bot import _pick_plain

    rng = random.Random(5)
    mr = M.ddz_move_rules()
    for _ in range(4000):
        hand = _hand(rng, 1, 20)
        tops = M.generate(_hand(rng, 1, 20), mr)
        for top in rng.sample(tops, min(4, len(tops))):
            cands = M.generate(hand, mr, top)
            for opp in (1, 4, 5, 6, 9, 17):
                assert _pick_plain(cands, hand, opp) == _pick_reference(cands, hand, opp), (hand, top, opp)


def test_hands_left_by_the_bots_plays_have_their_mask_counts() -> None:
    """Every hand the Dou Dizhu bot put in `_HAND_COUNTS` (a hand its play leaves, counted from
    the counts played) has the counts `_mask_counts` gives its mask."""
    from engine.climbing import bot as B
    from engine.sim.simulate import simulate_match

    B._HAND_COUNTS.clear()
    for i in range(30):
        simulate_match("ddz", {"rob": True} if i % 2 else None, 3, i, chain=False)
        simulate_match("ddz_laizi", None, 3, i, chain=False)
    assert len(B._HAND_COUNTS) > 300
    for mask, got in B._HAND_COUNTS.items():
        assert got == B._mask_counts(mask, -1)


def test_run_count_equals_the_run_split() -> None:
    """The counting-only run search equals `_run_split`'s number of groups: every run of up to 6
    ranks, and random longer ones."""
    import itertools

    from engine.climbing import bot as B

    runs = [bytes(r) for n in range(1, 7) for r in itertools.product(range(1, 5), repeat=n)]
    rng = random.Random(6)
    runs += [bytes(rng.choice((1, 1, 1, 2, 2, 3, 4)) for _ in range(rng.randint(7, 12))) for _ in range(5000)]
    for run in runs:
        assert B._run_count(run) == B._run_split(run, B._DDZ_MINS)[0], run


def test_lowest_lead_is_the_min_by_key_then_size() -> None:
    from engine.climbing import bot as B

    rng = random.Random(8)
    mr = M.ddz_move_rules()
    for _ in range(3000):
        moves = M.generate(_hand(rng, 1, 20), mr)
        pool = rng.sample(moves, rng.randint(1, min(10, len(moves))))
        assert B._lowest(pool) is min(pool, key=lambda mv: (mv.key, -sum(mv.counts)))
