"""Simulation speed: matches/s on one core for every game; Dou Dizhu against rlcard in the same run.

Run: `.venv/bin/python bench/simulate.py [--matches N] [--games a,b] [--chain]`. Each game prints
matches/s by wall time and by this process's CPU time (`time.process_time`, far less sensitive to
other load on a shared machine; on an idle core the two agree). `--chain` also fills the hash
chain as `paiju simulate` does (the default measures the bots and engines: events without hashes).
Absolute times on shared machines are noise; the ratio to rlcard's Dou Dizhu environment (random
agents, the same process, the same minute) is the figure to compare across runs. Goals (issue 7):
Dou Dizhu ≥ 500 matches/s/core, mahjong games ≥ 200.
"""

from __future__ import annotations

import argparse
import time

from engine.registry import available_games
from engine.sim.simulate import simulate_match


def paiju_rate(game_id: str, matches: int, *, chain: bool = False) -> tuple[float, float]:
    """(matches/s by wall time, matches/s by this process's CPU time)."""
    simulate_match(game_id, None, seed=1, index=matches, chain=chain)  # imports and lazy tables
    t0, c0 = time.perf_counter(), time.process_time()
    for i in range(matches):
        simulate_match(game_id, None, seed=1, index=i, chain=chain)
    return matches / (time.perf_counter() - t0), matches / max(time.process_time() - c0, 1e-9)


def rlcard_rate(matches: int) -> tuple[float, float]:
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("doudizhu", config={"seed": 1})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(matches):
        env.run(is_training=False)
    return matches / (time.perf_counter() - t0), matches / max(time.process_time() - c0, 1e-9)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=300)
    ap.add_argument("--games", default="", help="comma-separated game ids (default: every game)")
    ap.add_argument("--chain", action="store_true", help="also fill the hash chain, as `paiju simulate` does")
    args = ap.parse_args()
    games = [g for g in args.games.split(",") if g] or available_games()
    print(f"{'game':18} {'matches/s (wall)':>17} {'matches/s (CPU)':>16}")
    rates = {}
    for g in games:
        wall, cpu = paiju_rate(g, args.matches, chain=args.chain)
        rates[g] = (wall, cpu)
        print(f"{g:18} {wall:17.1f} {cpu:16.1f}")
    if "ddz" in rates:
        wall, cpu = rlcard_rate(max(20, args.matches // 10))
        print(f"rlcard doudizhu (random agents) {wall:.1f} matches/s wall, {cpu:.1f} CPU")
        print(f"ratio paiju ddz / rlcard doudizhu = {rates['ddz'][0] / wall:.1f}x wall, {rates['ddz'][1] / cpu:.1f}x CPU")


if __name__ == "__main__":
    main()
