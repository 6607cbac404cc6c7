"""The parse workers' integrity-facts shortcuts (issue 22) against the computations they replaced.

- `ingest.tables._fact_events` gives `match_facts` each event after the deal as its field dict
  instead of a fresh `wire_fields()` dict: the facts (and the deal rows) are the same strings,
  on simulated matches of every game;
- `integrity_tables._claim_mask` equals `engine.mahjong.sichuan.claim_on(state, j, x) is not None`
  for every suited kind, on every state of Sichuan matches, and `_sichuan_serves` adds the same
  components as the reference below (the old code: `claim_on` once per kind and seat);
- `_PairData` travels to a worker as stacked arrays (`__getstate__`): after a pickle round trip
  it holds the same numbers and `pair_local` gives the same row;
- `parse_chunk` reads an event's seat from its field dict (a `getattr` miss on a model without
  the field cost microseconds): its rows hash to the value frozen on main 16da2a0;
- the rows `build_rows(…, facts=True)` makes of simulated matches of the eight games hash to the
  value frozen on main 16da2a0, before these changes.
"""

from __future__ import annotations

import hashlib
import pickle
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from engine.sim.simulate import World, simulate_lines
from events.codec import parse_line
from events.models import AnyEvent
from ingest import integrity_tables as it
from ingest.parse import parse_chunk
from ingest.tables import _fact_events, _replay, build_rows

GAMES = ("ddz", "ddz_laizi", "paodekuai", "zhajinhua", "sichuan_xuezhan", "sichuan_xueliu", "hongzhong", "anshun")
WORLD = World(pool=5, colluders=(("p01", "p02"),))
FROZEN_ROWS = {
    # sha256 of the repr of every row of every table `build_rows(matches, facts=True)` makes of
    # `_matches(game, 40, 7)`, computed on main 16da2a0 (before issue 22's part 6)
    "ddz": "3ec3c15c2d501f9644765f0165e373a9f5bddc4032cd038121c34b293051df27",  # 40 matches, 281 rows
    "ddz_laizi": "1805e4c1332ac0c8a0aa10b1f5e9ed2fc556b9abed93b5752b88ad326eb0b97e",  # 40 matches, 281 rows
    "paodekuai": "08a3bade9b2d8ec2bcc5b6def9a2d088bdae153f137b441757e4ba6e6bf1e309",  # 40 matches, 282 rows
    "zhajinhua": "50fee4884890a6f24dde48fdf8bea369ca8ac06cd92da9b71cc6df2a40eeab53",  # 40 matches, 593 rows
    "sichuan_xuezhan": "0e1d52d882d772636ea909796adaabb999c40c3878a00012f2b2f681bf60e104",  # 40 matches, 623 rows
    "sichuan_xueliu": "b71fd0c8908f61203bda4339f9f05f38e900c6aec669081e494fba07c43cbee5",  # 40 matches, 1292 rows
    "hongzhong": "4f18d85c2c9823445430763fc54c8cf33c0b8d4fe101367753a782c91d42e96c",  # 40 matches, 383 rows
    "anshun": "6d7a0d4d7f51323429e8ecd19d9935e7f9e2baba4c97e323a77b329693ccbdf9",  # 40 matches, 852 rows
}


def _matches(game: str, n: int, seed: int) -> dict[str, list[AnyEvent]]:
    out: dict[str, list[AnyEvent]] = defaultdict(list)
    for text in simulate_lines(game, None, n, seed, world=WORLD):
        for line in text.splitlines():
            if line.strip():
                ev = parse_line(line.encode("utf-8"))
                out[ev.match_id].append(ev)
    return out


def _rows_digest(matches: Mapping[str, list[AnyEvent]]) -> str:
    tables = build_rows(sorted(matches.items()), facts=True)
    h = hashlib.sha256()
    for name in sorted(tables):
        for row in tables[name].to_pylist():
            h.update(repr((name, row)).encode("utf-8"))
    return h.hexdigest()


@pytest.mark.parametrize("game", GAMES)
def test_facts_from_field_dicts(game: str) -> None:
    checked = 0
    for mid, evs in _matches(game, 30, 6).items():
        result, _state, applied, states = _replay(mid, evs, keep=True)
        if result.status != "finished" or result.deltas is None:
            continue
        items = [(int(x["seat"]), int(x["from"]), int(x["points"])) for x in result.items
                 if x.get("seat") is not None and x.get("from") is not None and x.get("points") is not None]  # fmt: skip
        want = it.match_facts(mid, [e.wire_fields() for e in applied], result.deltas, items, states)
        got = it.match_facts(mid, _fact_events(applied), result.deltas, items, states)
        assert want is not None and got is not None
        assert it.facts_record(got) == it.facts_record(want)
        checked += 1
    assert checked


def _reference_serves(game: str, st: Mapping[str, Any], dealt: Mapping[str, Any], events: Sequence[Mapping[str, Any]],
                      add: Any, before: Sequence[Any] | None = None) -> None:  # fmt: skip
    """`_sichuan_serves` as main 16da2a0 had it: `claim_on` once per seat and kind."""
    from engine.mahjong import sichuan as sc
    from engine.registry import get_game
    from engine.tiles import N_SUITED, TILE_ID

    g = get_game(game)
    for e, state in it._states(g, st, dealt, events, before):
        if e.get("type") != "discard" or state is None or state.phase != "play" or state.stage != "act":
            continue
        a, k = e["seat"], TILE_ID.get(e.get("tile", ""))
        if k is None or not 0 <= a < len(state.hands):
            continue
        hand = state.hands[a]
        v = state.void[a]
        kinds = [x for x in range(N_SUITED) if hand[x] and (x // 9 == v or not (state.rules.que_discard_first
                                                                                  and sc._has_void(hand, v)))]  # fmt: skip
        for j in range(len(state.hands)):
            if j == a or not sc._active(state, j):
                continue
            served = sc.claim_on(state, j, k) is not None
            share = sum(sc.claim_on(state, j, x) is not None for x in kinds) / len(kinds) if kinds else 0.0
            if served:
                add(a, j, "serves", e["seq"])
            if served or share:
                add(a, j, "serves_excess", e["seq"], float(served) - share, mark=served)


@pytest.mark.parametrize("game", it.SICHUAN)
def test_claim_mask_and_serves(game: str) -> None:
    from engine.mahjong import sichuan as sc
    from engine.tiles import N_SUITED

    states_seen = 0
    for mid, evs in _matches(game, 12, 11).items():
        result, _state, applied, states = _replay(mid, evs, keep=True)
        if result.status != "finished":
            continue
        for state in states:
            if state is None or not hasattr(state, "void"):
                continue
            for j in range(len(state.hands)):
                if not sc._active(state, j):
                    continue
                mask = it._claim_mask(sc, state, j)
                assert [bool(mask >> x & 1) for x in range(N_SUITED)] == [
                    sc.claim_on(state, j, x) is not None for x in range(N_SUITED)
                ]
                states_seen += 1
        wire = [e.wire_fields() for e in applied]
        for before in (states[1:-1], None):
            calls: list[list[tuple[Any, ...]]] = [[], []]
            for k, fn in enumerate((it._sichuan_serves, _reference_serves)):
                fn(game, wire[0], wire[1], wire, lambda *a, _c=calls[k], **kw: _c.append((a, kw)), before)
            assert calls[0] == calls[1]
    assert states_seen > 100


@pytest.mark.parametrize("game", GAMES)
def test_rows_frozen(game: str) -> None:
    assert _rows_digest(_matches(game, 40, 7)) == FROZEN_ROWS[game]


def test_pair_data_pickles_as_stacked_arrays() -> None:
    facts = []
    for game in ("ddz", "zhajinhua", "sichuan_xuezhan", "hongzhong"):
        for mid, evs in _matches(game, 30, 3).items():
            result, _state, applied, states = _replay(mid, evs, keep=True)
            if result.status == "finished" and result.deltas is not None:
                f = it.match_facts(mid, [e.wire_fields() for e in applied], result.deltas, [], states)
                if f is not None:
                    facts.append(f)
    pairs, _ = it._collect(facts)
    assert pairs
    for pd_ in pairs.values():
        back = pickle.loads(pickle.dumps(pd_))
        assert (back.game, back.a, back.b, back.mids, back.seqs, back.flow, back.flow_var) == (
            pd_.game, pd_.a, pd_.b, pd_.mids, pd_.seqs, pd_.flow, pd_.flow_var)  # fmt: skip
        assert len(back.alts) == len(pd_.alts) and len(back.obs) == len(pd_.obs)
        for x, y in zip(back.alts + back.obs, pd_.alts + pd_.obs, strict=True):
            assert x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()
        if len(pd_.mids) >= 3:
            assert it.pair_local(back) == it.pair_local(pd_)
    empty = pickle.loads(pickle.dumps(it._PairData("ddz", "a", "b")))
    assert empty.alts == [] and empty.obs == []


def test_parse_chunk_frozen() -> None:
    lines = []
    for game in GAMES:
        for text in simulate_lines(game, None, 10, 5, world=WORLD):
            lines.extend(x.encode() for x in text.splitlines() if x.strip())
    lines.append(b'{"match_id": "m", "seq": 0, "type": "nope"}')
    lines.append(b"not json")
    ev, rj = parse_chunk("sha", "f.jsonl", [(k + 1, raw, None) for k, raw in enumerate(lines)])
    assert (len(lines), ev.num_rows, rj.num_rows) == (4650, 4648, 2)
    assert sum(x is None for x in ev.column("seat").to_pylist()) > 0  # events without a seat field
    digest = hashlib.sha256(repr((ev.to_pylist(), rj.to_pylist())).encode()).hexdigest()
    assert digest == "03ea1dbb8162796394c806ab3bac4a4d1fd34eb35beb76f3013de05610bb0649"  # main 16da2a0
