"""`paiju stats [--lake DIR] [--game G] [--rules-id R] [--query NAME…] [--json]` (docs/cli.md).

Prints every named query of `analytics.queries` as a rich table, or with `--json` one JSON
object per query (JSON Lines): `{"query": NAME, "rows": [{column: value, …}, …]}`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from typing import Any

DEFAULT_QUERIES = (
    "overview", "win_rate_by_role", "win_rate_by_seat", "win_rate_by_dealer", "win_rate_by_player",
    "draw_rate", "fan_distribution", "fan_total_distribution", "score_distribution", "match_length",
    "biggest_wins", "settlement_mismatch_rate", "rules_comparison", "error_codes", "reject_codes",
)  # fmt: skip


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lake", default="lake", metavar="DIR", help="the lake folder (default ./lake)")
    p.add_argument("--game", metavar="G", help="only this game id")
    p.add_argument("--rules-id", metavar="R", help="only this rules_id")
    p.add_argument("--query", action="append", metavar="NAME", help="only these queries (repeatable)")
    p.add_argument("--json", action="store_true", help="one JSON object per query (JSON Lines)")


def _plain(v: Any) -> Any:
    """A DataFrame cell as a JSON value."""
    if v is None:
        return None
    if hasattr(v, "tolist"):
        return _plain(v.tolist())
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    if isinstance(v, float):
        return None if math.isnan(v) else round(v, 6)
    try:
        import pandas as pd

        if v is pd.NA or v is pd.NaT:
            return None
    except ImportError:  # pragma: no cover
        pass
    if hasattr(v, "item"):
        return v.item()
    return v


def _rows(df: Any) -> list[dict[str, Any]]:
    return [{c: _plain(v) for c, v in zip(df.columns, row, strict=True)} for row in df.itertuples(index=False, name=None)]


def _cell(v: Any) -> str:
    v = _plain(v)
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.3f}"
    if isinstance(v, list):
        return json.dumps(v, ensure_ascii=False)
    s = str(v)
    return s if len(s) <= 60 else s[:57] + "…"


def run(args: argparse.Namespace) -> int:
    from analytics.lake import open_lake
    from analytics.queries import QUERIES
    from events.errors import UsageError
    from events.notation import GAME_IDS
    from ingest.store import MANIFEST

    if args.game is not None and args.game not in GAME_IDS:
        raise UsageError(f"unknown game {args.game!r}; games: {', '.join(GAME_IDS)}")
    if not os.path.isdir(args.lake) or not os.path.exists(os.path.join(args.lake, MANIFEST)):
        raise UsageError(f"no lake at {args.lake} (run 'paiju ingest PATH… --lake {args.lake}' first)")
    names = args.query or list(DEFAULT_QUERIES)
    unknown = [n for n in names if n not in QUERIES]
    if unknown:
        raise UsageError(f"unknown query {unknown[0]!r}; queries: {', '.join(QUERIES)}")
    con = open_lake(args.lake)
    if not args.json:
        import sys

        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        console = Console() if sys.stdout.isatty() else Console(width=240)
    for name in names:
        df = QUERIES[name](con, game=args.game, rules_id=args.rules_id)
        if args.json:
            print(json.dumps({"query": name, "rows": _rows(df)}, ensure_ascii=False))
            continue
        t = Table(title=name.replace("_", " "), title_justify="left", header_style="bold")
        for c in df.columns:
            t.add_column(str(c), justify="right" if df[c].dtype.kind in "iuf" else "left", overflow="fold")
        for row in df.itertuples(index=False, name=None):
            t.add_row(*(escape(_cell(v)) for v in row))
        if not len(df):
            t.caption = "no rows"
        console.print(t)
    return 0
