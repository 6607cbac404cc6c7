"""Replay speed, `ddz`: Paiju's legality-checked replay against rlcard stepping the same games.

N random games are played once with rlcard's own legal moves (engine/climbing/rlcard_xcheck.py) and
converted to Paiju logs (events parsed once, outside the timing). Then, in the same process:
- Paiju replay: `engine.replay.replay` of every log (the full driver: seq checks, hash chain,
  every move classified and compared, settlement, result object);
- Paiju engine fold: `DDZ.parse_rules`, `start`, `apply` on every event, `settle` (the same
  legality checks, without the driver's envelope work);
- rlcard game: `DoudizhuGame` re-initialised with the same seed and stepped through the same moves
  (its legal-move generation runs at every step);
- rlcard env: `rlcard.make("doudizhu")` stepped with the same moves (`env.step`, as rlcard is used,
  state encoding included).
Paiju's memo caches are emptied before each timed run; the best of 3 interleaved rounds is kept. Prints games/s for each and the ratios
(goal ≥ 25×). Run: `.venv/bin/python bench/replay_ddz.py [N]`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.climbing.ddz import DDZ
from engine.climbing.rlcard_xcheck import (
    paiju_log,
    rlcard_env,
    rlcard_env_restep,
    rlcard_game,
    rlcard_restep,
)
from engine.replay import replay
from events.codec import parse_event

ROUNDS = 3


def _cold() -> None:
    """Empty Paiju's memo caches so that no timed run profits from an earlier one."""
    from engine.climbing import ddz, moves

    moves.classify.cache_clear()
    ddz._play_info.cache_clear()
    ddz._counts.cache_clear()


def _rate(n: int, fn: Callable[[], None]) -> float:
    _cold()
    t0 = time.perf_counter()
    fn()
    return n / (time.perf_counter() - t0)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    games = []
    for seed in range(n):
        deal, moves, winner = rlcard_game(seed)
        events = [parse_event(e) for e in paiju_log(f"bench-{seed}", deal, moves)]
        games.append((seed, moves, [0] if winner == 0 else [1, 2], events))
    replay(games[0][3])  # warm imports

    def paiju_replay() -> None:
        for _, _, winners, events in games:
            r = replay(events)
            if r.status != "finished" or r.winners != winners:
                raise SystemExit(f"mismatch on {r.match_id}: {r.status} {r.error}")

    def paiju_fold() -> None:
        for _, _, winners, events in games:
            rules = DDZ.parse_rules(events[0].rules)
            st = DDZ.start(events[0], events[1], rules)
            for e in events[2:]:
                st = DDZ.apply(st, e)
            if list(DDZ.settle(st).winners) != winners:
                raise SystemExit("fold mismatch")

    def rl_game() -> None:
        for seed, moves, winners, _ in games:
            if (rlcard_restep(seed, moves) == 0) != (winners == [0]):
                raise SystemExit(f"rlcard re-step of seed {seed} changed the winner")

    env = rlcard_env()

    def rl_env() -> None:
        for seed, moves, winners, _ in games:
            if (rlcard_env_restep(env, seed, moves) == 0) != (winners == [0]):
                raise SystemExit(f"rlcard env re-step of seed {seed} changed the winner")

    runs = {
        "paiju replay (full driver)": paiju_replay,
        "paiju engine fold": paiju_fold,
        "rlcard DoudizhuGame.step": rl_game,
        "rlcard env.step": rl_env,
    }
    rates = dict.fromkeys(runs, 0.0)
    for _ in range(ROUNDS):  # interleaved rounds, best of each: robust to a busy machine
        for k, fn in runs.items():
            rates[k] = max(rates[k], _rate(n, fn))
    print(f"games: {n}, best of {ROUNDS} rounds, mean events per game: {sum(len(g[3]) for g in games) / n:.1f}")
    for k, v in rates.items():
        print(f"{k:32} {v:10,.0f} games/s")
    for p in ("paiju replay (full driver)", "paiju engine fold"):
        for r in ("rlcard DoudizhuGame.step", "rlcard env.step"):
            print(f"ratio {p} / {r}: {rates[p] / rates[r]:.1f}x")
    print("goal: >= 25x")


if __name__ == "__main__":
    main()
