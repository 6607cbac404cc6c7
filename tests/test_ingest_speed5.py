"""The ingest's integrity shortcuts (issue 22) against the plain computations they replaced.

- `_pairs`, `_pair_index`, `_columns`, `_pair_keys` (made once and cached) equal the
  comprehensions every call used to make;
- `match_facts` sums the components in Python floats (no NumPy scalar update per event): the
  components equal those of the reference below, which adds into a NumPy array as before, bit
  for bit, on simulated matches of every game (with and without the replay's states);
- `_collect` takes a match's mean square net flow once for all its pairs: the same numbers as
  one `np.mean` per pair.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pytest

from engine.sim.simulate import World, simulate_lines
from events.codec import parse_line
from ingest import integrity_tables as it
from ingest.tables import _replay

GAMES = ("ddz", "ddz_laizi", "paodekuai", "zhajinhua", "sichuan_xuezhan", "sichuan_xueliu", "hongzhong", "anshun")
WORLD = World(pool=5, colluders=(("p01", "p02"),))


def test_cached_pair_tables() -> None:
    rng = random.Random(5)
    for n in range(0, 7):
        assert it._pairs(n) == tuple(combinations(range(n), 2))
        assert it._pair_index(n) == {p: k for k, p in enumerate(combinations(range(n), 2))}
    for fam, names in it.COMPONENTS.items():
        assert it._columns(fam) == {c: names.index(c) for c in names}
    for _ in range(2000):
        players = tuple(f"p{rng.randrange(12):02d}" for _ in range(rng.randrange(2, 6)))
        game = rng.choice(GAMES)
        plain = [(game, *sorted((players[i], players[j]))) for i, j in combinations(range(len(players)), 2)]
        assert list(it._pair_keys(game, players)) == plain


def _reference_comps(events: Sequence[Mapping[str, Any]], deltas: Sequence[int],
                     states: Sequence[Any] | None) -> tuple[np.ndarray, dict[tuple[int, int], list[int]]]:  # fmt: skip
    """`match_facts`' components as it made them before issue 22: into a NumPy array, one
    scalar update per event."""
    st, dealt = events[0], events[1]
    game, n = st["game"], len(st["players"])
    fam = it.family(game)
    names = it.COMPONENTS[fam]
    pairs = list(combinations(range(n), 2))
    index = {p: k for k, p in enumerate(pairs)}
    comps = np.zeros((len(pairs), len(names)))
    seqs: dict[tuple[int, int], list[int]] = defaultdict(list)
    d = [int(x) for x in deltas]
    scale = sum(abs(x) for x in d) / 2 or 1.0
    for (i, j), k in index.items():
        comps[k, 0] = (d[i] + d[j]) / scale

    def add(i: int, j: int, c: str, seq: int, v: float = 1.0, mark: bool = True) -> None:
        if i == j or not (0 <= i < n and 0 <= j < n):
            return
        key = (min(i, j), max(i, j))
        comps[index[key], names.index(c)] += v
        if mark:
            seqs[key].append(seq)

    before = None if states is None else states[1:-1]
    if fam == "zhajinhua":
        it._zjh_facts(st, dealt, events, add, before)
    elif fam == "mahjong":
        src = None
        for e in events[2:]:
            t = e.get("type")
            if t == "discard" or (t == "gang" and e.get("kind") == "bu"):
                src = e["seat"]
            elif t in ("peng", "hu") or (t == "gang" and e.get("kind") == "zhi"):
                if src is not None and e["seat"] != src:
                    add(src, e["seat"], "feeds", e["seq"])
                    if t == "hu":
                        add(src, e["seat"], "deal_ins", e["seq"])
                if t != "hu":
                    src = None
            elif t == "draw":
                src = None
        if game in it.SICHUAN:
            it._sichuan_serves(game, st, dealt, events, add, before)
    else:
        it._climbing_facts(game, st, dealt, events, add, before)
    return comps, dict(seqs)


@pytest.mark.parametrize("game", GAMES)
def test_match_facts_equal_reference(game: str) -> None:
    matches: dict[str, list[Any]] = defaultdict(list)
    for text in simulate_lines(game, None, 6, 70, world=WORLD):
        for line in text.splitlines():
            if line.strip():
                ev = parse_line(line.encode("utf-8"))
                matches[ev.match_id].append(ev)
    checked = 0
    for mid, evs in matches.items():
        result, _state, applied, states = _replay(mid, evs, keep=True)
        if result.status != "finished" or result.deltas is None:
            continue
        wire = [e.wire_fields() for e in applied]
        for st in (states, None):  # the replay's states, and the reducer run again
            f = it.match_facts(mid, wire, result.deltas, None, st)
            assert f is not None
            comps, seqs = _reference_comps(wire, result.deltas, st)
            assert f.comps.dtype == comps.dtype and f.comps.shape == comps.shape
            assert f.comps.tobytes() == comps.tobytes()  # bit for bit
            assert f.seqs == seqs
        checked += 1
    assert checked


def test_collect_flow_variance_once() -> None:
    rng = np.random.default_rng(3)
    facts = []
    for k in range(300):
        n = int(rng.integers(2, 5))
        players = tuple(f"p{x:02d}" for x in rng.choice(8, n, replace=False))
        pairs = it._pairs(n)
        flows = None if k % 7 == 0 else rng.normal(0, 50, len(pairs)).round()
        facts.append(
            it.MatchFacts(f"m{k}", "ddz", players, 0, (0,) * n, (), {}, rng.normal(size=(len(pairs), 6)), {}, flows)
        )
    got, _ = it._collect(facts)
    for key, pd_ in got.items():
        want_var, want_flow = [], []
        for f in facts:
            for i, j in it._pairs(len(f.players)):
                a, b = sorted((f.players[i], f.players[j]))
                if (f.game, a, b) == key and f.flows is not None:
                    k = it._pairs(len(f.players)).index((i, j))
                    want_flow.append(float(-f.flows[k] if f.players[i] == a else f.flows[k]))
                    want_var.append(float(np.mean(f.flows**2)))
        assert pd_.flow == want_flow and pd_.flow_var == want_var
