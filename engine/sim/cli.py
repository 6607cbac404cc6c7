"""`paiju simulate --game G [--rules JSON|@FILE] [--matches N] [--seed S] [--workers W] --out PATH`."""

from __future__ import annotations

import argparse
import os
import time

from engine.cli_common import load_rules_arg, print_json
from engine.errors import Illegal
from engine.registry import GameNotAvailable, get_game
from engine.sim.simulate import SimulationError, write_simulation
from events.errors import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, help="game id")
    p.add_argument("--rules", help="rules object as JSON or @FILE (default: the standard preset)")
    p.add_argument("--matches", type=int, default=100, help="how many matches (default 100)")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    p.add_argument("--workers", type=int, default=1, help="processes (default 1; output is the same)")
    p.add_argument("--engine", choices=["local", "spark"], default="local",
                   help="local processes, or Spark for large labs (extra `dist`; output is the same)")  # fmt: skip
    p.add_argument("--out", required=True, help="output .jsonl or .jsonl.gz")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    try:
        game = get_game(args.game)
    except GameNotAvailable as e:
        raise UsageError(str(e)) from None
    rules = load_rules_arg(args.rules)
    try:
        game.parse_rules(rules)
    except Illegal as e:
        raise UsageError(f"bad rules for {args.game}: {e.message}") from None
    if args.matches <= 0:
        raise UsageError(f"--matches must be at least 1, got {args.matches}")
    if args.workers <= 0:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    parent = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise UsageError(f"cannot write {args.out}: {parent} is not a writable folder")
    t0 = time.perf_counter()
    if args.quiet or args.json:
        matches, events = _run(args, rules, None)
    else:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        with Progress(
            TextColumn(f"simulate {args.game}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
            console=Console(stderr=True), transient=True,
        ) as progress:  # fmt: skip
            task = progress.add_task("matches", total=args.matches)
            matches, events = _run(args, rules, lambda done: progress.update(task, completed=done))
    dt = time.perf_counter() - t0
    summary = {"game": args.game, "matches": matches, "events": events, "out": args.out, "seconds": round(dt, 3)}
    if args.json:
        print_json(summary)
    else:
        print(f"simulated {matches} {args.game} matches ({events} events) → {args.out} in {dt:.1f} s")
    return 0


def _run(args: argparse.Namespace, rules: dict, on_match: object) -> tuple[int, int]:
    if getattr(args, "engine", "local") == "spark":  # pyspark is imported only when chosen
        from engine.sim.spark import SparkUnavailable, write_simulation_spark

        try:
            return write_simulation_spark(args.out, args.game, rules, args.matches, args.seed, on_match=on_match)  # type: ignore[arg-type]
        except SparkUnavailable as e:
            raise UsageError(str(e)) from None
        except SimulationError as e:
            raise UsageError(f"simulation failed: {e}") from None
        except OSError as e:
            raise UsageError(f"cannot write {args.out}: {e.strerror or e}") from None
    try:
        return write_simulation(
            args.out, args.game, rules, args.matches, args.seed, workers=args.workers, on_match=on_match  # type: ignore[arg-type]
        )
    except SimulationError as e:
        raise UsageError(f"simulation failed: {e}") from None
    except OSError as e:
        raise UsageError(f"cannot write {args.out}: {e.strerror or e}") from None
