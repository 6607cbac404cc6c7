"""Issue 18, Sichuan: the per-discard signal `serves` / `serves_excess` (docs/integrity.md),
counted by hand on a hand-made 血战 log.

The deal (no 换三张, dealer seat 0; voids: A s, B s, C m, D p):
- A (seat 0, 14): 1m–9m 1p 2p 3p 5p 9p — 14 kinds, no s tile.
- B (seat 1, 13): 9m 9m 5p 5p 2m 4m 6m 8m 2p 4p 6p 8p 9p — not ready.
- C (seat 2, 13): 1p 1p 4m 4m 3p 6p 9p 1s 2s 4s 7s 8s 9s — not ready; 4m is its void suit.
- D (seat 3, 13): 5m 5m 5s 5s 6s 3s 4s 7s 8s 9s 2s 4p 7p — holds its void suit p (can never win).
The wall starts with 5s.

The play and the counts (a seat "is served" by a discard it may peng — two or more of the tile, not
its void suit, SC-R9 — or win on, SC-H1):
- seq 6, A discards 5p. Served: B (5p 5p). A's legal kinds: all 14. Kinds serving B: 9m, 5p (2/14);
  serving C: 1p (1/14; 4m 4m is C's void suit: no peng); serving D: 5m (1/14).
  serves(A,B) += 1; serves_excess(A,B) += 1 − 2/14, (A,C) += −1/14, (A,D) += −1/14.
- seq 7, B pengs 5p (feeds(A,B) = 1). seq 8, B discards 9p. A now holds 1m–9m 1p 2p 3p 9p: ready
  on 9p only (9p must be the pair). B's kinds: 2m 4m 6m 8m 9m 2p 4p 6p 8p 9p (10, no void tile).
  Serving A: 9p (1/10) — served. Serving C: none (C holds one 6p, one 9p; 4m is void). Serving D:
  none (no 5m in B's hand). serves(A,B) += 1; serves_excess(A,B) += 1 − 1/10.
- seq 9, A wins on it (feeds(A,B) = 2, deal_ins(A,B) = 1) and leaves the hand (血战, SC-R20).
- seq 10, B draws 5s (its void suit); seq 11, B must discard it (SC-R6): legal kinds {5s}. Served:
  D (5s 5s; D's void is p): share 1/1, so serves(B,D) += 1, serves_excess(B,D) += 1 − 1 = 0.
  C holds no 5s; A has left: not counted.

Totals: serves (A,B) 2, (B,D) 1, else 0; serves_excess (A,B) 12/14 + 9/10, (A,C) −1/14,
(A,D) −1/14, else 0.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from engine.tiles import full_set, parse_hand, tile_id, tile_names
from ingest import integrity_tables as it

HANDS = [
    "123456789m12359p",
    "99m55p2468m24689p",
    "11p44m369p124789s",
    "55m55s6s3s4s789s2s47p",
]


def _ev(seq: int, typ: str, **kw: Any) -> dict[str, Any]:
    return {"match_id": "hand-sc", "seq": seq, "ts": f"2026-11-01T00:00:{seq:02d}Z", "type": typ, **kw}


def _log() -> list[dict[str, Any]]:
    hands = [parse_hand(h) for h in HANDS]
    rest = Counter(full_set())
    for h in hands:
        rest.subtract(h)
    assert min(rest.values()) >= 0
    rest[tile_id("5s")] -= 1
    wall = ["5s", *tile_names(sorted(rest.elements()))]
    return [
        _ev(0, "match_started", game="sichuan_xuezhan", rules={"huan_san_zhang": False},
            players=["A", "B", "C", "D"], dealer=0, base=1),
        _ev(1, "dealt", hands=[tile_names(sorted(h)) for h in hands], wall=wall),
        _ev(2, "dingque", seat=0, suit="s"),
        _ev(3, "dingque", seat=1, suit="s"),
        _ev(4, "dingque", seat=2, suit="m"),
        _ev(5, "dingque", seat=3, suit="p"),
        _ev(6, "discard", seat=0, tile="5p"),
        _ev(7, "peng", seat=1, tile="5p"),
        _ev(8, "discard", seat=1, tile="9p"),
        _ev(9, "hu", seat=0, tile="9p"),
        _ev(10, "draw", seat=1, tile="5s"),
        _ev(11, "discard", seat=1, tile="5s"),
    ]  # fmt: skip


def test_hand_made_log_replays() -> None:
    """Every event of the hand-made log is legal (the reducer's state never drops to None)."""
    from engine.registry import get_game

    evs = _log()
    assert [len(h) for h in (parse_hand(x) for x in HANDS)] == [14, 13, 13, 13]
    states = list(it._states(get_game("sichuan_xuezhan"), evs[0], evs[1], evs))
    assert all(s is not None for _e, s in states)


def test_serves_counted_by_hand() -> None:
    f = it.match_facts("hand-sc", _log(), [0, 0, 0, 0])
    assert f is not None
    names = it.COMPONENTS["mahjong"]
    got = {p: dict(zip(names, f.comps[k], strict=True)) for k, p in enumerate(it._pairs(4))}
    serves = {p: got[p]["serves"] for p in got}
    assert serves == {(0, 1): 2, (0, 2): 0, (0, 3): 0, (1, 2): 0, (1, 3): 1, (2, 3): 0}
    excess = {p: got[p]["serves_excess"] for p in got}
    want = {(0, 1): 12 / 14 + 9 / 10, (0, 2): -1 / 14, (0, 3): -1 / 14, (1, 2): 0.0, (1, 3): 0.0, (2, 3): 0.0}
    assert excess == pytest.approx(want)
    assert got[(0, 1)]["feeds"] == 2 and got[(0, 1)]["deal_ins"] == 1
    # the seqs behind the pair's components: the two served discards, the peng and the win
    assert sorted(set(f.seqs[(0, 1)])) == [6, 7, 8, 9] and sorted(set(f.seqs[(1, 3)])) == [11]
    assert (0, 2) not in f.seqs


def test_serves_only_for_sichuan() -> None:
    """The other mahjong games keep the components at 0 (the signal reads Sichuan's state)."""
    from engine.sim.simulate import simulate_match

    evs = [e.canonical_dict() for e in simulate_match("hongzhong", None, 1, 0, chain=False)]
    f = it.match_facts(evs[0]["match_id"], evs, evs[-1]["deltas"])
    assert f is not None
    k = it.COMPONENTS["mahjong"].index("serves")
    assert not f.comps[:, k].any() and not f.comps[:, k + 1].any()
