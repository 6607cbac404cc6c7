"""Mahjong tiles as small integers; the contract's strings (`1m`..`9s`, `7z`) only at the edges.

Kind index k = suit * 9 + number - 1 with suits `m` = 0, `p` = 1, `s` = 2 (so 0..26), and 27 = `7z`
(红中). A hand inside the engine is a *count vector*: a tuple of N_KINDS ints, counts[k] = copies held.

Stable API (used by every mahjong game):
- `N_KINDS`, `N_SUITED`, `RED` (= 27), `SUITS` (`"mps"`);
- `tile_id(s)` / `tile_name(k)`, `tile_ids(strings)` / `tile_names(kinds)`;
- `suit_of(k)` (0..2, 3 for 7z), `number_of(k)` (1..9, 0 for 7z), `suit_index(ch)`;
- `counts_of(kinds)`, `kinds_of(counts)` (sorted, with multiplicity), `add(counts, k, n)`;
- `full_set(n_suits=3, red=0)`: the sorted deck (4 copies of each suited kind, `red` 7z tiles);
- `parse_hand(text)`: tiles from person input (spaces or mpsz compact), ValueError on bad input.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from events.notation import ALL_TILE_KINDS, parse_tiles

N_SUITED = 27
RED = 27
N_KINDS = 28
SUITS = "mps"
TILE_NAME: tuple[str, ...] = ALL_TILE_KINDS  # index = kind
TILE_ID: dict[str, int] = {t: i for i, t in enumerate(ALL_TILE_KINDS)}


def tile_id(s: str) -> int:
    """Kind index of a tile string (`"5p"` → 13). KeyError for a non-tile."""
    return TILE_ID[s]


def tile_name(k: int) -> str:
    """Tile string of a kind index (13 → `"5p"`)."""
    return TILE_NAME[k]


def tile_ids(tiles: Iterable[str]) -> list[int]:
    return [TILE_ID[t] for t in tiles]


def tile_names(kinds: Iterable[int]) -> list[str]:
    return [TILE_NAME[k] for k in kinds]


def suit_of(k: int) -> int:
    """0 = m, 1 = p, 2 = s, 3 = the red dragon 7z."""
    return k // 9


def number_of(k: int) -> int:
    """1..9 for suited kinds, 0 for 7z."""
    return k % 9 + 1 if k < N_SUITED else 0


def suit_index(ch: str) -> int:
    """`"m"` → 0, `"p"` → 1, `"s"` → 2; ValueError otherwise."""
    i = SUITS.find(ch)
    if i < 0 or len(ch) != 1:
        raise ValueError(f"{ch!r} is not a suit (m, p or s)")
    return i


def counts_of(kinds: Iterable[int]) -> tuple[int, ...]:
    """Count vector (length N_KINDS) of kind indices."""
    c = [0] * N_KINDS
    for k in kinds:
        c[k] += 1
    return tuple(c)


def kinds_of(counts: Sequence[int]) -> list[int]:
    """Sorted kind list with multiplicity from a count vector."""
    out: list[int] = []
    for k, n in enumerate(counts):
        if n:
            out.extend([k] * n)
    return out


def add(counts: tuple[int, ...], k: int, n: int = 1) -> tuple[int, ...]:
    """A copy of `counts` with n copies of kind k added (n may be negative)."""
    c = list(counts)
    c[k] += n
    return tuple(c)


def full_set(n_suits: int = 3, red: int = 0) -> list[int]:
    """The sorted deck as kind indices: 4 copies of each suited kind, then `red` copies of 7z."""
    return [k for k in range(9 * n_suits) for _ in range(4)] + [RED] * red


def parse_hand(text: str) -> list[int]:
    """Kind indices from person input (`"1m 2m"`, `"123m456p"`); ValueError naming the bad token."""
    return tile_ids(parse_tiles(text))
