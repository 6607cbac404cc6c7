"""The Sichuan reducer's small hot helpers on plain values (tuples, ints, dicts), compiled with mypyc
(engine/compiled.py) together with the mahjong bots; engine/mahjong/sichuan.py calls them and keeps
everything that touches its pydantic rules and its frozen `State` (issue 22).

Each function is the pure computation its docstring names; the pure Python source is the reference
and the fallback (PAIJU_PURE=1), tests/test_sim_speed_sichuan7.py compares both paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.tiles import TILE_ID

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
    for k in range(b, b + 9):  # noqa: SIM110 (a compiled loop: no generator object)
        if counts[k]:
            return True
    return False


def next_active(xueliu: bool, wins: tuple[tuple[int, ...], ...], s: int) -> int:
    """SC-R20: the first seat after s (in turn order, s itself last) still in the hand (血流: the next)."""
    if xueliu:
        return (s + 1) % 4
    for i in range(1, 5):
        j = (s + i) % 4
        if not wins[j]:
            return j
    return s


def fast_apply(game: Any, st: Any, d: dict[str, Any], discard_copy: Any, draw_copy: Any) -> Any:
    """The two commonest events of a Sichuan hand on their plain path, or None (then the reducer's
    `_apply` decides, with every check and message): a `discard` by the seat to act (SC-R5/R6; not
    the SC-R15 last-four case, not a locked seat's other tile SC-R19, not the last discard SC-R22)
    and the `draw` that closes a claim window (SC-R7/R16/C4) where the memo of the claim answers
    (`SichuanGame._claims`, filled by the bot or the reducer for this very state) says nobody could
    have won the discard (no pass lock SC-R17 to write). The new state is the copy `_act` /
    `_draw_stage` make (`discard_copy` / `draw_copy`, sichuan.py's positional copiers)."""
    if st.phase != "play":
        return None
    t = d.get("type")
    seat = d.get("seat")
    seq = d.get("seq")
    name = d.get("tile")
    if seat.__class__ is not int or seq.__class__ is not int or name.__class__ is not str:
        return None
    tile = TILE_ID.get(name, 99)
    if tile >= 27:
        return None
    s: int = st.turn
    stage: str = st.stage
    rules = st.rules
    wall = st.wall
    remaining: int = wall.remaining
    if t == "discard":
        if stage != "act" or seat != s:
            return None
        if rules.last_four_auto_hu and remaining <= 3 and st.drawn >= 0 and not st.after_peng:
            return None  # SC-R15 may oblige a self-draw win: `_act` asks
        hand: tuple[int, ...] = st.hands[s]
        if hand[tile] == 0:
            return None
        v: int = st.void[s]
        if rules.que_discard_first and tile // 9 != v and has_void(hand, v):
            return None
        if st.xueliu and rules.xueliu_lock_after_hu and st.wins[s] and tile != st.drawn:
            return None
        if remaining == 0:
            return None  # the last discard: SC-R22 may end the hand
        return discard_copy(
            st,
            set_at(st.hands, s, add_at(hand, tile, -1)),  # hands
            set_at(st.discards, s, (*st.discards[s], tile)),  # discards
            "window",  # stage
            tile,  # offered
            (),  # hus
            -1,  # drawn
            False,  # after_peng
            False,  # first_turn
            False,  # repl
            st.last_gang if st.repl else None,  # gsp_gang
            st.first_turn and not st.any_claim,  # dealer_first_discard
            seq,
        )
    if t != "draw" or stage != "window":
        return None
    if rules.last_four_auto_hu and remaining <= 3:
        return None  # SC-R15: compulsory wins first
    hus: tuple[int, ...] = st.hus
    if rules.guo_shou_hu and (rules.yi_pao_duo_xiang or not hus):
        memo: tuple[Any, list[Any]] = game._claims
        if memo[0] is not st:
            return None
        got = memo[1]
        for j in _ORDERS[s]:
            if got[j] is not None and j not in hus:
                return None  # a win passed (a pass lock) or an answer not asked yet
    if hus:
        drawer = next_active(st.xueliu, st.wins, hus[-1])
    elif remaining == 0:
        return None
    else:
        drawer = next_active(st.xueliu, st.wins, s)
    if seat != drawer or remaining < 1:
        return None
    tiles: tuple[int, ...] = wall.tiles
    if tile != tiles[wall.head]:
        return None
    w2 = wall.draw(False)[1]
    return draw_copy(
        st,
        w2,
        set_at(st.hands, drawer, add_at(st.hands[drawer], tile)),  # hands
        set_at(st.drew, drawer, True),  # drew
        "act",  # stage
        drawer,  # turn
        tile,  # drawn
        False,  # after_peng
        False,  # first_turn
        set_at(st.locks, drawer, -1),  # locks
        (),  # hus
        -1,  # offered
        None,  # gsp_gang
        False,  # dealer_first_discard
        None,  # last_gang
        False,  # repl
        not st.drew[drawer],  # first_draw
        seq,
    )


_ORDERS: tuple[tuple[int, ...], ...] = tuple(tuple((k + i) % 4 for i in range(1, 4)) for k in range(4))
"""The seats after seat k in turn order (SC-R7)."""
