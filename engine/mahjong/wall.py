"""The wall and the melds of the mahjong games (the `Wall and melds` part of engine/mahjong/core.py's
API, which re-exports both: import them from either).

They live in a module of their own because core.py may be compiled (mypyc, setup.py): classes of a
compiled module become native classes, and `Wall.draw` builds its copy slot by slot through the
member descriptors of a plain slotted dataclass; this module always stays plain Python.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Wall:
    """Undrawn tiles in draw order; `head` = next head index, `tail` = one past the last undrawn."""

    tiles: tuple[int, ...]
    head: int
    tail: int
    remaining: int = field(init=False, repr=False, compare=False)
    """tail − head (R), kept as a slot: read on most events, a property would be a call each time."""

    def __post_init__(self) -> None:
        _wall_remaining(self, self.tail - self.head)

    @staticmethod
    def of(kinds: Iterable[int]) -> Wall:
        t = tuple(kinds)
        return Wall(t, 0, len(t))

    def peek_head(self) -> int:
        return self.tiles[self.head]

    def peek_tail(self) -> int:
        return self.tiles[self.tail - 1]

    def peek(self, from_tail: bool = False) -> int:
        return self.tiles[self.tail - 1] if from_tail else self.tiles[self.head]

    def draw(self, from_tail: bool = False) -> tuple[int, Wall]:
        """(kind drawn, wall after). The caller checks `remaining > 0`. The new wall is built
        slot by slot (a frozen dataclass's `__init__` costs three generic attribute writes)."""
        w = _new_wall(Wall)
        _wall_tiles(w, self.tiles)
        _wall_remaining(w, self.remaining - 1)
        if from_tail:
            _wall_head(w, self.head)
            _wall_tail(w, self.tail - 1)
            return self.tiles[self.tail - 1], w
        _wall_head(w, self.head + 1)
        _wall_tail(w, self.tail)
        return self.tiles[self.head], w


_new_wall = object.__new__
_wall_tiles = Wall.tiles.__set__  # type: ignore[attr-defined]
_wall_head = Wall.head.__set__  # type: ignore[attr-defined]
_wall_tail = Wall.tail.__set__  # type: ignore[attr-defined]
_wall_remaining = Wall.remaining.__set__  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared set: `peng` (3 tiles) or a gang (4 tiles). `frm` = the feeding seat, or None."""

    kind: str
    tile: int
    frm: int | None = None

    @property
    def is_gang(self) -> bool:
        return self.kind != "peng"

    @property
    def size(self) -> int:
        return 3 if self.kind == "peng" else 4
