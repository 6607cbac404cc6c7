"""Hypothesis strategies for contract events (valid by construction)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from events.notation import ALL_CARDS, ALL_TILE_KINDS, CARD_RANKS, GAME_IDS

match_ids = st.from_regex(r"[A-Za-z0-9_.:\-]{1,24}", fullmatch=True)
seats = st.integers(0, 5)
cards = st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=8, unique=True)
tiles = st.sampled_from(ALL_TILE_KINDS)
names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)

FIELDS: dict[str, dict[str, Any]] = {
    "match_started": {
        "game": st.sampled_from(GAME_IDS),
        "rules": st.fixed_dictionaries({"preset": st.just("standard")}),
        "players": st.lists(names, min_size=2, max_size=6),
        "dealer": seats,
        "base": st.integers(1, 100),
    },
    "dealt": {"hands": st.lists(st.lists(st.sampled_from(ALL_CARDS), max_size=5), min_size=2, max_size=6)},
    "forfeit": {"seat": seats},
    "settled": {"deltas": st.lists(st.integers(-1000, 1000), min_size=2, max_size=6)},
    "bid": {"seat": seats, "value": st.integers(0, 3)},
    "rob": {"seat": seats, "value": st.booleans()},
    "laizi": {"rank": st.sampled_from(list(CARD_RANKS))},
    "play": {"seat": seats, "cards": cards},
    "pass": {"seat": seats},
    "look": {"seat": seats},
    "bet": {"seat": seats, "amount": st.integers(0, 100)},
    "compare": {"seat": seats, "target": seats},
    "open": {"seat": seats},
    "fold": {"seat": seats},
    "allin": {"seat": seats},
    "timeout": {"seat": seats},
    "exchange": {"seat": seats, "tiles": st.lists(tiles, min_size=3, max_size=3)},
    "exchange_direction": {"direction": st.sampled_from(["clockwise", "counterclockwise", "opposite"])},
    "dingque": {"seat": seats, "suit": st.sampled_from(["m", "p", "s"])},
    "draw": {"seat": seats, "tile": tiles},
    "discard": {"seat": seats, "tile": tiles},
    "peng": {"seat": seats, "tile": tiles},
    "gang": {"seat": seats, "tile": tiles, "kind": st.sampled_from(["zhi", "bu", "an"])},
    "hu": {"seat": seats, "tile": tiles},
    "ting": {"seat": seats},
}


@st.composite
def event_dicts(draw: st.DrawFn, types: list[str] | None = None) -> dict[str, Any]:
    """A valid event as a JSON object."""
    typ = draw(st.sampled_from(types or sorted(FIELDS)))
    d: dict[str, Any] = {"match_id": draw(match_ids), "seq": draw(st.integers(0, 10_000)), "type": typ}
    for k, strat in FIELDS[typ].items():
        d[k] = draw(strat)
    if draw(st.booleans()):
        d["ts"] = "2026-11-01T00:00:00Z"
    return d
