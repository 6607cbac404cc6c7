"""A small REAL lake for the dashboard tests: bots play a few matches, ingest stores them.

Besides the clean simulated matches it holds three edited copies, so every audit view has
something to show: `bad-turn-1` (an event moved to the wrong seat: invalid), `mismatch-1` (the
server's `settled` deltas altered) and `edited-1` (a field edited after the hash chain was written).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from engine.registry import get_game
from engine.sim.simulate import simulate_match
from events.codec import event_to_json

PREFERRED = ("paodekuai", "ddz", "ddz_laizi", "sichuan_xuezhan", "hongzhong", "zhajinhua", "anshun", "sichuan_xueliu")
PER_GAME = 3


def games() -> list[str]:
    """The preferred games whose engine loads in this build."""
    out = []
    for g in PREFERRED:
        try:
            get_game(g)
        except Exception:  # an engine that does not load in this build is left out
            continue
        out.append(g)
    return out


def _renamed(events: list[dict[str, Any]], match_id: str) -> list[dict[str, Any]]:
    return [{**e, "match_id": match_id} for e in events]


def build(root: Path) -> dict[str, Any]:
    """Write logs under root/logs, ingest them into root/lake; return what was written."""
    from ingest.pipeline import ingest

    logs = root / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    written: dict[str, list[dict[str, Any]]] = {}
    played: list[str] = []
    for g in games():
        try:  # a game whose engine is broken in this build is left out of the test lake
            matches = [simulate_match(g, {}, 5, i) for i in range(PER_GAME)]
        except Exception:
            continue
        played.append(g)
        with open(logs / f"{g}.jsonl", "w", encoding="utf-8") as f:
            for evs in matches:
                lines = [event_to_json(e) for e in evs]
                written[evs[0].match_id] = [json.loads(x) for x in lines]
                f.write("\n".join(lines) + "\n")
    if not written:
        raise RuntimeError("no game could be simulated in this build")
    first = next(iter(written.values()))
    plain = [{k: v for k, v in e.items() if k != "hash"} for e in first]
    # an event at seq 3 given to the next seat: the engine refuses it
    bad = _renamed(plain, "bad-turn-1")
    n = len(bad[0]["players"])
    k = next(i for i, e in enumerate(bad) if i >= 2 and "seat" in e)
    bad[k] = {**bad[k], "seat": (bad[k]["seat"] + 1) % n}
    # the server charged something else
    mism = _renamed(plain, "mismatch-1")
    d = list(mism[-1]["deltas"])
    d[0] += 5
    d[1] -= 5
    mism[-1] = {**mism[-1], "deltas": d}
    # edited after the chain was written: keep the hashes, change a timestamp
    from events.chain import fill_chain
    from events.codec import parse_event

    chained = [e.to_dict() for e in fill_chain([parse_event(e) for e in _renamed(plain, "edited-1")])]
    chained[2] = {**chained[2], "ts": "2026-11-02T00:00:00Z"}
    extra = {"bad-turn-1": bad, "mismatch-1": mism, "edited-1": chained}
    with open(logs / "edited.jsonl", "w", encoding="utf-8") as f:
        for evs in extra.values():
            for e in evs:
                f.write(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n")
    written.update(extra)
    with open(logs / "refused.jsonl", "w", encoding="utf-8") as f:
        # a line that is no JSON, and a different event at a stored seq (a conflict): both quarantined
        f.write("{not json\n")
        f.write(json.dumps({**mism[2], "ts": "2026-11-03T00:00:00Z"}, separators=(",", ":")) + "\n")
    lake = root / "lake"
    ingest(sorted(str(p) for p in logs.glob("*.jsonl")), lake, workers=0)
    return {"lake": str(lake), "matches": written, "games": played, "bad_seq": k}


def expected_hand(events: list[dict[str, Any]], seat: int, step: int, landlord: int | None) -> Counter[str]:
    """A climbing game's hand after seq `step`, computed from the log alone (dealt − played)."""
    dealt = events[1]
    hand = Counter(dealt["hands"][seat])
    if landlord == seat and dealt.get("bottom"):
        hand.update(dealt["bottom"])
    for e in events[2 : step + 1]:
        if e["type"] == "play" and e["seat"] == seat:
            hand.subtract(e["cards"])
    return +hand
