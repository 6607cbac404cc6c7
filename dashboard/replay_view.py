"""The step-by-step replay of one match (the Replay page's logic, kept apart from widgets).

`load(lines)` parses the stored lines and folds the engine over them once
(`engine.replay.replay_with_steps`); `table_html(game, view, ...)` draws the table at one step.
Step k is the state after the event with seq k (identical re-sends are skipped by the driver, so
the step index and the seq agree); the step of a refused event shows the state before it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dashboard import render
from engine.replay import ReplayResult, Step, replay_with_steps
from events.codec import parse_line
from events.errors import ContractError

SEAT_KEYS = ("hands", "melds", "discards")
"""View keys holding one entry per seat, drawn in the seat rows."""
PER_SEAT_TAGS = (
    "void", "won", "plays", "cards_left", "categories", "call", "seen", "active", "out", "contributions",
    "pass_locks", "tian_ting", "ting", "dingque", "baodan",
)  # fmt: skip
"""View keys that, when they hold one value per seat, are drawn as tags on the seat rows."""
CENTRE_KEYS = ("trick", "last_play", "pot", "wall_left", "bombs", "multiplier", "laizi", "landlord", "bottom")


@dataclass(frozen=True)
class Loaded:
    match_id: str
    steps: tuple[Step, ...]
    result: ReplayResult
    players: tuple[str, ...]
    dealer: int | None

    @property
    def error_step(self) -> int | None:
        """Index of the step that carries the first error, if any."""
        for i, s in enumerate(self.steps):
            if s.error is not None:
                return i
        return None


def load(match_id: str, lines: Sequence[str]) -> Loaded:
    """Parse one match's stored lines (in seq order) and replay them."""
    entries: list[Any] = []
    for ln in lines:
        try:
            entries.append(parse_line(ln))
        except ContractError as e:
            e.match_id = e.match_id or match_id
            entries.append(e)
    steps, result = replay_with_steps(entries)
    return Loaded(match_id, tuple(steps), result, tuple(result.players or ()), result.dealer)


def safe_view(game: Any, state: Any) -> dict[str, Any] | None:
    if state is None:
        return None
    v = game.view(state)
    return dict(v) if isinstance(v, Mapping) else None


def safe_legal(game: Any, state: Any, finished: bool) -> list[dict[str, Any]]:
    if state is None or finished:
        return []
    return list(game.legal_actions(state))


def _per_seat(view: Mapping[str, Any], key: str, seat: int) -> Any:
    v = view.get(key)
    if isinstance(v, Sequence) and not isinstance(v, str) and seat < len(v):
        return v[seat]
    return None


def _cards_of(x: Any) -> list[str] | None:
    """A list of card/tile strings inside a view value (a list, or a dict with `cards`/`tiles`)."""
    if isinstance(x, list) and all(isinstance(c, str) for c in x):
        return x
    if isinstance(x, Mapping):
        for k in ("cards", "tiles"):
            if isinstance(x.get(k), list):
                return [str(c) for c in x[k]]
    return None


def _centre_value(key: str, value: Any, laizi: str | None, tiles: bool) -> str:
    cards = _cards_of(value)
    if cards is not None:
        who = f"seat {value['seat']} " if isinstance(value, Mapping) and "seat" in value else ""
        extra = ""
        if isinstance(value, Mapping):
            rest = {k: v for k, v in value.items() if k not in ("seat", "cards", "tiles")}
            extra = f" <small>{render.text_of(json.dumps(rest, ensure_ascii=False))}</small>" if rest else ""
        return f"<b>{key}</b> {who}{render.row_html(cards, tiles=tiles, laizi=laizi)}{extra}"
    if isinstance(value, list) and value and all(_cards_of(v) is not None for v in value):
        rows = "".join(_centre_value(f"{key}[{i}]", v, laizi, tiles) for i, v in enumerate(value))
        return rows
    return f"<b>{key}</b>: {render.text_of(json.dumps(value, ensure_ascii=False, default=str))}"


def table_html(view: Mapping[str, Any], players: Sequence[str], dealer: int | None, *, tiles: bool = False) -> str:
    """The table at one step: a row per seat (hand, melds, discards), then the centre.

    `tiles`: draw strings as mahjong tiles (a mahjong game), else as cards.
    """
    laizi = view.get("laizi") if isinstance(view.get("laizi"), str) else None
    turn = view.get("turn")
    landlord = view.get("landlord")
    hands = view.get("hands") or []
    n = max(len(players), len(hands))
    if isinstance(view.get("dealer"), int):
        dealer = view["dealer"]
    per_seat = [k for k in PER_SEAT_TAGS if isinstance(view.get(k), list) and len(view[k]) == n]
    out = [render.CSS]
    out.append(
        f'<div class="pj-phase">phase <b>{render.text_of(view.get("phase", "?"))}</b> · turn '
        f"<b>{'—' if turn is None else f'seat {render.text_of(turn)}'}</b></div>"
    )
    for seat in range(n):
        name = players[seat] if seat < len(players) else f"seat {seat}"
        tags = []
        if seat == dealer:
            tags.append("dealer")
        if landlord == seat:
            tags.append("landlord")
        for key in per_seat:
            v = view[key][seat]
            if v is True:
                tags.append(key)
            elif v and v != -1:
                tags.append(f"{key}: {' '.join(map(str, v)) if isinstance(v, list) else v}")
        cls = "pj-seat pj-turn" if turn == seat else "pj-seat"
        tag_html = "".join(f'<span class="pj-tag">{render.text_of(t)}</span>' for t in tags)
        hand = _per_seat(view, "hands", seat) or []
        parts = [f'<div class="{cls}" data-seat="{seat}"><b>seat {seat}</b> {render.text_of(name)}{tag_html}']
        parts.append(render.row_html(hand, tiles=tiles, laizi=laizi, empty="no cards", attrs=f'data-hand="{seat}"'))
        melds = _per_seat(view, "melds", seat)
        if melds:
            parts.append(render.melds_html(melds))
        discards = _per_seat(view, "discards", seat)
        if discards:
            parts.append(
                '<div style="font-size:11px;color:#666">discards</div>' + render.row_html(discards, tiles=tiles)
            )
        parts.append("</div>")
        out.append("".join(parts))
    centre = [
        _centre_value(k, view[k], laizi, tiles) for k in view if k in CENTRE_KEYS and view[k] not in (None, [], {})
    ]
    other = [
        f"<b>{render.text_of(k)}</b>: {render.text_of(json.dumps(v, ensure_ascii=False, default=str))}"
        for k, v in view.items()
        if k not in (*SEAT_KEYS, *CENTRE_KEYS, *per_seat, "phase", "turn", "dealer") and v not in (None, [], {})
    ]
    if centre or other:
        out.append('<div class="pj-seat" style="background:#f6f6f6">' + "<br>".join(centre + other) + "</div>")
    return "".join(out)


def items_frame(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Settlement items as table rows: kind, to, from, points, fans (id value, …), fan, detail."""
    rows = []
    for it in items:
        fans = it.get("fans")
        rest = {k: v for k, v in it.items() if k not in ("kind", "seat", "from", "points", "fans", "fan")}
        rows.append(
            {
                "kind": it.get("kind"),
                "to seat": it.get("seat"),
                "from seat": it.get("from"),
                "points": it.get("points"),
                "fans": ", ".join(f"{k} {v}" for k, v in fans.items()) if isinstance(fans, Mapping) else "",
                "fan": it.get("fan"),
                "detail": json.dumps(rest, ensure_ascii=False, default=str) if rest else "",
            }
        )
    return rows


def deltas_frame(result: ReplayResult, players: Sequence[str]) -> list[dict[str, Any]]:
    """Engine deltas beside the server's recorded ones, differences marked."""
    n = max(len(result.deltas or []), len(result.recorded_deltas or []), len(players))
    rows = []
    for s in range(n):
        eng = result.deltas[s] if result.deltas and s < len(result.deltas) else None
        rec = result.recorded_deltas[s] if result.recorded_deltas and s < len(result.recorded_deltas) else None
        diff = None if eng is None or rec is None else rec - eng
        rows.append(
            {
                "seat": s,
                "player": players[s] if s < len(players) else "",
                "engine": eng,
                "recorded (server)": rec,
                "recorded − engine": diff,
                "": "≠ MISMATCH" if diff not in (None, 0) else ("" if diff is None else "="),
            }
        )
    return rows
