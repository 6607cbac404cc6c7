"""Anshun catch-chicken mahjong (`anshun`, docs/rules/anshun.md): patterns, 天听, 豆, chickens, 杀报, 荒庄.

Flow (AS-R*) on the shared claim flow (engine/mahjong/claimflow.py); win check, splits and waits
from the mahjong core. The pattern table AS-H2 is data (`PATTERNS`: id, points, the features an
interpretation needs); p(W) is the maximum over every standard split and the seven-pairs reading.
Settlement AS-S1..S9 as itemised lines: `hu_zimo` / `hu_dianpao` / `hu_qianggang` (with `fans`
{pattern: p, tian_ting: 10 for a 天听 winner} and `fan` = B), `sha_bao`, `re_pao`, `men_dou`,
`zhuan_wan_dou`, `dian_dou`, `ji` (per tile kind: `tile`, `count`, `value`, `flip`, `yaobai`),
`chong_feng_ji`, `jiao_pai`.

Choices where the rule file is silent:
- Codes: a forbidden 平胡 discard win (AS-R6) is `illegal_claim`; a tian-ting seat that pengs,
  gangs or discards another tile than its draw, a `ting` out of time, a 天听 discard that leaves
  the hand not ready, and a peng/gang with no tile left are `illegal_move`; `ting` with the option
  off is `wrong_phase`.
- The last discard at R = 0 ends the hand in 荒庄 at once, but `hu` on it may still follow.
- 冲锋鸡 with `ji_requires_ting`: the discarder collects only if it won or is ready.
- A ready seat's call value V (AS-H4) is used only at 荒庄; a tian-ting seat adds 10.
- Bot (`bot_action`, the shared engine/mahjong/bot.py with hooks): wins whenever the rules allow,
  declares 天听 when a discard at its first turn leaves it ready (and then discards that tile),
  declares every legal kong, pengs when it lowers its shanten, discards by the shared bot's rule
  (shanten; live improving tiles counted once it is at most one step from ready); a tian-ting
  seat discards its draw.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from engine.base import GameRules, Settlement, item
from engine.errors import Illegal
from engine.mahjong.claimflow import ClaimGame, Counts, Table, _add, _set, replace
from engine.mahjong.core import (
    SEQ,
    decompose,
    discard_shanten,
    is_seven_pairs,
    is_standard_win,
    meld_counts,
    waits,
    win_mask,
    win_tiles,
)
from engine.mahjong.hongzhong import read_hand
from engine.tiles import N_KINDS, N_SUITED, tile_id, tile_name, tile_names

YAO_JI = 18  # 1s
YAO_JI_NAME = tile_name(YAO_JI)


class AnshunRules(GameRules):
    """Section 6 of docs/rules/anshun.md."""

    yaobai_ji_mode: Literal["adjacent", "next_two", "next_one"] = Field("adjacent", description="摇摆鸡 set from the flip (AS-S7 step 2)")
    jin_ji: bool = Field(True, description="1s in the 摇摆 set worth 2 (金鸡), 冲锋金鸡 3 (AS-S7)")
    chong_feng_ji: bool = Field(True, description="the first unclaimed 1s discard is paid (AS-S7 step 6)")
    ji_requires_ting: bool = Field(False, description="only winners and ready seats collect chickens (AS-S7 step 7)")
    fan_fan: bool = Field(True, description="self-drawn 大对子 and better doubled (AS-S1)")
    ping_hu_dian_pao: Literal["restricted", "always"] = Field("restricted", description="when 平胡 may win on a discard (AS-R6)")
    qiang_gang_payment: Literal["bao_san_jia", "single"] = Field("bao_san_jia", description="robbed seat pays 3 self-draws or one (AS-S4)")
    men_dou_units: Annotated[int, Field(ge=0)] = Field(2, description="闷豆, per other seat (AS-S6)")
    zhuan_wan_dou_units: Annotated[int, Field(ge=0)] = Field(1, description="转弯豆, per other seat (AS-S6)")
    dian_dou_units: Annotated[int, Field(ge=0)] = Field(1, description="点豆, from the feeder (AS-S6)")
    tian_ting: bool = Field(True, description="天听 may be declared (AS-R12)")
    tian_ting_units: Annotated[int, Field(ge=0)] = Field(10, description="T: 天听 counts as 清一色 (AS-S1)")
    sha_bao_units: Annotated[int, Field(ge=0)] = Field(10, description="S: 杀报 paid by a losing 天听 seat (AS-S2, AS-S3)")
    yi_pao_duo_xiang: bool = Field(True, description="several winners on one tile (AS-R4)")
    replacement_from: Literal["head", "tail"] = Field("head", description="kong replacement draws (AS-C4)")
    dealer_rule: Literal["winner", "random"] = Field("winner", description="next dealer (AS-R17)")


# AS-H2: (id, points, features the interpretation must have)
PATTERNS: tuple[tuple[str, int, frozenset[str]], ...] = (
    ("ping_hu", 1, frozenset()),
    ("da_dui_zi", 5, frozenset({"std", "no_seq"})),
    ("xiao_qi_dui", 10, frozenset({"qd", "no_long"})),
    ("qing_yi_se", 10, frozenset({"qing"})),
    ("qing_da_dui", 15, frozenset({"qing", "std", "no_seq"})),
    ("qing_qi_dui", 20, frozenset({"qing", "qd", "no_long"})),
    ("long_qi_dui", 20, frozenset({"qd", "long"})),
    ("qing_long_qi_dui", 30, frozenset({"qing", "qd", "long"})),
)
DOU_REASON = {"an": "men_dou", "bu": "zhuan_wan_dou", "zhi": "dian_dou"}


def _best(features: frozenset[str]) -> tuple[str, int]:
    best = ("ping_hu", 1)
    for pid, p, need in PATTERNS:
        if need <= features and p > best[1]:
            best = (pid, p)
    return best


@cache
def evaluate(counts: Counts, meld_tiles: tuple[int, ...]) -> tuple[str, int] | None:
    """AS-H1..H3: (pattern id, points), the maximum over every interpretation, or None (no win)."""
    n_melds = len(meld_tiles)
    std = is_standard_win(counts, n_melds)
    qd = n_melds == 0 and sum(counts) == 14 and is_seven_pairs(counts)
    if not (std or qd):
        return None  # the bot's trial hus: most hands do not win
    suits = {k // 9 for k in range(N_KINDS) if counts[k]} | {t // 9 for t in meld_tiles}
    qing = {"qing"} if len(suits) == 1 else set()
    readings: list[frozenset[str]] = []
    if std:
        for split in decompose(counts, n_melds):
            f = {"std"} | qing
            if all(kind != SEQ for kind, _ in split.sets):
                f.add("no_seq")
            readings.append(frozenset(f))
    if qd:
        readings.append(frozenset({"qd", "long" if 4 in counts else "no_long"} | qing))
    if not readings:
        return None
    return max((_best(f) for f in readings), key=lambda x: x[1])


def _ready_after(hand: Counts, n_melds: int, k: int) -> bool:
    """Discarding k leaves a wait: `waits(hand − k)` is not empty, i.e. some kind completes the
    hand (`core.win_tiles`: a kind held 4 times never does)."""
    h = bytearray(hand)
    h[k] -= 1
    return win_tiles(h, n_melds) != 0


def first_ready_discard(hand: Counts, n_melds: int) -> int | None:
    """The first kind (in kind order) whose discard leaves the hand ready (天听 for the bot), or None.

    Only a discard of shanten 0 can (a wait completes a win), so one shanten scan
    (`core.discard_shanten`) picks the few discards whose waits are checked."""
    return next((k for k, sh in discard_shanten(hand, n_melds) if sh <= 0 and k < N_SUITED and _ready_after(hand, n_melds, k)), None)


def first_ready_discard_plain(hand: Counts, n_melds: int) -> int | None:
    """`first_ready_discard` by its definition: the waits after every discard."""
    return next((k for k in range(N_SUITED) if hand[k] and _ready_after(hand, n_melds, k)), None)


def yaobai_set(flip: int, mode: str) -> tuple[int, ...]:
    """AS-S7 step 2: the 摇摆 tiles of a flipped tile, within its suit, 9 → 1 wrapping."""
    base, n = flip - flip % 9, flip % 9

    def nxt(i: int) -> int:
        return (i + 1) % 9

    if mode == "adjacent":
        ys = ((n - 1) % 9, nxt(n))
    elif mode == "next_two":
        ys = (nxt(n), nxt(nxt(n)))
    else:
        ys = (nxt(n),)
    return tuple(base + y for y in ys)


class Anshun(ClaimGame):
    id = "anshun"
    Rules = AnshunRules
    presets: ClassVar[dict[str, dict[str, Any]]] = {"standard": {}}
    P = "AS"
    red = 0
    R: ClassVar[dict[str, str]] = {
        "act": "AS-R2", "discard": "AS-R3", "window": "AS-R4", "claim_hu": "AS-R5", "peng": "AS-R7",
        "zhi": "AS-R8", "an": "AS-R9", "bu": "AS-R10", "self_hu": "AS-R14", "rob": "AS-R11", "draw": "AS-R15",
    }  # fmt: skip

    def has_ting(self, rules: Any) -> bool:
        return bool(rules.tian_ting)

    def multi_hu(self, rules: Any) -> bool:
        return bool(rules.yi_pao_duo_xiang)

    def _meld_tiles(self, s: Table, seat: int) -> tuple[int, ...]:
        return tuple(m.tile for m in s.melds[seat])

    def wins(self, s: Table, seat: int, counts: Counts, how: str) -> bool:
        return evaluate(counts, self._meld_tiles(s, seat)) is not None

    def bot_may_hu_on(self, s: Table, seat: int, tile: int, how: str) -> bool:
        """`wins` of the hand plus `tile`: AS-H1 (standard shape or seven pairs, a four as two
        pairs) is `core.is_win`, so a bit of the hand's win mask (memoised per hand object)."""
        return bool(win_mask(s.hands[seat], len(s.melds[seat])) >> tile & 1)

    def bot_claim_refused(self, s: Table, seat: int, how: str) -> bool:
        """AS-R6: the 平胡 discard wins `check_claim_hu_after` refuses (`_ping_hu_refused`)."""
        return how == "dianpao" and self._ping_hu_refused(s, seat, _add(s.hands[seat], s.tile, 1))

    def pattern(self, s: Table, seat: int, counts: Counts) -> tuple[str, int]:
        res = evaluate(counts, self._meld_tiles(s, seat))
        return res if res is not None else ("ping_hu", 1)

    def ready_waits(self, s: Table, seat: int) -> list[int]:
        """AS-H4: tiles that complete seat's 13 tiles (a kind all 4 of which it holds is no wait)."""
        h = s.hands[seat]
        held = tuple(a + b for a, b in zip(h, meld_counts(s.melds[seat]), strict=True))
        return waits(h, len(s.melds[seat]), held=held, seven_pairs=True)

    def call_value(self, s: Table, seat: int) -> int:
        """AS-H4: V = max over waits of p (+ T for a tian-ting seat); 0 if not ready."""
        ws = self.ready_waits(s, seat)
        if not ws:
            return 0
        t_units = s.rules.tian_ting_units if s.ting[seat] else 0
        return max(self.pattern(s, seat, tuple(c + (k == t) for k, c in enumerate(s.hands[seat])))[1] for t in ws) + t_units

    # ------------------------------------------------------------ legality
    def check(self, s: Table, ev: Any) -> None:
        t = ev.type
        seat = ev.__dict__.get("seat")
        if s.ting_pending is not None and not (t == "discard" and seat == s.ting_pending):
            raise Illegal("illegal_move", f"AS-R12 seat {s.ting_pending} declared 天听 and must discard now, not {t}")
        locked = seat is not None and s.ting[seat]
        if locked and t in ("peng", "gang"):
            # a claim of another seat's discard is a forbidden claim; an own-turn an/bu gang a locked
            # seat may not make is an own-turn action (docs/rules/README.md)
            claim = t == "peng" or ev.__dict__.get("kind") == "zhi"
            code = "illegal_claim" if claim else "illegal_move"
            raise Illegal(code, f"AS-R13 seat {seat} is tian-ting: its 13 tiles are locked, no {t}")
        if t == "discard" and locked and s.phase == "act" and s.turn == seat:
            k = tile_id(ev.tile)
            if not s.drew or k != s.tile:
                drawn = tile_name(s.tile) if s.drew and s.tile is not None else "nothing"
                raise Illegal("illegal_move", f"AS-R13 tian-ting seat {seat} must discard the tile it drew ({drawn}), not {ev.tile}")
        if t in ("peng", "gang") and s.wall.remaining < 1:
            raise Illegal("illegal_move", f"AS-R16 no {t} with no tile left in the wall")
        if t == "ting":
            if s.phase != "act" or s.turn != seat:
                raise Illegal("not_your_turn", f"AS-R12 seat {seat} is not to act and cannot declare 天听")
            if s.ting[seat]:
                raise Illegal("illegal_move", f"AS-R12 seat {seat} already declared 天听")
            if s.has_discarded[seat] or s.any_claim or not (s.drew or s.first):
                raise Illegal("illegal_move", f"AS-R12 天听 only before a seat's first discard and before any peng or gang (seat {seat})")

    def _ting(self, s: Table, ev: Any, t: int | None) -> Table:
        return replace(s, ting_pending=ev.seat)

    def _ping_hu_refused(self, s: Table, seat: int, counts: Counts) -> bool:
        """AS-R6: a winning `counts` of seat on the discard is a 平胡 that may not win on it (no
        闷豆/转弯豆 of its own, no 热炮 of one, the discarder not tian-ting, `restricted` rules)."""
        if s.rules.ping_hu_dian_pao == "always" or s.ting[seat]:
            return False
        if self.pattern(s, seat, counts)[0] != "ping_hu":
            return False
        own = any(k.seat == seat and k.kind in ("an", "bu") and k.confirmed for k in s.kongs)
        hot = s.claim_hot is not None and s.kongs[s.claim_hot].kind in ("an", "bu")
        return not (own or hot or s.ting[s.turn])

    def check_claim_hu_after(self, s: Table, seat: int, counts: Counts, how: str) -> None:
        if how != "dianpao" or not self._ping_hu_refused(s, seat, counts):
            return
        raise Illegal(
            "illegal_claim",
            f"AS-R6 平胡 cannot win on seat {s.turn}'s discard {tile_name(s.tile)}: seat {seat} has no 闷豆/转弯豆, "
            "the discard is no 闷豆/转弯豆 热炮 and the discarder is not tian-ting",
        )

    def after(self, s: Table, ev: Any, before: Table) -> Table:
        t = ev.type
        if t == "discard":
            seat = ev.seat
            # one copy of the state with every change of the discard (a field already holding its
            # new value is not rewritten)
            ch: dict[str, Any] = {} if s.has_discarded[seat] else {"has_discarded": _set(s.has_discarded, seat, True)}
            if before.ting_pending == seat:
                if not self.ready_waits(s, seat):
                    raise Illegal("illegal_move", f"AS-R12 seat {seat} declared 天听 but after discarding {ev.tile} its 13 tiles are not ready")
                ch["ting"] = _set(s.ting, seat, True)
                ch["ting_pending"] = None
            ch["claim_hot"] = before.hot_pending[seat]
            if s.hot_pending[seat] is not None:
                ch["hot_pending"] = _set(s.hot_pending, seat, None)
            if ev.tile == YAO_JI_NAME and s.first_1s is None:  # = tile_id(ev.tile) == YAO_JI
                ch["first_1s"] = (seat, ev.seq, False)
            if s.wall.remaining == 0:
                ch["done"] = True  # AS-R16: 荒庄 unless a hu on this discard follows
            s = replace(s, **ch)
        elif t == "draw":
            if s.repl_kong is not None:
                s = replace(s, hot_pending=_set(s.hot_pending, ev.seat, s.repl_kong))
        elif t in ("peng", "gang", "hu") and before.phase == "claim":
            f = s.first_1s
            if f is not None and f[1] == before.claim_seq and not f[2]:
                s = replace(s, first_1s=(f[0], f[1], True))
        return s

    # ------------------------------------------------------------ settlement
    def settle(self, s: Table) -> Settlement:
        r: AnshunRules = s.rules
        b = s.base
        items: list[dict[str, Any]] = []
        winners = [w.seat for w in s.wins]
        if not s.wins:
            vals = [self.call_value(s, j) for j in range(4)]
            ready = [j for j in range(4) if vals[j] > 0]
            if 0 < len(ready) < 4:
                for j in ready:
                    for o in range(4):
                        if o not in ready:
                            items.append(item("jiao_pai", j, o, vals[j] * b, value=vals[j]))
            return Settlement.from_items(4, items, [])
        void: set[int] = set()
        first_claim = True
        held: list[list[int]] = []
        for j in range(4):
            held.append([a + c for a, c in zip(s.hands[j], meld_counts(s.melds[j]), strict=True)])
        for w in s.wins:
            counts = s.hands[w.seat] if w.how == "zimo" else tuple(c + (k == w.tile) for k, c in enumerate(s.hands[w.seat]))
            if w.how != "zimo" and first_claim:
                held[w.seat][w.tile] += 1
                first_claim = False
            pid, p = self.pattern(s, w.seat, counts)
            tt = r.tian_ting_units if s.ting[w.seat] else 0
            bval = p + tt
            z = 2 * bval
            if not r.fan_fan and not s.ting[w.seat]:
                z = 2 if p == 1 else p
            fans = {pid: p}
            if s.ting[w.seat]:
                fans["tian_ting"] = tt
            detail = {"fans": fans, "fan": bval, "tile": tile_name(w.tile), "seq": w.seq}
            if w.how == "zimo":
                for o in range(4):
                    if o == w.seat:
                        continue
                    items.append(item("hu_zimo", w.seat, o, z * b, **detail, zimo_value=z))
                    if s.ting[o] and r.sha_bao_units:
                        items.append(item("sha_bao", w.seat, o, r.sha_bao_units * b, seq=w.seq))
            elif w.how == "dianpao" and w.frm is not None:
                k = w.frm
                items.append(item("hu_dianpao", w.seat, k, bval * b, **detail))
                if s.ting[k] and r.sha_bao_units:
                    items.append(item("sha_bao", w.seat, k, r.sha_bao_units * b, seq=w.seq))
                if w.hot is not None:
                    kg = s.kongs[w.hot]
                    void.add(w.hot)
                    h = {"an": 3 * r.men_dou_units, "bu": 3 * r.zhuan_wan_dou_units, "zhi": r.dian_dou_units}[kg.kind]
                    if h:
                        items.append(item("re_pao", w.seat, k, h * b, kong=kg.kind, kong_tile=tile_name(kg.tile), seq=w.seq))
            elif w.frm is not None:
                amount = 3 * z if r.qiang_gang_payment == "bao_san_jia" else z
                items.append(item("hu_qianggang", w.seat, w.frm, amount * b, **detail, zimo_value=z))
        # AS-S6 豆
        for i, kg in enumerate(s.kongs):
            if i in void or not kg.confirmed:
                continue
            reason = DOU_REASON[kg.kind]
            if kg.kind == "zhi":
                if r.dian_dou_units and kg.frm is not None:
                    items.append(item(reason, kg.seat, kg.frm, r.dian_dou_units * b, tile=tile_name(kg.tile), seq=kg.seq))
                continue
            units = r.men_dou_units if kg.kind == "an" else r.zhuan_wan_dou_units
            if units:
                for o in range(4):
                    if o != kg.seat:
                        items.append(item(reason, kg.seat, o, units * b, tile=tile_name(kg.tile), seq=kg.seq))
        # AS-S7 chickens
        flip = s.wall.peek_head() if s.wall.remaining >= 1 else None
        ys = yaobai_set(flip, r.yaobai_ji_mode) if flip is not None else ()
        collect = set(range(4))
        if r.ji_requires_ting:
            collect = {j for j in range(4) if j in winners or self.ready_waits(s, j)}
        jd = {"flip": tile_name(flip) if flip is not None else None, "yaobai": tile_names(ys)}

        def value(t: int) -> int:
            v = (t == YAO_JI) + (t in ys)
            return min(v, 1) if (t == YAO_JI and not r.jin_ji) else v

        for x in range(4):
            if x not in collect:
                continue
            for t in range(N_SUITED):
                n = held[x][t]
                if not n:
                    continue  # no chicken held: nothing to value
                v = value(t)
                if v:
                    for o in range(4):
                        if o != x:
                            items.append(item("ji", x, o, n * v * b, tile=tile_name(t), count=n, value=v, **jd))
        f1 = s.first_1s
        if r.chong_feng_ji and f1 is not None and not f1[2] and f1[0] in collect:
            jin = r.jin_ji and YAO_JI in ys
            amt = 3 if jin else 2
            for o in range(4):
                if o != f1[0]:
                    items.append(item("chong_feng_ji", f1[0], o, amt * b, tile="1s", jin=jin, seq=f1[1], **jd))
        return Settlement.from_items(4, items, winners)

    next_dealer_rule = "AS-R17"

    def next_dealer(self, s: Table) -> int | None:
        """AS-R17 `winner`: the winner; the discarder / robbed seat after several; same dealer at 荒庄."""
        if not s.done or s.rules.dealer_rule != "winner":
            return None
        if len(s.wins) > 1:
            return s.wins[0].frm
        return s.wins[0].seat if s.wins else s.dealer

    def turn_phase(self, state: Table) -> tuple[int | None, str]:
        """The `turn` and `phase` of `view(state)`, read straight from the state (the live referee)."""
        return (None if state.done else state.turn), ("end" if state.done else state.phase)

    def view(self, s: Table) -> dict[str, Any]:
        v = super().view(s)
        v["tian_ting"] = [j for j in range(4) if s.ting[j]]
        v["next_dealer"] = self.next_dealer(s)
        if s.done and s.wins and s.wall.remaining:
            flip = s.wall.peek_head()
            v["flip"] = tile_name(flip)
            v["yaobai"] = tile_names(yaobai_set(flip, s.rules.yaobai_ji_mode))
        return v

    # ------------------------------------------------------------ bot
    def bot_special(self, s: Table, rng: random.Random) -> Iterator[dict[str, Any]]:
        """天听 when a discard leaves the hand ready at the first turn; then that discard."""
        j = s.turn
        if s.ting[j]:
            if s.drew and s.tile is not None:
                yield {"type": "discard", "seat": j, "tile": tile_name(s.tile)}
            return
        if s.ting_pending != j and not (s.rules.tian_ting and not s.has_discarded[j] and not s.any_claim):
            return
        ready = first_ready_discard(s.hands[j], len(s.melds[j]))
        if ready is None:
            return
        if s.ting_pending == j:
            yield {"type": "discard", "seat": j, "tile": tile_name(ready)}
        else:
            yield {"type": "ting", "seat": j}


    # ------------------------------------------------------------ calculator
    def hand(self, query: dict[str, Any]) -> dict[str, Any]:
        rules = self.parse_rules(query.get("rules") or {})
        tiles, melds = read_hand(query, "AS-C1")
        if any(t >= N_SUITED for t in tiles) or any(t >= N_SUITED for _, t in melds):
            raise ValueError("AS-C1 anshun has no 7z")
        n = len(tiles) + 3 * len(melds)
        counts = tuple(sum(1 for t in tiles if t == k) for k in range(N_KINDS))
        meld_tiles = tuple(t for _, t in melds)
        situation = str(query.get("situation") or "")
        tt = rules.tian_ting_units if "tian_ting" in situation else 0
        if n == 14:
            res = evaluate(counts, meld_tiles)
            if res is None:
                return {"win": False, "fans": {}, "fan": 0}
            pid, p = res
            fans = {pid: p}
            if tt:
                fans["tian_ting"] = tt
            out: dict[str, Any] = {"win": True, "fans": fans, "fan": p + tt}
            if query.get("zimo"):
                z = 2 * (p + tt)
                if not rules.fan_fan and not tt:
                    z = 2 if p == 1 else p
                out["zimo_value"] = z
            return out
        if n == 13:
            held = list(counts)
            for kind, t in melds:
                held[t] += 4 if kind.startswith("gang") else 3
            ws = waits(counts, len(melds), held=tuple(held), seven_pairs=True)
            best = max((evaluate(tuple(c + (k == t) for k, c in enumerate(counts)), meld_tiles) or ("", 0))[1] for t in ws) if ws else 0
            return {"ready": bool(ws), "waits": tile_names(ws), "best_fan": best + (tt if ws else 0)}
        raise ValueError(f"AS-H1 a hand has 13 or 14 tiles counting each meld as 3, got {n}")


ANSHUN = Anshun()
