"""String notation of seats, cards and tiles (docs/notation.md), shared by events and engine.

Only the strings live here; the engine has the integer encodings.
"""

from __future__ import annotations

import re

CARD_RANKS = "3456789TJQKA2"
"""Dou Dizhu rank order, low to high; the two jokers come after `2`."""
SUITS = "shcd"
JOKERS = ("BJ", "RJ")
ALL_CARDS: tuple[str, ...] = tuple(r + s for r in CARD_RANKS for s in SUITS) + JOKERS
CARD_SET: frozenset[str] = frozenset(ALL_CARDS)

TILE_SUITS = "mps"
ALL_TILE_KINDS: tuple[str, ...] = tuple(f"{n}{s}" for s in TILE_SUITS for n in range(1, 10)) + ("7z",)
TILE_SET: frozenset[str] = frozenset(ALL_TILE_KINDS)

GAME_IDS: tuple[str, ...] = (
    "ddz",
    "ddz_laizi",
    "paodekuai",
    "zhajinhua",
    "sichuan_xuezhan",
    "sichuan_xueliu",
    "hongzhong",
    "anshun",
)
CARD_GAMES = frozenset({"ddz", "ddz_laizi", "paodekuai", "zhajinhua"})
MAHJONG_GAMES = frozenset({"sichuan_xuezhan", "sichuan_xueliu", "hongzhong", "anshun"})

MATCH_ID_RE = re.compile(r"^[A-Za-z0-9_.:\-]{1,128}$")

_COMPACT_TILES_RE = re.compile(r"(\d+)([mpsz])")


def parse_tiles(text: str) -> list[str]:
    """Tiles from a person's input: `"1m 2m 3m"`, `"123m456p11z"` → list of single-tile strings.

    Raises ValueError naming the bad token.
    """
    out: list[str] = []
    for token in text.replace(",", " ").split():
        if token in TILE_SET:
            out.append(token)
            continue
        pos = 0
        for m in _COMPACT_TILES_RE.finditer(token):
            if m.start() != pos:
                break
            for digit in m.group(1):
                tile = digit + m.group(2)
                if tile not in TILE_SET:
                    raise ValueError(f"{tile!r} is not a tile (tiles are 1m..9m, 1p..9p, 1s..9s, 7z)")
                out.append(tile)
            pos = m.end()
        if pos != len(token):
            raise ValueError(f"cannot read tiles from {token!r} (use e.g. '123m456p11z' or '1m 2m 3m')")
    return out


def parse_cards(text: str) -> list[str]:
    """Cards from a person's input: `"3s 3h 3d 4c"` (spaces or commas)."""
    out: list[str] = []
    for token in text.replace(",", " ").split():
        if token not in CARD_SET:
            raise ValueError(f"{token!r} is not a card (rank 3456789TJQKA2 then suit shcd, or BJ/RJ)")
        out.append(token)
    return out
