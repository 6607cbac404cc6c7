"""Builds the golden logs of the hongzhong / anshun worked examples (run: python -m tests.mj_golden_builder).

A spec fixes what the example states (some hands, the drawn tiles, the bird / flip tiles at the
wall head after the last draw, the events); every other tile is filled from the rest of the deck
with a seeded shuffle, retrying seeds until the log replays to the example's deltas (so that the
filler never creates a forced win or an extra chicken). `?` in an event = a filler: a filler draw,
or the discard of a tile that came from the filler (the last one drawn first).
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from engine.registry import get_game
from engine.replay import replay
from engine.tiles import tile_id, tile_names
from events.codec import parse_line

GOLDEN = Path(__file__).parent / "data" / "golden"


def cycle(start: int, n: int, skip: dict[int, list[tuple[Any, ...]]] | None = None) -> list[tuple[Any, ...]]:
    """n rounds of (draw seat ?, discard seat ?) from seat `start`."""
    out = []
    for i in range(n):
        seat = (start + i) % 4
        out += [("draw", seat, "?"), ("discard", seat, "?")]
    return out


def build(spec: dict[str, Any], seed: int) -> list[dict[str, Any]] | None:
    game = get_game(spec["game"])
    rng = random.Random(seed)
    deck = Counter(game.deck())
    dealer = spec["dealer"]
    fixed = {int(k): [tile_id(t) for t in v] for k, v in spec.get("hands", {}).items()}
    events = spec["events"]
    drawn = [tile_id(e[2]) for e in events if e[0] == "draw" and e[2] != "?"]
    after = [tile_id(t) for t in spec.get("after", [])]
    pool = deck.copy()
    for t in [t for h in fixed.values() for t in h] + drawn + after:
        pool[t] -= 1
        if pool[t] < 0:
            raise ValueError(f"{spec['name']}: too many copies of {t}")
    avoid = {tile_id(t) for t in spec.get("avoid", [])}
    free = [t for t, n in pool.items() for _ in range(n) if t not in avoid]
    held_back = [t for t, n in pool.items() for _ in range(n) if t in avoid]
    rng.shuffle(free)
    hands: list[list[int]] = []
    for seat in range(4):
        want = 14 if seat == dealer else 13
        h = list(fixed.get(seat, []))
        while len(h) < want:
            h.append(free.pop())
        hands.append(h)
    avoid_draw = {int(k): {tile_id(t) for t in v} for k, v in spec.get("avoid_draw", {}).items()}
    head: list[int] = []
    for e in events:
        if e[0] != "draw":
            continue
        if e[2] != "?":
            head.append(tile_id(e[2]))
            continue
        bad = avoid_draw.get(e[1], set())
        i = next((i for i in range(len(free) - 1, -1, -1) if free[i] not in bad), None)
        if i is None:
            return None
        head.append(free.pop(i))
    rest = free + held_back  # avoided tiles stay at the far end of the wall
    wall = head + after + rest
    filler = [Counter(h) - Counter(fixed.get(s, [])) for s, h in enumerate(hands)]
    log: list[dict[str, Any]] = [
        {"type": "match_started", "game": spec["game"], "rules": spec.get("rules", {}), "players": ["a", "b", "c", "d"], "dealer": dealer, "base": spec.get("base", 1)},
        {"type": "dealt", "hands": [tile_names(sorted(h)) for h in hands], "wall": tile_names(wall)},
    ]
    last_filler: dict[int, int | None] = {s: None for s in range(4)}
    pos = 0
    for e in events:
        kind, seat = e[0], e[1]
        if kind == "draw":
            t = head[pos]
            pos += 1
            if e[2] == "?":
                filler[seat][t] += 1
                last_filler[seat] = t
            log.append({"type": "draw", "seat": seat, "tile": tile_names([t])[0]})
        elif kind == "discard" and e[2] == "?":
            t = last_filler[seat]
            if t is None or filler[seat][t] <= 0:
                cands = sorted(filler[seat].elements())
                if not cands:
                    return None
                t = rng.choice(cands)
            filler[seat][t] -= 1
            last_filler[seat] = None
            log.append({"type": "discard", "seat": seat, "tile": tile_names([t])[0]})
        else:
            ev: dict[str, Any] = {"type": kind, "seat": seat}
            if kind != "ting":
                ev["tile"] = e[2]
            if kind == "gang":
                ev["kind"] = e[3]
            log.append(ev)
    return log


def to_lines(name: str, log: list[dict[str, Any]], deltas: list[int] | None) -> list[str]:
    out = []
    full = [*log, {"type": "settled", "deltas": deltas}] if deltas is not None else log
    for seq, ev in enumerate(full):
        out.append(json.dumps({"match_id": name, "seq": seq, **ev}, ensure_ascii=False, separators=(",", ":")))
    return out


def make(spec: dict[str, Any], tries: int = 3000) -> list[str]:
    for seed in range(tries):
        log = build(spec, seed)
        if log is None:
            continue
        lines = to_lines(spec["name"], log, spec["deltas"])
        res = replay([parse_line(ln) for ln in lines])
        if res.status == "finished" and res.deltas == spec["deltas"]:
            return lines
    raise RuntimeError(f"{spec['name']}: no seed gives the example")


def main() -> None:
    from tests.mj_golden_specs import SPECS

    only = sys.argv[1:]
    for spec in SPECS:
        if only and spec["name"] not in only:
            continue
        lines = make(spec)
        path = GOLDEN / f"{spec['name']}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print("wrote", path)


if __name__ == "__main__":
    main()
