"""The Sichuan reducer's small hot helpers on plain values (tuples, ints, dicts), compiled with mypyc
(engine/compiled.py) together with the mahjong bots; engine/mahjong/sichuan.py calls them and keeps
everything that touches its pydantic rules and its frozen `State` (issue 22).

Each function is the pure computation its docstring names; the pure Python source is the reference
and the fallback (PAIJU_PURE=1), tests/test_sim_speed_sichuan7.py compares both paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

EventKey = tuple[Any, Any, Any, Any, Any, Any, Any, Any]


def event_key(d: dict[str, Any]) -> EventKey:
    """The reducer's memo key of an event (SC-R0: the fields a Sichuan event may carry) from its
    `__dict__`: `tuple(map(d.get, ("seq", "type", "seat", "tile", "kind", "tiles", "direction",
    "suit")))`."""
    return (
        d.get("seq"),
        d.get("type"),
        d.get("seat"),
        d.get("tile"),
        d.get("kind"),
        d.get("tiles"),
        d.get("direction"),
        d.get("suit"),
    )


def set_at(t: Sequence[Any], i: int, v: Any) -> tuple[Any, ...]:
    """`(*t[:i], v, *t[i + 1:])`: one seat's entry of a per-seat tuple replaced (SC-R4..R22 copies)."""
    c = list(t)
    c[i] = v
    return tuple(c)


def add_at(c: Sequence[int], k: int, n: int = 1) -> tuple[int, ...]:
    """`(*c[:k], c[k] + n, *c[k + 1:])`: a count vector with n more (or fewer) of kind k (SC-C1)."""
    x = list(c)
    x[k] += n
    return tuple(x)


def has_void(counts: Sequence[int], void: int) -> bool:
    """SC-R6 / SC-H1: does the hand hold a tile of its void suit (`void` −1: none declared)?"""
    if void < 0:
        return False
    b = 9 * void
    for k in range(b, b + 9):
        if counts[k]:
            return True
    return False
