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

`--whole-process [--root DIR]` times whole processes instead (issue 22): `paiju replay LOG --json`
(of the checkout DIR, default this one) on a file of the N games, against a Python process that
imports rlcard and steps its `DoudizhuGame` through the same games; wall time, best of 3
interleaved rounds, ratio printed beside the load average. Run it with N = 3000.
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


_RLCARD_CHILD = """
import json, sys
sys.path.insert(0, {root!r})
from engine.climbing.rlcard_xcheck import rlcard_restep
games = json.load(open({path!r}))
for seed, moves, winner in games:
    if rlcard_restep(seed, moves) != winner:
        raise SystemExit("rlcard re-step changed the winner of seed %d" % seed)
"""


def whole_process(n: int, root: Path) -> None:
    """`paiju replay --json` of N games as one process vs one rlcard process stepping them."""
    import json
    import os
    import resource
    import subprocess
    import tempfile

    here = Path(__file__).resolve().parent.parent
    tmp = Path(tempfile.mkdtemp(prefix="replay-ddz-"))
    log, moves_file = tmp / f"ddz-{n}.jsonl", tmp / "moves.json"
    rows = []
    with open(log, "w", encoding="utf-8") as f:
        for seed in range(n):
            deal, moves, winner = rlcard_game(seed)
            for e in paiju_log(f"bench-{seed}", deal, moves):
                f.write(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n")
            rows.append((seed, moves, winner))
    moves_file.write_text(json.dumps(rows))
    n_events = log.read_bytes().count(b"\n")
    env = {**os.environ, "PYTHONPATH": str(root)}
    paiju_cmd = [sys.executable, str(root / "paiju.py"), "replay", str(log), "--json"]
    rl_cmd = [sys.executable, "-c", _RLCARD_CHILD.format(root=str(here), path=str(moves_file))]
    out = subprocess.run(paiju_cmd, env=env, capture_output=True, text=True, cwd=root)
    results = [json.loads(x) for x in out.stdout.splitlines()]
    if len(results) != n or any(r["status"] != "finished" for r in results):
        raise SystemExit(f"paiju replay did not finish every game: {out.stderr[:300]}")
    best = {"paiju": float("inf"), "rlcard": float("inf")}
    wall = dict(best)
    for _ in range(ROUNDS):
        for k, cmd, e in (("paiju", paiju_cmd, env), ("rlcard", rl_cmd, None)):
            r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            subprocess.run(cmd, env=e, stdout=subprocess.DEVNULL, check=True, cwd=root)
            r1, t1 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            best[k] = min(best[k], (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime))
            wall[k] = min(wall[k], t1 - t0)
    print(f"games: {n} ({n_events} events), whole processes (start-up and imports included), best of "
          f"{ROUNDS} interleaved rounds; code: {root}")  # fmt: skip
    print("CPU time of each process (user + sys; robust to a shared machine), and wall time:")
    print(f"  paiju replay --json      {best['paiju']:7.2f} s CPU  {wall['paiju']:7.2f} s wall")
    print(f"  rlcard DoudizhuGame.step {best['rlcard']:7.2f} s CPU  {wall['rlcard']:7.2f} s wall")
    print(f"ratio paiju / rlcard: {best['rlcard'] / best['paiju']:.2f}x CPU, {wall['rlcard'] / wall['paiju']:.2f}x wall (goal >= 25x)")
    print(f"machine load average: {Path('/proc/loadavg').read_text().split()[0]} (2 cores shared)")


def main() -> None:
    args = sys.argv[1:]
    if "--whole-process" in args:
        args.remove("--whole-process")
        root = Path(__file__).resolve().parent.parent
        if "--root" in args:
            i = args.index("--root")
            root = Path(args[i + 1]).resolve()
            del args[i : i + 2]
        whole_process(int(args[0]) if args else 3000, root)
        return
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
