"""The simulator's trusted builders of the mahjong events (draw, discard, peng, gang, hu; issue 22)
against the model's own validation (`tests/test_sim_speed_shared._by_model`: the model called with
the same data): on generated payloads, valid and broken, the event is the validator's (class, field
dict with value types, fields set, extra, private) or the same refusal; every such event the bots
and the wall emit in simulated matches of the four mahjong games is built without the validator and
equals the model's event.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from events.notation import ALL_TILE_KINDS
from tests.test_sim_speed_climbing3 import (
    bot_events_are_trusted_and_the_models,
    payloads_get_the_models_answer,
    shapes_are_built_without_the_validator,
)
from tests.test_sim_speed_shared import MATCH_ID

TILE_SHAPES: list[dict[str, Any]] = [
    {"type": "draw", "seat": 0, "tile": "1m"},
    {"type": "discard", "seat": 3, "tile": "9s"},
    {"type": "discard", "seat": 5, "tile": ALL_TILE_KINDS[-1]},
    {"type": "peng", "seat": 1, "tile": "5p"},
    {"type": "hu", "seat": 2, "tile": "7p"},
    {"type": "gang", "seat": 3, "tile": "2m", "kind": "zhi"},
    {"type": "gang", "seat": 0, "tile": "8s", "kind": "bu"},
    {"type": "gang", "seat": 2, "tile": "4p", "kind": "an"},
]
ODD: list[Any] = [True, 1.0, -1, 6, "1", None, [], "0m", "10m", "1M", " 1m", "1m ", "zhi ", "ming", b"1m", ("1m",), 1]


def _odd(rng: random.Random, n: int) -> list[dict[str, Any]]:
    """Tile shapes with a value, a key or the set of keys broken."""
    out = []
    for _ in range(n):
        p = dict(rng.choice(TILE_SHAPES))
        how = rng.random()
        if how < 0.7:
            p[rng.choice([k for k in p if k != "type"])] = rng.choice(ODD)
        elif how < 0.8:
            del p[rng.choice([k for k in p if k != "type"])]
        elif how < 0.9:
            p[rng.choice(["kind", "tiles", "from", "hash", "as"])] = rng.choice(ODD + ["zhi", "1m"])
        else:
            p["type"] = rng.choice(["draw", "discard", "peng", "hu", "gang"])  # another type's keys
        out.append(p)
    return out


def test_tile_shapes_are_built_without_the_validator(monkeypatch: pytest.MonkeyPatch) -> None:
    shapes_are_built_without_the_validator(TILE_SHAPES, monkeypatch)


@pytest.mark.parametrize("seed", [5, 44])
def test_generated_tile_payloads_get_the_models_answer(seed: int) -> None:
    rng = random.Random(seed)
    envelopes = ((MATCH_ID, 11), ("bad id", 11), (MATCH_ID, -1), (MATCH_ID, True))
    kinds = payloads_get_the_models_answer(_odd(rng, 3000) + TILE_SHAPES, envelopes)
    assert kinds["event"] > 200 and kinds["error"] > 8000


MAHJONG_RULES = [
    ("sichuan_xuezhan", None),
    ("sichuan_xueliu", {"preset": "chengdu"}),
    ("hongzhong", None),
    ("anshun", None),
]


@pytest.mark.parametrize(("game_id", "rules"), MAHJONG_RULES)
def test_every_tile_event_of_the_bots_is_trusted_and_the_models(
    game_id: str, rules: dict[str, Any] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = bot_events_are_trusted_and_the_models(game_id, rules, 4, monkeypatch, only_trusted=True)
    assert checked >= {"draw", "discard"}
