"""Choose component weights of `paiju integrity` on world seeds disjoint from the reported ones
(issue 18): play the `chance` worlds of bench/integrity.py (the same seeds, pairs and sizes), keep
their match facts, and print the true pair's rank among the tested pairs under each weight variant.

Run: `nice -n 10 .venv/bin/python bench/integrity_weights.py --game sichuan_xuezhan --seeds 1000-1011
--players 40 --matches 3000 --variants serves=0,serves_excess=0 serves=2 ...` (a variant: the
`WEIGHTS` entries it overrides).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.integrity import KINDS, RIG, SEEK, _seed  # noqa: F401
from engine.sim.simulate import World, simulate_match
from engine.workers import process_pool
from ingest import integrity_tables as it


def facts_of(job: tuple[str, int, int, int, str]) -> tuple[int, tuple[str, str], list[Any]]:
    """The match facts of one world of bench/integrity.py (`kind`: chance or elevated)."""
    game, k, pool, matches, kind = job
    pick = random.Random(_seed("pick", game, k)).sample(range(pool), 3)
    a, b, rigged = (f"p{x:02d}" for x in pick)
    w = World(pool=pool, colluders=((a, b),), rig=(rigged, RIG[game]), seek=SEEK if kind == "elevated" else 0.0)
    seed = _seed("world", game, k, kind)
    out = []
    for i in range(matches):
        evs = [e.canonical_dict() for e in simulate_match(game, None, seed, i, chain=False, world=w)]
        f = it.match_facts(evs[0]["match_id"], evs, evs[-1]["deltas"])
        if f is not None:
            out.append(f)
    return k, (min(a, b), max(a, b)), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="sichuan_xuezhan")
    ap.add_argument("--seeds", default="1000-1011")
    ap.add_argument("--players", type=int, default=40)
    ap.add_argument("--matches", type=int, default=3000)
    ap.add_argument("--kind", default="chance")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--variants", nargs="+", default=["serves=0,serves_excess=0"])
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.seeds.split("-"))
    jobs = [(args.game, k, args.players, args.matches, args.kind) for k in range(lo, hi + 1)]
    t0 = time.perf_counter()
    with process_pool(args.workers) as pool:
        worlds = list(pool.map(facts_of, jobs))
    print(f"{args.game} {args.kind} worlds, seeds {args.seeds}, {args.players} players × {args.matches} matches: "
          f"played in {time.perf_counter() - t0:.0f} s")  # fmt: skip
    base = dict(it.WEIGHTS)
    for v in args.variants:
        over = {kv.split("=")[0]: float(kv.split("=")[1]) for kv in v.split(",") if kv}
        it.WEIGHTS.clear()
        it.WEIGHTS.update({**base, **over})
        ranks = []
        for _k, pair, facts in worlds:
            rows = it.pair_signals(facts, game=args.game)
            r = [n + 1 for n, p in enumerate(rows) if tuple(p["players"]) == pair]
            ranks.append(r[0] if r else None)
        print(f"  {v}: ranks {ranks}; first {sum(r == 1 for r in ranks)}/{len(ranks)}, "
              f"top 3 {sum(r is not None and r <= 3 for r in ranks)}")
    it.WEIGHTS.clear()
    it.WEIGHTS.update(base)


if __name__ == "__main__":
    main()
