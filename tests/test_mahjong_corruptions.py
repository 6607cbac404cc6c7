"""Hongzhong and Anshun: any event replacing a logged one is refused with a contract code naming
the game's rule (or accepted), never a traceback."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine.replay import replay
from events.codec import parse_line

GOLDEN = Path(__file__).parent / "data" / "golden"
TILES = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + ["7z"]


@pytest.mark.parametrize(("game", "prefix"), [("hongzhong", "HZ-"), ("anshun", "AS-")])
def test_random_corruptions_never_crash(game: str, prefix: str) -> None:
    files = sorted(GOLDEN.glob(f"{game}_*.jsonl"))
    rng = random.Random(5)
    codes = set()
    for _ in range(400):
        ev = [json.loads(ln) for ln in rng.choice(files).read_text().splitlines()]
        i = rng.randrange(2, len(ev))
        t = rng.choice(["draw", "discard", "peng", "gang", "hu", "ting"])
        e: dict[str, Any] = {"match_id": ev[0]["match_id"], "seq": i, "type": t, "seat": rng.randrange(4)}
        if t != "ting":
            e["tile"] = rng.choice(TILES)
        if t == "gang":
            e["kind"] = rng.choice(["zhi", "bu", "an"])
        res = replay([parse_line(json.dumps(x)) for x in [*ev[:i], e]])
        if res.error:
            assert res.error["seq"] == i
            assert res.error["code"] == "after_end" or prefix in res.error["message"], res.error
            codes.add(res.error["code"])
    assert {"not_your_turn", "illegal_claim", "illegal_move", "not_in_hand"} <= codes
