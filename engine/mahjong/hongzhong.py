"""Hongzhong mahjong (`hongzhong`, docs/rules/hongzhong.md): 112 tiles, 红中 wild, self-draw only, birds.

Flow (HZ-R*) on the shared claim flow (engine/mahjong/claimflow.py); wild win check by the per-suit
need tables of engine/mahjong/wild.py (HZ-H2, HZ-H3). Settlement HZ-S1..S7 as itemised lines:
kongs `gang_bu` / `gang_an` / `gang_zhi` (+ `huang_zhuang_refund`), wins with `kind` = the win
kind id of HZ-H5 (`zi_mo`, `si_hong_zhong`, `qiang_gang_hu`, `qi_dui`), `reason` = the HZ-S7
reason (`hu_zimo`, `hu_qianggang`), `fans` {} / `fan` 0, `birds`, `hits`, `r`, `share`, `seq`.

Choices where the rule file is silent:
- A draw when none is allowed (into the reserve) is `wrong_draw` (HZ-C4); a hu on a discard, a
  rob with `qiang_gang_hu` off and a peng/zhi gang of 红中 in wild mode are `illegal_claim`; an
  an/bu gang of 红中, a late bu gang (HZ-R9), a gang with R <= N, a forbidden 红中 discard and any
  event logged instead of a compulsory hu (HZ-R1, HZ-R10, HZ-R12) are `illegal_move`.
- The win kind is `si_hong_zhong` for HZ-R1 (and for an any_time four-红中 hand that has no
  other winning shape), `qi_dui` for a hand that only wins as seven pairs, else `zi_mo` /
  `qiang_gang_hu`.
- The last drawable tile (R = N after the draw) without `forced_zimo`: the hand counts as 臭庄 at
  once, but a `hu` by the drawer may still follow (then it is a win).
- Bot (`bot_action`, the shared engine/mahjong/bot.py with hooks): wins whenever it can (the
  compulsory self-draw and every rob), declares every legal kong, pengs when it lowers its shanten,
  keeps 红中 (the wilds are set aside), discards by the shared bot's rule on its natural tiles
  (shanten; live improving tiles counted once it is at most one step from ready).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from engine.base import GameRules, Settlement, item
from engine.errors import Illegal
from engine.mahjong.claimflow import ClaimGame, Counts, Table, Win, replace
from engine.mahjong.wild import is_seven_pairs, min_wilds, split_wild, waits
from engine.tiles import N_KINDS, RED, number_of, parse_hand, tile_id, tile_name, tile_names


class HongzhongRules(GameRules):
    """Section 6 of docs/rules/hongzhong.md."""

    hongzhong_wild: bool = Field(True, description="红中 is wild (HZ-H2, HZ-R14)")
    zhama: Annotated[int, Field(ge=2, le=4)] = Field(4, description="bird count N, also the wall reserve (HZ-C4)")
    wu_hongzhong_jia_ma: bool = Field(True, description="+1 bird when the winner holds no 红中 (HZ-S2)")
    si_hongzhong: Literal["off", "initial", "any_time"] = Field("initial", description="four-红中 instant win (HZ-R1)")
    forced_zimo: bool = Field(True, description="a possible self-draw win must be taken (HZ-R10)")
    qiang_gang_hu: bool = Field(True, description="robbing a bu gang allowed (HZ-R11)")
    qi_dui: bool = Field(False, description="seven pairs win (HZ-H3)")
    zhi_gang_payment: Literal["discarder_3", "each_1"] = Field("discarder_3", description="who pays a zhi gang (HZ-S1)")
    bu_gang_units: Annotated[int, Field(ge=1)] = Field(1, description="bu gang: paid by each other seat (HZ-S1)")
    an_gang_units: Annotated[int, Field(ge=1)] = Field(2, description="an gang: paid by each other seat (HZ-S1)")
    zimo_units: Annotated[int, Field(ge=1)] = Field(2, description="self-draw share before birds (HZ-S3)")
    bird_units: Annotated[int, Field(ge=0)] = Field(2, description="per bird hit, per loser (HZ-S3)")
    bu_gang_immediate: bool = Field(True, description="bu gang only with the tile just drawn (HZ-R9)")
    hongzhong_discard: bool = Field(True, description="wild mode: may a 红中 be discarded (HZ-R4)")
    replacement_from: Literal["head", "tail"] = Field("head", description="kong replacement draws (HZ-C4)")
    huang_zhuang_huang_gang: bool = Field(False, description="refund every kong at 臭庄 (HZ-S6)")
    dian_gang_hua_bao: bool = Field(False, description="kong feeder pays a win on its kong's replacement (HZ-S5)")


HIT_NUMBERS = frozenset({1, 5, 9})
RED_NAME = tile_name(RED)
"""`7z`, the name of 红中."""
KONG_REASON = {"bu": "gang_bu", "an": "gang_an", "zhi": "gang_zhi"}


def is_hit(t: int) -> bool:
    """HZ-S2: a suited 1, 5 or 9, or 红中 (counted as 1)."""
    return t == RED or number_of(t) in HIT_NUMBERS


def bird_count(rules: HongzhongRules, r: int, left: int) -> int:
    """HZ-S2: n = N (+1 without 红中), cut to the tiles left."""
    n = rules.zhama + (1 if r == 0 and rules.wu_hongzhong_jia_ma else 0)
    return min(n, left)


def share(rules: HongzhongRules, hits: int) -> int:
    """HZ-S3: what each loser pays for a self-draw (2 + 2h)."""
    return rules.zimo_units + rules.bird_units * hits


def hand_wins(rules: HongzhongRules, counts: Counts, n_melds: int, red_total: int = 0) -> str | None:
    """Win kind of concealed `counts` (winning tile included) with n_melds melds, or None (HZ-H1..H4)."""
    b = bytes(counts)
    if sum(b) + 3 * n_melds != 14:
        return None
    nat, w = (b[:RED], b[RED]) if rules.hongzhong_wild and len(b) > RED else (b, 0)  # the 7z wilds set aside
    # = is_win(nat, w): |nat| + w = 14 − 3·melds ≡ 2 (mod 3), so only the wild count decides
    if min_wilds(nat) <= w:
        return "zi_mo"
    if rules.qi_dui and n_melds == 0 and is_seven_pairs(nat, w):
        return "qi_dui"
    if rules.si_hongzhong == "any_time" and red_total == 4:
        return "si_hong_zhong"
    return None


class Hongzhong(ClaimGame):
    id = "hongzhong"
    Rules = HongzhongRules
    presets: ClassVar[dict[str, dict[str, Any]]] = {"standard": {}}
    P = "HZ"
    red = 4
    R: ClassVar[dict[str, str]] = {
        "act": "HZ-R3", "discard": "HZ-R4", "window": "HZ-R5", "claim_hu": "HZ-R5", "peng": "HZ-R6",
        "zhi": "HZ-R7", "an": "HZ-R8", "bu": "HZ-R9", "self_hu": "HZ-R10", "rob": "HZ-R11", "draw": "HZ-R12",
    }  # fmt: skip

    def reserve(self, rules: Any) -> int:
        return int(rules.zhama)

    def _red_total(self, s: Table, seat: int, counts: Counts) -> int:
        """The seat's 红中: concealed (`counts`) and in its melds."""
        red = counts[RED]
        for m in s.melds[seat]:
            if m.tile == RED:
                red += m.size
        return red

    _last_win: tuple[Any, ...] = ()
    """(counts, rules, melds, red total, answer) of the last `win_kind`: a drawn hand is asked by
    the reducer (forced_zimo, `after`) and then by the bot (its hu), the same tuple both times."""

    def win_kind(self, s: Table, seat: int, counts: Counts) -> str | None:
        n, red = len(s.melds[seat]), self._red_total(s, seat, counts)
        last = self._last_win
        if last and last[0] is counts and last[1] is s.rules and last[2] == n and last[3] == red:
            return last[4]  # type: ignore[no-any-return]
        kind = hand_wins(s.rules, counts, n, red)
        if type(counts) is tuple:  # immutable: its identity stands for its value
            self._last_win = (counts, s.rules, n, red, kind)
        return kind

    def wins(self, s: Table, seat: int, counts: Counts, how: str) -> bool:
        return self.win_kind(s, seat, counts) is not None

    def multi_hu(self, rules: Any) -> bool:
        return True

    def on_start(self, s: Table) -> Table:
        r = s.rules
        if r.si_hongzhong != "off":
            for seat in range(4):
                if s.hands[seat][RED] == 4:
                    return replace(s, forced_seat=seat, extra={"four_red": seat})
        if r.forced_zimo and self.wins(s, s.dealer, s.hands[s.dealer], "zimo"):
            return replace(s, forced_seat=s.dealer)
        return s

    def continues_after_end(self, s: Table, ev: Any) -> bool:
        if getattr(ev, "type", None) == "hu" and s.phase == "rob" and s.wins:
            return True
        return ev.type == "hu" and s.phase == "act" and not s.wins and s.drew

    def check(self, s: Table, ev: Any) -> None:
        r = s.rules
        t = ev.type
        tile = ev.__dict__.get("tile")
        # `_apply` read the tile's kind (a KeyError for no tile): 红中 is the name `7z` (tile_id 27)
        red = tile == RED_NAME
        if s.forced_seat is not None and not (t == "hu" and ev.seat == s.forced_seat):
            rule = "HZ-R1 four 红中 dealt" if "four_red" in s.extra and s.seq == 1 else "HZ-R10 forced_zimo"
            raise Illegal("illegal_move", f"{rule}: seat {s.forced_seat} must hu now, not {t}")
        if s.done and s.phase == "act" and not (t == "hu" and ev.seat == s.turn):
            raise Illegal("illegal_move", f"HZ-R12 the last drawable tile was drawn: only a hu by seat {s.turn} may follow")
        wild = r.hongzhong_wild
        if t == "discard" and wild and red and not r.hongzhong_discard:
            raise Illegal("illegal_move", "HZ-R4 hongzhong_discard is off: a 红中 may not be discarded")
        if t in ("peng", "gang") and wild and red:
            code = "illegal_claim" if t == "peng" or ev.kind == "zhi" else "illegal_move"
            raise Illegal(code, f"HZ-R14 红中 is wild: it is never part of a {t}")
        if t == "gang":
            left = s.wall.remaining
            if left <= r.zhama and (s.phase == "act" or ev.kind == "zhi"):
                rule = self.R[ev.kind] if ev.kind in ("zhi", "an", "bu") else "HZ-R7"
                raise Illegal("illegal_move", f"{rule} no kong with {left} tiles left (reserve {r.zhama})")
            if ev.kind == "bu" and s.phase == "act" and s.turn == ev.seat and not s.after_peng:
                if not s.drew:
                    raise Illegal("illegal_move", "HZ-R9 a bu gang needs the seat's own draw this turn")
                if r.bu_gang_immediate and s.tile != (tile_id(tile) if tile is not None else None):
                    raise Illegal("illegal_move", f"HZ-R9 late bu gang of {tile}: it must be declared on the turn its 4th copy is drawn")
        if t == "hu" and s.phase == "rob" and not r.qiang_gang_hu:
            raise Illegal("illegal_claim", "HZ-R11 qiang_gang_hu is off: a kong cannot be robbed")

    def check_claim_hu(self, s: Table, seat: int, counts: Counts, how: str) -> None:
        if how == "dianpao":
            raise Illegal("illegal_claim", f"HZ-R5 no win on a discard (不能放炮): seat {seat} cannot hu {tile_name(s.tile)}")

    def _hu(self, s: Table, ev: Any, t: int) -> Table:
        four = s.extra.get("four_red")
        if four is not None and s.seq == 1 and ev.seat == four:
            if t != RED:
                raise Illegal("illegal_move", f"HZ-R1 the four-红中 win is hu {{{four}, 7z}}, not {tile_name(t)}")
            return replace(s, wins=(Win(four, RED, "si_hong_zhong", None, ev.seq),), done=True, forced_seat=None)
        return super()._hu(s, ev, t)

    def bot_may_hu(self, s: Table, seat: int, counts: Counts, how: str) -> bool:
        if s.seq == 1 and "four_red" in s.extra:
            return True  # HZ-R1: the four-红中 win is no hand shape
        return how != "dianpao" and self.wins(s, seat, counts, how)  # HZ-R5: no win on a discard

    def bot_may_hu_on(self, s: Table, seat: int, tile: int, how: str) -> bool:
        """`bot_may_hu` of the hand plus `tile`, without the hand when the claim is a discard's."""
        if how == "dianpao":
            return s.seq == 1 and "four_red" in s.extra  # HZ-R5: no win on a discard
        return super().bot_may_hu_on(s, seat, tile, how)

    def after(self, s: Table, ev: Any, before: Table) -> Table:
        if s.forced_seat is not None:  # `s` is this apply's own copy: no second copy when already None
            s = replace(s, forced_seat=None)
        if s.wins:
            return s
        if ev.type == "draw":
            r = s.rules
            seat = s.turn
            can = self.wins(s, seat, s.hands[seat], "zimo")
            if can and r.forced_zimo:
                return replace(s, forced_seat=seat)
            if s.wall.remaining <= r.zhama:
                return replace(s, done=True)  # HZ-R12: 臭庄 (a non-forced win may still follow)
        return s

    # ------------------------------------------------------------ settlement
    def settle(self, s: Table) -> Settlement:
        r: HongzhongRules = s.rules
        b = s.base
        items: list[dict[str, Any]] = []
        for k in s.kongs:
            if not k.confirmed:
                continue
            reason = KONG_REASON[k.kind]
            lines: list[tuple[int, int]] = []
            if k.kind == "bu":
                lines = [(o, r.bu_gang_units) for o in range(4) if o != k.seat]
            elif k.kind == "an":
                lines = [(o, r.an_gang_units) for o in range(4) if o != k.seat]
            elif r.zhi_gang_payment == "discarder_3" and k.frm is not None:
                lines = [(k.frm, 3)]  # HZ-S1: the 放杠 seat alone pays 3 (not tied to bu_gang_units)
            else:
                lines = [(o, 1) for o in range(4) if o != k.seat]  # HZ-S1 each_1
            for payer, units in lines:
                items.append(item(reason, k.seat, payer, units * b, tile=tile_name(k.tile), seq=k.seq))
                if not s.wins and r.huang_zhuang_huang_gang:
                    items.append(item("huang_zhuang_refund", payer, k.seat, units * b, tile=tile_name(k.tile), seq=k.seq))
        left = s.wall.remaining
        head = s.wall.tiles[s.wall.head : s.wall.tail]
        if s.wins and s.wins[0].how == "qianggang":
            revealed = head[: min(left, r.zhama + 1)]
        else:
            revealed = head
        for w in s.wins:
            counts = s.hands[w.seat] if w.how != "qianggang" else tuple(c + (i == w.tile) for i, c in enumerate(s.hands[w.seat]))
            rr = self._red_total(s, w.seat, counts)
            n = min(bird_count(r, rr, left), len(revealed))
            birds = revealed[:n]
            h = sum(1 for t in birds if is_hit(t))
            sh = share(r, h)
            if w.how == "si_hong_zhong":
                kind = "si_hong_zhong"
            elif w.how == "qianggang":
                kind = "qiang_gang_hu"
            else:
                kind = self.win_kind(s, w.seat, counts) or "zi_mo"
            detail = {
                "fans": {},
                "fan": 0,
                "reason": "hu_qianggang" if w.how == "qianggang" else "hu_zimo",
                "tile": tile_name(w.tile),
                "birds": tile_names(birds),
                "hits": h,
                "r": rr,
                "share": sh,
                "seq": w.seq,
            }
            if w.how == "qianggang" and w.frm is not None:
                items.append(item(kind, w.seat, w.frm, 3 * sh * b, **detail))
                continue
            feeder = None
            if r.dian_gang_hua_bao and w.kong is not None and w.kong < len(s.kongs):
                kg = s.kongs[w.kong]
                if kg.kind == "zhi":
                    feeder = kg.frm
            if feeder is not None:
                items.append(item(kind, w.seat, feeder, 3 * sh * b, **detail, bao=True))
            else:
                for o in range(4):
                    if o != w.seat:
                        items.append(item(kind, w.seat, o, sh * b, **detail))
        return Settlement.from_items(4, items, [w.seat for w in s.wins])

    next_dealer_rule = "HZ-R15"

    def next_dealer(self, s: Table) -> int | None:
        """HZ-R15: the winner; the robbed seat after several robbers; the last drawer after 臭庄."""
        if not s.done:
            return None
        if len(s.wins) > 1:
            return s.wins[0].frm
        if s.wins:
            return s.wins[0].seat
        return s.last_drawer

    def turn_phase(self, state: Table) -> tuple[int | None, str]:
        """The `turn` and `phase` of `view(state)`, read straight from the state (the live referee)."""
        return (None if state.done else state.turn), ("end" if state.done else state.phase)

    def view(self, s: Table) -> dict[str, Any]:
        v = super().view(s)
        v["reserve"] = s.rules.zhama
        v["wild"] = "7z" if s.rules.hongzhong_wild else None
        v["next_dealer"] = self.next_dealer(s)
        if s.done and s.wins:
            v["birds"] = {it["seat"]: {"birds": it["birds"], "hits": it["hits"]} for it in self.settle(s).items if "birds" in it}
        return v

    # ------------------------------------------------------------ bot
    def bot_special(self, s: Table, rng: random.Random) -> Iterator[dict[str, Any]]:
        if s.forced_seat is not None and "four_red" in s.extra and s.seq == 1:
            yield {"type": "hu", "seat": s.forced_seat, "tile": "7z"}

    def bot_natural(self, s: Table, counts: Counts) -> list[int]:
        c = list(counts)
        if s.rules.hongzhong_wild:
            c[RED] = 0  # wilds are kept, never planned with or discarded
        return c

    # ------------------------------------------------------------ calculator
    def hand(self, query: dict[str, Any]) -> dict[str, Any]:
        rules = self.parse_rules(query.get("rules") or {})
        tiles, melds = read_hand(query, "HZ-C1")
        n = len(tiles) + 3 * len(melds)
        counts = tuple(sum(1 for t in tiles if t == k) for k in range(N_KINDS))
        red_melds = sum(4 if kind.startswith("gang") else 3 for kind, t in melds if t == RED)
        if rules.hongzhong_wild and red_melds:
            raise ValueError("HZ-R14 红中 is wild: it cannot be in a meld")
        if n == 14:
            kind = hand_wins(rules, counts, len(melds), counts[RED] + red_melds)
            rr = counts[RED] + red_melds
            out: dict[str, Any] = {"win": kind is not None, "fans": {}, "fan": 0}
            if kind is not None:
                out["kind"] = "qiang_gang_hu" if "qiang_gang_hu" in str(query.get("situation") or "") else kind
                out["r"] = rr
                out["birds"] = bird_count(rules, rr, 99)
            return out
        if n == 13:
            nat, w = split_wild(tiles, rules.hongzhong_wild)
            ws = waits(nat, w, wild_mode=rules.hongzhong_wild, qi_dui=rules.qi_dui, melds=len(melds))
            return {"ready": bool(ws), "waits": tile_names(ws), "best_fan": 0}
        raise ValueError(f"HZ-H1 a hand has 13 or 14 tiles counting each meld as 3, got {n}")


def read_hand(query: dict[str, Any], rule: str) -> tuple[list[int], list[tuple[str, int]]]:
    """The calculator's concealed tiles (the winning tile included) and melds of a `hand` query.

    `win_tile` with 14 tiles given (melds as 3) names the one of them that completed the hand, as the
    Sichuan calculator reads it; with 13 it is added. More than four copies of a kind, concealed and
    in melds together (a gang counts 4), is refused: the deck has four (`rule`: HZ-C1 / AS-C1)."""
    tiles = parse_hand(query.get("cards", ""))
    melds = parse_melds(query.get("melds"))
    win_tile = query.get("win_tile")
    if win_tile:
        wt = parse_hand(str(win_tile))
        if len(wt) != 1:
            raise ValueError(f"win_tile must be one tile, got {win_tile!r}")
        if not (len(tiles) + 3 * len(melds) == 14 and wt[0] in tiles):
            tiles.extend(wt)
    held = [0] * N_KINDS
    for t in tiles:
        held[t] += 1
    for kind, t in melds:
        held[t] += 4 if kind.startswith("gang") else 3
    over = [tile_name(k) for k in range(N_KINDS) if held[k] > 4]
    if over:
        raise ValueError(f"{rule} there are four of each tile: {', '.join(over)} counted more than 4 times (hand and melds)")
    return tiles, melds


def parse_melds(raw: Any) -> list[tuple[str, int]]:
    """`peng:5p,gang_an:9m` (or a list of such strings) → [(kind, tile)]; ValueError on bad input."""
    if not raw:
        return []
    parts = raw if isinstance(raw, list) else str(raw).split(",")
    out = []
    for p in parts:
        p = str(p).strip()
        if not p:
            continue
        kind, _, t = p.partition(":")
        if kind not in ("peng", "gang_an", "gang_bu", "gang_zhi", "gang") or not t:
            raise ValueError(f"cannot read meld {p!r} (use peng:5p, gang_an:9m, gang_bu:3s, gang_zhi:1p)")
        try:
            out.append((kind, tile_id(t)))
        except KeyError:
            raise ValueError(f"{t!r} is not a tile") from None
    if len(out) > 4:
        raise ValueError("at most 4 melds")
    return out


HONGZHONG = Hongzhong()
