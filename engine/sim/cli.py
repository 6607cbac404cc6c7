"""`paiju simulate --game G [--rules JSON|@FILE] [--matches N] [--seed S] [--workers W]
[--players N] [--colluders A,B|A>B[;C,D]] [--rig-deals PLAYER:FRACTION] [--seek P] --out PATH`."""

from __future__ import annotations

import argparse
import os
import time

from engine.cli_common import game_and_rules, print_json
from engine.registry import get_game
from engine.sim.simulate import PLAYER_POOL, SimulationError, World, write_simulation
from events.errors import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, help="game id")
    p.add_argument("--rules", help="rules object as JSON or @FILE (default: the standard preset)")
    p.add_argument("--matches", type=int, default=100, help="how many matches (default 100)")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    p.add_argument("--workers", type=int, default=1, help="processes (default 1; output is the same)")
    p.add_argument("--engine", choices=["local", "spark"], default="local",
                   help="local processes, or Spark for large labs (extra `dist`; output is the same)")  # fmt: skip
    p.add_argument("--players", type=int, help=f"the pool of player names p00… (default {PLAYER_POOL})")
    p.add_argument("--colluders", help="colluding pairs, e.g. p03,p17;p05,p09: their bots play for the pair; "
                   "p03>p17: the pair, and p03 dumps chips to p17 (zhajinhua)")
    p.add_argument("--rig-deals", help="PLAYER:FRACTION: that share of the player's deals re-drawn until stronger")
    p.add_argument("--seek", type=float, default=0.0,
                   help="chance that a colluder seated alone brings its partner (default 0: chance seating)")  # fmt: skip
    p.add_argument("--out", required=True, help="output .jsonl or .jsonl.gz")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    game, rules = game_and_rules(args.game, args.rules)
    if args.matches <= 0:
        raise UsageError(f"--matches must be at least 1, got {args.matches}")
    if args.workers <= 0:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    parse_world(args, game)  # bad world options: a usage error before anything is written
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
    world = parse_world(args, get_game(args.game))
    if getattr(args, "engine", "local") == "spark":  # pyspark is imported only when chosen
        if world is not None:
            raise UsageError("--players, --colluders, --rig-deals and --seek run on the local engine only")
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
            args.out, args.game, rules, args.matches, args.seed, workers=args.workers, on_match=on_match,  # type: ignore[arg-type]
            world=world,
        )
    except SimulationError as e:
        raise UsageError(f"simulation failed: {e}") from None
    except OSError as e:
        raise UsageError(f"cannot write {args.out}: {e.strerror or e}") from None


def parse_world(args: argparse.Namespace, game: object) -> World | None:
    """The `World` of --players/--colluders/--rig-deals/--seek; None when none is given (the
    simulation is then byte for byte the one without them)."""
    pool = getattr(args, "players", None)
    coll, rig, seek = getattr(args, "colluders", None), getattr(args, "rig_deals", None), getattr(args, "seek", 0.0)
    if pool is None and not coll and not rig and not seek:
        return None
    pool = PLAYER_POOL if pool is None else pool
    seats = getattr(game, "sim_players", 2)
    if pool < seats or pool > 100:
        raise UsageError(f"--players must be between {seats} and 100, got {pool}")
    names = {f"p{k:02d}" for k in range(pool)}
    pairs: list[tuple[str, str]] = []
    dumpers: list[tuple[str, str]] = []
    for chunk in (coll or "").split(";"):
        if not chunk.strip():
            continue
        dump = ">" in chunk  # A>B: a colluding pair where A also dumps chips to B
        two = [x.strip() for x in chunk.split(">" if dump else ",")]
        if len(two) != 2 or two[0] == two[1] or any(x not in names for x in two):
            raise UsageError(f"--colluders: {chunk!r} is not two different players of p00..p{pool - 1:02d} "
                             "(A,B: a colluding pair; A>B: A also dumps chips to B)")  # fmt: skip
        pairs.append((two[0], two[1]))
        if dump:
            dumpers.append((two[0], two[1]))
    flat = [x for pr in pairs for x in pr]
    if len(set(flat)) != len(flat):
        raise UsageError("--colluders: a player is in two pairs")
    if pairs:
        from engine.sim.collusion import SUPPORTED

        gid = getattr(game, "id", "")
        if gid not in SUPPORTED:
            raise UsageError(f"--colluders: colluding bots are not written for {gid}; games: {', '.join(SUPPORTED)}")
        if dumpers and gid != "zhajinhua":
            raise UsageError(f"--colluders A>B: chip dumping is written for zhajinhua only, not {gid}")
    rigged: tuple[str, float] | None = None
    if rig:
        who, _, frac = rig.partition(":")
        try:
            f = float(frac)
        except ValueError:
            f = -1.0
        if who not in names or not 0.0 <= f <= 1.0:
            raise UsageError(f"--rig-deals: {rig!r} is not PLAYER:FRACTION with a player of the pool and 0 ≤ FRACTION ≤ 1")
        rigged = (who, f)
    if not 0.0 <= seek <= 1.0:
        raise UsageError(f"--seek must be between 0 and 1, got {seek}")
    return World(pool=pool, colluders=tuple(pairs), rig=rigged, seek=seek, dumpers=tuple(dumpers))
