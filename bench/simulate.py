"""Simulation speed: matches/s on one core for every game; Dou Dizhu against rlcard in the same run.

Run: `.venv/bin/python bench/simulate.py [--matches N] [--games a,b] [--chain] [--baseline DIR
[--rounds R | --instructions]] [--profile]`. Each game prints matches/s by wall time and by this process's CPU time
(`time.process_time`, far less sensitive to other load on a shared machine; on an idle core the two
agree). `--chain` also fills the hash chain as `paiju simulate` does (the default measures the bots
and engines: events without hashes). Absolute times on shared machines are noise; the ratio to
rlcard's Dou Dizhu environment (random agents, the same process, the same minute) is the figure to
compare across runs. Goals (issue 7): Dou Dizhu ≥ 500 matches/s/core, mahjong games ≥ 200.

`--baseline DIR` (a checkout of main, e.g. `git worktree add --detach /tmp/simbase main`) measures
this tree and DIR in child processes, alternating which goes first in each of R rounds, and prints
per game the median CPU rate of each, their ratio (issue 22: ≥ 2×) and whether the two wrote the
same bytes (sha256 of `simulate_lines` for the first 100 matches, seed 1): the ratio of two runs
interleaved in the same minutes, honest under load. With `--instructions` it counts instead the
instructions per match of each (valgrind's cachegrind; exact, the same on a loaded machine: the
figure to compare when other work shares the cores; CPU time still decides what a user waits).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def paiju_rate(game_id: str, matches: int, *, chain: bool = False) -> tuple[float, float]:
    """(matches/s by wall time, matches/s by this process's CPU time)."""
    from engine.sim.simulate import simulate_match

    simulate_match(game_id, None, seed=1, index=matches, chain=chain)  # imports and lazy tables
    t0, c0 = time.perf_counter(), time.process_time()
    for i in range(matches):
        simulate_match(game_id, None, seed=1, index=i, chain=chain)
    return matches / (time.perf_counter() - t0), matches / max(time.process_time() - c0, 1e-9)


def log_sha256(game_id: str, matches: int) -> str:
    """sha256 of the JSON Lines `paiju simulate` writes for `matches` matches, seed 1."""
    from engine.sim.simulate import simulate_lines

    return hashlib.sha256("".join(simulate_lines(game_id, None, matches, 1)).encode()).hexdigest()


def rlcard_rate(matches: int) -> tuple[float, float]:
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("doudizhu", config={"seed": 1})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(matches):
        env.run(is_training=False)
    return matches / (time.perf_counter() - t0), matches / max(time.process_time() - c0, 1e-9)


def profile(game_id: str, matches: int, top: int = 14) -> None:
    """Where a game's simulation time goes, in µs of CPU per event by function (cProfile: its own
    overhead inflates every figure, more so for small functions; compare the lines, not runs)."""
    import cProfile
    import pstats

    from engine.registry import BOT_FUNCTIONS
    from engine.sim.simulate import simulate_match

    simulate_match(game_id, None, seed=1, index=matches, chain=False)
    n_events = 0
    pr = cProfile.Profile()
    pr.enable()
    for i in range(matches):
        n_events += len(simulate_match(game_id, None, seed=1, index=i, chain=False))
    pr.disable()
    stats = pstats.Stats(pr).stats  # type: ignore[attr-defined]
    total = sum(v[2] for v in stats.values())
    print(f"\n{game_id}: {matches} matches, {n_events} events, {total / n_events * 1e6:.1f} µs/event under cProfile")
    bots = {BOT_FUNCTIONS[game_id][1]}
    phases = {"bot (choice)": bots, "engine apply": {"apply"}, "event validation (_event)": {"_event"}}
    for label, names in phases.items():
        cum = max((v[3] for (f, _l, fn), v in stats.items() if fn in names and "engine" in f), default=0.0)
        print(f"  {label:32} cum {cum / n_events * 1e6:8.1f} µs/event")
    rows = sorted(stats.items(), key=lambda kv: -kv[1][2])[:top]
    for (f, line, fn), v in rows:
        where = f"{Path(f).parent.name}/{Path(f).name}:{line}({fn})" if line else fn
        print(
            f"  {v[2] / n_events * 1e6:8.2f} µs/event own  {v[3] / n_events * 1e6:8.2f} cum  {v[1]:>8} calls  {where}"
        )


def _child(games: list[str], matches: int, chain: bool, check: int) -> None:
    """One side of a --baseline run: {game: [wall, cpu, sha256 or ""]} as JSON on stdout."""
    out = {}
    for g in games:
        wall, cpu = paiju_rate(g, matches, chain=chain)
        out[g] = [wall, cpu, log_sha256(g, check) if check else ""]
    print(json.dumps(out))


def _run_side(tree: Path, games: list[str], matches: int, chain: bool, check: int) -> dict[str, list]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--games", ",".join(games),
           "--matches", str(matches), "--check", str(check)] + (["--chain"] if chain else [])  # fmt: skip
    res = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def _instructions(tree: Path, game_id: str, matches: int) -> int:
    """Instructions (valgrind cachegrind `I refs`, user space, exact) of a child that warms up and
    simulates `matches` matches of `game_id` with `tree`'s code (PYTHONHASHSEED fixed)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", sys.executable,
           str(Path(__file__).resolve()), "--child", "--games", game_id, "--matches", str(matches), "--check", "0"]  # fmt: skip
    res = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=True)
    line = next(x for x in res.stderr.splitlines() if "I   refs:" in x or "I refs:" in x)
    return int(line.rsplit(":", 1)[1].replace(",", ""))


def _baseline_instructions(base: Path, games: list[str], matches: int) -> None:
    """Per game: instructions per match of this tree and of `base` (the difference of a run of
    `matches` matches and a run of none, so imports and warm-up cancel): independent of the load."""
    print(f"this tree {HERE}  baseline {base}  {matches} matches, instructions by valgrind  load {os.getloadavg()}")
    print(f"{'game':18} {'base Minstr/match':>18} {'new Minstr/match':>17} {'ratio base/new':>15}")
    for g in games:
        per = {}
        for side, tree in (("base", base), ("new", HERE)):
            per[side] = (_instructions(tree, g, matches) - _instructions(tree, g, 0)) / matches
        print(
            f"{g:18} {per['base'] / 1e6:18.3f} {per['new'] / 1e6:17.3f} {per['base'] / per['new']:14.3f}x", flush=True
        )
    print(f"load {os.getloadavg()}")


def _baseline(base: Path, games: list[str], matches: int, chain: bool, rounds: int) -> None:
    print(f"this tree {HERE}  baseline {base}  {rounds} rounds × {matches} matches  load {os.getloadavg()}")
    rates: dict[str, dict[str, list[float]]] = {"new": {g: [] for g in games}, "base": {g: [] for g in games}}
    shas: dict[str, dict[str, str]] = {"new": {}, "base": {}}
    for r in range(rounds):
        order = [("new", HERE), ("base", base)] if r % 2 == 0 else [("base", base), ("new", HERE)]
        for side, tree in order:
            res = _run_side(tree, games, matches, chain, 100 if r < 2 else 0)
            for g, (_wall, cpu, sha) in res.items():
                rates[side][g].append(cpu)
                if sha:
                    shas[side][g] = sha
        print(f"round {r + 1}/{rounds} done, load {os.getloadavg()}", flush=True)
    print(f"{'game':18} {'base CPU m/s':>13} {'new CPU m/s':>12} {'ratio':>7} {'per round':>28}  same bytes")
    for g in games:
        b, n = statistics.median(rates["base"][g]), statistics.median(rates["new"][g])
        per = " ".join(f"{x / y:.2f}" for x, y in zip(rates["new"][g], rates["base"][g], strict=True))
        same = "yes" if shas["new"][g] == shas["base"][g] else "NO: DIFFERENT LOGS"
        print(f"{g:18} {b:13.1f} {n:12.1f} {n / b:6.2f}x {per:>28}  {same}")
    print(f"load {os.getloadavg()}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=300)
    ap.add_argument("--games", default="", help="comma-separated game ids (default: every game)")
    ap.add_argument("--chain", action="store_true", help="also fill the hash chain, as `paiju simulate` does")
    ap.add_argument("--baseline", type=Path, help="a checkout of main to measure against, interleaved")
    ap.add_argument("--rounds", type=int, default=3, help="with --baseline: rounds of each side")
    ap.add_argument("--instructions", action="store_true", help="with --baseline: count instructions (valgrind)")
    ap.add_argument("--profile", action="store_true", help="µs of CPU per event by function (cProfile)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--check", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    from engine.registry import available_games

    games = [g for g in args.games.split(",") if g] or available_games()
    if args.profile:
        print(f"load {os.getloadavg()}")
        for g in games:
            profile(g, args.matches)
        return
    if args.child:
        _child(games, args.matches, args.chain, args.check)
        return
    if args.baseline is not None and args.instructions:
        _baseline_instructions(args.baseline.resolve(), games, args.matches)
        return
    if args.baseline is not None:
        _baseline(args.baseline.resolve(), games, args.matches, args.chain, max(1, args.rounds))
        return
    print(f"load {os.getloadavg()}")
    print(f"{'game':18} {'matches/s (wall)':>17} {'matches/s (CPU)':>16}")
    rates = {}
    for g in games:
        wall, cpu = paiju_rate(g, args.matches, chain=args.chain)
        rates[g] = (wall, cpu)
        print(f"{g:18} {wall:17.1f} {cpu:16.1f}")
    if "ddz" in rates:
        wall, cpu = rlcard_rate(max(20, args.matches // 10))
        print(f"rlcard doudizhu (random agents) {wall:.1f} matches/s wall, {cpu:.1f} CPU")
        print(
            f"ratio paiju ddz / rlcard doudizhu = {rates['ddz'][0] / wall:.1f}x wall, {rates['ddz'][1] / cpu:.1f}x CPU"
        )
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
