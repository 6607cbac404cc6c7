"""Room check benchmark: is the ingest's room check incremental? (issue 17, ingest/rooms.py)

    .venv/bin/python bench/rooms.py [--matches 4000] [--per-room 8] [--workers 2]

Simulates Pao De Kuai matches (`paiju simulate`, seeded), strips their hashes and puts them in
rooms of `--per-room` rounds (`room`, `round`, increasing `ts`). A lake gets every room but the
last, less one round of a middle room; a second ingest brings the last room and that late round.
Printed, all in this one process, with the load average beside them:
- the first ingest: wall time, its room step, matches replayed for it;
- the second (small) ingest: wall time, its room step, matches replayed for it;
- a check of the whole lake (`room_check` with no `touched`: what the step would cost if it were
  not incremental), and the ratio of the small ingest's step to it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=4000)
    ap.add_argument("--per-room", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    import duckdb

    from ingest.pipeline import ingest
    from ingest.rooms import room_check
    from ingest.store import read_manifest, view_sql

    tmp = Path(tempfile.mkdtemp(prefix="paiju-bench-rooms-"))
    sim = tmp / "sim.jsonl"
    subprocess.run([sys.executable, str(ROOT / "paiju.py"), "simulate", "--game", "paodekuai", "--matches", str(a.matches),
                    "--seed", "1", "--out", str(sim), "--quiet"], check=True, cwd=ROOT)  # fmt: skip
    by_match: dict[str, list[dict]] = {}
    for line in sim.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        d.pop("hash", None)
        by_match.setdefault(d["match_id"], []).append(d)
    mids = list(by_match)
    for k, mid in enumerate(mids):
        by_match[mid][0] |= {"room": f"room{k // a.per_room:05d}", "round": k % a.per_room + 1,
                             "ts": f"2026-11-30T{k // 3600 % 24:02d}:{k // 60 % 60:02d}:{k % 60:02d}Z"}  # fmt: skip
    n_rooms = (len(mids) + a.per_room - 1) // a.per_room
    last = set(mids[(n_rooms - 1) * a.per_room :])
    late = mids[(n_rooms // 2) * a.per_room + 2]  # round 3 of a middle room
    base = tmp / "base.jsonl"
    batch = tmp / "batch.jsonl"
    with open(base, "w", encoding="utf-8") as fb, open(batch, "w", encoding="utf-8") as fs:
        for mid in mids:
            f = fs if mid in last or mid == late else fb
            for d in by_match[mid]:
                f.write(json.dumps(d, ensure_ascii=False) + "\n")
    lake = tmp / "lake"
    t = time.perf_counter()
    s1 = ingest([str(base)], lake, workers=a.workers)
    t1 = time.perf_counter() - t
    print(f"load {os.getloadavg()[0]:.2f}: first ingest {s1.matches} matches in {n_rooms - 1} rooms: {t1:.3f} s, "
          f"room step {s1.seconds['rooms']:.3f} s, {s1.room_replayed} replayed for it, {len(s1.room_findings)} findings")
    t = time.perf_counter()
    s2 = ingest([str(batch)], lake, workers=a.workers)
    t2 = time.perf_counter() - t
    print(f"load {os.getloadavg()[0]:.2f}: second ingest {s2.matches} matches: {t2:.3f} s, "
          f"room step {s2.seconds['rooms']:.3f} s, {s2.room_replayed} replayed for it, {len(s2.room_findings)} findings")
    m = read_manifest(lake)
    con = duckdb.connect(":memory:")
    for tname in ("matches", "events"):
        con.execute(f"CREATE VIEW {tname} AS {view_sql(lake.resolve(), m, tname)}")
    t = time.perf_counter()
    full = room_check(con, "SELECT * FROM matches", "SELECT match_id, seq, line FROM events")
    tf = time.perf_counter() - t
    print(f"load {os.getloadavg()[0]:.2f}: check of the whole lake: {tf:.3f} s, {full.replayed} replayed, "
          f"{len(full.findings)} findings")
    print(f"second ingest's room step / whole-lake check = {s2.seconds['rooms'] / tf:.4f}")


if __name__ == "__main__":
    main()
