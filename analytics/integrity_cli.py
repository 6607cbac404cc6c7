"""`paiju integrity [--lake DIR] [--game G] [--min-matches K] [--fdr Q] [--json]` (docs/integrity.md).

Prints the pairs of players whose play together looks like collusion and the players whose deals
look stronger than a fair shuffle gives; with `--json` one object
`{"pairs": [...], "deals": [...]}` (issue 18's shape). A flag is a reason for review, never a verdict.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from events.errors import UsageError
from ingest.integrity_tables import FDR, MIN_MATCHES

SHOWN = 15


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lake", default="lake", metavar="DIR", help="the lake folder (default ./lake)")
    p.add_argument("--game", metavar="G", help="only this game id")
    p.add_argument("--min-matches", type=int, default=MIN_MATCHES, metavar="K",
                   help=f"test pairs with at least K shared matches, players with K deals (default {MIN_MATCHES})")  # fmt: skip
    p.add_argument("--fdr", type=float, default=FDR, metavar="Q", help=f"false discovery rate of a flag (default {FDR})")
    p.add_argument("--json", action="store_true", help="print one JSON object {pairs, deals}")


def run(args: argparse.Namespace) -> int:
    from analytics.integrity import report
    from events.notation import GAME_IDS
    from ingest.store import MANIFEST

    if not os.path.isdir(args.lake) or not os.path.exists(os.path.join(args.lake, MANIFEST)):
        raise UsageError(f"no lake at {args.lake} (run 'paiju ingest PATH… --lake {args.lake}' first)")
    if args.game is not None and args.game not in GAME_IDS:
        raise UsageError(f"unknown game {args.game!r}; games: {', '.join(GAME_IDS)}")
    if args.min_matches < 2:
        raise UsageError(f"--min-matches must be at least 2, got {args.min_matches}")
    if not 0 < args.fdr < 1:
        raise UsageError(f"--fdr must be between 0 and 1, got {args.fdr}")
    rep = report(args.lake, game=args.game, min_matches=args.min_matches, fdr=args.fdr, with_details=not args.json)
    if args.json:
        print(json.dumps(rep, ensure_ascii=False))
        return 0
    _print(rep, args.fdr)
    return 0


def _print(rep: dict[str, Any], fdr: float) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console() if sys.stdout.isatty() else Console(width=200)
    pairs = rep["pairs"]
    flagged = [p for p in pairs if p["flagged"]]
    t = Table(title=f"pairs ({len(flagged)} flagged at FDR {fdr} of {len(pairs)} tested; top {SHOWN} by score)",
              title_justify="left", header_style="bold")  # fmt: skip
    for c in ("players", "game", "together", "score", "p", "q", "flag", "money a→b", "evidence"):
        t.add_column(c, justify="right" if c in ("together", "score", "p", "q", "money a→b") else "left")
    for p in pairs[:SHOWN]:
        flow = p["signals"].get("flow_ab")
        t.add_row(" + ".join(p["players"]), p["game"], str(p["matches_together"]), f"{p['score']:.2f}",
                  f"{p['p_value']:.2g}", f"{p['q_value']:.2g}", "FLAG" if p["flagged"] else "",
                  "" if flow is None else f"{flow:+.0f} (z {p['signals']['flow_z']:.1f})",
                  ", ".join(p["evidence"][:3]) + (" …" if len(p["evidence"]) > 3 else ""))  # fmt: skip
    console.print(t)
    deals = rep["deals"]
    t = Table(title=f"deals ({sum(d['flagged'] for d in deals)} players flagged; top {SHOWN} by p-value)",
              title_justify="left", header_style="bold")  # fmt: skip
    for c in ("player", "game", "deals", "strength z", "p", "q", "flag"):
        t.add_column(c, justify="left" if c in ("player", "game", "flag") else "right")
    for d in deals[:SHOWN]:
        t.add_row(d["player"], d["game"], str(d["matches"]), f"{d['strength_z']:.2f}", f"{d['p_value']:.2g}",
                  f"{d['q_value']:.2g}", "FLAG" if d["flagged"] else "")  # fmt: skip
    console.print(t)
    t = Table(title="deal positions: every card/tile equally likely at every place (chi-square)",
              title_justify="left", header_style="bold")  # fmt: skip
    for c in ("game", "deals", "places", "kinds", "chi2", "dof", "p"):
        t.add_column(c, justify="left" if c == "game" else "right")
    for r in rep["positions"]:
        t.add_row(r["game"], str(r["deals"]), str(r["places"]), str(r["kinds"]), f"{r['chi2']:.1f}", str(r["dof"]),
                  f"{r['p_value']:.3g}")  # fmt: skip
    console.print(t)
    t = Table(title="seat and dealer effects (position 0 = the dealer)", title_justify="left", header_style="bold")
    for c in ("game", "position", "deals", "mean z", "Z", "p"):
        t.add_column(c, justify="left" if c == "game" else "right")
    for r in rep["seats"]:
        t.add_row(r["game"], str(r["position"]), str(r["deals"]), f"{r['mean_z']:.3f}", f"{r['z']:.2f}", f"{r['p_value']:.3g}")
    console.print(t)
