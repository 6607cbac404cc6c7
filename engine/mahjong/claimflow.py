"""Turn and claim flow shared by `hongzhong` and `anshun` (one hand, ends at the first win).

Both games: four seats, the dealer acts first with 14 tiles, draw / discard / peng / gang
(zhi, bu, an) / hu, a claim window after each discard (hu, peng or zhi gang, else the next seat's
draw: a pass is inferred), a rob window after a bu gang (hu, else the kong seat's replacement draw),
several `hu` on one tile in turn order from the discarder (or the kong seat) + 1. Tiles, the wall,
melds and the win check are the mahjong core's (engine/tiles.py, engine/mahjong/core.py).

`ClaimGame` holds the flow; each game supplies hooks (win check, reserve, extra refusals, the
settlement). The state is a frozen dataclass, replaced on every event (pure reducer).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from itertools import chain
from types import SimpleNamespace
from typing import Any, ClassVar

from engine.base import GameRules, parse_rules
from engine.errors import Illegal
from engine.mahjong.core import Meld, Wall
from engine.mahjong.fastcopy import state_replacer
from engine.mahjong.fastshuffle import shuffle
from engine.tiles import N_KINDS, TILE_ID, TILE_NAME, counts_of, full_set, tile_name, tile_names

Counts = tuple[int, ...]
RULE_ROLES = ("act", "discard", "window", "claim_hu", "peng", "zhi", "an", "bu", "self_hu", "rob", "draw")
"""The steps of the shared flow whose rule numbers differ between hongzhong.md and anshun.md:
the seat to act, a discard, the claim window, a hu on a discard, peng, zhi / an / bu gang, the
self-draw hu, the rob of a bu gang, the draw. Each game maps every role to its own rule id."""
MAHJONG_TYPES = ("draw", "discard", "peng", "gang", "hu", "ting")
GANG_MELD = {"zhi": "gang_zhi", "bu": "gang_bu", "an": "gang_an"}


@dataclass(frozen=True, slots=True)
class Kong:
    """A declared kong: `frm` = feeder of a zhi gang; `confirmed` once it stands (bu: after the rob window)."""

    seat: int
    kind: str  # zhi | bu | an
    tile: int
    frm: int | None
    seq: int
    confirmed: bool = True


@dataclass(frozen=True, slots=True)
class Win:
    """One `hu`: how ∈ zimo | dianpao | qianggang | si_hong_zhong; `frm` = discarder / robbed seat."""

    seat: int
    tile: int
    how: str
    frm: int | None
    seq: int
    kong: int | None = None  # zimo on the replacement draw of this kong (index into kongs)
    hot: int | None = None  # dianpao on a 热炮: the discarder's kong (index into kongs)


@dataclass(frozen=True, slots=True)
class Table:
    """The table after an event. phase ∈ act | claim | rob | replace; `done` = the hand has ended."""

    rules: Any
    base: int
    dealer: int
    hands: tuple[Counts, ...]
    melds: tuple[tuple[Meld, ...], ...]
    discards: tuple[tuple[int, ...], ...]
    wall: Wall
    phase: str
    turn: int
    tile: int | None = None
    drew: bool = False
    first: bool = True
    after_peng: bool = False
    repl_kong: int | None = None  # act: the last draw replaced this kong
    kongs: tuple[Kong, ...] = ()
    wins: tuple[Win, ...] = ()
    seq: int = 1
    last_drawer: int | None = None
    done: bool = False
    claim_seq: int = 0  # seq of the discard / bu gang that opened the window
    # game-specific
    forced_seat: int | None = None  # hongzhong: a seat whose next event must be hu
    ting: tuple[bool, ...] = (False, False, False, False)
    ting_pending: int | None = None
    has_discarded: tuple[bool, ...] = (False, False, False, False)
    any_claim: bool = False
    hot_pending: tuple[int | None, ...] = (None, None, None, None)
    claim_hot: int | None = None
    first_1s: tuple[int, int, bool] | None = None  # (discarder, seq, claimed)
    extra: dict[str, Any] = field(default_factory=dict)


replace = state_replacer(Table)  # `dataclasses.replace`, fast for the ~30-field Table
# the two commonest copies (a draw, a discard) with their new values by position (no keyword dict)
_draw_copy = replace.positional(  # type: ignore[attr-defined]
    "hands", "melds", "kongs", "wall", "phase", "turn", "tile", "drew", "first", "after_peng", "repl_kong",
    "last_drawer", "claim_hot", "seq",
)  # fmt: skip
_discard_copy = replace.positional(  # type: ignore[attr-defined]
    "hands", "discards", "phase", "tile", "drew", "first", "after_peng", "claim_seq", "repl_kong", "seq",
)  # fmt: skip


_KEY_FIELDS = ("seq", "type", "seat", "tile", "kind")
"""The event fields the last-apply memo compares."""


@cache
def _full_deck(red: int) -> tuple[int, ...]:
    """`full_set(3, red)`, built once per count of 7z tiles."""
    return tuple(full_set(3, red))


def _set(t: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    return t[:i] + (v,) + t[i + 1 :]


def _add(c: Counts, k: int, n: int) -> Counts:
    return c[:k] + (c[k] + n,) + c[k + 1 :]


class ClaimGame:
    """The shared flow. Subclasses set id, Rules, presets, prefix, deck and the hooks below."""

    id: str = ""
    seats: tuple[int, ...] = (4,)
    sim_players: int = 4
    Rules: type[GameRules] = GameRules
    presets: ClassVar[dict[str, dict[str, Any]]] = {"standard": {}}
    P: str = ""  # rule-id prefix, "HZ" or "AS"
    red: int = 0  # 7z tiles in the deck
    R: ClassVar[dict[str, str]] = {}
    """The rule id of each step of the shared flow in this game's file (`RULE_ROLES`)."""

    # ------------------------------------------------------------ hooks
    def reserve(self, rules: Any) -> int:
        """Tiles that are never drawn (HZ: the bird count)."""
        return 0

    def wins(self, s: Table, seat: int, counts: Counts, how: str) -> bool:
        """Is `counts` (concealed, winning tile included) with seat's melds a winning hand?"""
        raise NotImplementedError

    def check(self, s: Table, ev: Any) -> None:
        """Game-specific refusals before the generic effect (raise Illegal)."""

    def after(self, s: Table, ev: Any, before: Table) -> Table:
        """Game-specific bookkeeping after the generic effect."""
        return s

    def multi_hu(self, rules: Any) -> bool:
        return True

    # ------------------------------------------------------------ protocol
    @property
    def deal_rule(self) -> str:
        """The rule a dealer that is no seat breaks (HZ-C6 / AS-C6 Dealer)."""
        return f"{self.P}-C6"

    def parse_rules(self, raw: Mapping[str, Any]) -> Any:
        return parse_rules(self.Rules, self.presets, raw)

    def deck(self) -> list[int]:
        """The sorted deck (a new list: `full_set(3, red)`, copied from the one kept)."""
        return list(_full_deck(self.red))

    def deal(self, rules: Any, n_players: int, rng: random.Random, dealer: int = 0) -> dict[str, Any]:
        deck = self.deck()
        shuffle(rng, deck)  # = rng.shuffle(deck)
        hands: list[list[str]] = []
        pos = 0
        for seat in range(n_players):
            k = 14 if seat == dealer else 13
            hands.append(tile_names(sorted(deck[pos : pos + k])))
            pos += k
        return {"hands": hands, "wall": tile_names(deck[pos:])}

    def start(self, started: Any, dealt: Any, rules: Any) -> Table:
        p = self.P
        if dealt.wall is None:
            raise Illegal("bad_deal", f"{p}-C3 the deal has no wall")
        if dealt.bottom is not None or dealt.stacks is not None:
            extra = "bottom" if dealt.bottom is not None else "stacks"
            raise Illegal("bad_deal", f"{p}-C3 a {self.id} deal is hands and wall only, not {extra}")
        try:
            hands = [list(map(TILE_ID.__getitem__, h)) for h in dealt.hands]  # = tile_id of each
            wall = list(map(TILE_ID.__getitem__, dealt.wall))
        except KeyError as e:
            raise Illegal("bad_deal", f"{p}-C1 {e.args[0]!r} is not a tile of this game") from None
        for seat, h in enumerate(hands):
            want = 14 if seat == started.dealer else 13
            if len(h) != want:
                raise Illegal("bad_deal", f"{p}-C3 seat {seat} was dealt {len(h)} tiles, expected {want}")
        allt = sorted([t for h in hands for t in h] + wall)
        if allt != sorted(self.deck()):
            n = len(self.deck())
            raise Illegal("bad_deal", f"{p}-C3 hands plus wall are not the {n}-tile set ({len(allt)} tiles given)")
        s = Table(
            rules=rules,
            base=started.base,
            dealer=started.dealer,
            hands=tuple(counts_of(h) for h in hands),
            melds=((),) * 4,
            discards=((),) * 4,
            wall=Wall.of(wall),
            phase="act",
            turn=started.dealer,
            first=True,
        )
        return self.on_start(s)

    def on_start(self, s: Table) -> Table:
        return s

    def is_finished(self, s: Table) -> bool:
        return s.done

    def continues_after_end(self, s: Table, ev: Any) -> bool:
        """A further `hu` on the same discard / robbed kong, or a win the end left open."""
        if getattr(ev, "type", None) != "hu":
            return False
        if s.phase in ("claim", "rob"):
            return True  # a second hu where only one is allowed is refused by `_hu` (illegal_claim)
        return s.phase == "act" and not s.wins

    # ------------------------------------------------------------ apply
    _last: tuple[Any, ...] = ()
    """(state, event key, result) of the last apply: the bot's trial of its choice and then the
    driver's apply of the same event to the same state cost one reducer step, not two."""

    def apply(self, s: Table, ev: Any) -> Table:
        """The reducer. Pure, so the last result is returned again for the same state object and
        an equal event."""
        key = tuple(map(ev.__dict__.get, _KEY_FIELDS))
        last = self._last
        if last and last[0] is s and last[1] == key:
            return last[2]  # type: ignore[no-any-return]
        new = self._apply(s, ev)
        self._last = (s, key, new)
        return new

    def _apply(self, s: Table, ev: Any) -> Table:
        t = ev.type
        if t not in MAHJONG_TYPES or (t == "ting" and not self.has_ting(s.rules)):
            raise Illegal("wrong_phase", f"{self.P}-R0 {t} is not an event of {self.id}")
        tile = ev.__dict__.get("tile")
        tk = TILE_ID[tile] if tile is not None else None  # = tile_id(tile)
        if tk is not None and tk >= 27 and self.red == 0:
            raise Illegal("not_in_hand", f"{self.P}-C1 {tile} is not a tile of {self.id}")
        self.check(s, ev)
        new = getattr(self, "_" + t)(s, ev, tk)
        if t != "draw" and t != "discard":  # those two write `seq` in their one copy
            new = replace(new, seq=ev.seq)
        return self.after(new, ev, s)

    def has_ting(self, rules: Any) -> bool:
        return False

    def _expected_drawer(self, s: Table) -> tuple[int, bool] | None:
        """(seat, replacement?) of the draw expected now, or None."""
        if s.phase == "claim" and not s.wins:
            return (s.turn + 1) % 4, False
        if s.phase == "rob" and not s.wins:
            return s.turn, True
        if s.phase == "replace":
            return s.turn, True
        return None

    def _draw(self, s: Table, ev: Any, t: int) -> Table:
        p = self.P
        exp = self._expected_drawer(s)
        if exp is None:
            if s.phase == "act" and ev.seat == s.turn:
                raise Illegal("illegal_move", f"{self.R['act']} seat {ev.seat} holds 14 tiles and must act, not draw")
            raise Illegal("not_your_turn", f"{self.R['draw']} seat {ev.seat} may not draw now (seat {s.turn} is to act)")
        seat, repl = exp
        if ev.seat != seat:
            raise Illegal("not_your_turn", f"{self.R['draw']} seat {seat} draws next, not seat {ev.seat}")
        r = self.reserve(s.rules)
        if s.wall.remaining <= r:
            raise Illegal("wrong_draw", f"{self.R['draw']} no tile may be drawn: {s.wall.remaining} left, reserve {r}")
        tail = repl and getattr(s.rules, "replacement_from", "head") == "tail"
        want = s.wall.peek(tail)
        if want != t:
            end = "tail" if tail else "head"
            raise Illegal("wrong_draw", f"{p}-C4 the wall's {end} tile is {tile_name(want)}, not {tile_name(t)}")
        _, wall = s.wall.draw(tail)
        kongs = s.kongs
        repl_kong = None
        melds = s.melds
        if repl:
            repl_kong = len(kongs) - 1
            k = kongs[-1]
            if not k.confirmed:
                kongs = _set(kongs, repl_kong, replace(k, confirmed=True, seq=ev.seq))
        return _draw_copy(
            s,
            _set(s.hands, seat, _add(s.hands[seat], t, 1)),  # hands
            melds,
            kongs,
            wall,
            "act",  # phase
            seat,  # turn
            t,  # tile
            True,  # drew
            False,  # first
            False,  # after_peng
            repl_kong,
            seat,  # last_drawer
            None,  # claim_hot
            ev.seq,
        )

    def _need_actor(self, s: Table, seat: int, what: str) -> None:
        if s.phase != "act":
            raise Illegal("not_your_turn", f"{self.R['act']} seat {seat} cannot {what}: it is not its turn to act")
        if seat != s.turn:
            raise Illegal("not_your_turn", f"{self.R['act']} seat {s.turn} is to act, not seat {seat}")

    def _discard(self, s: Table, ev: Any, t: int) -> Table:
        seat = ev.seat
        self._need_actor(s, seat, "discard")
        if s.hands[seat][t] == 0:
            raise Illegal("not_in_hand", f"{self.R['discard']} seat {seat} has no {tile_name(t)} to discard")
        return _discard_copy(
            s,
            _set(s.hands, seat, _add(s.hands[seat], t, -1)),  # hands
            _set(s.discards, seat, (*s.discards[seat], t)),  # discards
            "claim",  # phase
            t,  # tile
            False,  # drew
            False,  # first
            False,  # after_peng
            ev.seq,  # claim_seq
            None,  # repl_kong
            ev.seq,
        )

    def _claim_window(self, s: Table, ev: Any, t: int, what: str, role: str) -> int:
        """The window checks of a peng (`role` "peng") or zhi gang ("zhi"); the discarder."""
        w = self.R["window"]
        if s.phase != "claim":
            raise Illegal("illegal_claim", f"{w} {what} by seat {ev.seat} outside a claim window (no discard to claim)")
        if t != s.tile:
            raise Illegal("illegal_claim", f"{w} the discard is {tile_name(s.tile)}, not {tile_name(t)}")
        if ev.seat == s.turn:
            raise Illegal("illegal_claim", f"{self.R[role]} seat {ev.seat} cannot claim its own discard")
        if s.wins:
            raise Illegal("illegal_claim", f"{self.R[role]} {tile_name(t)} was already won: no {what}")
        return s.turn

    def _take_discard(self, s: Table, k: int) -> tuple[tuple[int, ...], ...]:
        return _set(s.discards, k, s.discards[k][:-1])

    def _peng(self, s: Table, ev: Any, t: int) -> Table:
        k = self._claim_window(s, ev, t, "peng", "peng")
        j = ev.seat
        if s.hands[j][t] < 2:
            raise Illegal("not_in_hand", f"{self.R['peng']} peng {tile_name(t)}: seat {j} holds {s.hands[j][t]} copies, needs 2")
        return replace(
            s,
            hands=_set(s.hands, j, _add(s.hands[j], t, -2)),
            melds=_set(s.melds, j, (*s.melds[j], Meld("peng", t, k))),
            discards=self._take_discard(s, k),
            phase="act",
            turn=j,
            tile=None,
            drew=False,
            first=False,
            after_peng=True,
            any_claim=True,
        )

    def _gang(self, s: Table, ev: Any, t: int) -> Table:
        R = self.R
        j = ev.seat
        kind = ev.kind
        if kind == "zhi":
            k = self._claim_window(s, ev, t, "gang", "zhi")
            if s.hands[j][t] < 3:
                raise Illegal("not_in_hand", f"{R['zhi']} zhi gang {tile_name(t)}: seat {j} holds {s.hands[j][t]} copies, needs 3")
            return replace(
                s,
                hands=_set(s.hands, j, _add(s.hands[j], t, -3)),
                melds=_set(s.melds, j, (*s.melds[j], Meld("gang_zhi", t, k))),
                discards=self._take_discard(s, k),
                kongs=(*s.kongs, Kong(j, "zhi", t, k, ev.seq)),
                phase="replace",
                turn=j,
                tile=None,
                drew=False,
                after_peng=False,
                any_claim=True,
            )
        if s.phase == "claim" and j != s.turn:
            raise Illegal("not_your_turn", f"{R['act']} {kind} gang by seat {j} during the claim window of {tile_name(s.tile)}")
        self._need_actor(s, j, f"{kind} gang")
        if s.after_peng:
            raise Illegal("illegal_move", f"{R['act']} seat {j} just made a peng and may only discard")
        if kind == "an":
            if s.hands[j][t] < 4:
                raise Illegal("not_in_hand", f"{R['an']} an gang {tile_name(t)}: seat {j} holds {s.hands[j][t]} copies, needs 4")
            return replace(
                s,
                hands=_set(s.hands, j, _add(s.hands[j], t, -4)),
                melds=_set(s.melds, j, (*s.melds[j], Meld("gang_an", t, None))),
                kongs=(*s.kongs, Kong(j, "an", t, None, ev.seq)),
                phase="replace",
                tile=None,
                drew=False,
                first=False,
                any_claim=True,
            )
        idx = next((i for i, m in enumerate(s.melds[j]) if m.kind == "peng" and m.tile == t), None)
        if idx is None:
            raise Illegal("illegal_move", f"{R['bu']} bu gang {tile_name(t)}: seat {j} has no peng of {tile_name(t)}")
        if s.hands[j][t] < 1:
            raise Illegal("not_in_hand", f"{R['bu']} bu gang {tile_name(t)}: seat {j} does not hold the 4th copy")
        old = s.melds[j][idx]
        return replace(
            s,
            hands=_set(s.hands, j, _add(s.hands[j], t, -1)),
            melds=_set(s.melds, j, _set(s.melds[j], idx, Meld("gang_bu", t, old.frm))),
            kongs=(*s.kongs, Kong(j, "bu", t, old.frm, ev.seq, confirmed=False)),
            phase="rob",
            tile=t,
            drew=False,
            first=False,
            any_claim=True,
            claim_seq=ev.seq,
        )

    def _order_ok(self, s: Table, seat: int) -> bool:
        """Several hu on one tile: strictly later in turn order from the discarder / kong seat + 1."""
        if not s.wins:
            return True
        last = s.wins[-1].seat
        return (seat - s.turn) % 4 > (last - s.turn) % 4

    def _hu(self, s: Table, ev: Any, t: int) -> Table:
        p = self.P
        R = self.R
        j = ev.seat
        if s.phase == "act":
            if j != s.turn:
                raise Illegal("illegal_claim", f"{R['self_hu']} seat {j} cannot hu: seat {s.turn} is to act and there is no tile to claim")
            if not (s.drew or s.first):
                raise Illegal("illegal_move", f"{R['act']} seat {j} may only discard after its peng")
            if s.hands[j][t] == 0:
                raise Illegal("not_in_hand", f"{R['self_hu']} seat {j} does not hold {tile_name(t)}")
            if s.drew and t != s.tile:
                raise Illegal("illegal_move", f"{R['self_hu']} the hu tile must be the drawn tile {tile_name(s.tile)}, not {tile_name(t)}")
            how = self.zimo_kind(s, j)
            if not self.wins(s, j, s.hands[j], how):
                raise Illegal("not_a_win", f"{p}-H1 seat {j}: {self.describe(s, j, s.hands[j])} is not a winning hand")
            kong = s.repl_kong if s.drew else None
            w = Win(j, t, how, None, ev.seq, kong=kong)
            return replace(s, wins=(*s.wins, w), done=True)
        if s.phase in ("claim", "rob"):
            what = "discard" if s.phase == "claim" else "kong"
            rule = R["claim_hu"] if s.phase == "claim" else R["rob"]
            if t != s.tile:
                raise Illegal("illegal_claim", f"{rule} the {what} tile is {tile_name(s.tile)}, not {tile_name(t)}")
            if j == s.turn:
                raise Illegal("illegal_claim", f"{rule} seat {j} cannot win on its own {what}")
            many = R["window"] if s.phase == "claim" else R["rob"]  # who may win one tile, in which order
            if s.wins and not self.multi_hu(s.rules):
                raise Illegal("illegal_claim", f"{many} only one hu on a tile ({tile_name(t)} already won by seat {s.wins[0].seat})")
            if not self._order_ok(s, j):
                raise Illegal("illegal_claim", f"{many} hu by seat {j} out of turn order after seat {s.wins[-1].seat}")
            counts = _add(s.hands[j], t, 1)
            how = "dianpao" if s.phase == "claim" else "qianggang"
            self.check_claim_hu(s, j, counts, how)
            if not self.wins(s, j, counts, how):
                raise Illegal("not_a_win", f"{p}-H1 seat {j}: {self.describe(s, j, counts)} is not a winning hand")
            self.check_claim_hu_after(s, j, counts, how)
            w = Win(j, t, how, s.turn, ev.seq, hot=s.claim_hot if how == "dianpao" else None)
            new = replace(s, wins=(*s.wins, w), done=True)
            if how == "qianggang" and not s.wins:
                # the bu gang is void: back to the peng, the tile goes to the robber (HZ-R11, AS-R11)
                k = s.turn
                melds = tuple(Meld("peng", m.tile, m.frm) if (m.kind == "gang_bu" and m.tile == t) else m for m in s.melds[k])
                new = replace(new, melds=_set(s.melds, k, melds), kongs=s.kongs[:-1])
            return new
        raise Illegal("illegal_claim", f"{R['draw']} hu by seat {j}: seat {s.turn} must draw its replacement tile first")

    def zimo_kind(self, s: Table, seat: int) -> str:
        return "zimo"

    def check_claim_hu(self, s: Table, seat: int, counts: Counts, how: str) -> None:
        """Refusals of a hu on a discard or a kong before the shape is checked."""

    def check_claim_hu_after(self, s: Table, seat: int, counts: Counts, how: str) -> None:
        """Refusals of a hu on a discard or a kong once the hand is known to win (AS-R6)."""

    def describe(self, s: Table, seat: int, counts: Counts) -> str:
        tiles = "".join([TILE_NAME[k] * counts[k] for k in range(N_KINDS) if counts[k]])  # built on every refused bot hu
        melds = " ".join(f"{m.kind}:{tile_name(m.tile)}" for m in s.melds[seat])
        return tiles + (f" + {melds}" if melds else "")

    # ------------------------------------------------------------ actions
    def candidates(self, s: Table) -> list[dict[str, Any]]:
        """Every event payload that could be legal now (filtered by `legal_actions`)."""
        out: list[dict[str, Any]] = []
        if s.phase == "act" or (s.done and s.phase == "act"):
            j = s.turn
            kinds = [k for k in range(N_KINDS) if s.hands[j][k]]
            if s.drew and s.tile is not None:
                out.append({"type": "hu", "seat": j, "tile": tile_name(s.tile)})
            elif s.first:
                out.extend({"type": "hu", "seat": j, "tile": tile_name(k)} for k in kinds[:1])
            out.extend({"type": "gang", "seat": j, "tile": tile_name(k), "kind": "an"} for k in kinds if s.hands[j][k] == 4)
            out.extend(
                {"type": "gang", "seat": j, "tile": tile_name(m.tile), "kind": "bu"}
                for m in s.melds[j]
                if m.kind == "peng" and s.hands[j][m.tile]
            )
            if self.has_ting(s.rules):
                out.append({"type": "ting", "seat": j})
            out.extend({"type": "discard", "seat": j, "tile": tile_name(k)} for k in kinds)
        elif s.phase in ("claim", "rob"):
            d = tile_name(s.tile) if s.tile is not None else ""
            for i in range(1, 4):
                j = (s.turn + i) % 4
                out.append({"type": "hu", "seat": j, "tile": d})
            if s.phase == "claim":
                for i in range(1, 4):
                    j = (s.turn + i) % 4
                    out.append({"type": "peng", "seat": j, "tile": d})
                    out.append({"type": "gang", "seat": j, "tile": d, "kind": "zhi"})
        if not s.done:
            exp = self._expected_drawer(s)
            if exp is not None:
                seat, repl = exp
                if s.wall.remaining > self.reserve(s.rules):
                    tail = repl and getattr(s.rules, "replacement_from", "head") == "tail"
                    out.append({"type": "draw", "seat": seat, "tile": tile_name(s.wall.peek(tail))})
        return out

    def try_apply(self, s: Table, payload: dict[str, Any]) -> Table | None:
        if s.done and not self.continues_after_end(s, SimpleNamespace(**payload)):
            return None
        try:
            return self.apply(s, SimpleNamespace(seq=s.seq + 1, **payload))
        except Illegal:
            return None

    def legal_actions(self, s: Table) -> list[dict[str, Any]]:
        return [c for c in self.candidates(s) if self.try_apply(s, c) is not None]

    def visible(self, s: Table) -> list[int]:
        """Tiles every seat can see: all discards still on the table and all melds (for the bot)."""
        river = bytes(chain.from_iterable(s.discards))
        v = list(map(river.count, range(N_KINDS)))  # each kind's copies on the table, counted in C
        for ms in s.melds:
            for m in ms:
                v[m.tile] += m.size
        return v

    # ------------------------------------------------------------ bot hooks (engine/mahjong/bot.py plays)
    def bot_may_hu(self, s: Table, seat: int, counts: Counts, how: str) -> bool:
        """False only where `_hu` would surely refuse the bot's hu (not a winning hand): the trial
        apply and its refusal text are skipped, the chosen event is the same."""
        return self.wins(s, seat, counts, how)

    def bot_may_hu_on(self, s: Table, seat: int, tile: int, how: str) -> bool:
        """`bot_may_hu` of the seat's hand plus the offered `tile` (a claim or a rob)."""
        return self.bot_may_hu(s, seat, _add(s.hands[seat], tile, 1), how)

    def bot_claim_refused(self, s: Table, seat: int, how: str) -> bool:
        """True where a rule checked after the shape (`check_claim_hu_after`) surely refuses the
        seat's winning claim of `s.tile` (`bot_may_hu_on` true): the bot does not try it."""
        return False

    def bot_special(self, s: Table, rng: random.Random) -> Iterator[dict[str, Any]]:
        """Game-specific moves tried after a self-draw win and before kongs (天听, ...)."""
        return iter(())

    def bot_natural(self, s: Table, counts: Counts) -> list[int]:
        """The counts the shared bot plans with (Hongzhong sets the wilds aside)."""
        return list(counts)

    def view(self, s: Table) -> dict[str, Any]:
        phase = "end" if s.done else s.phase
        return {
            "phase": phase,
            "turn": None if s.done else s.turn,
            "dealer": s.dealer,
            "hands": [tile_names(k for k in range(N_KINDS) for _ in range(h[k])) for h in s.hands],
            "melds": [[{"kind": m.kind, "tiles": [tile_name(m.tile)] * m.size} for m in ms] for ms in s.melds],
            "discards": [tile_names(d) for d in s.discards],
            "wall_left": s.wall.remaining,
            "last_tile": tile_name(s.tile) if s.tile is not None else None,
            "winners": [w.seat for w in s.wins],
        }
