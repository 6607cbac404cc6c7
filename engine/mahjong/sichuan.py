"""Sichuan mahjong: 血战到底 (`sichuan_xuezhan`, exported as `XUEZHAN`) and 血流成河
(`sichuan_xueliu`, `XUELIU`), presets `standard`, `chengdu`, `mianzhu` (rules: sichuan.md).

The reducer is a pure fold over frozen `State`s. Phases EXCHANGE (SC-R1/R2) → DINGQUE (SC-R3) → PLAY
(SC-R4..R22) → END. During PLAY the `stage` says what the log must hold next:
- `act`: seat `turn` holds 14 (melds as 3) and must hu / gang / discard (SC-R5);
- `window`: the claim window after `discard {turn, offered}` (SC-R7): hu(s), one peng or zhi gang,
  or the next draw; claims nobody logged were passed (pass lock SC-R17 is inferred at the close);
- `rob`: after `gang {turn, offered, bu}`: robs (SC-R13) or the kong seat's replacement draw;
- `draw`: the expected draw (after a confirmed kong: the replacement; after wins: SC-R20).
Settlement flows (SC-S2..S6) are itemised as they happen; the exhaustion checks SC-S7..S9 are
added when the hand ends by exhaustion (SC-R22). Fan totals follow SC-H8 over every interpretation
(engine/mahjong/core.py `decompose` + seven pairs) with the preset's table (fans_sichuan.py).

Choices where the rule file is silent (documented per the brief):
- Refusal codes: an action by a seat that is not the one to act or draw → `not_your_turn`; a hu /
  peng / zhi gang with no open window for it, or that SC-R7..R10/R13/R17 forbid → `illegal_claim`;
  a skipped compulsory last-four win (SC-R15) → `illegal_move` on the event logged instead;
  a hu by the seat to act that is not right after its draw (e.g. after its peng) → `illegal_move`.
- A second `exchange`/`dingque` by the same seat → `not_your_turn`.
- A self-draw `hu` whose `tile` is not the drawn tile → `illegal_move`.
- Tian/di hu (SC-H8): the flat total T replaces the hand's total only when T is strictly greater.
- Item `fan` is the win's total F = the sum of its `fans` (events.md §6, as `paiju hand` shows it);
  the cap (SC-H8) acts on the price: `multiplier` = M = 2^(min(F, cap) − z). Every item carries the `seq` of the
  event that caused it (a gang's own seq for its wind-and-rain money, the end event for the checks).
- A repeated pass lock keeps the larger P.
- With `last_four_auto_hu = false`, a discard at R = 0 that some seat could win ends the hand
  (SC-R22: "after the last drawer's discard and any `hu` on it"): the match is finished there (the
  checks SC-S7..S9 run, a `settled` may follow), and the `hu` events on that discard may still follow
  (`continues_after_end`); anything else is `after_end`.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import Field, field_validator

from engine.base import GameRules, Settlement, item, parse_rules
from engine.errors import Illegal
from engine.mahjong.core import (
    SEQ,
    Meld,
    Wall,
    decompose,
    is_seven_pairs,
    is_win,
    meld_counts,
    win_mask,
    win_tiles,
)
from engine.mahjong.fans_sichuan import FAN_TABLES, PRESET_OPTIONS, FanTable
from engine.mahjong.fastcopy import state_replacer
from engine.mahjong.fastshuffle import shuffle
from engine.mahjong.sichuan_core import add_at, event_key, fast_apply, has_void, set_at
from engine.tiles import (
    N_KINDS,
    N_SUITED,
    SUITS,
    TILE_ID,
    counts_of,
    full_set,
    kinds_of,
    parse_hand,
    suit_index,
    tile_id,
    tile_name,
    tile_names,
)
from events.models import AnyEvent, Dealt, MatchStarted

N = 4
WALL_SIZE = 55
DIRECTIONS = ("clockwise", "counterclockwise", "opposite")
DIRECTION_SHIFT = {"clockwise": 3, "counterclockwise": 1, "opposite": 2}  # SC-R2: to seat (i + shift) % 4


class SichuanRules(GameRules):
    """House rules of sichuan.md section 6 (defaults = preset `standard`)."""

    preset: Literal["standard", "chengdu", "mianzhu"] = Field(
        "standard", description="fan table SC-H5/H6/H7 and its defaults"
    )
    huan_san_zhang: bool = Field(True, description="换三张: the three-tile exchange SC-R1/R2")
    exchange_directions: list[Literal["clockwise", "counterclockwise", "opposite"]] = Field(
        ["clockwise", "counterclockwise", "opposite"], description="legal exchange_direction values (non-empty subset)"
    )
    que_discard_first: bool = Field(True, description="void-suit tiles must be discarded first (SC-R6)")
    fan_cap: Annotated[int, Field(ge=0)] = Field(0, description="封顶 in the preset's fan units, 0 = none (SC-H8)")
    zi_mo_bonus: Literal["jia_fan", "jia_di", "none"] = Field(
        "jia_fan", description="自摸加番 +1 fan, 自摸加底 +b per payer, or none"
    )
    jin_gou_diao: Literal["off", "any", "zimo_only"] = Field("any", description="金钩钓 +1 with 4 melds")
    hai_di: Literal["off", "zimo", "zimo_and_pao"] = Field("off", description="海底捞月 +1")
    tian_di_hu: bool = Field(True, description="enables 天胡 / 地胡 flat totals")
    di_hu_mode: Literal["first_draw", "first_draw_or_dealer_discard"] = Field(
        "first_draw", description="地胡 reading SC-H4"
    )
    dian_gang_hua: Literal["bao", "zimo", "dian_pao"] = Field("bao", description="点杠花 payment SC-S4")
    gang_shang_pao_transfer: bool = Field(True, description="呼叫转移 SC-S5")
    zhi_gang_units: Annotated[int, Field(ge=1)] = Field(1, description="直杠 units paid by the feeder (SC-S6)")
    bu_gang_units: Annotated[int, Field(ge=1)] = Field(1, description="补杠 units paid by each payer (SC-S6)")
    an_gang_units: Annotated[int, Field(ge=1)] = Field(2, description="暗杠 units paid by each payer (SC-S6)")
    rob_gang: bool = Field(True, description="抢杠胡 allowed (SC-R13)")
    yi_pao_duo_xiang: bool = Field(True, description="一炮多响: several winners on one tile; false = the nearest only")
    last_four_auto_hu: bool = Field(True, description="最后四张自动胡 SC-R15")
    guo_shou_hu: bool = Field(True, description="过手胡 pass lock SC-R17")
    xueliu_lock_after_hu: bool = Field(True, description="血流: hand locked after the first win (SC-R19)")
    replacement_from: Literal["head", "tail"] = Field(
        "head", description="end of the wall for kong replacement draws (SC-C4)"
    )
    huazhu_units: Annotated[int, Field(ge=1)] = Field(16, description="查花猪 units (SC-S7)")
    huazhu_pays_winners: bool = Field(False, description="花猪 also pays seats that already won (SC-S7)")
    dealer_rule: Literal["first_winner", "random"] = Field("first_winner", description="next dealer SC-R23")

    @field_validator("exchange_directions")
    @classmethod
    def _non_empty(cls, v: list[str]) -> list[str]:
        if not v:
            raise ValueError("exchange_directions must be a non-empty subset of clockwise, counterclockwise, opposite")
        if len(set(v)) != len(v):
            raise ValueError("exchange_directions lists a direction twice")
        return v


PRESETS: dict[str, dict[str, Any]] = {k: dict(v) for k, v in PRESET_OPTIONS.items()}


@dataclass(frozen=True, slots=True)
class Gang:
    """A kong for its money: the gang event's seq (id), the kong seat, kind, feeder (zhi) or None."""

    gid: int
    seat: int
    kind: str
    feeder: int | None
    tile: int


@dataclass(frozen=True, slots=True)
class State:
    xueliu: bool
    rules: SichuanRules
    base: int
    dealer: int
    hands: tuple[tuple[int, ...], ...]
    wall: Wall
    phase: str = "exchange"  # exchange, direction, dingque, play, end
    melds: tuple[tuple[Meld, ...], ...] = ((), (), (), ())
    discards: tuple[tuple[int, ...], ...] = ((), (), (), ())
    exchange: tuple[tuple[int, ...] | None, ...] = (None, None, None, None)
    void: tuple[int, ...] = (-1, -1, -1, -1)
    wins: tuple[tuple[int, ...], ...] = ((), (), (), ())  # winning tiles per seat (血流: set aside)
    stage: str = ""
    turn: int = 0
    drawn: int = -1
    after_peng: bool = False
    first_turn: bool = False
    repl: bool = False  # act: the seat drew a replacement; draw: the expected draw is a replacement
    last_gang: Gang | None = None
    gsp_gang: Gang | None = None  # window: the discard was the first after a replacement draw
    offered: int = -1
    hus: tuple[int, ...] = ()
    drew: tuple[bool, ...] = (False, False, False, False)
    any_claim: bool = False
    dealer_first_discard: bool = False
    first_draw: bool = False  # act: the seat's draw was its first of the hand (di_hu)
    locks: tuple[int, ...] = (-1, -1, -1, -1)
    flows: tuple[dict[str, Any], ...] = ()
    kong_pay: tuple[tuple[int, int, int, int], ...] = ()  # (gid, receiver, payer, amount)
    transferred: frozenset[int] = frozenset()
    first_win: int = -1  # next dealer by SC-R23 first_winner (−1: nobody won yet)
    seq: int = 1
    ended: bool = False


# ---------------------------------------------------------------- small helpers


replace = state_replacer(State)  # `dataclasses.replace`, fast for the ~35-field State
# the two commonest copies (a discard, a draw) with their new values by position
_discard_copy = replace.positional(  # type: ignore[attr-defined]
    "hands", "discards", "stage", "offered", "hus", "drawn", "after_peng", "first_turn", "repl", "gsp_gang",
    "dealer_first_discard", "seq",
)  # fmt: skip
_draw_copy = replace.positional(  # type: ignore[attr-defined]
    "wall", "hands", "drew", "stage", "turn", "drawn", "after_peng", "first_turn", "locks", "hus", "offered",
    "gsp_gang", "dealer_first_discard", "last_gang", "repl", "first_draw", "seq",
)  # fmt: skip


def _bad(code: str, msg: str) -> Illegal:
    return Illegal(code, msg)  # type: ignore[arg-type]


def _active(st: State, s: int) -> bool:
    return st.xueliu or not st.wins[s]


def _next_active(st: State, s: int) -> int:
    """The first seat after s (in turn order, s itself last) still in the hand (`_active`)."""
    if st.xueliu:
        return (s + 1) % N  # 血流: every seat stays in the hand
    wins = st.wins
    for i in range(1, N + 1):
        j = (s + i) % N
        if not wins[j]:
            return j
    return s


def _locked(st: State, s: int) -> bool:
    return st.xueliu and st.rules.xueliu_lock_after_hu and bool(st.wins[s])


def own_gang_waits(
    st: State, s: int, new_hand: tuple[int, ...], new_melds: tuple[Meld, ...]
) -> tuple[list[int], list[int]]:
    """SC-R19: the waits of the acting seat `s` before its own kong (its hand without the drawn
    tile) and after it (`new_hand`, `new_melds`); a locked seat's kong must keep them."""
    hand = st.hands[s]
    before = hand if st.drawn < 0 else _add(hand, st.drawn, -1)
    w0, _ = ting_value(st.rules, before, st.melds[s], st.void[s])
    w1, _ = ting_value(st.rules, new_hand, new_melds, st.void[s])
    return w0, w1


_set = set_at  # `(*t[:i], v, *t[i + 1:])` (engine/mahjong/sichuan_core.py, compiled)
_add = add_at  # `(*c[:k], c[k] + n, *c[k + 1:])`
_has_void = has_void  # SC-R6 / SC-H1: a tile of the void suit held


def _pass_locked(st: State, j: int, sc: Score) -> bool:
    """SC-R17: seat j passed a win of at least this fan since its last draw (off at R ≤ 3, SC-R15)."""
    return not _forced(st) and st.rules.guo_shou_hu and st.locks[j] >= 0 and sc.fan <= st.locks[j]


def _hand_str(c: Sequence[int]) -> str:
    return "".join(tile_names(kinds_of(c)))


def _table(rules: SichuanRules) -> FanTable:
    return FAN_TABLES[rules.preset]


def _forced(st: State) -> bool:
    """SC-R15 applies: the 4th-from-last tile has been drawn (R ≤ 3)."""
    return st.rules.last_four_auto_hu and st.wall.remaining <= 3


def _huazhu_units(units: int, fan_cap: int, z: int) -> int:
    """SC-S7: min(`huazhu_units`, C), C = 2^(fan_cap − z) with a cap, else no limit. The options have no
    upper bound (section 6: ≥ 1, ≥ 0), so 2^(fan_cap − z) is only built when it can be the smaller."""
    if fan_cap <= 0:
        return units
    e = max(0, fan_cap - z)
    return units if e >= units.bit_length() else min(units, 1 << e)


def _last_window(st: State) -> bool:
    """SC-R22 without SC-R15: the claim window of the last discard (R = 0), where only `hu` on it may
    still follow; the hand has ended."""
    return not st.ended and st.stage == "window" and st.wall.remaining == 0 and not _forced(st)


# ---------------------------------------------------------------- fans (SC-H3..H8)


class Situation(NamedTuple):
    """The win's circumstances (SC-H4): a named tuple, so the score memo hashes it in C."""

    zi_mo: bool = False
    gang_shang_hua: bool = False
    gang_shang_pao: bool = False
    qiang_gang_hu: bool = False
    hai_di: bool = False
    tian_hu: bool = False
    di_hu: bool = False


class Score(NamedTuple):
    """A win's price (SC-H8); a named tuple (cheap to copy out of the memo)."""

    fan: int  # uncapped F
    capped: int  # F'
    multiplier: int
    fans: dict[str, int]


def is_sichuan_win(conc: Sequence[int], melds: Sequence[Meld], void: int) -> bool:
    """SC-H1: no void tile anywhere, standard shape or seven pairs (a four = two pairs)."""
    if not is_win(conc, len(melds)):  # the rarest condition first (same answer)
        return False
    return not (_has_void(conc, void) or any(m.tile // 9 == void for m in melds))


def wins_with(hand: tuple[int, ...], n_melds: int, t: int) -> bool:
    """`is_win(hand + t, n_melds)` for a suited kind t: a bit of `win_mask`."""
    return bool(win_mask(hand, n_melds) >> t & 1)


_YAO_JIU = tuple(k for k in range(N_SUITED) if k % 9 in (0, 8))
_NOT_258 = tuple(k for k in range(N_SUITED) if k % 9 not in (1, 4, 7))


def claim_on(st: State, seat: int, k: int) -> str | None:
    """What `seat` may claim if another seat discards tile kind `k` now: `hu` when it holds no void
    tile and `k` completes a winning hand (SC-H1), else `peng` when it holds two or more of `k`
    outside its void suit (SC-R9), else None; None too once the seat is out of the hand (SC-R20).
    What a colluding bot feeds its partner (engine/sim/collusion.py) and what `paiju integrity`
    counts as serving it."""
    if not _active(st, seat) or k // 9 == st.void[seat]:
        return None
    hand = st.hands[seat]
    if not _has_void(hand, st.void[seat]) and wins_with(hand, len(st.melds[seat]), k):
        return "hu"
    return "peng" if hand[k] >= 2 else None


def interpretation_props(conc: Sequence[int], melds: Sequence[Meld], win_tile: int) -> list[dict[str, int]]:
    """Shape properties (SC-H3) of every interpretation (SC-H2) of a winning hand; [] if none."""
    total = [a + b for a, b in zip(conc, meld_counts(melds), strict=True)] if melds else list(conc)
    suited = total[:N_SUITED]
    n_suits = (1 if any(suited[0:9]) else 0) + (1 if any(suited[9:18]) else 0) + (1 if any(suited[18:27]) else 0)
    fours = suited.count(4)
    gangs = sum(1 for m in melds if m.is_gang)
    common = {
        "qing": int(n_suits == 1),
        "fours": fours,
        "four": int(fours > 0),
        "nofour": int(fours == 0),
        "gang": gangs,
        "gen": fours - gangs,
        "duan_yao_jiu": int(not any(suited[k] for k in _YAO_JIU)),
        "melds4": int(len(melds) == 4),
    }
    out: list[dict[str, int]] = []
    meld_yao = all(m.tile % 9 in (0, 8) for m in melds)
    all258 = not any(suited[k] for k in _NOT_258)
    for sp in decompose(conc, len(melds)):
        seqs = [f for kind, f in sp.sets if kind == SEQ]
        dui = not seqs
        yao = (
            meld_yao
            and sp.pair % 9 in (0, 8)
            and all((f % 9 in (0, 6)) if kind == SEQ else (f % 9 in (0, 8)) for kind, f in sp.sets)
        )
        seq_count: dict[int, int] = {}
        for f in seqs:
            seq_count[f] = seq_count.get(f, 0) + 1
        long_ = any(all(seq_count.get(9 * s + d, 0) for d in (0, 3, 6)) for s in range(3))
        p = dict(common)
        p.update(
            std=1,
            qd=0,
            dui=int(dui),
            yao=int(yao),
            jiang=int(dui and all258),
            qia_xin_wu=int(win_tile % 9 == 4 and (win_tile - 1) in seq_count),
            zi_mei_dui=sum(v // 2 for v in seq_count.values()),
            yi_tiao_long=int(long_),
        )
        out.append(p)
    if not melds and is_seven_pairs(conc):
        p = dict(common)
        p.update(std=0, qd=1, dui=0, yao=0, jiang=0, qia_xin_wu=0, zi_mei_dui=0, yi_tiao_long=0)
        out.append(p)
    return out


_SCORES: dict[tuple[Any, ...], tuple[SichuanRules, Score | None]] = {}


def score_win(
    rules: SichuanRules, conc: Sequence[int], melds: Sequence[Meld], win_tile: int, situ: Situation
) -> Score | None:
    """SC-H8: the best F over every interpretation with the preset's table; None if not a win.

    Memoised (the bot's claim checks, the claim itself and the pass lock score the same hand): the
    key holds the rules object's identity and the entry keeps that object alive; a copy of the fans."""
    key = (id(rules), bytes(conc), tuple(melds), win_tile, situ)
    hit = _SCORES.get(key)
    if hit is not None and hit[0] is rules:
        sc = hit[1]
        return None if sc is None else Score(sc.fan, sc.capped, sc.multiplier, dict(sc.fans))
    sc = _score_win(rules, conc, melds, win_tile, situ)
    if len(_SCORES) >= 50_000:
        _SCORES.clear()
    _SCORES[key] = (rules, sc)
    return None if sc is None else Score(sc.fan, sc.capped, sc.multiplier, dict(sc.fans))


def _score_win(
    rules: SichuanRules, conc: Sequence[int], melds: Sequence[Meld], win_tile: int, situ: Situation
) -> Score | None:
    props_list = interpretation_props(conc, melds, win_tile)
    if not props_list:
        return None
    table = _table(rules)
    situ_props = {
        "zi_mo": int(situ.zi_mo and rules.zi_mo_bonus == "jia_fan"),
        "gang_shang_hua": int(situ.gang_shang_hua),
        "gang_shang_pao": int(situ.gang_shang_pao),
        "qiang_gang_hu": int(situ.qiang_gang_hu),
        "hai_di": int(situ.hai_di),
    }
    best: tuple[int, int, int] | None = None
    best_fans: dict[str, int] = {}
    for props in props_list:
        jgd = props["melds4"] and (rules.jin_gou_diao == "any" or (rules.jin_gou_diao == "zimo_only" and situ.zi_mo))
        allp = {**props, **situ_props, "jin_gou_diao": int(jgd)}
        b_row = -1
        has = allp.__getitem__
        for i, (_bid, val, need) in enumerate(table.base):
            if all(map(has, need)) and (b_row < 0 or val > table.base[b_row][1]):
                b_row = i
        bid, bval, _ = table.base[b_row]
        fans = {bid: bval}
        for eid, val, prop in table.extras:
            units = allp[prop]
            if eid == "gen" and bid in table.absorbs_gen:
                units = max(0, units - 1)
            if units and val:
                fans[eid] = fans.get(eid, 0) + val * units
        f = sum(fans.values())
        key = (f, bval, -b_row)
        if best is None or key > best:
            best, best_fans = key, fans
    assert best is not None
    f = best[0]
    if rules.tian_di_hu and (situ.tian_hu or situ.di_hu) and table.flat > f:
        f = table.flat
        best_fans = {"tian_hu" if situ.tian_hu else "di_hu": table.flat}
    capped = min(f, rules.fan_cap) if rules.fan_cap > 0 else f
    return Score(f, capped, 1 << max(0, capped - table.z), best_fans)


def ting_value(rules: SichuanRules, conc: Sequence[int], melds: Sequence[Meld], void: int) -> tuple[list[int], int]:
    """SC-H9: the waits of a 13-tile hand and F_ting (best capped F as a plain discard win)."""
    held = [a + b for a, b in zip(conc, meld_counts(melds), strict=True)]
    if _has_void(conc, void):
        return [], 0
    out: list[int] = []
    best = 0
    wins = win_tiles(conc, len(melds))  # bit t: is_win(conc + t)
    if not wins:
        return out, best
    c = list(conc)
    for t in range(N_SUITED):
        if not wins >> t & 1 or held[t] >= 4 or t // 9 == void:
            continue
        c[t] += 1
        out.append(t)
        sc = score_win(rules, c, melds, t, Situation())
        if sc is not None and sc.capped > best:
            best = sc.capped
        c[t] -= 1
    return out, best


# ---------------------------------------------------------------- the game


_DECK: list[int] = full_set()
"""The sorted 108 tiles (SC-C1), never edited."""
_DECK_NAMES: tuple[str, ...] = tuple(tile_names(_DECK))
_UNSET = object()
_ORDERS = tuple(tuple((k + i) % N for i in range(1, N)) for k in range(N))
_PLAY_EVENTS = ("draw", "discard", "peng", "gang", "hu")
"""The events of the PLAY phase (SC-R4..R22)."""
_EVENT_FIELDS = ("seq", "type", "seat", "tile", "kind", "tiles", "direction", "suit")


class SichuanGame:
    """One object per game id; `xueliu` selects 血流成河 (SC-R19/R20)."""

    seats = (4,)
    sim_players = 4
    Rules = SichuanRules
    presets = PRESETS
    deal_rule = "SC-C6"  # Dealer: a seat of the four

    def __init__(self, game_id: str, xueliu: bool) -> None:
        self.id = game_id
        self.xueliu = xueliu
        self._last: tuple[Any, ...] = ()  # (state, event key, result) of the last apply
        self._claims: tuple[Any, list[Any]] = (None, [])  # (state, per seat `_can_claim_win`) of the last state asked

    # ------------------------------------------------------------ setup

    def parse_rules(self, raw: Mapping[str, Any]) -> SichuanRules:
        return parse_rules(SichuanRules, PRESETS, raw)

    def start(self, started: MatchStarted, dealt: Dealt, rules: SichuanRules) -> State:
        """SC-C3: the dealer has 14 tiles, others 13, the wall 55, together the 108-tile set."""
        if dealt.wall is None:
            raise _bad("bad_deal", "SC-C3 a Sichuan deal needs the wall")
        if dealt.bottom is not None or dealt.stacks is not None:
            raise _bad("bad_deal", "SC-C3 a Sichuan deal has no bottom or stacks")
        for s, h in enumerate(dealt.hands):
            want = 14 if s == started.dealer else 13
            if len(h) != want:
                raise _bad("bad_deal", f"SC-C3 seat {s} was dealt {len(h)} tiles, expected {want}")
        if len(dealt.wall) != WALL_SIZE:
            raise _bad("bad_deal", f"SC-C3 the wall has {len(dealt.wall)} tiles, expected {WALL_SIZE}")
        try:
            hands = [tuple(tile_id(t) for t in h) for h in dealt.hands]
            wall = [tile_id(t) for t in dealt.wall]
        except KeyError as e:
            raise _bad("bad_deal", f"SC-C1 {e.args[0]} is not a tile") from None
        allk = sorted([k for h in hands for k in h] + wall)
        if allk != _DECK:  # = full_set()
            extra = counts_of(allk)
            bad = [tile_name(k) for k in range(N_KINDS) if extra[k] != (4 if k < N_SUITED else 0)]
            raise _bad("bad_deal", f"SC-C1 hands and wall are not the 108-tile set (wrong count of {', '.join(bad)})")
        st = State(
            xueliu=self.xueliu,
            rules=rules,
            base=started.base,
            dealer=started.dealer,
            hands=tuple(counts_of(h) for h in hands),
            wall=Wall.of(wall),
        )
        if not rules.huan_san_zhang:
            st = replace(st, phase="dingque")
        return st

    # ------------------------------------------------------------ reducer

    def apply(self, state: State, event: AnyEvent) -> State:
        """The reducer. Pure: the result of the last call is kept and returned again for the same
        state object and an equal event (the bot's trial of its choice, then the driver's apply)."""
        try:
            d = event.__dict__
        except AttributeError:  # an event object without a __dict__
            d = None
            key = tuple(getattr(event, f, None) for f in _EVENT_FIELDS)
        else:
            key = event_key(d)  # = tuple(map(event.__dict__.get, _EVENT_FIELDS))
        last = self._last
        if last and last[0] is state and last[1] == key:
            return last[2]  # type: ignore[no-any-return]
        # a plain discard or window-closing draw (sichuan_core.py, compiled), else every check
        new = None if d is None else fast_apply(self, state, d, _discard_copy, _draw_copy)
        if new is None:
            new = self._apply(state, event)
        self._last = (state, key, new)
        return new

    def _apply(self, state: State, event: AnyEvent) -> State:
        t = event.type
        seq = event.seq
        # a discard or a draw (most events) writes `seq` in its one state copy (`_act`, `_draw_stage`):
        # no other path of theirs reads it; every other event starts from a copy with its seq
        st = state if t == "discard" or t == "draw" else replace(state, seq=seq)
        if st.phase == "play" and t in _PLAY_EVENTS:
            pass  # the common case: none of the checks below refuses it
        elif st.phase == "end":
            raise _bad("after_end", f"SC-R21/R22 {t} after the hand ended")
        elif t == "exchange":
            return self._exchange(st, event)
        elif t == "exchange_direction":
            return self._direction(st, event)
        elif t == "dingque":
            return self._dingque(st, event)
        elif t not in _PLAY_EVENTS:
            raise _bad("wrong_phase", f"SC-R0 {t} is not an event of Sichuan mahjong")
        else:  # st.phase is not play
            raise _bad("wrong_phase", f"SC-R1/R3 {t} during the {st.phase} phase")
        seat: int = event.seat  # type: ignore[union-attr]
        tile = TILE_ID[event.tile]  # type: ignore[union-attr]  # = tile_id
        if tile >= N_SUITED:
            raise _bad("not_in_hand", f"SC-C1 {event.tile} does not exist in Sichuan mahjong")  # type: ignore[union-attr]
        if st.stage == "act":
            return self._act(st, t, seat, tile, event.__dict__.get("kind"), seq)
        if st.stage in ("window", "rob"):
            return self._window(st, t, seat, tile, event.__dict__.get("kind"), seq)
        return self._draw_stage(st, t, seat, tile, seq)

    # ---- exchange / dingque

    def _exchange(self, st: State, ev: Any) -> State:
        if st.phase != "exchange":
            raise _bad("wrong_phase", f"SC-R1 exchange during the {st.phase} phase")
        s = ev.seat
        if st.exchange[s] is not None:
            raise _bad("not_your_turn", f"SC-R1 seat {s} already chose its exchange tiles")
        ks = [tile_id(x) for x in ev.tiles]
        if len(ks) != 3 or any(k >= N_SUITED for k in ks) or len({k // 9 for k in ks}) != 1:
            raise _bad("illegal_move", f"SC-R1 exchange needs exactly 3 tiles of one suit, got {' '.join(ev.tiles)}")
        c = counts_of(ks)
        if any(c[k] > st.hands[s][k] for k in range(N_SUITED)):
            raise _bad(
                "not_in_hand", f"SC-R1 seat {s} does not hold {' '.join(ev.tiles)} (hand {_hand_str(st.hands[s])})"
            )
        ex = _set(st.exchange, s, tuple(sorted(ks)))
        return replace(st, exchange=ex, phase="direction" if all(x is not None for x in ex) else "exchange")

    def _direction(self, st: State, ev: Any) -> State:
        if st.phase != "direction":
            raise _bad("wrong_phase", f"SC-R1 exchange_direction during the {st.phase} phase")
        if ev.direction not in st.rules.exchange_directions:
            raise _bad(
                "illegal_move",
                f"SC-R1 direction {ev.direction} is not in exchange_directions {st.rules.exchange_directions}",
            )
        shift = DIRECTION_SHIFT[ev.direction]
        hands = [list(h) for h in st.hands]
        for s in range(N):
            for k in st.exchange[s] or ():
                hands[s][k] -= 1
                hands[(s + shift) % N][k] += 1
        return replace(st, hands=tuple(tuple(h) for h in hands), phase="dingque")

    def _dingque(self, st: State, ev: Any) -> State:
        if st.phase != "dingque":
            raise _bad("wrong_phase", f"SC-R3 dingque during the {st.phase} phase")
        s = ev.seat
        if st.void[s] >= 0:
            raise _bad("not_your_turn", f"SC-R3 seat {s} already declared its void suit")
        void = _set(st.void, s, suit_index(ev.suit))
        if all(v >= 0 for v in void):
            return replace(st, void=void, phase="play", stage="act", turn=st.dealer, first_turn=True)
        return replace(st, void=void)

    # ---- PLAY: the seat to act (SC-R5)

    def _act(self, st: State, t: str, seat: int, tile: int, kind: str | None, seq: int) -> State:
        s = st.turn
        if t in ("peng",) or (t == "gang" and kind == "zhi") or (t == "hu" and seat != s):
            raise _bad(
                "illegal_claim",
                f"SC-R7 {t} {tile_name(tile)} by seat {seat}: no discard or kong tile is offered, seat {s} is to act",
            )
        if seat != s:
            raise _bad("not_your_turn", f"SC-R5 seat {s} is to act, not seat {seat}")
        if t == "draw":
            raise _bad("not_your_turn", f"SC-R16 seat {s} already holds 14 tiles and must act, not draw")
        hand = st.hands[s]
        # SC-R15: a self-draw win the drawer can make at R ≤ 3 is compulsory
        if t != "hu" and st.drawn >= 0 and not st.after_peng and _forced(st) and self._self_win(st, s) is not None:
            raise _bad("illegal_move", f"SC-R15 seat {s} must hu on {tile_name(st.drawn)} (last four tiles), not {t}")
        if t == "hu":
            if st.after_peng or not (st.drawn >= 0 or st.first_turn):
                raise _bad("illegal_move", f"SC-R14 seat {s} may self-draw hu only right after its own draw")
            if st.first_turn:
                if hand[tile] == 0:
                    raise _bad("not_in_hand", f"SC-R14 seat {s} does not hold {tile_name(tile)}")
            elif tile != st.drawn:
                raise _bad(
                    "illegal_move", f"SC-R14 hu tile {tile_name(tile)} is not the drawn tile {tile_name(st.drawn)}"
                )
            sc = self._self_win(st, s, tile)
            if sc is None:
                raise _bad(
                    "not_a_win",
                    f"SC-H1 seat {s} {_hand_str(hand)}{self._meld_str(st, s)} is not a winning hand (void {SUITS[st.void[s]]})",
                )
            return self._after_self_win(st, s, tile, sc)
        if t == "discard":
            if hand[tile] == 0:
                raise _bad("not_in_hand", f"SC-R6 seat {s} does not hold {tile_name(tile)} (hand {_hand_str(hand)})")
            v = st.void[s]
            if st.rules.que_discard_first and tile // 9 != v and _has_void(hand, v):
                raise _bad(
                    "illegal_move",
                    f"SC-R6 que_discard_first: seat {s} still holds void-suit {SUITS[v]} tiles and must discard one, not {tile_name(tile)}",
                )
            if _locked(st, s) and tile != st.drawn:
                raise _bad(
                    "illegal_move",
                    f"SC-R19 seat {s} is locked after its win and must discard the drawn {tile_name(st.drawn)}, not {tile_name(tile)}",
                )
            gsp = st.last_gang if st.repl else None
            dealer_first = st.first_turn and not st.any_claim
            st2 = _discard_copy(
                st,
                _set(st.hands, s, _add(hand, tile, -1)),  # hands
                _set(st.discards, s, (*st.discards[s], tile)),  # discards
                "window",  # stage
                tile,  # offered
                (),  # hus
                -1,  # drawn
                False,  # after_peng
                False,  # first_turn
                False,  # repl
                gsp,  # gsp_gang
                dealer_first,  # dealer_first_discard
                seq,
            )
            if st2.wall.remaining == 0 and not any(self._can_claim_win(st2, j) for j in self._order(st2)):
                return self._exhaust(st2)  # SC-R22: the last discard nobody can win ends the hand
            return st2
        if t == "gang":
            return self._own_gang(st, s, tile, kind or "")
        raise _bad("illegal_move", f"SC-R5 {t} is not an action of the seat to act")

    def _meld_str(self, st: State, s: int) -> str:
        return "".join(f" [{m.kind} {tile_name(m.tile)}]" for m in st.melds[s])

    def _self_win(self, st: State, s: int, tile: int | None = None) -> Score | None:
        """Score of a self-drawn win by the seat to act now (None if not a win)."""
        hand = st.hands[s]
        melds = st.melds[s]
        if not is_sichuan_win(hand, melds, st.void[s]):
            return None
        wt = tile if tile is not None else (st.drawn if st.drawn >= 0 else next(k for k in range(N_SUITED) if hand[k]))
        situ = Situation(
            zi_mo=True,
            gang_shang_hua=st.repl and st.last_gang is not None,
            hai_di=st.rules.hai_di != "off" and st.wall.remaining == 0 and not st.first_turn,
            tian_hu=st.first_turn and s == st.dealer,
            di_hu=s != st.dealer and not st.any_claim and st.drawn >= 0 and st.first_draw,
        )
        return score_win(st.rules, hand, melds, wt, situ)

    def _after_self_win(self, st: State, s: int, tile: int, sc: Score) -> State:
        payers = [j for j in range(N) if j != s and _active(st, j)]
        r = st.rules
        b = st.base
        flows = list(st.flows)
        lg = st.last_gang if st.repl else None
        fed = lg is not None and lg.kind == "zhi" and lg.feeder is not None
        share = b * sc.multiplier + (b if r.zi_mo_bonus == "jia_di" else 0)
        detail = {"seq": st.seq, "fans": sc.fans, "fan": sc.fan, "multiplier": sc.multiplier}
        if fed and r.dian_gang_hua == "bao":
            assert lg is not None and lg.feeder is not None
            flows.append(item("hu_zimo", s, lg.feeder, share * len(payers), **detail))
        elif fed and r.dian_gang_hua == "dian_pao":
            assert lg is not None and lg.feeder is not None
            hand = st.hands[s]
            sc2 = score_win(r, hand, st.melds[s], tile, Situation(gang_shang_hua=True))
            assert sc2 is not None
            d2 = {"seq": st.seq, "fans": sc2.fans, "fan": sc2.fan, "multiplier": sc2.multiplier}
            flows.append(item("hu_zimo", s, lg.feeder, b * sc2.multiplier, **d2))
        else:
            for j in payers:
                flows.append(item("hu_zimo", s, j, share, **detail))
        hands = st.hands
        if st.xueliu:
            hands = _set(hands, s, _add(st.hands[s], tile, -1))  # SC-R19: the winning tile is set aside
        wins = _set(st.wins, s, (*st.wins[s], tile))
        st2 = replace(
            st,
            hands=hands,
            wins=wins,
            flows=tuple(flows),
            first_win=s if st.first_win < 0 else st.first_win,
            drawn=-1,
            first_turn=False,
            repl=False,
            last_gang=None,
        )
        return self._continue_after_wins(st2, s)

    def _continue_after_wins(self, st: State, last: int) -> State:
        """SC-R20..R22: end by wins, end by exhaustion, or the next draw after `last`."""
        if not st.xueliu and sum(1 for w in st.wins if w) >= 3:
            return replace(st, phase="end", stage="", ended=True)
        if st.wall.remaining == 0:
            return self._exhaust(st)
        return replace(st, stage="draw", turn=_next_active(st, last), repl=False, offered=-1, hus=(), gsp_gang=None)

    # ---- own kongs (SC-R11, SC-R12)

    def _own_gang(self, st: State, s: int, tile: int, kind: str) -> State:
        hand = st.hands[s]
        if kind not in ("an", "bu"):
            raise _bad("illegal_move", f"SC-R5 gang kind {kind} is not an own-turn kong")
        if st.after_peng:
            raise _bad("illegal_move", f"SC-R5 seat {s} may only discard after its peng, not gang")
        if st.wall.remaining < 1:
            raise _bad("illegal_move", "SC-R22 no gang at R = 0")
        if tile // 9 == st.void[s]:
            raise _bad("illegal_move", f"SC-R11 {tile_name(tile)} is seat {s}'s void suit")
        melds = st.melds[s]
        if kind == "an":
            if hand[tile] < 4:
                raise _bad("not_in_hand", f"SC-R11 seat {s} holds {hand[tile]} {tile_name(tile)}, an gang needs 4")
            new_melds = (*melds, Meld("gang_an", tile, None))
            new_hand = _add(hand, tile, -4)
        else:
            idx = next((i for i, m in enumerate(melds) if m.kind == "peng" and m.tile == tile), -1)
            if idx < 0:
                raise _bad("illegal_move", f"SC-R12 seat {s} has no peng of {tile_name(tile)} to add to")
            if hand[tile] < 1:
                raise _bad("not_in_hand", f"SC-R12 seat {s} does not hold the 4th {tile_name(tile)}")
            new_melds = _set(melds, idx, Meld("gang_bu", tile, melds[idx].frm))
            new_hand = _add(hand, tile, -1)
        if _locked(st, s):
            w0, w1 = own_gang_waits(st, s, new_hand, new_melds)
            if w0 != w1:
                raise _bad(
                    "illegal_move",
                    f"SC-R19 locked seat {s}: gang {tile_name(tile)} changes its waits {tile_names(w0)} → {tile_names(w1)}",
                )
        st2 = replace(
            st,
            hands=_set(st.hands, s, new_hand),
            melds=_set(st.melds, s, new_melds),
            drawn=-1,
            first_turn=False,
            any_claim=True,
        )
        if kind == "an":
            g = Gang(st.seq, s, "an", None, tile)
            st2 = self._pay_gang(st2, g)
            return replace(st2, stage="draw", turn=s, repl=True, last_gang=g)
        # bu: the 4th tile is offered to robbers (SC-R12/R13)
        return replace(
            st2, stage="rob", turn=s, offered=tile, hus=(), last_gang=Gang(st.seq, s, "bu", None, tile), repl=False
        )

    def _pay_gang(self, st: State, g: Gang) -> State:
        """SC-S6 wind and rain, at confirmation."""
        r = st.rules
        b = st.base
        if g.kind == "zhi":
            assert g.feeder is not None
            pays = [(g.feeder, r.zhi_gang_units * b)]
        else:
            units = r.an_gang_units if g.kind == "an" else r.bu_gang_units
            pays = [(j, units * b) for j in range(N) if j != g.seat and _active(st, j)]
        flows = list(st.flows)
        kp = list(st.kong_pay)
        for j, amt in pays:
            flows.append(item(f"gang_{g.kind}", g.seat, j, amt, seq=g.gid, tile=tile_name(g.tile)))
            kp.append((g.gid, g.seat, j, amt))
        return replace(st, flows=tuple(flows), kong_pay=tuple(kp))

    # ---- claim windows (SC-R7..R10, SC-R13, SC-R15, SC-R17)

    def _claim_score(self, st: State, j: int, tile: int) -> Score | None:
        """Score of j winning the offered tile (no legality of order/lock), None if not a win."""
        if not _active(st, j) or j == st.turn:
            return None
        hand = st.hands[j]
        if not wins_with(hand, len(st.melds[j]), tile):
            return None  # hand + tile is not even a shape win
        conc = _add(hand, tile)
        if not is_sichuan_win(conc, st.melds[j], st.void[j]):
            return None
        return score_win(st.rules, conc, st.melds[j], tile, self._claim_situation(st, j))

    def _claim_situation(self, st: State, j: int) -> Situation:
        r = st.rules
        if st.stage == "rob":
            return Situation(qiang_gang_hu=True)
        return Situation(
            gang_shang_pao=st.gsp_gang is not None,
            hai_di=r.hai_di == "zimo_and_pao" and st.wall.remaining == 0,
            di_hu=r.di_hu_mode == "first_draw_or_dealer_discard"
            and st.dealer_first_discard
            and j != st.dealer
            and st.turn == st.dealer,
        )

    def _can_claim_win(self, st: State, j: int, ignore_lock: bool = False) -> Score | None:
        """SC-R8/R13 including the pass lock (SC-R17) unless ignored.

        A pure function of (state, seat): with the lock, the answers for the last state asked are
        kept (the bot asks for every seat, then the reducer closing that window asks again; callers
        only test the answer against None or read its `fan`)."""
        if not ignore_lock:
            got = self._claim_answers(st)
            sc = got[j]
            return self._claim_answer(st, got, j) if sc is _UNSET else sc  # type: ignore[no-any-return]
        off = st.offered
        if off >= 0 and not wins_with(st.hands[j], len(st.melds[j]), off):
            return None
        return self._can_claim_win_now(st, j, True)

    def _claim_answers(self, st: State) -> list[Any]:
        """The memo of `_can_claim_win` answers (with the lock) for `st`, one slot per seat."""
        memo = self._claims
        if memo[0] is not st:
            memo = self._claims = (st, [_UNSET, _UNSET, _UNSET, _UNSET])
        return memo[1]

    def _claim_answer(self, st: State, got: list[Any], j: int) -> Score | None:
        """Compute and keep seat j's answer in `got` (the memo of `st`)."""
        off = st.offered
        if off >= 0 and not win_mask(st.hands[j], len(st.melds[j])) >> off & 1:  # = not wins_with(…)
            got[j] = None  # not even a shape win: every path of `_can_claim_win_now` answers None
            return None
        sc = got[j] = self._can_claim_win_now(st, j, False)
        return sc

    def _first_claimer(self, st: State, seats: Sequence[int]) -> int:
        """The first of `seats` whose `_can_claim_win(st, j)` is not None, or −1: the same answers,
        kept in the same memo, without a call per seat (the bot's window scan)."""
        got = self._claim_answers(st)
        for j in seats:
            sc = got[j]
            if sc is _UNSET:
                sc = self._claim_answer(st, got, j)
            if sc is not None:
                return j
        return -1

    def _can_claim_win_now(self, st: State, j: int, ignore_lock: bool) -> Score | None:
        if st.stage == "rob" and not st.rules.rob_gang:
            return None
        sc = self._claim_score(st, j, st.offered)
        if sc is None:
            return None
        if not ignore_lock and _pass_locked(st, j, sc):
            return None
        return sc

    def _order(self, st: State) -> tuple[int, ...]:
        """The seats after the discarder / kong seat in turn order (SC-R7)."""
        return _ORDERS[st.turn]

    def _must_win(self, st: State) -> list[int]:
        """Seats that SC-R15 obliges to hu the offered tile (in turn order)."""
        if not _forced(st):
            return []
        out = [j for j in self._order(st) if self._can_claim_win(st, j, ignore_lock=True) is not None]
        if not st.rules.yi_pao_duo_xiang:
            out = out[:1]
        return out

    def _window(self, st: State, t: str, seat: int, tile: int, kind: str | None, seq: int) -> State:
        k = st.turn
        d = st.offered
        robbing = st.stage == "rob"
        what = "kong tile" if robbing else "discard"
        if t == "hu":
            if tile != d:
                raise _bad("illegal_claim", f"SC-R7 hu {tile_name(tile)}: the offered {what} is {tile_name(d)}")
            if seat == k:
                raise _bad("illegal_claim", f"SC-R8 seat {seat} cannot win its own {what}")
            if not _active(st, seat):
                raise _bad("illegal_claim", f"SC-R20 seat {seat} has already won and left the hand")
            if robbing and not st.rules.rob_gang:
                raise _bad("illegal_claim", "SC-R13 rob_gang is off: a bu gang cannot be robbed")
            order = self._order(st)
            pos = order.index(seat)
            if seat in st.hus:
                raise _bad("illegal_claim", f"SC-R7 seat {seat} already won {tile_name(d)}")
            if st.hus and order.index(st.hus[-1]) > pos:
                raise _bad(
                    "illegal_claim",
                    f"SC-R7 hu claims go in turn order from seat {(k + 1) % N}; seat {seat} comes before seat {st.hus[-1]}",
                )
            if st.hus and not st.rules.yi_pao_duo_xiang:
                raise _bad(
                    "illegal_claim",
                    f"SC-R7 yi_pao_duo_xiang is off: seat {st.hus[0]} already took the single hu on {tile_name(d)}",
                )
            sc = self._claim_score(st, seat, d)
            if sc is None:
                conc = _add(st.hands[seat], d)
                raise _bad(
                    "not_a_win",
                    f"SC-H1 seat {seat} {_hand_str(conc)}{self._meld_str(st, seat)} with {tile_name(d)} is not a winning hand (void {SUITS[st.void[seat]]})",
                )
            forced = self._must_win(st)
            last_pos = order.index(st.hus[-1]) if st.hus else -1
            skipped = [j for j in forced if last_pos < order.index(j) < pos]
            if skipped:
                raise _bad(
                    "illegal_move",
                    f"SC-R15 seat {skipped[0]} must hu {tile_name(d)} (last four tiles) before seat {seat}",
                )
            if not st.rules.yi_pao_duo_xiang:
                nearer = [j for j in order[:pos] if self._can_claim_win(st, j) is not None]
                if nearer:
                    raise _bad(
                        "illegal_claim",
                        f"SC-R7 yi_pao_duo_xiang is off: seat {nearer[0]} is nearer and takes the hu on {tile_name(d)} (截胡)",
                    )
            if _pass_locked(st, seat, sc):  # = `_can_claim_win(st, seat) is None` with this score
                raise _bad(
                    "illegal_claim",
                    f"SC-R17 seat {seat} is pass-locked at {st.locks[seat]} fan: a {sc.fan}-fan win on {tile_name(d)} is not higher",
                )
            return self._claim_win(st, seat, d, sc)
        # every other event closes the window: compulsory wins first (SC-R15)
        forced = (
            [
                j
                for j in self._must_win(st)
                if j not in st.hus and (not st.hus or self._order(st).index(j) > self._order(st).index(st.hus[-1]))
            ]
            if _forced(st)
            else ()
        )
        if forced and (st.rules.yi_pao_duo_xiang or not st.hus):
            raise _bad("illegal_move", f"SC-R15 seat {forced[0]} must hu {tile_name(d)} (last four tiles), not {t}")
        if t in ("peng", "gang") and not robbing:
            return self._claim_meld(st, t, seat, tile, kind)
        if t in ("peng", "gang"):
            raise _bad(
                "illegal_claim",
                f"SC-R12 {t} {tile_name(tile)}: only a hu (rob) or seat {k}'s replacement draw may follow its bu gang",
            )
        if t == "discard":
            if seat == k:
                raise _bad(
                    "illegal_move",
                    f"SC-R7 seat {seat} already discarded {tile_name(d)}"
                    if not robbing
                    else f"SC-R12 seat {k} must draw its replacement tile",
                )
            raise _bad("not_your_turn", f"SC-R7 seat {seat} may not discard during the claim window on {tile_name(d)}")
        # draw: the window closes, passes are inferred
        st2 = self._close_window(st)
        if robbing and not st.hus:
            g = st.last_gang
            assert g is not None
            if seat != k:
                raise _bad("not_your_turn", f"SC-R12 seat {k} draws its replacement after its bu gang, not seat {seat}")
            st2 = self._pay_gang(replace(st2, stage="draw", turn=k, repl=True), g)
            return self._draw_stage(st2, "draw", seat, tile, seq)  # the draw clears `offered`
        # the draw writes stage, turn, offered and hus itself: no intermediate copy
        if st.hus:
            return self._draw_stage(st2, "draw", seat, tile, seq, turn=_next_active(st2, st.hus[-1]), repl=False)
        if st.wall.remaining == 0:
            raise _bad("wrong_draw", "SC-R22 the wall is empty: no tile left to draw")
        return self._draw_stage(st2, "draw", seat, tile, seq, turn=_next_active(st2, k), repl=False)

    def _close_window(self, st: State) -> State:
        """SC-R17: every seat that could legally win the offered tile and did not is pass-locked."""
        if not st.rules.guo_shou_hu:
            return st
        if not st.rules.yi_pao_duo_xiang and st.hus:
            return st
        locks: list[int] | None = None
        got = self._claim_answers(st)  # the answers the bot or the reducer already asked for
        for j in _ORDERS[st.turn]:
            sc = got[j]
            if sc is None or j in st.hus:  # no win to pass (the memo's answer is pure), or it won
                continue
            if sc is _UNSET:
                sc = self._claim_answer(st, got, j)
            if sc is not None:
                if locks is None:
                    locks = list(st.locks)
                locks[j] = max(locks[j], sc.fan)
                if not st.rules.yi_pao_duo_xiang:
                    break
        if locks is None:
            return st
        new = tuple(locks)
        return st if new == st.locks else replace(st, locks=new)

    def _claim_win(self, st: State, j: int, d: int, sc: Score) -> State:
        """SC-S3 discard win / rob, SC-S5 call transfer; then more hu, the next draw or the end."""
        k = st.turn
        robbing = st.stage == "rob"
        b = st.base
        flows = list(st.flows)
        kind = "hu_qianggang" if robbing else "hu_dianpao"
        flows.append(
            item(kind, j, k, b * sc.multiplier, seq=st.seq, fans=sc.fans, fan=sc.fan, multiplier=sc.multiplier)
        )
        transferred = st.transferred
        if not robbing and st.gsp_gang is not None and st.rules.gang_shang_pao_transfer:
            g = st.gsp_gang
            got = sum(a for gid, rcv, _p, a in st.kong_pay if gid == g.gid and rcv == k)
            if got:
                flows.append(item("hu_zhuanyi", j, k, got, seq=st.seq, gang_seq=g.gid))
                transferred = transferred | {g.gid}
        hands = st.hands
        melds = st.melds
        if robbing and not st.hus:
            # SC-R13: the kong is void, the peng stays, the 4th tile leaves the kong seat
            ms = st.melds[k]
            idx = next(i for i, m in enumerate(ms) if m.kind == "gang_bu" and m.tile == d)
            melds = _set(melds, k, _set(ms, idx, Meld("peng", d, ms[idx].frm)))
        if not st.xueliu:
            hands = _set(hands, j, _add(hands[j], d))  # the winner's hand is frozen with the tile
        st2 = replace(
            st,
            hands=hands,
            melds=melds,
            flows=tuple(flows),
            transferred=transferred,
            wins=_set(st.wins, j, (*st.wins[j], d)),
            hus=(*st.hus, j),
            first_win=self._first_winner_after_claim(st, j),
            locks=_set(st.locks, j, -1),
        )
        if not st2.xueliu and sum(1 for w in st2.wins if w) >= 3:
            return replace(st2, phase="end", stage="", ended=True)
        if st2.wall.remaining == 0:
            order = self._order(st2)
            later = [x for x in order[order.index(j) + 1 :] if self._can_claim_win(st2, x) is not None]
            if not later or not st2.rules.yi_pao_duo_xiang:
                return self._exhaust(st2)
        return st2

    def _first_winner_after_claim(self, st: State, j: int) -> int:
        """SC-R23: the first winner deals next; several hu on the hand's first winning tile → its discarder."""
        if st.first_win < 0:
            return j
        if st.hus and sum(len(w) for w in st.wins) == len(st.hus):
            return st.turn  # every win so far is on this very tile: a first 一炮多响
        return st.first_win

    def _claim_meld(self, st: State, t: str, j: int, tile: int, kind: str | None) -> State:
        """SC-R9 peng, SC-R10 zhi gang on the discard."""
        k = st.turn
        d = st.offered
        if t == "gang" and kind != "zhi":
            raise _bad("illegal_claim", f"SC-R10 only a zhi gang claims a discard, not gang {kind}")
        if st.hus:
            raise _bad("illegal_claim", f"SC-R7 {tile_name(d)} was won: no {t} after a hu")
        if tile != d:
            raise _bad("illegal_claim", f"SC-R7 {t} {tile_name(tile)}: the offered discard is {tile_name(d)}")
        if j == k:
            raise _bad("illegal_claim", f"SC-R9 seat {j} cannot claim its own discard")
        if not _active(st, j):
            raise _bad("illegal_claim", f"SC-R20 seat {j} has already won and left the hand")
        need = 2 if t == "peng" else 3
        if st.hands[j][d] < need:
            raise _bad("not_in_hand", f"SC-R9/R10 seat {j} holds {st.hands[j][d]} {tile_name(d)}, {t} needs {need}")
        if d // 9 == st.void[j]:
            raise _bad("illegal_claim", f"SC-R9/R10 {tile_name(d)} is seat {j}'s void suit {SUITS[st.void[j]]}")
        if st.wall.remaining < 1:
            raise _bad("illegal_claim", f"SC-R22 no {t} at R = 0")
        if t == "peng" and _locked(st, j):
            raise _bad("illegal_claim", f"SC-R19 seat {j} is locked after its win and may not peng")
        hand = _add(st.hands[j], d, -need)
        meld = Meld("peng" if t == "peng" else "gang_zhi", d, k)
        new_melds = (*st.melds[j], meld)
        if t == "gang" and _locked(st, j):
            w0, _ = ting_value(st.rules, st.hands[j], st.melds[j], st.void[j])
            w1, _ = ting_value(st.rules, hand, new_melds, st.void[j])
            if w0 != w1:
                raise _bad(
                    "illegal_claim",
                    f"SC-R19 locked seat {j}: zhi gang {tile_name(d)} changes its waits {tile_names(w0)} → {tile_names(w1)}",
                )
        st2 = self._close_window(st)
        discards = _set(st2.discards, k, st2.discards[k][:-1])  # the claimed tile leaves the river
        st2 = replace(
            st2,
            hands=_set(st2.hands, j, hand),
            melds=_set(st2.melds, j, new_melds),
            discards=discards,
            any_claim=True,
            offered=-1,
            gsp_gang=None,
            dealer_first_discard=False,
        )
        if t == "peng":
            return replace(st2, stage="act", turn=j, drawn=-1, after_peng=True, repl=False, first_turn=False)
        g = Gang(st.seq, j, "zhi", k, d)
        st2 = self._pay_gang(st2, g)
        return replace(st2, stage="draw", turn=j, repl=True, last_gang=g)

    # ---- expected draws (SC-R16)

    def _draw_stage(
        self, st: State, t: str, seat: int, tile: int, seq: int, turn: int | None = None, repl: bool | None = None
    ) -> State:
        """The expected draw; `turn` / `repl` stand for the drawer and the replacement flag when the
        closing claim window has not written them into `st` (one state copy instead of two)."""
        s = st.turn if turn is None else turn
        rp = st.repl if repl is None else repl
        if t in ("hu", "peng") or (t == "gang"):
            raise _bad(
                "illegal_claim", f"SC-R7 {t} {tile_name(tile)} by seat {seat}: nothing is offered, seat {s} draws next"
            )
        if seat != s:
            raise _bad("not_your_turn", f"SC-R16 seat {s} draws next, not seat {seat}")
        if t != "draw":
            raise _bad("illegal_move", f"SC-R16 seat {s} must draw before it {t}s")
        if st.wall.remaining < 1:
            raise _bad("wrong_draw", "SC-R22 the wall is empty: no tile left to draw")
        from_tail = rp and st.rules.replacement_from == "tail"
        want = st.wall.peek(from_tail)
        if tile != want:
            where = "tail" if from_tail else "head"
            raise _bad(
                "wrong_draw",
                f"SC-C4 seat {s} drew {tile_name(tile)} but the wall's {where} tile is {tile_name(want)} (R = {st.wall.remaining})",
            )
        _, wall = st.wall.draw(from_tail)
        first = not st.drew[s]
        return _draw_copy(
            st,
            wall,
            _set(st.hands, s, _add(st.hands[s], tile)),  # hands
            _set(st.drew, s, True),  # drew
            "act",  # stage
            s,  # turn
            tile,  # drawn
            False,  # after_peng
            False,  # first_turn
            _set(st.locks, s, -1),  # locks
            (),  # hus
            -1,  # offered
            None,  # gsp_gang
            False,  # dealer_first_discard
            st.last_gang if rp else None,  # last_gang
            rp,  # repl
            first,  # first_draw
            seq,
        )

    # ---- end of hand (SC-R22, SC-S7..S9)

    def _exhaust(self, st: State) -> State:
        r = st.rules
        b = st.base
        table = _table(r)
        unwon = [s for s in range(N) if not st.wins[s]]
        hua = {s for s in unwon if _has_void(st.hands[s], st.void[s])}
        ting: dict[int, int] = {}
        for s in unwon:
            if s in hua:
                continue
            w, f = ting_value(r, st.hands[s], st.melds[s], st.void[s])
            if w:
                ting[s] = f
        flows = list(st.flows)
        h = b * _huazhu_units(r.huazhu_units, r.fan_cap, table.z)
        for p in sorted(hua):
            for q in range(N):
                if q == p or q in hua:
                    continue
                if q in unwon or r.huazhu_pays_winners:
                    flows.append(item("hua_zhu", q, p, h, seq=st.seq))
        for p in unwon:
            if p in hua or p in ting:
                continue
            for q, f in sorted(ting.items()):
                flows.append(item("da_jiao", q, p, b * (1 << max(0, f - table.z)), seq=st.seq, fan=f))
        for p in unwon:
            if p in ting:
                continue
            for gid, rcv, payer, amt in st.kong_pay:
                if rcv == p and gid not in st.transferred:
                    flows.append(item("tui_shui", payer, p, amt, seq=st.seq, gang_seq=gid))
        return replace(st, flows=tuple(flows), phase="end", stage="", ended=True)

    # ------------------------------------------------------------ protocol

    def is_finished(self, state: State) -> bool:
        return state.ended or _last_window(state)

    def continues_after_end(self, state: State, event: Any) -> bool:
        """SC-R22: a `hu` on the last discard after the hand has ended."""
        return getattr(event, "type", None) == "hu" and _last_window(state)

    def settle(self, state: State) -> Settlement:
        if _last_window(state):
            state = self._exhaust(state)  # SC-R22: the hand ended at the last discard; the checks run
        winners = [s for s in range(N) if state.wins[s]]
        return Settlement.from_items(N, list(state.flows), winners)

    def legal_actions(self, state: State) -> list[dict[str, Any]]:
        """Every event payload the reducer accepts now (claims of every seat in a window)."""
        out: list[dict[str, Any]] = []
        for cand in self._candidates(state):
            try:
                self.apply(state, _Probe(state.seq + 1, cand))  # type: ignore[arg-type]
            except Illegal:
                continue
            out.append(cand)
        return out

    def _candidates(self, st: State) -> list[dict[str, Any]]:
        if st.ended:
            return []
        if st.phase == "exchange":
            out = []
            for s in range(N):
                if st.exchange[s] is not None:
                    continue
                for suit in range(3):
                    ks = kinds_of(st.hands[s][9 * suit : 9 * suit + 9])
                    for combo in sorted(set(itertools.combinations(ks, 3))):
                        out.append({"type": "exchange", "seat": s, "tiles": tile_names(k + 9 * suit for k in combo)})
            return out
        if st.phase == "direction":
            return [{"type": "exchange_direction", "direction": d} for d in st.rules.exchange_directions]
        if st.phase == "dingque":
            return [{"type": "dingque", "seat": s, "suit": x} for s in range(N) if st.void[s] < 0 for x in SUITS]
        out = []
        if st.stage == "act":
            s = st.turn
            for k in range(N_SUITED):
                if st.hands[s][k]:
                    out.append({"type": "discard", "seat": s, "tile": tile_name(k)})
                    out.append({"type": "gang", "seat": s, "tile": tile_name(k), "kind": "an"})
                    out.append({"type": "gang", "seat": s, "tile": tile_name(k), "kind": "bu"})
                    if st.first_turn:
                        out.append({"type": "hu", "seat": s, "tile": tile_name(k)})
            if st.drawn >= 0:
                out.append({"type": "hu", "seat": s, "tile": tile_name(st.drawn)})
            return out
        if st.stage in ("window", "rob"):
            d = tile_name(st.offered)
            for j in range(N):
                out.append({"type": "hu", "seat": j, "tile": d})
                if st.stage == "window":
                    out.append({"type": "peng", "seat": j, "tile": d})
                    out.append({"type": "gang", "seat": j, "tile": d, "kind": "zhi"})
        drawer = self._expected_drawer(st)
        if drawer is not None and st.wall.remaining > 0:
            out.append({"type": "draw", "seat": drawer, "tile": tile_name(self._expected_tile(st))})
        return out

    def _expected_tile(self, st: State) -> int:
        """The wall tile of the next draw (SC-C4: replacement draws from the end the rules name)."""
        repl = (st.stage == "draw" and st.repl) or (st.stage == "rob" and not st.hus)
        return st.wall.peek(repl and st.rules.replacement_from == "tail")

    def _expected_drawer(self, st: State) -> int | None:
        if st.stage == "draw":
            return st.turn
        if st.stage == "rob":
            return st.turn if not st.hus else _next_active(st, st.hus[-1])
        if st.stage == "window":
            return _next_active(st, st.hus[-1] if st.hus else st.turn)
        return None

    def turn_phase(self, state: State) -> tuple[int | None, str]:
        """The `turn` and `phase` of `view(state)`, read straight from the state (the live referee)."""
        return (state.turn if state.phase == "play" else None), (
            state.phase if state.phase != "play" else f"play:{state.stage}"
        )

    def view(self, state: State) -> dict[str, Any]:
        st = state
        return {
            "phase": st.phase if st.phase != "play" else f"play:{st.stage}",
            "turn": st.turn if st.phase == "play" else None,
            "hands": [tile_names(kinds_of(h)) for h in st.hands],
            "melds": [
                [{"kind": m.kind, "tiles": [tile_name(m.tile)] * m.size, "from": m.frm} for m in ms] for ms in st.melds
            ],
            "discards": [tile_names(d) for d in st.discards],
            "void": [SUITS[v] if v >= 0 else None for v in st.void],
            "won": [tile_names(w) for w in st.wins],
            "wall_left": st.wall.remaining,
            "offered": tile_name(st.offered) if st.offered >= 0 else None,
            "drawn": tile_name(st.drawn) if st.drawn >= 0 else None,
            "pass_locks": list(st.locks),
            "dealer": st.dealer,
            "next_dealer": self.next_dealer(st),
        }

    next_dealer_rule = "SC-R23"

    def next_dealer(self, st: State) -> int | None:
        """SC-R23 first_winner: first winner, or the discarder/robbed seat of a first multi-win; else 连庄.
        `random`: the next record states its dealer (None: no seat is named; engine/rooms.py)."""
        if st.rules.dealer_rule == "random":
            return None
        return st.first_win if st.first_win >= 0 else st.dealer

    # ------------------------------------------------------------ simulator and calculator

    def deal(self, rules: SichuanRules, n_players: int, rng: random.Random, dealer: int = 0) -> dict[str, Any]:
        """A seeded shuffle of the sorted 108 tiles: 13 per seat (14 to the dealer), the rest the wall."""
        deck = list(_DECK_NAMES)  # = tile_names(full_set())
        shuffle(rng, deck)  # = rng.shuffle(deck)
        hands: list[list[str]] = []
        pos = 0
        for s in range(N):
            n = 14 if s == dealer else 13
            hands.append(deck[pos : pos + n])
            pos += n
        return {"hands": hands, "wall": deck[pos:]}

    def hand(self, query: dict[str, Any]) -> dict[str, Any]:
        return _hand_query(self, query)


class _Probe:
    """A minimal event object for legal_actions' trial application."""

    def __init__(self, seq: int, payload: dict[str, Any]) -> None:
        self.seq = seq
        self.__dict__.update(payload)


# ---------------------------------------------------------------- `paiju hand`


def _hand_query(game: SichuanGame, q: dict[str, Any]) -> dict[str, Any]:
    rules = game.parse_rules(q.get("rules") or {})
    cards = q.get("cards") or ""
    tiles = parse_hand(cards) if isinstance(cards, str) else [tile_id(t) for t in cards]
    if any(k >= N_SUITED for k in tiles):
        raise ValueError("Sichuan mahjong has no 7z")
    melds: list[Meld] = []
    raw_melds = q.get("melds") or ""
    for part in raw_melds.split(",") if isinstance(raw_melds, str) else raw_melds:
        part = part.strip()
        if not part:
            continue
        kind, _, t = part.partition(":")
        if kind not in ("peng", "gang_an", "gang_bu", "gang_zhi") or t not in tile_names(range(N_SUITED)):
            raise ValueError(f"cannot read meld {part!r} (use peng:5p, gang_an:9m, gang_bu:3s, gang_zhi:1p)")
        melds.append(Meld(kind, tile_id(t), None))
    void_s = q.get("void")
    void = suit_index(void_s) if void_s else -1
    situ_names = q.get("situation") or ""
    situ_list = [x.strip() for x in (situ_names.split(",") if isinstance(situ_names, str) else situ_names) if x.strip()]
    known = {"gang_shang_hua", "gang_shang_pao", "qiang_gang_hu", "hai_di", "tian_hu", "di_hu", "zi_mo"}
    for x in situ_list:
        if x not in known:
            raise ValueError(f"unknown situation {x!r}; known: {', '.join(sorted(known))}")
    win_tile = q.get("win_tile")
    if win_tile:
        if win_tile not in TILE_ID or tile_id(win_tile) >= N_SUITED:
            raise ValueError(f"win_tile {win_tile!r} is not a Sichuan tile")
        wk = tile_id(win_tile)
        if len(tiles) + 3 * len(melds) == 14 and wk in tiles:
            tiles.remove(wk)  # 14 tiles given: win_tile says which of them completed the hand
        tiles = [*tiles, wk]
    size = len(tiles) + 3 * len(melds)
    c = counts_of(tiles)
    held = [a + b for a, b in zip(c, meld_counts(melds), strict=True)]
    if any(x > 4 for x in held):
        raise ValueError("more than 4 copies of a tile")
    if size == 13 and not win_tile:
        w, best = ting_value(rules, c, melds, void)
        return {"ready": bool(w), "waits": tile_names(w), "best_fan": best}
    if size != 14:
        raise ValueError(f"a hand has 14 tiles counting each meld as 3 (13 to ask for waits), got {size}")
    wt = tiles[-1]
    zimo = bool(q.get("zimo")) or "zi_mo" in situ_list
    situ = Situation(
        zi_mo=zimo,
        gang_shang_hua="gang_shang_hua" in situ_list,
        gang_shang_pao="gang_shang_pao" in situ_list,
        qiang_gang_hu="qiang_gang_hu" in situ_list,
        hai_di="hai_di" in situ_list and rules.hai_di != "off" and (zimo or rules.hai_di == "zimo_and_pao"),
        tian_hu="tian_hu" in situ_list,
        di_hu="di_hu" in situ_list,
    )
    if not is_sichuan_win(c, melds, void):
        return {
            "win": False,
            "reason": "SC-H1 not a winning hand" + (" (holds the void suit)" if _has_void(c, void) else ""),
        }
    sc = score_win(rules, c, melds, wt, situ)
    assert sc is not None
    return {"win": True, "fans": sc.fans, "fan": sc.fan, "multiplier": sc.multiplier}


XUEZHAN = SichuanGame("sichuan_xuezhan", xueliu=False)
XUELIU = SichuanGame("sichuan_xueliu", xueliu=True)
