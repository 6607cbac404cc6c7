"""Detection power of `paiju integrity`, measured on seeded simulated worlds (issue 18).

Run: `nice -n 10 .venv/bin/python bench/integrity.py [--worlds 20] [--seed-base 0] [--families zhajinhua,ddz]
[--workers 2]`. Statistics are chosen on world seeds 1000 and up (`--seed-base 1000`); the figures
reported in docs/integrity.md are of seeds 0–19.

Per game family and per world seed, three worlds of the same size: `chance` (one colluding pair
seated as chance seats them, one rigged player), `elevated` (the same, the colluders bringing each
other to the table: `seek` = 0.5) and `clean` (no colluders, no rig). Worlds are played by
`engine.sim.simulate.simulate_match` with a `World` (the code behind `paiju simulate --players
--colluders --rig-deals --seek`) and analysed in memory by the code the ingest runs on a lake
(`ingest.integrity_tables`: `match_facts` on each match's event dicts, `pair_signals`,
`deal_rows`, `deal_fairness`); the one difference from the lake is where a match's deltas come
from: the engine's `settled` event here, the replay's `matches.deltas` in the lake (the same
numbers: the simulator writes the engine's settlement). Prints per family: how often the true pair
ranks first, its median rank, precision and recall of `flagged`, the false-flag rates of clean
worlds (any pair, any player), the rigged player's flagged rate and the shift of its mean deal
strength in fair SDs. Load average and times beside the figures (a shared machine).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/ingest.py is not the package

from engine.sim.simulate import World, simulate_match
from engine.workers import process_pool
from ingest.integrity_tables import FDR, deal_fairness, deal_rows, match_facts, pair_signals

SIZES: dict[str, tuple[int, int]] = {
    "zhajinhua": (40, 3000), "ddz": (40, 3000), "anshun": (10, 350), "sichuan_xuezhan": (10, 350),
}  # fmt: skip
"""Per game: (players in the pool, matches per world). Zha Jin Hua and Dou Dizhu at the issue's size
(40 players, 3,000 matches: 375 / 225 deals per player, 38.5 / 11.5 shared matches per pair at
chance seating); the mahjong games smaller (a Sichuan match costs 4 times a card match to play;
`--players`/`--scale` give other sizes)."""
RIG: dict[str, float] = {"zhajinhua": 0.36, "anshun": 0.36, "sichuan_xuezhan": 0.36, "ddz": 0.3}
"""Fraction of the rigged player's deals re-drawn: about 0.3 fair SD on its mean strength (the
bench prints the shift it measured)."""
SEEK = 0.15
KINDS = ("chance", "elevated", "clean")


def _seed(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:4], "big")


def world(job: tuple[str, int, str, int, int]) -> dict[str, Any]:
    """Simulate and analyse one world; the figures of that world."""
    game, k, kind, pool, matches = job
    t0, c0 = time.perf_counter(), time.process_time()
    pick = random.Random(_seed("pick", game, k)).sample(range(pool), 3)
    a, b, rigged = (f"p{x:02d}" for x in pick)
    pair = tuple(sorted((a, b)))
    w = World(pool=pool, colluders=((a, b),) if kind != "clean" else (), rig=(rigged, RIG[game]) if kind != "clean" else None,
              seek=SEEK if kind == "elevated" else 0.0)  # fmt: skip
    seed = _seed("world", game, k, kind)
    facts = []
    for i in range(matches):
        evs = [e.canonical_dict() for e in simulate_match(game, None, seed, i, chain=False, world=w)]
        f = match_facts(evs[0]["match_id"], evs, evs[-1]["deltas"])
        if f is not None:
            facts.append(f)
    t_sim = time.perf_counter() - t0
    rows = pair_signals(facts)
    ranks = [r for r, p in enumerate(rows) if tuple(p["players"]) == pair]
    flagged = [tuple(p["players"]) for p in rows if p["flagged"]]
    deals = deal_fairness(deal_rows(facts))
    rig_row = next((d for d in deals if d["player"] == rigged), None)
    return {
        "game": game, "world": k, "kind": kind, "pairs": len(rows), "rank": ranks[0] + 1 if ranks else None,
        "together": rows[ranks[0]]["matches_together"] if ranks else 0,
        "tp": int(pair in flagged) if kind != "clean" else 0, "fp": sum(1 for p in flagged if p != pair or kind == "clean"),
        "players_flagged": [d["player"] for d in deals if d["flagged"]],
        "rig_flagged": bool(rig_row and rig_row["flagged"]) if kind != "clean" else None,
        "rig_shift": rig_row["strength_z"] / rig_row["matches"] ** 0.5 if rig_row and kind != "clean" else None,
        "rigged": rigged, "seconds": time.perf_counter() - t0, "sim_seconds": t_sim, "cpu": time.process_time() - c0,
    }  # fmt: skip


def summarise(results: list[dict[str, Any]], game: str) -> list[str]:
    out = []
    for kind in ("chance", "elevated"):
        rs = [r for r in results if r["game"] == game and r["kind"] == kind]
        if not rs:
            continue
        ranks = [r["rank"] if r["rank"] is not None else r["pairs"] + 1 for r in rs]
        tp, fp = sum(r["tp"] for r in rs), sum(r["fp"] for r in rs)
        precision = f"{tp / (tp + fp):.3f}" if tp + fp else "n/a (nothing flagged)"
        rig = [r["rig_flagged"] for r in rs]
        shifts = [r["rig_shift"] for r in rs if r["rig_shift"] is not None]
        out.append(
            f"  {kind:8s} worlds {len(rs)}: true pair first {sum(x == 1 for x in ranks)}/{len(rs)} "
            f"({sum(x == 1 for x in ranks) / len(rs):.1%}), median rank {statistics.median(ranks)}, "
            f"median matches together {statistics.median(r['together'] for r in rs)}; flagged: precision {precision}, "
            f"recall {tp}/{len(rs)} ({tp / len(rs):.1%}); rigged player flagged {sum(rig)}/{len(rs)} ({sum(rig) / len(rs):.1%}), "
            f"mean shift {statistics.mean(shifts):.3f} SD"
        )
    clean = [r for r in results if r["game"] == game and r["kind"] == "clean"]
    if clean:
        fp_pairs = sum(1 for r in clean if r["fp"])
        fp_players = sum(1 for r in clean if r["players_flagged"])
        out.append(
            f"  clean    worlds {len(clean)}: a pair flagged in {fp_pairs}/{len(clean)} ({fp_pairs / len(clean):.1%}), "
            f"a player flagged in {fp_players}/{len(clean)} ({fp_players / len(clean):.1%}) "
            f"(pairs tested per world: median {statistics.median(r['pairs'] for r in clean)})"
        )
    return out


def step_bench(game: str, pool: int, matches: int, batch: int, repeats: int) -> None:
    """The ingest's integrity step on a lake of `matches` matches of a `pool`-player room plus a
    batch of `batch`: incremental (the stored facts of the lake reused) against a from-scratch
    build of the same lake (the stored state removed first), alternated in this process."""
    import shutil
    import tempfile

    from engine.sim.simulate import simulate_lines
    from ingest.integrity_tables import TABLE_DIR, publish_tables, table_paths
    from ingest.pipeline import ingest
    from ingest.store import read_manifest

    with tempfile.TemporaryDirectory(prefix="integrity-step-") as tmp:
        root = Path(tmp)
        w = World(pool=pool, colluders=(("p01", "p02"),))
        (root / "base.jsonl").write_text("".join(simulate_lines(game, None, matches, 1, world=w)), encoding="utf-8")
        (root / "batch.jsonl").write_text("".join(simulate_lines(game, None, batch, 2, world=w)), encoding="utf-8")
        ingest([str(root / "base.jsonl")], root / "lake", workers=0)
        shutil.copytree(root / "lake", root / "before")
        print(f"integrity step, {game}: {pool} players, {matches} matches in the lake, a batch of {batch}; "
              f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
        inc, full = [], []
        for _ in range(repeats):
            shutil.rmtree(root / "lake")
            shutil.copytree(root / "before", root / "lake")
            s = ingest([str(root / "batch.jsonl")], root / "lake", workers=0)
            inc.append(s.seconds["integrity"])
            a = {n: p.read_bytes() for n, p in (table_paths(root / "lake") or {}).items()}
            shutil.rmtree(root / "lake" / TABLE_DIR)
            t0 = time.perf_counter()
            counts = publish_tables(root / "lake", read_manifest(root / "lake"))
            full.append(time.perf_counter() - t0)
            b = {n: p.read_bytes() for n, p in (table_paths(root / "lake") or {}).items()}
            assert a == b and counts["matches"] == matches + batch, "incremental != from scratch"
        print(f"  incremental (the batch): median {statistics.median(inc):.3f} s  {[round(x, 3) for x in inc]}")
        print(f"  from scratch (the lake): median {statistics.median(full):.3f} s  {[round(x, 3) for x in full]}")
        print(f"  ratio incremental / from scratch: {statistics.median(inc) / statistics.median(full):.3f}; tables byte-identical; "
              f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worlds", type=int, default=20, help="world seeds per family and kind (default 20)")
    ap.add_argument("--seed-base", type=int, default=0, help="first world seed (default 0; 1000+ to choose statistics)")
    ap.add_argument("--families", default=",".join(SIZES), help="games, one per family (default %(default)s)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every world's matches (default 1)")
    ap.add_argument("--players", type=int, help="players in every world's pool (default: per game, SIZES)")
    ap.add_argument("--step", metavar="GAME:POOL:MATCHES:BATCH", help="time the ingest's integrity step instead "
                    "(incremental against from scratch), e.g. zhajinhua:200:3000:30")  # fmt: skip
    args = ap.parse_args()
    if args.step:
        g, pool, n, batch = args.step.split(":")
        step_bench(g, int(pool), int(n), int(batch), 3)
        return
    games = [g for g in args.families.split(",") if g]
    pools = {g: args.players or SIZES[g][0] for g in games}
    jobs = [(g, k, kind, pools[g], max(50, int(SIZES[g][1] * args.scale)))
            for g in games for k in range(args.seed_base, args.seed_base + args.worlds) for kind in KINDS]  # fmt: skip
    print(f"integrity bench: {args.worlds} worlds (seeds {args.seed_base}–{args.seed_base + args.worlds - 1}) × "
          f"{len(KINDS)} kinds per family, FDR {FDR}, rig fractions {RIG}, seek {SEEK}; "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    for g in games:
        print(f"  {g}: {pools[g]} players, {max(50, int(SIZES[g][1] * args.scale))} matches per world")
    t0 = time.perf_counter()
    results = []
    with process_pool(args.workers) as pool:
        for r in pool.map(world, jobs):
            results.append(r)
            print(f"    {r['game']} world {r['world']} {r['kind']}: rank {r['rank']}, flagged tp {r['tp']} fp {r['fp']}, "
                  f"players flagged {r['players_flagged']} (rigged {r['rigged']}, shift {r['rig_shift']}), "
                  f"together {r['together']}, pairs {r['pairs']}, {r['cpu']:.1f} s CPU", flush=True)
    wall = time.perf_counter() - t0
    for g in games:
        rs = [r for r in results if r["game"] == g]
        print(f"{g}: simulate+analyse {sum(r['cpu'] for r in rs):.0f} s CPU "
              f"(simulation {sum(r['sim_seconds'] for r in rs):.0f} s of {sum(r['seconds'] for r in rs):.0f} s wall in the workers)")  # fmt: skip
        for line in summarise(results, g):
            print(line)
    print(f"total {wall:.0f} s wall, {args.workers} workers; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
