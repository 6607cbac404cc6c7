"""Cards and tiles as small inline HTML glyphs (no images, no network), suits coloured.

Every glyph carries its contract string in `data-card` / `data-tile` and `title`, so a test (or a
support agent copying from the page) reads exactly what the log says. Strings come from the
engine's `view()` and the log, are checked against the notation before they are drawn, and
anything else is escaped, so no log content can inject markup into the page.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from events.notation import CARD_SET, TILE_SET

SUIT_GLYPH: dict[str, tuple[str, str]] = {
    "s": ("♠", "#1a1a1a"),
    "h": ("♥", "#c8102e"),
    "c": ("♣", "#1a1a1a"),
    "d": ("♦", "#c8102e"),
}
RANK_LABEL = {"T": "10"}
JOKER: dict[str, tuple[str, str]] = {"BJ": ("小王 small joker", "#1a1a1a"), "RJ": ("大王 big joker", "#c8102e")}
TILE_SUIT: dict[str, tuple[str, str, str, str]] = {
    # suit letter → (Chinese name for the tooltip, ink colour, face tint, suit mark)
    "m": ("万", "#b3261e", "#fdf1ee", "m"),  # characters: red
    "p": ("筒", "#1f4e9c", "#eef3fd", "●"),  # dots: blue
    "s": ("条", "#1e7b34", "#eefaf0", "‖"),  # bamboo: green
}
HONG_ZHONG_SVG = (
    '<svg width="18" height="22" viewBox="0 0 18 22" aria-label="红中">'
    '<rect x="2" y="6" width="14" height="9" fill="none" stroke="#c8102e" stroke-width="2.4"/>'
    '<line x1="9" y1="1" x2="9" y2="21" stroke="#c8102e" stroke-width="2.6"/></svg>'
)
"""红中 drawn as strokes (a box crossed by a vertical), so it needs no CJK font."""

CSS = """
<style>
.pj-row{display:flex;flex-wrap:wrap;gap:3px;align-items:center;margin:2px 0}
.pj-card{display:inline-flex;flex-direction:column;align-items:center;justify-content:center;
 min-width:30px;height:42px;padding:0 3px;border:1px solid #888;border-radius:5px;background:#fff;
 font:600 15px/1.05 system-ui,sans-serif;box-shadow:0 1px 1px rgba(0,0,0,.15)}
.pj-card small{font-size:14px}
.pj-tile{display:inline-flex;flex-direction:column;align-items:center;justify-content:center;
 width:28px;height:38px;border:1px solid #9a8f6a;border-radius:4px;background:#fbf7e8;
 font:600 14px/1.0 system-ui,sans-serif;box-shadow:0 1px 0 #c9bc8a}
.pj-tile small{font-size:11px}
.pj-laizi{outline:2px solid #e0a800}
.pj-back{background:#3b5b8c;color:#fff}
.pj-empty{color:#999;font-style:italic}
.pj-seat{border-left:4px solid transparent;padding:4px 8px;margin:4px 0;border-radius:4px}
.pj-turn{border-left-color:#e0a800;background:rgba(224,168,0,.08)}
.pj-tag{display:inline-block;font:600 11px system-ui;padding:1px 6px;border-radius:8px;margin-left:4px;
 background:#eee;color:#333}
.pj-meld{display:inline-flex;gap:1px;margin-right:8px;padding:2px;border:1px dashed #bbb;border-radius:4px}
.pj-err{background:#fde8e8;border:1px solid #c8102e;border-radius:4px;padding:6px 10px}
</style>
"""


def card_html(card: str, *, laizi: str | None = None) -> str:
    """One card glyph: rank over suit, red for hearts/diamonds and the red joker."""
    if card in JOKER:
        label, colour = JOKER[card]
        title, inner = f"{card} {label}", "JK<small>★</small>"
    elif card in CARD_SET:
        sym, colour = SUIT_GLYPH[card[1]]
        title, inner = card, f"{RANK_LABEL.get(card[0], card[0])}<small>{sym}</small>"
    else:
        return f'<span class="pj-card pj-back" title="{html.escape(card)}">?</span>'
    cls = "pj-card pj-laizi" if laizi and card[0] == laizi else "pj-card"
    return f'<span class="{cls}" data-card="{card}" title="{title}" style="color:{colour}">{inner}</span>'


def tile_html(tile: str) -> str:
    """One tile glyph: the number over the suit mark, ink and face tinted by suit; 7z is a red 中.

    Only Latin digits and DejaVu symbols are used (the Chinese name is in the tooltip), so the
    tiles read the same on a machine without CJK fonts.
    """
    if tile == "7z":
        return f'<span class="pj-tile" data-tile="{tile}" title="7z 红中">{HONG_ZHONG_SVG}</span>'
    if tile in TILE_SET:
        n, suit = tile[0], tile[1]
        name, ink, tint, mark = TILE_SUIT[suit]
        return (
            f'<span class="pj-tile" data-tile="{tile}" title="{tile} {n}{name}" '
            f'style="color:{ink};background:{tint}">{n}<small>{mark}</small></span>'
        )
    return f'<span class="pj-tile pj-back" title="{html.escape(tile)}">?</span>'


def glyph(x: str, *, tiles: bool = False, laizi: str | None = None) -> str:
    """A tile (mahjong games: `tiles=True`, since `3s` is both a card and a tile) or a card."""
    if tiles or (x in TILE_SET and x not in CARD_SET):
        return tile_html(x)
    return card_html(x, laizi=laizi)


def row_html(
    items: Iterable[str], *, tiles: bool = False, laizi: str | None = None, empty: str = "—", attrs: str = ""
) -> str:
    """A wrapped row of glyphs (`attrs` adds e.g. `data-seat="0"` to the row)."""
    parts = [glyph(str(x), tiles=tiles, laizi=laizi) for x in items]
    if not parts:
        return f'<div class="pj-row" {attrs}><span class="pj-empty">{html.escape(empty)}</span></div>'
    return f'<div class="pj-row" {attrs}>{"".join(parts)}</div>'


def melds_html(melds: Sequence[Mapping[str, Any]] | None) -> str:
    """Mahjong melds `[{kind, tiles}]` as dashed groups labelled with their kind."""
    if not melds:
        return ""
    out = []
    for m in melds:
        kind = html.escape(str(m.get("kind", "")))
        faces = "".join(tile_html(str(t)) for t in m.get("tiles", []))
        out.append(f'<span class="pj-meld" title="{kind}">{faces}</span>')
    return f'<div class="pj-row">{"".join(out)}</div>'


def move_text(payload: Mapping[str, Any]) -> str:
    """A legal action or an event in words: `seat 1 play 3s 3h`, `seat 0 hu 5p`."""
    parts = []
    if "seat" in payload:
        parts.append(f"seat {payload['seat']}")
    parts.append(str(payload.get("type", "?")))
    for k, v in payload.items():
        if k in ("type", "seat", "match_id", "seq", "ts", "hash"):
            continue
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            parts.append(" ".join(v) if k in ("cards", "tiles") else f"{k}={' '.join(v)}")
        else:
            parts.append(f"{k}={v}")
    return " ".join(parts)


def text_of(value: Any) -> str:
    """Escaped text for any view value that is not a card list."""
    return html.escape(str(value))


CONSOLE_CSS = """
<style>
.pj-phase{margin:2px 0 6px}
.pj-lab{font-size:12px;color:#555;margin-right:4px}
.pj-gap{display:inline-block;width:14px}
.pj-groups{display:flex;flex-wrap:wrap;gap:4px 18px;align-items:center}
.pj-group{display:flex;align-items:center;gap:4px}
.pj-line{margin:3px 0;display:flex;flex-wrap:wrap;align-items:center;gap:4px}
.pj-centre{background:#f6f6f6}
.pj-meld small{display:block;font-size:10px;color:#555;text-align:center}
.pj-meld{flex-direction:column}
</style>
"""
