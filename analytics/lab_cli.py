"""`paiju lab --game G --a RULES --b RULES [--matches N] [--seed S] [--workers W] [--json]`.

RULES is a JSON object (`{"preset": "chengdu", "fan_cap": 3}`), `@FILE` holding one, or a bare
preset name (`chengdu`). Both rule sets are validated before anything is simulated (exit 2 with
the game's reason otherwise). Prints the side-by-side comparison (analytics/lab.py); `--json`
prints it as one JSON object. Exit 0 whether or not the rule sets differ significantly.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from analytics.lab import Comparison, Row, run_lab
from engine.cli_common import load_rules_arg
from events.errors import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, metavar="G", help="game id, e.g. ddz or sichuan_xuezhan")
    p.add_argument("--a", required=True, metavar="RULES", help="rule set A: JSON object, @FILE or a preset name")
    p.add_argument("--b", required=True, metavar="RULES", help="rule set B: JSON object, @FILE or a preset name")
    p.add_argument("--matches", type=int, default=200, metavar="N", help="matches per rule set (default 200)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="simulation seed (default 0)")
    p.add_argument("--workers", type=int, default=1, metavar="W", help="processes (default 1)")
    p.add_argument("--alpha", type=float, default=0.05, help="family-wise significance level (default 0.05)")
    p.add_argument("--json", action="store_true", help="print the comparison as one JSON object")


def parse_rules_arg(value: str) -> dict[str, Any]:
    """A rules object from `--a`/`--b`: JSON, @FILE, or a preset name."""
    return load_rules_arg(value, allow_preset_name=True)


def _fmt(x: float, kind: str) -> str:
    if math.isnan(x):
        return "–"
    return f"{x:.1%}" if kind == "rate" else f"{x:.3g}"


def _table(cmp: Comparison) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    for s in (cmp.a, cmp.b):
        line = (
            f"[bold]{s.label}[/] {escape(json.dumps(s.rules, ensure_ascii=False))}: {s.finished}/{s.matches} finished"
        )
        if s.failed:
            line += f", [red]{s.failed} failed[/] ({escape(str(s.first_error))})"
        console.print(line)
    t = Table(title=f"house-rules lab (95% intervals, Holm at α={cmp.alpha})")
    for col in ("metric", "A", "A 95% CI", "B", "B 95% CI", "B − A", "p", "sig"):
        t.add_column(col, justify="left" if col == "metric" else "right", no_wrap=True, overflow="fold")
    for r in cmp.rows:
        t.add_row(*(escape(c) for c in _cells(r)), style="bold yellow" if r.significant else None)
    console.print(t)
    n = len(cmp.significant())
    names = ", ".join(r.metric for r in cmp.significant()) or "none"
    console.print(f"{n} significant difference{'s' if n != 1 else ''}: {escape(names)}")


def _cells(r: Row) -> list[str]:
    k = r.kind
    diff = "–" if math.isnan(r.diff) else (f"{r.diff:+.1%}" if k == "rate" else f"{r.diff:+.3g}")
    return [
        r.metric,
        _fmt(r.a, k),
        f"{_fmt(r.a_lo, k)}–{_fmt(r.a_hi, k)}",
        _fmt(r.b, k),
        f"{_fmt(r.b_lo, k)}–{_fmt(r.b_hi, k)}",
        diff,
        f"{r.p:.3g}",
        "*" if r.significant else "",
    ]


def run(args: argparse.Namespace) -> int:
    if args.matches < 1:
        raise UsageError("--matches must be at least 1")
    if not 0 < args.alpha < 1:
        raise UsageError("--alpha must be between 0 and 1")
    a, b = parse_rules_arg(args.a), parse_rules_arg(args.b)
    progress = None
    if not args.json and sys.stderr.isatty():

        def progress(f: float) -> None:
            print(f"\rsimulating… {f:.0%}", end="", file=sys.stderr, flush=True)

    try:
        cmp = run_lab(
            args.game, a, b, args.matches, args.seed, workers=args.workers, alpha=args.alpha, progress=progress
        )
    except ValueError as e:
        raise UsageError(str(e)) from None
    if progress is not None:
        print("\r", end="", file=sys.stderr)
    if args.json:
        sys.stdout.write(json.dumps(cmp.to_dict(), ensure_ascii=False, default=str) + "\n")
    else:
        _table(cmp)
    return 0
