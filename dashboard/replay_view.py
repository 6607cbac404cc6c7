"""The Replay page's logic, kept apart from widgets: a match as a dispute console.

`load(match_id, lines)` replays the stored lines once through `analytics.dispute` (the same report
`paiju dispute` writes), so the page and the report share one verdict and one settlement
explanation. Every line of the log is a step, in seq order: the refused event and every event after
it are steps too (marked "not applied"; the table stays as it was before the refusal). Step k is
the state after line k; with no re-sent lines, step k is the event with seq k.

Also here: each event as a plain sentence (`sentence`), what one seat could see (`mask_view`,
`mask_event`), the table in words and glyphs (`table_html`), legal moves grouped by kind, and which
event caused each settlement line (`item_steps`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analytics.dispute import Report, action_key, build_report_with_steps
from dashboard import render
from engine.registry import GameNotAvailable, get_game
from events.models import AnyEvent
from events.notation import MAHJONG_GAMES

NOT_APPLIED = ("not_replayed", "illegal", "unreadable")
"""Line statuses whose event did not change the table (analytics.dispute.Row.status)."""
SUIT_WORD = {"m": ("万", "characters"), "p": ("筒", "dots"), "s": ("条", "bamboo")}
GANG_WORD = {"zhi": "exposed kong 直杠", "an": "concealed kong 暗杠", "bu": "added kong 补杠"}
MELD_WORD = {"peng": "pung 碰", "gang": "kong 杠", "zhi": "exposed kong 直杠", "an": "concealed kong 暗杠",
             "bu": "added kong 补杠", "chi": "chow 吃"}  # fmt: skip
PHASE_WORDS = {
    "bid": "bidding for the landlord (叫地主)", "rob": "robbing the landlord (抢地主)",
    "laizi": "the wild rank (赖子) is being drawn", "play": "playing tricks", "end": "the match is over",
    "finished": "the match is over", "lead": "a new trick: the turn seat leads",
    "follow": "following the trick on the table", "betting": "betting", "allin_call": "answering an all-in",
    "exchange": "换三张: each seat passes three tiles", "direction": "换三张: the direction is being drawn",
    "dingque": "定缺: each seat declares a void suit", "play:draw": "the turn seat draws a tile",
    "play:act": "the turn seat discards, kongs or wins", "play:window": "claim window: the others may peng, kong or hu the discard",
    "play:rob": "the others may rob the added kong", "act": "the turn seat discards, kongs or wins",
    "claim": "claim window: the others may peng, kong or hu the discard",
}  # fmt: skip
CLAIM_PHASES = ("play:window", "claim", "play:rob")
PLAY_WORD = {"single": "single", "pair": "pair", "trio": "trio", "bomb": "bomb", "rocket": "rocket"}


@dataclass(frozen=True)
class Line:
    """One line of the log in seq order, and the table after it (before it, when not applied)."""

    index: int
    seq: int | None
    event: AnyEvent | None
    status: str  # analytics.dispute.Row.status: ok, settled, resent, illegal, unreadable, not_replayed
    state: Any
    before: Any
    error: dict[str, Any] | None
    rule: str

    @property
    def applied(self) -> bool:
        return self.status not in NOT_APPLIED


@dataclass(frozen=True)
class Console:
    match_id: str
    report: Report
    lines: tuple[Line, ...]
    game: Any

    @property
    def result(self) -> Any:
        return self.report.result

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self.result.players or ())

    @property
    def game_id(self) -> str | None:
        return self.result.game  # type: ignore[no-any-return]

    @property
    def tiles(self) -> bool:
        return self.game_id in MAHJONG_GAMES

    @property
    def error_step(self) -> int | None:
        """Index of the refused (or unreadable) line, if any."""
        return next((ln.index for ln in self.lines if ln.status in ("illegal", "unreadable")), None)

    @property
    def deal_step(self) -> int:
        """Where the match opens: the deal (seq 1), else the first line."""
        return next((ln.index for ln in self.lines if ln.event is not None and ln.event.type == "dealt"), 0)


def load(match_id: str, lines: Sequence[str]) -> Console:
    """Replay one match's stored lines (in seq order) into the console."""
    report, steps = build_report_with_steps(list(lines))
    game = None
    if report.result.game:
        try:
            game = get_game(report.result.game)
        except GameNotAvailable:
            game = None
    after: dict[int, Any] = {st.seq: st.state for st in steps if st.error is None and st.seq is not None}
    out: list[Line] = []
    last: Any = None
    for i, row in enumerate(report.rows):
        prev = last
        if row.status in NOT_APPLIED:
            state = last
        else:
            state = after.get(row.seq, last) if row.seq is not None else last
            last = state
        out.append(Line(i, row.seq, row.event, row.status, state, prev, row.error, row.rule))
    return Console(match_id, report, tuple(out), game)


# ---------------------------------------------------------------- names and sentences


def who(seat: int | None, players: Sequence[str]) -> str:
    """`seat 1 bo` (the seat number and the player's name)."""
    if seat is None:
        return "nobody"
    name = players[seat] if 0 <= seat < len(players) else ""
    return f"seat {seat} {name}".rstrip()


def ranks(cards: Sequence[str]) -> str:
    """Cards by rank, as a player says them: `KK`, `10 10`, `small joker`."""
    out = []
    for c in cards:
        if c == "BJ":
            out.append("small joker")
        elif c == "RJ":
            out.append("big joker")
        else:
            out.append("10" if c[:1] == "T" else c[:1])
    spaced = any(len(x) > 1 for x in out)
    return (" " if spaced else "").join(out)


def _suit(s: str | None) -> str:
    zh, en = SUIT_WORD.get(s or "", (s or "?", ""))
    return f"{zh} {en}".strip()


def sentence(line: Line, players: Sequence[str], game: Any = None, viewer: int | None = None) -> str:
    """The line as a plain sentence: `seat 1 bo plays pair KK`, `seat 2 cy pengs 5s`.

    `viewer`: say only what that seat could see (another seat's drawn or passed tiles are hidden).
    """
    ev = line.event
    if ev is None:
        return f"an unreadable line ({(line.error or {}).get('code', 'bad line')})"
    d = ev.__dict__
    seat = d.get("seat")
    w = who(seat, players) if isinstance(seat, int) else ""
    hidden = viewer is not None and isinstance(seat, int) and seat != viewer
    t = ev.type
    if t == "match_started":
        return f"the match starts: {ev.game}, dealer {who(ev.dealer, ev.players)}, base {ev.base}"
    if t == "dealt":
        return "the tiles are dealt" if ev.wall is not None or line_is_mahjong(game) else "the cards are dealt"
    if t == "bid":
        return f"{w} passes the bid" if ev.value == 0 else f"{w} bids {ev.value}"
    if t == "rob":
        return f"{w} robs the landlord" if ev.value else f"{w} does not rob"
    if t == "laizi":
        return f"the wild rank (赖子) is {'10' if ev.rank == 'T' else ev.rank}"
    if t == "play":
        kind = _play_kind(line, game)
        return f"{w} plays {kind + ' ' if kind else ''}{ranks(ev.cards)}"
    if t == "pass":
        return f"{w} passes"
    if t == "look":
        return f"{w} looks at their cards"
    if t == "bet":
        return f"{w} bets {ev.amount}"
    if t == "compare":
        return f"{w} compares hands with {who(ev.target, players)}"
    if t == "open":
        return f"{w} calls for the showdown"
    if t == "fold":
        return f"{w} folds"
    if t == "allin":
        return f"{w} goes all in"
    if t == "timeout":
        return f"{w} times out"
    if t == "forfeit":
        return f"{w} forfeits"
    if t == "exchange":
        return f"{w} passes three tiles (换三张)" + ("" if hidden else f": {' '.join(ev.tiles)}")
    if t == "exchange_direction":
        return f"the exchange goes {ev.direction.replace('counterclockwise', 'counter-clockwise')}"
    if t == "dingque":
        return f"{w} declares void in {_suit(ev.suit)} (定缺)"
    if t == "draw":
        return f"{w} draws a tile" if hidden else f"{w} draws {ev.tile}"
    if t == "discard":
        return f"{w} discards {ev.tile}"
    if t == "peng":
        return f"{w} pengs {ev.tile}"
    if t == "gang":
        return f"{w} kongs {ev.tile} ({GANG_WORD.get(ev.kind, ev.kind)})"
    if t == "hu":
        return f"{w} wins (hu) on {ev.tile}"
    if t == "ting":
        return f"{w} declares ready (报听)"
    if t == "settled":
        return "the server records the settlement " + " ".join(f"{x:+d}" for x in ev.deltas)
    return render.move_text(ev.to_dict())


def line_is_mahjong(game: Any) -> bool:
    return getattr(game, "id", None) in MAHJONG_GAMES


def _play_kind(line: Line, game: Any) -> str:
    """The kind of a play (pair, bomb, straight…) as the engine's view names the trick after it."""
    if game is None or line.state is None or not line.applied:
        return ""
    trick = safe_view(game, line.state, None).get("trick")
    if isinstance(trick, Mapping) and trick.get("seat") == getattr(line.event, "seat", None):
        kind = str(trick.get("type") or "")
        return PLAY_WORD.get(kind, kind.replace("_", " "))
    return ""


def status_word(line: Line) -> str:
    return {
        "illegal": "REFUSED", "unreadable": "REFUSED (unreadable)", "not_replayed": "not applied",
        "resent": "re-sent (no-op)", "settled": "server's record",
    }.get(line.status, "")  # fmt: skip


def timeline_label(line: Line, players: Sequence[str], game: Any, viewer: int | None) -> str:
    """A timeline entry (Markdown): the step, the sentence, greyed and marked when not applied."""
    seq = "—" if line.seq is None else str(line.seq)
    text = sentence(line, players, game, viewer).replace("[", "(").replace("]", ")")
    if line.status in ("illegal", "unreadable"):
        return f":red[**REFUSED at seq {seq}**: {text} — {(line.error or {}).get('code', '')}]"
    if line.status == "not_replayed":
        return f":gray[{seq} · {text} — not applied]"
    if line.status == "resent":
        return f":gray[{seq} · {text} — re-sent, a no-op]"
    return f"{seq} · {text}"


# ---------------------------------------------------------------- jumps


def tags(line: Line, game: Any) -> set[str]:
    """What a line is, for the jump buttons: claim (peng/gang/hu), bomb, trick (a lead)."""
    ev = line.event
    if ev is None:
        return set()
    out: set[str] = set()
    if ev.type in ("peng", "gang", "hu"):
        out.add("claim")
    if ev.type == "play" and game is not None:
        before = safe_view(game, line.before, None) if line.before is not None else {}
        after = safe_view(game, line.state, None) if line.applied and line.state is not None else {}
        if before.get("trick") is None:
            out.add("trick")
        if len(after.get("bombs") or []) > len(before.get("bombs") or []):
            out.add("bomb")
    return out


def next_index(con: Console, k: int, *, seat: int | None = None, tag: str | None = None, tagged: Sequence[set[str]] = ()) -> int | None:
    """The next line after k by that seat, or carrying that tag (None: there is none)."""
    for ln in con.lines[k + 1 :]:
        if seat is not None and getattr(ln.event, "seat", None) == seat:
            return ln.index
        if tag is not None and tag in tagged[ln.index]:
            return ln.index
    return None


# ---------------------------------------------------------------- what one seat could see


def safe_view(game: Any, state: Any, viewer: int | None) -> dict[str, Any]:
    """`game.view(state)`, masked to what `viewer` could see ({} without a state)."""
    if game is None or state is None:
        return {}
    try:
        v = game.view(state)
    except Exception:  # the table is illustration: a failing view must not sink the console
        return {}
    v = dict(v) if isinstance(v, Mapping) else {}
    return v if viewer is None else mask_view(v, viewer)


def mask_view(view: Mapping[str, Any], viewer: int) -> dict[str, Any]:
    """The view as seat `viewer` saw it: other hands face down, their hand categories, a tile
    another seat drew (`drawn`) hidden. Discards, melds, bids, bets and the trick are public."""
    v = dict(view)
    hands = v.get("hands")
    if isinstance(hands, list):
        v["hands"] = [h if s == viewer else ["?"] * len(h) for s, h in enumerate(hands)]
    cats = v.get("categories")
    if isinstance(cats, list):
        v["categories"] = [c if s == viewer else None for s, c in enumerate(cats)]
    if v.get("drawn") is not None and v.get("turn") != viewer:
        v["drawn"] = "?"
    return v


def mask_event(ev: Mapping[str, Any], viewer: int | None) -> dict[str, Any]:
    """An event's JSON as seat `viewer` could know it (other hands, drawn and passed tiles hidden)."""
    d = dict(ev)
    if viewer is None:
        return d
    if d.get("type") == "dealt":
        d["hands"] = [h if s == viewer else f"{len(h)} hidden" for s, h in enumerate(d.get("hands") or [])]
        if d.get("wall") is not None:
            d["wall"] = f"{len(d['wall'])} hidden"
        if d.get("bottom") is not None:
            d["bottom"] = f"{len(d['bottom'])} hidden"
    elif d.get("seat") != viewer and d.get("type") in ("draw", "exchange"):
        for k in ("tile", "tiles"):
            if k in d:
                d[k] = "hidden"
    return d


# ---------------------------------------------------------------- legal moves


def legal_groups(game: Any, line: Line, played: Mapping[str, Any] | None, viewer: int | None) -> list[tuple[str, list[tuple[str, bool]]]]:
    """The legal moves at this step grouped by kind: [(kind, [(move in words, is the one played next)])].

    The played move is the next line's event; `viewer` keeps only that seat's moves.
    """
    if game is None or line.state is None or not line.applied:
        return []
    try:
        if game.is_finished(line.state):
            return []
        actions = list(game.legal_actions(line.state))
    except Exception:  # an engine's helper failing must not hide the replay
        return []
    target = action_key(played) if played else None
    groups: dict[str, list[tuple[str, bool]]] = {}
    for a in actions:
        if viewer is not None and a.get("seat") not in (None, viewer):
            continue
        kind = str(a.get("type", "?")) + (f" ({GANG_WORD.get(a['kind'], a['kind'])})" if "kind" in a else "")
        groups.setdefault(kind, []).append((render.move_text(a), target is not None and action_key(a) == target))
    return sorted(groups.items(), key=lambda kv: (not any(p for _, p in kv[1]), kv[0]))


# ---------------------------------------------------------------- the table in words and glyphs


def _seat_tags(view: Mapping[str, Any], seat: int, n: int, dealer: int | None) -> list[str]:
    """Plain words about one seat: dealer, landlord, void suit, cards left, looked, folded…"""
    tags: list[str] = []

    def per(key: str) -> Any:
        v = view.get(key)
        return v[seat] if isinstance(v, list) and len(v) == n else None

    if seat == dealer:
        tags.append("dealer")
    if view.get("landlord") == seat:
        tags.append("landlord")
    suit = per("void") if not isinstance(view.get("void"), bool) else None
    if suit:
        tags.append(f"定缺 void in {_suit(suit)}")
    left = per("cards_left")
    if isinstance(left, int):
        tags.append(f"{left} card{'s' if left != 1 else ''} left")
    if isinstance(view.get("baodan"), list) and seat in view["baodan"]:
        tags.append("报单 one card left")
    if per("seen") is True:
        tags.append("has looked")
    if per("active") is False:
        tags.append("folded")
    if per("out") is True:
        tags.append("out")
    call = per("call")
    if isinstance(call, int) and per("active") is not False:
        tags.append(f"to call {call}")
    contrib = per("contributions")
    if isinstance(contrib, int) and contrib:
        tags.append(f"{contrib} in the pot")
    stack = per("stacks")
    if isinstance(stack, int):
        tags.append(f"stack {stack}")
    cat = per("categories")
    if isinstance(cat, str):
        tags.append(cat.replace("_", " "))
    lock = per("pass_locks")
    if isinstance(lock, int) and lock >= 0:
        tags.append(f"passed a {lock}-fan win: only a bigger one until the next draw (SC-R17)")
    if isinstance(view.get("tian_ting"), list) and seat in view["tian_ting"]:
        tags.append("天听 ready from the start")
    return tags


def _cards_row(cards: Sequence[str], tiles: bool, laizi: str | None) -> str:
    return render.row_html([str(c) for c in cards], tiles=tiles, laizi=laizi)


def centre_lines(view: Mapping[str, Any], players: Sequence[str], tiles: bool) -> list[tuple[str, str]]:
    """The table centre as (label, HTML) lines in words and glyphs, never raw state keys."""
    laizi = view.get("laizi") if isinstance(view.get("laizi"), str) else None
    out: list[tuple[str, str]] = []
    e = render.text_of
    trick = view.get("trick")
    lp = view.get("last_play")
    if isinstance(trick, Mapping) and trick.get("cards"):
        kind = str(trick.get("type") or "").replace("_", " ")
        cards = trick["cards"]
        if isinstance(lp, Mapping) and lp.get("seat") == trick.get("seat") and isinstance(lp.get("cards"), list):
            cards = lp["cards"]  # the cards as played (the trick holds ranks only)
        shown = _cards_row(cards, tiles, laizi) if isinstance(cards, list) else e(ranks(list(str(cards))))
        out.append((f"on the table: {who(trick.get('seat'), players)}'s {kind}".rstrip(), shown))
    elif "trick" in view and view.get("phase") in ("play", "lead", "follow"):
        out.append(("on the table", "nothing: the turn seat leads"))
    if isinstance(lp, Mapping) and lp.get("cards") and not (isinstance(trick, Mapping) and trick.get("seat") == lp.get("seat")):
        out.append((f"last play: {who(lp.get('seat'), players)}", _cards_row(lp["cards"], tiles, laizi)))
    if isinstance(view.get("bottom"), list) and view["bottom"]:
        out.append(("bottom cards (to the landlord)", _cards_row(view["bottom"], tiles, laizi)))
    if laizi:
        out.append(("wild rank 赖子", e("10" if laizi == "T" else laizi)))
    bids = view.get("bids")
    if isinstance(bids, list) and bids and view.get("phase") in ("bid", "rob"):
        said = [f"{who(i, players)} {'passed' if b == 0 else f'bid {b}'}" for i, b in enumerate(bids) if b is not None]
        if said:
            out.append(("bids so far", e(", ".join(said))))
    bombs = view.get("bombs")
    if isinstance(bombs, list) and bombs:
        said = [f"{who(b.get('seat'), players)} {b.get('type', 'bomb')} {b.get('rank', '')}".strip() for b in bombs if isinstance(b, Mapping)]
        out.append((f"bombs so far ({len(bombs)})", e("; ".join(said))))
    if isinstance(view.get("multiplier"), int) and view["multiplier"] != 1:
        out.append(("multiplier", e(f"×{view['multiplier']}")))
    if view.get("offered") is not None:
        out.append(("discard on offer", render.row_html([view["offered"]], tiles=True)))
    if view.get("last_tile") is not None:
        out.append(("last tile", render.row_html([view["last_tile"]], tiles=True)))
    if isinstance(view.get("wall_left"), int):
        out.append(("wall", e(f"{view['wall_left']} tiles left")))
    if view.get("wild"):
        out.append(("wild tile", render.row_html([view["wild"]], tiles=True)))
    if isinstance(view.get("reserve"), int) and view["reserve"]:
        out.append(("birds (扎码)", e(f"{view['reserve']} tiles turned at the end")))
    if view.get("flip"):
        out.append(("flipped tile (翻鸡)", render.row_html([view["flip"]], tiles=True)))
    if isinstance(view.get("yaobai"), list) and view["yaobai"]:
        out.append(("摇摆鸡 chickens", render.row_html(view["yaobai"], tiles=True)))
    if isinstance(view.get("pot"), int):
        out.append(("pot", e(str(view["pot"]))))
    stake = view.get("stake")
    if isinstance(stake, Mapping):
        out.append(("stake now", e(f"blind {stake.get('blind')}, after looking {stake.get('seen')} (round {view.get('round', '?')})")))
    allin = view.get("allin")
    if isinstance(allin, Mapping):
        out.append(("all-in", e(f"{who(allin.get('opener'), players)} for {allin.get('amount')}")))
    winner = view.get("winner")
    if isinstance(winner, int):
        out.append(("winner", e(who(winner, players))))
    winners = view.get("winners")
    if isinstance(winners, list) and winners:
        out.append(("winners", e(", ".join(who(w, players) for w in winners))))
    if isinstance(view.get("forfeit"), int):
        out.append(("forfeit", e(f"{who(view['forfeit'], players)} forfeited")))
    if view.get("void") is True:
        out.append(("void match", "nobody bid: the deal is void"))
    if isinstance(view.get("next_dealer"), int) and view.get("phase") in ("end", "finished"):
        out.append(("next dealer", e(who(view["next_dealer"], players))))
    if isinstance(view.get("end"), str) and view["end"]:
        out.append(("how it ended", e(view["end"].replace("_", " "))))
    return out


def exchanges(con: Console, k: int) -> dict[int, list[str]]:
    """The 换三张 tiles each seat passed, up to step k (as chosen, from the log)."""
    out: dict[int, list[str]] = {}
    for ln in con.lines[: k + 1]:
        if ln.applied and ln.event is not None and ln.event.type == "exchange":
            out[ln.event.seat] = list(ln.event.tiles)
    return out


def table_html(view: Mapping[str, Any], players: Sequence[str], dealer: int | None, *, tiles: bool = False,
               passed: Mapping[int, Sequence[str]] | None = None, viewer: int | None = None) -> str:
    """The table at one step: a row per seat (name, words, hand, melds, discards), then the centre.

    `tiles`: draw strings as mahjong tiles; `passed`: the 换三张 tiles per seat; `viewer`: the seat
    whose view this is (its row is marked; other seats' passed tiles are face down).
    """
    laizi = view.get("laizi") if isinstance(view.get("laizi"), str) else None
    turn = view.get("turn")
    hands = view.get("hands") or []
    n = max(len(players), len(hands))
    if isinstance(view.get("dealer"), int):
        dealer = view["dealer"]
    phase = str(view.get("phase", ""))
    out = [render.CSS, render.CONSOLE_CSS]
    out.append(
        f'<div class="pj-phase"><b>{render.text_of(PHASE_WORDS.get(phase, phase.replace("_", " ")))}</b>'
        + ("" if turn is None else f" · {'discarded by' if phase in CLAIM_PHASES else 'turn'}: <b>{render.text_of(who(turn, players))}</b>")
        + ("" if viewer is None else f" · <i>as {render.text_of(who(viewer, players))} saw it</i>")
        + "</div>"
    )
    for seat in range(n):
        name = players[seat] if seat < len(players) else ""
        tags = _seat_tags(view, seat, n, dealer)
        cls = "pj-seat pj-turn" if turn == seat else "pj-seat"
        tag_html = "".join(f'<span class="pj-tag">{render.text_of(t)}</span>' for t in tags)
        hand = list(hands[seat]) if seat < len(hands) else []
        me = " (you)" if viewer == seat else ""
        parts = [f'<div class="{cls}" data-seat="{seat}"><b>seat {seat}</b> {render.text_of(name)}{me}{tag_html}']
        drawn = view.get("drawn") if turn == seat and isinstance(view.get("drawn"), str) else None
        if hand and all(c == "?" for c in hand):
            what = "tiles" if tiles else "cards"
            parts.append(
                f'<div class="pj-row" data-hand="{seat}" data-hidden="{len(hand)}">{render.glyph("?", tiles=tiles)}'
                f'<span class="pj-lab">{len(hand)} {what}, face down</span></div>'
            )
        elif drawn is not None and drawn in hand:
            hand.remove(drawn)  # the drawn tile apart, after a gap (view `drawn`)
            row = render.row_html(hand, tiles=tiles, laizi=laizi, attrs=f'data-hand="{seat}"')
            extra = f'<span class="pj-gap"></span><span class="pj-lab">drew</span>{render.tile_html(drawn)}'
            parts.append(row.replace('<div class="pj-row"', '<div class="pj-row pj-drawn"', 1)[: -len("</div>")] + extra + "</div>")
        else:
            parts.append(render.row_html(hand, tiles=tiles, laizi=laizi, empty="no cards", attrs=f'data-hand="{seat}"'))
        groups = []
        melds = view.get("melds")
        if isinstance(melds, list) and seat < len(melds) and melds[seat]:
            groups.append(("", _melds_html(melds[seat])))
        won = view.get("won")
        if isinstance(won, list) and seat < len(won) and won[seat]:
            groups.append(("won on", render.row_html(won[seat], tiles=True)))
        if passed and seat in passed:
            shown = passed[seat] if viewer in (None, seat) else ["?"] * len(passed[seat])
            groups.append(("passed for 换三张", render.row_html(shown, tiles=True)))
        discards = view.get("discards")
        if isinstance(discards, list) and seat < len(discards) and discards[seat]:
            groups.append(("discards", render.row_html(discards[seat], tiles=tiles)))
        if groups:
            parts.append('<div class="pj-groups">' + "".join(
                f'<div class="pj-group">{f"<span class=pj-lab>{render.text_of(lab)}</span>" if lab else ""}{h}</div>'
                for lab, h in groups) + "</div>")  # fmt: skip
        parts.append("</div>")
        out.append("".join(parts))
    centre = centre_lines(view, players, tiles)
    if centre:
        body = "".join(f'<div class="pj-line"><span class="pj-lab">{render.text_of(lab)}</span> {h}</div>' for lab, h in centre)
        out.append(f'<div class="pj-seat pj-centre">{body}</div>')
    return "".join(out)


def _melds_html(melds: Sequence[Mapping[str, Any]]) -> str:
    """Melds as labelled groups: `pung 碰` over its tiles."""
    out = []
    for m in melds:
        kind = str(m.get("kind", ""))
        label = MELD_WORD.get(kind, kind)
        faces = render.row_html([str(t) for t in m.get("tiles", [])], tiles=True)
        out.append(f'<span class="pj-meld" title="{render.text_of(label)}"><small>{render.text_of(label)}</small>{faces}</span>')
    return f'<div class="pj-row pj-melds">{"".join(out)}</div>'


# ---------------------------------------------------------------- the settlement


def item_steps(con: Console) -> list[int | None]:
    """For each settlement line, the step of the event that caused it: the line's own `seq`
    (mahjong wins and kongs), the last of its `seqs` (Zha Jin Hua bets), else the event that ended
    the match (the last applied line before `settled`)."""
    by_seq = {ln.seq: ln.index for ln in con.lines if ln.applied and ln.seq is not None}
    end = next((ln.index for ln in reversed(con.lines) if ln.applied and ln.event is not None and ln.event.type != "settled"), None)
    out: list[int | None] = []
    for it in con.result.items:
        seq = it.get("seq")
        if isinstance(it.get("seqs"), list) and it["seqs"]:
            seq = it["seqs"][-1]
        out.append(by_seq.get(seq, end) if isinstance(seq, int) else end)
    return out


def item_rows(con: Console) -> list[dict[str, Any]]:
    """Settlement lines as table rows: who receives, from whom, points, why, and the step."""
    players = con.players
    steps = item_steps(con)
    rows = []
    for i, (it, k) in enumerate(zip(con.result.items, steps, strict=True)):
        fans = it.get("fans")
        detail = []
        if isinstance(fans, Mapping) and fans:
            detail.append("fans: " + ", ".join(f"{f.replace('_', ' ')} {v}" for f, v in fans.items()))
        for key in ("multiplier", "fan", "tile", "reason", "hits", "cards"):
            if key in it and it[key] not in (None, "", 0, 1) and key != "fan":
                detail.append(f"{key} {it[key]}")
        rows.append({
            "#": i + 1, "kind": str(it.get("kind", "")).replace("_", " "),
            "to": who(it.get("seat"), players), "from": who(it.get("from"), players),
            "points": int(it.get("points", 0)), "why": "; ".join(detail), "step": k,
        })  # fmt: skip
    return rows


def seat_rows(con: Console) -> list[dict[str, Any]]:
    """Per seat: the items' subtotal (received − paid), the engine's delta, the server's, the gap."""
    r = con.result
    server = r.recorded_deltas if r.recorded_deltas is not None else con.report.server_deltas
    n = max(len(con.players), len(r.deltas or []), len(server or []))
    sub = [0] * n
    for it in r.items:
        sub[it["seat"]] += it["points"]
        sub[it["from"]] -= it["points"]
    rows = []
    for s in range(n):
        eng = r.deltas[s] if r.deltas is not None and s < len(r.deltas) else None
        rec = server[s] if server is not None and s < len(server) else None
        rows.append({
            "seat": f"seat {s}", "player": con.players[s] if s < len(con.players) else "",
            "won": "★" if s in (r.winners or []) else "",
            "items subtotal": f"{sub[s]:+d}" if r.deltas is not None else "—",
            "engine": "—" if eng is None else f"{eng:+d}",
            "server (settled)": "—" if rec is None else f"{rec:+d}",
            "server − engine": "—" if rec is None or eng is None else f"{rec - eng:+d}",
            "check": "≠ MISMATCH" if rec is not None and eng is not None and rec != eng else ("" if rec is None or eng is None else "="),
        })  # fmt: skip
    return rows
