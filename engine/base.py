"""The game protocol (architecture.md "The engine, as a reducer") and shared helpers.

A game is an object with:
- `id`, `seats` (allowed player counts), `Rules` (a frozen pydantic model) and `presets`;
- `start(started, dealt, rules) -> state` (raises `Illegal("bad_deal", …)`);
- `apply(state, event) -> state`: pure, never mutates its input, raises `Illegal`;
- `is_finished(state)`, `settle(state) -> Settlement` (itemised), `legal_actions(state)`;
- `view(state) -> dict`: a JSON-able picture of the table for `--steps`, the dashboard and disputes.
Randomness never enters: the deal and every system draw are events in the log.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from engine.errors import Illegal
from events.models import AnyEvent, Dealt, MatchStarted


class GameRules(BaseModel):
    """Base of every game's house-rule model: named, documented, defaulted, frozen fields."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    preset: str = "standard"

    def options(self) -> dict[str, Any]:
        """Every option with its value (the preset included), in declaration order."""
        return self.model_dump()


R = TypeVar("R", bound=GameRules)


def parse_rules(model: type[R], presets: Mapping[str, Mapping[str, Any]], raw: Mapping[str, Any]) -> R:
    """Validate a `rules` object: defaults < the preset's values < explicit options (`bad_rules`)."""
    if not isinstance(raw, Mapping):
        raise Illegal("bad_rules", "rules must be an object {\"preset\": NAME, OPTION: VALUE, …}")
    preset = raw.get("preset", "standard")
    if not isinstance(preset, str) or preset not in presets:
        raise Illegal("bad_rules", f"unknown preset {preset!r}; presets: {', '.join(presets)}")
    merged: dict[str, Any] = {**presets[preset], **raw, "preset": preset}
    try:
        return model.model_validate(merged)
    except ValidationError as err:
        e = err.errors(include_url=False)[0]
        name = ".".join(str(x) for x in e["loc"])
        if e["type"] == "extra_forbidden":
            known = ", ".join(k for k in model.model_fields if k != "preset")
            raise Illegal("bad_rules", f"unknown option {name!r}; options: {known}") from None
        raise Illegal("bad_rules", f"option {name!r}: {e['msg']} (got {e.get('input')!r})") from None


def rules_doc(model: type[GameRules], presets: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The options with type, default, allowed values and help text, and the presets (`paiju rules`)."""
    schema = model.model_json_schema()
    props = schema.get("properties", {})
    options = []
    for name, f in model.model_fields.items():
        if name == "preset":
            continue
        p = props.get(name, {})
        allowed = p.get("enum")
        if allowed is None and "anyOf" in p:
            allowed = [a.get("const") for a in p["anyOf"] if "const" in a] or None
        options.append(
            {
                "option": name,
                "type": p.get("type", "enum" if allowed else "any"),
                "default": f.default,
                "allowed": allowed,
                "minimum": p.get("minimum"),
                "maximum": p.get("maximum"),
                "help": f.description or "",
            }
        )
    return {"options": options, "presets": {k: dict(v) for k, v in presets.items()}}


@dataclass(frozen=True, slots=True)
class Settlement:
    """Who pays whom. `items` are transfers: `seat` receives `points` from `from` (+ detail keys)."""

    deltas: tuple[int, ...]
    winners: tuple[int, ...]
    items: tuple[dict[str, Any], ...] = ()

    @staticmethod
    def from_items(n: int, items: Sequence[dict[str, Any]], winners: Sequence[int]) -> Settlement:
        """Deltas as the net of the transfer items (zero-sum by construction)."""
        deltas = [0] * n
        for it in items:
            deltas[it["seat"]] += it["points"]
            deltas[it["from"]] -= it["points"]
        return Settlement(tuple(deltas), tuple(sorted(winners)), tuple(items))


def item(kind: str, seat: int, frm: int, points: int, **detail: Any) -> dict[str, Any]:
    """One settlement line in the contract's key order: `{kind, seat, from, points, …}`."""
    return {"kind": kind, "seat": seat, "from": frm, "points": points, **detail}


class Game(Protocol):
    """What the replay driver, the simulator and the dashboard need from a game."""

    id: str
    seats: ClassVar[tuple[int, ...]] | tuple[int, ...]
    Rules: type[GameRules]
    presets: Mapping[str, Mapping[str, Any]]

    def parse_rules(self, raw: Mapping[str, Any]) -> GameRules: ...

    def start(self, started: MatchStarted, dealt: Dealt, rules: Any) -> Any: ...

    def apply(self, state: Any, event: AnyEvent) -> Any: ...

    def is_finished(self, state: Any) -> bool: ...

    def settle(self, state: Any) -> Settlement: ...

    def legal_actions(self, state: Any) -> list[dict[str, Any]]: ...

    def view(self, state: Any) -> dict[str, Any]: ...

    # --- for the simulator (engine/sim) and the calculator (`paiju hand`)
    sim_players: int
    """How many seats a simulated match has."""

    def deal(self, rules: Any, n_players: int, rng: random.Random) -> dict[str, Any]:
        """The `dealt` event's fields (hands, bottom/wall/stacks) from a seeded shuffle."""
        ...

    def hand(self, query: dict[str, Any]) -> dict[str, Any]:
        """`paiju hand`: the query has the batch fields of docs/cli.md; ValueError for bad input."""
        ...


@dataclass
class GameInfo:
    """Static description of a game for `paiju rules` and the lab."""

    id: str
    name: str
    rules_file: str
    extra: dict[str, Any] = field(default_factory=dict)
