"""Integrity over a lake: colluding pairs and unfair deals (docs/integrity.md).

The numbers come from `ingest.integrity_tables` (the code the ingest runs to publish the tables
`pair_signals` and `deal_strength`); this module reads a lake through DuckDB and shapes them for
`paiju integrity` and the dashboard.

    rep = report("lake", game="zhajinhua", min_matches=10)
    rep["pairs"][0]  # {"players": [A, B], "game": …, "score": …, "q_value": …, "flagged": …, …}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ingest.integrity_tables import (
    DEAL_STRENGTH,
    FDR,
    MIN_MATCHES,
    PAIR_SIGNALS,
    deal_fairness,
    deal_rows,
    lake_facts,
    pair_signals,
    position_effects,
    positional_test,
    table_paths,
)

PAIR_KEYS = ("players", "game", "matches_together", "score", "p_value", "q_value", "flagged", "signals", "evidence")


def report(
    lake: str | Path, *, game: str | None = None, min_matches: int = MIN_MATCHES, fdr: float = FDR,
    with_details: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """`{"pairs": […], "deals": […]}` as `paiju integrity --json` prints it (pairs by score, deals
    by p-value); `with_details` adds `positions` (the positional tests), `seats` (seat and dealer
    effects) and each pair's `evidence_seqs`."""
    from analytics.lake import open_lake

    con = open_lake(lake)
    try:
        facts = lake_facts(con, game=game)
    finally:
        con.close()
    pairs = pair_signals(facts, min_matches=min_matches, fdr=fdr, game=game)
    rows = deal_rows(facts)
    out: dict[str, Any] = {
        "pairs": [p if with_details else {k: p[k] for k in PAIR_KEYS} for p in pairs],
        "deals": deal_fairness(rows, fdr=fdr, min_matches=min_matches),
    }
    if with_details:
        out["positions"] = positional_test(facts)
        out["seats"] = position_effects(rows)
    return out


def published(lake: str | Path) -> dict[str, Any] | None:
    """The tables the last ingest published, as pandas DataFrames (`pair_signals` with `signals`
    and `evidence_seqs` decoded), or None when the lake has none yet."""
    import pyarrow.feather as feather

    paths = table_paths(lake)
    if paths is None:
        return None
    pairs = feather.read_table(paths[PAIR_SIGNALS]).to_pandas()
    pairs["signals"] = [json.loads(s) for s in pairs["signals"]]
    pairs["evidence_seqs"] = [json.loads(s) for s in pairs["evidence_seqs"]]
    pairs["evidence"] = [list(e) for e in pairs["evidence"]]
    return {PAIR_SIGNALS: pairs, DEAL_STRENGTH: feather.read_table(paths[DEAL_STRENGTH]).to_pandas()}
