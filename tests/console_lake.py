"""The dashboard test lake (tests/dashboard_lake.py) plus what the support agent's tests need:
the three dispute samples of tests/data/disputes, two crafted server errors on the overcharged
Sichuan match (a settlement line left out, every amount doubled), a match whose player's name is
markup, and enough Dou Dizhu matches of one player (`zoe`) to need more than one page of results.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests import dashboard_lake

DISPUTES = Path(__file__).resolve().parent / "data" / "disputes"
OVERCHARGED = DISPUTES / "sichuan_server_overcharged.jsonl"
RULES_DELTAS = [-21, -21, -21, 63]
"""The rules' deltas of `dispute-overcharged` (its verdict: seat 0 charged -48, rules -21; seat 3 +90, rules +63)."""
LEFT_OUT = [-21 + 17, -21, -21, 63 - 17]
"""The rules' deltas without settlement line #7 (hu_zimo, 17 points to seat 3 from seat 0)."""
DOUBLED = [2 * d for d in RULES_DELTAS]
BULK = 60
MARKUP_NAME = "<i>eve</i>"


def _log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _variant(events: list[dict[str, Any]], match_id: str, deltas: list[int]) -> list[dict[str, Any]]:
    out = [{**e, "match_id": match_id} for e in events]
    out[-1] = {**out[-1], "deltas": deltas}
    return out


def build(root: Path) -> dict[str, Any]:
    from engine.sim.simulate import simulate_match
    from events.codec import event_to_json
    from ingest.pipeline import ingest

    info = dashboard_lake.build(root)
    extra = root / "extra"
    extra.mkdir(exist_ok=True)
    over = _log(OVERCHARGED)
    crafted = _variant(over, "dispute-left-out", LEFT_OUT) + _variant(over, "dispute-doubled", DOUBLED)
    renamed = [{**e, "match_id": "dispute-markup"} for e in _log(DISPUTES / "ddz_pass_while_leading.jsonl")]
    renamed[0] = {**renamed[0], "players": [MARKUP_NAME, "bo", "cy"]}
    with open(extra / "crafted.jsonl", "w", encoding="utf-8") as f:
        for e in crafted + renamed:
            f.write(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n")
    with open(extra / "bulk.jsonl", "w", encoding="utf-8") as f:
        for i in range(BULK):
            evs = simulate_match("ddz", {}, 77, i)
            for e in evs:
                d = json.loads(event_to_json(e))
                d["match_id"] = f"bulk-ddz-{i:03d}"
                if d["type"] == "match_started":
                    d["players"] = ["zoe", *d["players"][1:]]
                d.pop("hash", None)
                f.write(json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n")
    paths = sorted(str(p) for p in DISPUTES.glob("*.jsonl")) + sorted(str(p) for p in extra.glob("*.jsonl"))
    ingest(paths, info["lake"], workers=0)
    return info
