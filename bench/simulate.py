"""Simulation speed: matches/s on one core for every game; Dou Dizhu against rlcard in the same run.

Run: `.venv/bin/python bench/simulate.py [--matches N]`. Absolute times on shared machines are
noise; the ratio to rlcard's Dou Dizhu environment (random agents, the same process, the same
minute) is the figure to compare across runs. Goals (issue 7): Dou Dizhu ≥ 500 matches/s/core,
mahjong games ≥ 200.
"""

from __future__ import annotations

import argparse
import time

from engine.registry import available_games
from engine.sim.simulate import simulate_match


def paiju_rate(game_id: str, matches: int) -> float:
    t0 = time.perf_counter()
    for i in range(matches):
        simulate_match(game_id, None, seed=1, index=i, chain=False)
    return matches / (time.perf_counter() - t0)


def rlcard_rate(matches: int) -> float:
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("doudizhu", config={"seed": 1})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    t0 = time.perf_counter()
    for _ in range(matches):
        env.run(is_training=False)
    return matches / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=300)
    args = ap.parse_args()
    print(f"{'game':18} {'matches/s/core':>15}")
    rates = {}
    for g in available_games():
        rates[g] = paiju_rate(g, args.matches)
        print(f"{g:18} {rates[g]:15.1f}")
    if "ddz" in rates:
        base = rlcard_rate(max(20, args.matches // 10))
        print(f"rlcard doudizhu (random agents) {base:.1f} matches/s")
        print(f"ratio paiju ddz / rlcard doudizhu = {rates['ddz'] / base:.1f}x")


if __name__ == "__main__":
    main()
