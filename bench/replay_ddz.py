"""Replay speed, `ddz`: Paiju's legality-checked replay against rlcard stepping the same games.

N random games are played once with rlcard's own legal moves (engine/climbing/rlcard_xcheck.py) and
converted to Paiju logs (events parsed once, outside the timing). Then, in the same process:
- Paiju: `engine.replay.replay` of every log (hash chain, seq checks, every move classified and
  compared, settlement);
- rlcard: `DoudizhuGame` re-initialised with the same seed and stepped through the same moves
  (its legal-move generation runs at every step, as it does in rlcard).
Prints games/s for both and the ratio (goal ≥ 25×). Run: `.venv/bin/python bench/replay_ddz.py [N]`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.climbing.rlcard_xcheck import paiju_log, rlcard_game, rlcard_restep
from engine.replay import replay
from events.codec import parse_event


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    games = []
    for seed in range(n):
        deal, moves, winner = rlcard_game(seed)
        events = [parse_event(e) for e in paiju_log(f"bench-{seed}", deal, moves)]
        games.append((seed, moves, winner, events))
    replay(games[0][3])  # warm caches
    t0 = time.perf_counter()
    for _, _, winner, events in games:
        r = replay(events)
        if r.status != "finished" or r.winners != ([0] if winner == 0 else [1, 2]):
            raise SystemExit(f"mismatch on {r.match_id}: {r.status} {r.error}")
    paiju = n / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    for seed, moves, winner, _ in games:
        if rlcard_restep(seed, moves) != winner:
            raise SystemExit(f"rlcard re-step of seed {seed} changed the winner")
    rl = n / (time.perf_counter() - t0)
    print(f"games: {n}, mean events per game: {sum(len(g[3]) for g in games) / n:.1f}")
    print(f"paiju ddz replay (legality-checked): {paiju:,.0f} games/s")
    print(f"rlcard doudizhu stepping the same games: {rl:,.0f} games/s")
    print(f"ratio paiju / rlcard = {paiju / rl:.1f}x (goal >= 25x)")


if __name__ == "__main__":
    main()
