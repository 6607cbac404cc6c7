"""`ingest.tables.build_tables`, the one pure function the local pool and the Spark runner share:
same rows whatever the input form, order or batching; stable rules ids; the win grouping."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from engine.registry import get_game
from events.codec import event_to_json
from ingest.tables import _wins, build_tables, build_tables_from_lines, rules_id_of
from tests.ingest_data import golden_files, many_matches, renamed
from tests.test_ingest_schema import _simulated

pytestmark = pytest.mark.skipif(not golden_files(), reason="no game with golden logs is available yet")


def _table(matches: list[list]) -> pa.Table:
    rows = [(e.match_id, e.seq, event_to_json(e)) for m in matches for e in m]
    return pa.table({"match_id": [r[0] for r in rows], "seq": [r[1] for r in rows], "line": [r[2] for r in rows]})


def _equal(a: dict[str, pa.Table], b: dict[str, pa.Table]) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].equals(b[k]), k


@pytest.fixture(scope="module")
def matches() -> list[list]:
    return many_matches(30, "t") + _simulated(2)


def test_arrow_pandas_order_and_batching_give_the_same_rows(matches: list[list]) -> None:
    t = _table(matches)
    whole = build_tables(t)
    _equal(whole, build_tables(t.to_pandas()))
    idx = list(range(t.num_rows))
    random.Random(3).shuffle(idx)
    _equal(whole, build_tables(t.take(idx)))
    # batches cut at match boundaries (Spark buckets by a hash of match_id): concatenated = whole
    ids = sorted({m[0].match_id for m in matches})
    bucket = {mid: hash(mid) % 3 for mid in ids}
    parts = [build_tables(t.filter(pa.array([bucket[m] == b for m in t.column("match_id").to_pylist()]))) for b in range(3)]
    for name in ("matches", "seats", "items", "fans"):
        joined = pa.concat_tables([p[name] for p in parts]).sort_by([("match_id", "ascending")])
        want = whole[name].sort_by([("match_id", "ascending")])
        assert joined.num_rows == want.num_rows
        assert sorted(map(str, joined.to_pylist())) == sorted(map(str, want.to_pylist())), name
    # validating again the lines changes nothing for lines that are valid
    _equal(whole, build_tables(t, validate=True))
    assert set(whole["matches"].column("match_id").to_pylist()) == set(ids)


def test_rules_id_is_stable_over_spellings_and_changes_with_an_option(matches: list[list]) -> None:
    m = matches[0]
    game = get_game(m[0].game)
    full = game.parse_rules(m[0].rules).options()
    spelled = renamed(m, "spelled")
    spelled[0] = spelled[0].model_copy(update={"rules": {k: v for k, v in full.items()}})
    spelled = renamed(spelled, "spelled")
    out = build_tables_from_lines((e.match_id, e.seq, event_to_json(e)) for mm in (m, spelled) for e in mm)
    ids = out["matches"].column("rules_id").to_pylist()
    assert ids[0] == ids[1] == rules_id_of(m[0].game, full)
    assert out["rules"].num_rows == 1
    other = next(k for k, v in full.items() if isinstance(v, bool))
    assert rules_id_of(m[0].game, {**full, other: not full[other]}) != ids[0]
    assert rules_id_of("ddz", full) != rules_id_of("paodekuai", full)


def test_a_win_is_one_run_of_items_paying_one_seat() -> None:
    fans = {"ping_hu": 0, "gen": 1}
    zimo = [{"kind": "zimo", "seat": 0, "from": f, "points": 4, "fans": fans, "fan": 1} for f in (1, 2, 3)]
    gang = {"kind": "gang", "seat": 1, "from": 2, "points": 2}
    again = [{"kind": "zimo", "seat": 0, "from": f, "points": 4, "fans": fans, "fan": 1} for f in (1, 2)]
    other = {"kind": "dianpao", "seat": 2, "from": 1, "points": 2, "fans": {"ping_hu": 0}, "fan": 0}
    assert _wins([*zimo, gang, *again, other]) == [0, 0, 0, None, 1, 1, 2]
    # the same seat winning again right away is a new win (a payer repeats)
    assert _wins(zimo + zimo) == [0, 0, 0, 1, 1, 1]
