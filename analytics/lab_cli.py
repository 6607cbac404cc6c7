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
import time
from typing import Any

from analytics.lab import (
    Comparison,
    Row,
    format_diff,
    format_interval,
    format_p,
    format_value,
    metric_info,
    rules_name,
    run_lab,
)
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


WIDE = 140
"""From this terminal width on, A's and B's own intervals get columns; below it they are in --json."""
MEDIUM = 100
"""From this width on, the interval of B − A gets a column."""


def _table(cmp: Comparison, width: int | None = None) -> None:
    """The comparison as a table that fits the terminal: at 80 columns metric, A, B, B − A, effect
    size and p (the metric's name wraps, a value is never cut)."""
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(width=width) if width else Console()
    w = console.width
    for s in (cmp.a, cmp.b):
        line = f"[bold]{s.label}[/] = {escape(rules_name(cmp.game, s.rules))}: {s.finished}/{s.matches} finished"
        if s.failed:
            line += f", [red]{s.failed} failed[/] ({escape(str(s.first_error))})"
        console.print(line)
        console.print(f"  {escape(json.dumps(s.rules, ensure_ascii=False))}", style="dim")
    if cmp.same_rules:
        console.print("[bold red]warning:[/] A and B are the same rule set: every difference is chance")
    cols = ["metric", "A", "B", "B − A"]
    if w >= WIDE:
        cols = ["metric", "A", "A 95% CI", "B", "B 95% CI", "B − A"]
    if w >= MEDIUM:
        cols.append("95% CI of B − A")
    cols += ["effect", "p"]
    t = Table(title=f"house-rules lab · 95% intervals · Holm at α = {cmp.alpha:g}", box=box.SIMPLE_HEAD,
              title_justify="left", pad_edge=False)  # fmt: skip
    for c in cols:
        if c == "metric":
            t.add_column(c, justify="left", ratio=1, overflow="fold")
        else:
            t.add_column(c, justify="right", no_wrap=True, min_width=len(c))
    for r in cmp.rows:
        cells = _cells(r)
        t.add_row(*(escape(cells[c]) for c in cols), style="bold yellow" if r.significant else None)
    console.print(t)
    n = len(cmp.significant())
    names = ", ".join(metric_info(r.metric)[0] for r in cmp.significant()) or "none"
    console.print(f"{n} significant difference{'s' if n != 1 else ''} (marked *): {escape(names)}")
    console.print(
        "B − A of a rate in percentage points (pp); effect: Cohen's h (rate) or d (mean), "
        "|0.2| small, |0.5| medium, |0.8| large; --json has every interval.",
        style="dim",
    )


def _cells(r: Row) -> dict[str, str]:
    k = r.kind
    name, unit, _ = metric_info(r.metric)
    return {
        "metric": f"{name} ({unit})" if unit else name,
        "A": format_value(r.a, k),
        "A 95% CI": format_interval(r.a_lo, r.a_hi, k),
        "B": format_value(r.b, k),
        "B 95% CI": format_interval(r.b_lo, r.b_hi, k),
        "B − A": format_diff(r.diff, k),
        "95% CI of B − A": format_interval(r.diff_lo, r.diff_hi, k, diff=True),
        "effect": "–" if math.isnan(r.effect) else f"{r.effect_name} {r.effect:+.2f}",
        "p": format_p(r.p) + ("*" if r.significant else " "),
    }


def run(args: argparse.Namespace) -> int:
    if args.matches < 1:
        raise UsageError("--matches must be at least 1")
    if not 0 < args.alpha < 1:
        raise UsageError("--alpha must be between 0 and 1")
    a, b = parse_rules_arg(args.a), parse_rules_arg(args.b)
    progress = None
    if not args.json and sys.stderr.isatty():

        started = time.perf_counter()

        def progress(f: float) -> None:
            spent = time.perf_counter() - started
            left = f"about {spent / f * (1 - f):,.0f} s left" if f > 0 else "estimating…"
            print(f"\rsimulating… {f:.0%} · {spent:,.0f} s so far · {left} (Ctrl-C stops)  ", end="",
                  file=sys.stderr, flush=True)  # fmt: skip

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
