"""`paiju dispute MATCH_ID [--lake DIR] [--out FILE.html]`: a self-contained evidence report.

One HTML file (inline CSS and SVG, no script, no network, prints on A4) that support can send to a
player who contests a charge (issue 10):

1. the match header: game, players, dealer, stake, the rules preset and every option that differs
   from the game's default, with its meaning (the `Rules` field description);
2. integrity: the hash chain (events.md §5) event by event, where it breaks, and the final hash, which
   is what to compare with the server's own record (a consistent rewrite of the whole log with
   recomputed hashes can only be told by it); lines the store quarantined for this match;
3. the timeline: every event with the rule it was checked under (`RULE_REFS`, or the rule id the
   engine named when refusing it), whether it was among the legal actions of the state before it,
   and the table after it (`game.view`); the first illegal event is highlighted and linked;
4. the settlement: the engine's itemised lines next to the server's recorded `settled` deltas, per
   seat, with every difference explained when a simple cause fits (an item left out or counted
   twice, a common multiplier, swapped seats, a non-zero-sum charge);
5. a short verdict.

Exit status (docs/cli.md): 0 when nothing is wrong (the match is not invalid, the chain does not
break, and a recorded settlement, if any, equals the rules'), 1 otherwise, 2 when the match or the
lake cannot be read. An incomplete match (the log stops before the end; nothing wrong found) exits 0.

`render_dispute_html(entries, ...)` is the same report as a string, for the dashboard's download
button; `entries` may be events, JSON lines (str/bytes) or event dicts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.explain import Difference, explain_settlement, fmt_deltas
from engine.registry import GameNotAvailable, get_game
from engine.replay import Entry, ReplayResult, Step, order_entries, replay_with_steps
from events.chain import link
from events.codec import parse_event, parse_line, read_log
from events.errors import ContractError
from events.models import AnyEvent, MatchStarted, Settled
from events.notation import MAHJONG_GAMES, TILE_SET

# ---------------------------------------------------------------- data: which rule checks which event

RULE_REFS: dict[str, dict[str, str]] = {
    "ddz": {
        "match_started": "DDZ-R1", "dealt": "DDZ-R2", "bid": "DDZ-R3–R6", "rob": "DDZ-R7–R8",
        "play": "DDZ-R15–R19, DDZ-R22", "pass": "DDZ-R17–R20", "forfeit": "DDZ-R30",
    },
    "ddz_laizi": {
        "match_started": "DDZ-R1", "dealt": "DDZ-R2", "bid": "DDZ-R9–R11", "rob": "DDZ-R11",
        "laizi": "DDZ-R13", "play": "DDZ-R15–R19, DDZ-R24–R29", "pass": "DDZ-R17–R20",
        "forfeit": "DDZ-R30",
    },
    "paodekuai": {
        "match_started": "PDK-R1", "dealt": "PDK-R2", "play": "PDK-R3–R11", "pass": "PDK-R8–R10",
        "forfeit": "PDK-R15",
    },
    "zhajinhua": {
        "match_started": "ZJH-R1", "dealt": "ZJH-R2–R3", "look": "ZJH-R7", "bet": "ZJH-R6, ZJH-R8",
        "compare": "ZJH-R9", "open": "ZJH-R10", "fold": "ZJH-R11", "timeout": "ZJH-R12",
        "forfeit": "ZJH-R13", "allin": "ZJH-R15",
    },
    "sichuan": {
        "match_started": "SC-R0", "dealt": "SC-C3", "exchange": "SC-R1", "exchange_direction": "SC-R2",
        "dingque": "SC-R3", "draw": "SC-R16", "discard": "SC-R6", "peng": "SC-R7, SC-R9",
        "gang:zhi": "SC-R10", "gang:an": "SC-R11", "gang:bu": "SC-R12", "hu": "SC-R8, SC-R13–R15",
        "forfeit": "SC-A22",
    },
    "hongzhong": {
        "match_started": "HZ-R0", "dealt": "HZ-C3, HZ-R1–R2", "draw": "HZ-R12", "discard": "HZ-R4",
        "peng": "HZ-R5–R6", "gang:zhi": "HZ-R7", "gang:an": "HZ-R8", "gang:bu": "HZ-R9",
        "hu": "HZ-R5, HZ-R10–R11",
    },
    "anshun": {
        "match_started": "AS-R0", "dealt": "AS-C3, AS-R1", "draw": "AS-R15", "discard": "AS-R3",
        "peng": "AS-R4, AS-R7", "gang:zhi": "AS-R8", "gang:an": "AS-R9", "gang:bu": "AS-R10",
        "hu": "AS-R5–R6, AS-R11, AS-R14", "ting": "AS-R12–R13",
    },
}  # fmt: skip
"""Event type (or `gang:KIND`) → the numbered rules of `docs/rules/<game>.md` that check it."""

RULE_FAMILY = {"sichuan_xuezhan": "sichuan", "sichuan_xueliu": "sichuan"}
RULE_ID_RE = re.compile(r"\b(?:DDZ|PDK|ZJH|SC|HZ|AS)-[A-Z]{0,2}\d+[a-z]?\b")
SUIT_SYMBOL = {"s": "♠", "h": "♥", "c": "♣", "d": "♦"}


def rule_ref(game: str | None, event: AnyEvent | None) -> str:
    """The rule ids that check this kind of event in this game ('' when none is listed)."""
    if game is None or event is None:
        return ""
    table = RULE_REFS.get(RULE_FAMILY.get(game, game), {})
    kind = getattr(event, "kind", None)
    return table.get(f"{event.type}:{kind}") or table.get(event.type, "")


# ---------------------------------------------------------------- the report as data


@dataclass
class Row:
    """One line of the timeline."""

    seq: int | None
    event: AnyEvent | None
    status: str  # "ok" | "illegal" | "resent" | "not_replayed" | "unreadable" | "settled"
    rule: str = ""
    legal: str = ""
    view: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    hash_status: str = ""  # "ok" | "broken" | "absent" | ""


@dataclass
class Report:
    match_id: str
    result: ReplayResult
    rows: list[Row]
    chain_break_seq: int | None
    hashed: int
    options: list[tuple[str, Any, Any, str, str]]  # (name, value, default, meaning, set by)
    differences: list[Difference] = field(default_factory=list)
    explanations: list[str] = field(default_factory=list)
    rejects: list[dict[str, Any]] = field(default_factory=list)
    verdict: str = ""
    verdict_class: str = "ok"
    exit_code: int = 0
    server_deltas: list[int] | None = None
    """The `settled` event's deltas as logged, even where replay stopped before reaching it."""
    source: str = ""


def to_entries(items: Iterable[Any]) -> list[Entry]:
    """Events, JSON lines (str/bytes) or event dicts → replay entries (a bad one → its ContractError)."""
    out: list[Entry] = []
    for x in items:
        if isinstance(x, AnyEvent | ContractError):
            out.append(x)
            continue
        try:
            out.append(parse_event(x) if isinstance(x, Mapping) else parse_line(x))
        except ContractError as e:
            out.append(e)
    return out


def _game(game_id: str | None) -> Any:
    if game_id is None:
        return None
    try:
        return get_game(game_id)
    except GameNotAvailable:
        return None


def action_key(payload: Mapping[str, Any]) -> str:
    """An event or legal action as a comparable key (envelope dropped, card and tile lists sorted)."""
    d = {k: v for k, v in payload.items() if k not in ("match_id", "seq", "ts", "hash")}
    for k in ("cards", "tiles", "as"):
        if isinstance(d.get(k), list):
            d[k] = sorted(d[k])
    return json.dumps(d, sort_keys=True)


def _legal_note(game: Any, prev_state: Any, event: AnyEvent) -> str:
    """Whether the event was among the legal actions of the state before it (engines' own list)."""
    if game is None or prev_state is None or event.type in ("settled", "forfeit"):
        return ""
    try:
        actions = game.legal_actions(prev_state)
    except Exception:  # a report must not fail on an engine's optional helper
        return ""
    if not actions:
        return ""
    return (
        f"one of {len(actions)} legal actions"
        if action_key(event.to_dict()) in {action_key(a) for a in actions}
        else ""
    )


def _options(
    game: Any, rules: Mapping[str, Any] | None, raw: Mapping[str, Any] | None
) -> list[tuple[str, Any, Any, str, str]]:
    """Every option whose value differs from the game's default: (name, value, default, meaning,
    set by: "the log" when the match_started names it, else "preset P")."""
    if game is None or rules is None:
        return []
    raw = raw or {}
    out = []
    for name, f in game.Rules.model_fields.items():
        if name == "preset" or name not in rules:
            continue
        if rules[name] != f.default:
            by = "the log" if name in raw else f"preset {rules.get('preset', 'standard')}"
            out.append((name, rules[name], f.default, f.description or "", by))
    return out


def _chain_marks(ordered: Sequence[Entry]) -> tuple[dict[int, str], int | None, int]:
    """Per seq: 'ok' / 'broken' / 'absent'; the first broken seq; how many events carry a hash."""
    marks: dict[int, str] = {}
    prev = ""
    first: int | None = None
    hashed = 0
    unreadable = False
    for e in ordered:
        if isinstance(e, ContractError):
            unreadable = True
            continue
        if e.seq in marks:
            continue
        prev = link(prev, e)
        if e.hash is None:
            marks[e.seq] = "absent"
            continue
        hashed += 1
        ok = e.hash == prev and not unreadable
        marks[e.seq] = "ok" if ok else "broken"
        if not ok and first is None:
            first = e.seq
    return marks, first, hashed


def build_report(entries: Sequence[Any], *, rejects: Sequence[Mapping[str, Any]] = (), source: str = "") -> Report:
    """Replay one match's entries and gather everything the report shows."""
    return build_report_with_steps(entries, rejects=rejects, source=source)[0]


def build_report_with_steps(
    entries: Sequence[Any], *, rejects: Sequence[Mapping[str, Any]] = (), source: str = ""
) -> tuple[Report, list[Step]]:
    """`build_report` and the replay's steps (each event with the state after it), for the Replay page."""
    ents = to_entries(entries)
    steps, result = replay_with_steps(ents)
    game = _game(result.game)
    ordered = order_entries(ents)
    marks, chain_break, hashed = _chain_marks(ordered)
    rows: list[Row] = []
    prev_state: Any = None
    applied: set[int] = set()
    err_seq = result.error["seq"] if result.error else None
    for st in steps:
        rows.append(_row(result.game, game, st, prev_state, marks))
        if st.error is None:
            prev_state = st.state
            if st.seq is not None:
                applied.add(st.seq)
    # what the replay never reached: events after the first illegal one, identical re-sends
    stepped = {id(st.event) for st in steps if st.event is not None}
    for e in ordered:
        if isinstance(e, ContractError):
            if not any(r.status == "unreadable" and r.error == e.as_dict() for r in rows):
                rows.append(Row(e.seq, None, "not_replayed", error=e.as_dict()))
            continue
        if id(e) in stepped:
            continue
        status = "resent" if e.seq in applied and err_seq != e.seq else "not_replayed"
        rows.append(Row(e.seq, e, status, rule=rule_ref(result.game, e), hash_status=marks.get(e.seq, "")))
    rows.sort(key=lambda r: (r.seq if r.seq is not None else 10**12, r.status == "not_replayed"))
    rules = result.rules
    report = Report(
        match_id=result.match_id, result=result, rows=rows, chain_break_seq=chain_break, hashed=hashed,
        options=_options(game, rules, _raw_rules(ordered)), rejects=[dict(r) for r in rejects], source=source,
    )  # fmt: skip
    report.server_deltas = result.recorded_deltas or next(
        (list(e.deltas) for e in reversed(ordered) if isinstance(e, Settled)), None
    )
    if result.recorded_deltas is not None and result.deltas is not None:
        report.differences = [
            Difference(s, c, r) for s, (c, r) in enumerate(zip(result.deltas, result.recorded_deltas, strict=False))
        ]
    report.explanations = explain_settlement(result, report.server_deltas)
    _verdict(report)
    return report, steps


def _raw_rules(ordered: Sequence[Entry]) -> dict[str, Any] | None:
    for e in ordered:
        if isinstance(e, MatchStarted):
            return dict(e.rules)
    return None


def _row(game_id: str | None, game: Any, st: Step, prev_state: Any, marks: dict[int, str]) -> Row:
    ev = st.event
    hs = marks.get(st.seq, "") if st.seq is not None and ev is not None else ""
    if st.error is not None:
        status = "illegal" if ev is not None else "unreadable"
        before = _safe_view(game, st.state)
        if before is not None:
            before = {"refused; the table stays": "", **before}
        return Row(
            st.seq,
            ev,
            status,
            rule=_broken_rule(game_id, ev, st.error),
            error=st.error.as_dict(),
            view=before,
            hash_status=hs,
        )
    assert ev is not None
    view = _safe_view(game, st.state) if ev.type != "match_started" else None
    status = "settled" if ev.type == "settled" else "ok"
    legal = _legal_note(game, prev_state, ev) if ev.seq >= 2 else ""
    return Row(st.seq, ev, status, rule=rule_ref(game_id, ev), legal=legal, view=view, hash_status=hs)


def _safe_view(game: Any, state: Any) -> dict[str, Any] | None:
    if game is None or state is None:
        return None
    try:
        return dict(game.view(state))
    except Exception:  # the view is illustration; a failing one must not sink the evidence
        return None


def _broken_rule(game_id: str | None, ev: AnyEvent | None, err: ContractError) -> str:
    m = RULE_ID_RE.search(err.message)
    if m:
        return m.group(0)
    if err.code in ("bad_hash", "conflict"):
        return "events.md §5"
    if err.code in ("seq_gap", "bad_json", "bad_field", "unknown_type", "not_started"):
        return "events.md §1–2"
    return rule_ref(game_id, ev)


def _verdict(rep: Report) -> None:
    r = rep.result
    e = r.error
    bad_chain = r.chain_ok is False
    if (e is not None and e["code"] == "bad_hash") or (bad_chain and e is None):
        k = rep.chain_break_seq if rep.chain_break_seq is not None else (e or {}).get("seq")
        rep.verdict = (
            f"Tampered: the hash chain breaks at seq {k}. The stored log was edited after it was written, "
            f"so the events from seq {k} on are not evidence; the rules' settlement cannot be established."
        )
        rep.verdict_class = "bad"
    elif e is not None:
        rule = _broken_rule(r.game, None, ContractError(e["code"], e["message"]))
        rep.verdict = (
            f"Invalid: seq {e['seq']} ({e['type']}) broke {rule or 'the contract'} — {e['code']}: {e['message']}. "
            "Replay stops there; the rules owe no settlement for a match that cannot be replayed."
        )
        if rep.server_deltas is not None:
            rep.verdict += f" The server nevertheless settled {fmt_deltas(rep.server_deltas)}."
        if bad_chain:
            rep.verdict += f" The hash chain also breaks at seq {rep.chain_break_seq}."
        rep.verdict_class = "bad"
    elif r.status == "incomplete":
        rep.verdict = (
            f"Incomplete: the log stops after {r.events} events, before the end the rules define. "
            "Nothing illegal was found; no settlement is due yet."
        )
        rep.verdict_class = "warn"
    elif r.settlement_matches is False:
        diffs = "; ".join(
            f"seat {d.seat}: charged {d.recorded:+d}, rules {d.recomputed:+d}" for d in rep.differences if d.diff
        )
        rep.verdict = (
            f"Settlement mismatch: every event is legal, but the server's settlement differs from the rules' ({diffs})."
        )
        rep.verdict_class = "bad"
    elif r.settlement_matches is True:
        rep.verdict = "Valid: every event followed the rules and the server's settlement equals the rules' settlement."
    else:
        rep.verdict = "Valid: every event followed the rules. The log holds no settled event to compare with."
    if r.status != "invalid" and r.chain_ok is None:
        rep.verdict += " The log carries no hashes, so edits cannot be ruled out from the log alone."
    rep.exit_code = 1 if (r.status == "invalid" or bad_chain or r.settlement_matches is False) else 0


# ---------------------------------------------------------------- HTML (analytics/templates/dispute.html.j2)
#
# Python turns the report into plain data (segments: chips, text, code, labelled groups); the Jinja2
# template, loaded with autoescape on, turns that data into markup. No log text is ever formatted
# into HTML here, so nothing in a log can inject markup into the report.

Seg = tuple[str, Any]
"""One piece of a cell: ("chips", [(css class, text)]), ("text", s), ("code", s), ("dash", None),
("seats", [(label, [Seg])]), ("melds", [(kind, [Seg])])."""


@lru_cache(maxsize=1)
def _env() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    return Environment(
        loader=PackageLoader("analytics", "templates"),
        autoescape=select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
    )  # fmt: skip


def _chip(x: str, tiles: bool = False) -> tuple[str, str]:
    """A card or tile string as (css class, text) (`tiles`: read `5s` as a tile, not a card)."""
    if tiles and x in TILE_SET:
        return f"tile t{x[1]}", x
    if len(x) == 2 and x[1] in SUIT_SYMBOL and x[0] in "3456789TJQKA2":
        return ("card red" if x[1] in "hd" else "card"), x[0] + SUIT_SYMBOL[x[1]]
    if x in ("BJ", "RJ"):
        return f"card joker{' red' if x == 'RJ' else ''}", x
    if x in TILE_SET:
        return f"tile t{x[1]}", x
    return "code", x


def _is_chips(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, str) and len(x) <= 3 for x in v)


def _segs(v: Any, t: bool = False) -> list[Seg]:
    """A view value as segments: chips for card lists, per-seat lists as `s0: …`, JSON otherwise."""
    if _is_chips(v):
        return [("chips", [_chip(x, t) for x in v])]
    if isinstance(v, list) and v and all(isinstance(x, list) for x in v):
        return [("seats", [(f"s{s}:", _segs(x, t) if x else [("dash", None)]) for s, x in enumerate(v)])]
    if isinstance(v, list) and v and all(isinstance(x, Mapping) and "tiles" in x for x in v):
        return [("melds", [(str(m.get("kind", "")), _segs(m["tiles"], t)) for m in v])]
    if isinstance(v, Mapping) and set(v) >= {"cards"}:
        rest = {k: x for k, x in v.items() if k != "cards"}
        return _segs(v["cards"], t) + ([("k", json.dumps(rest, ensure_ascii=False))] if rest else [])
    if v is None:
        return [("dash", None)]
    if isinstance(v, str | int | float | bool):
        return [("text", str(v))]
    return [("code", json.dumps(v, ensure_ascii=False))]


def _event_data(ev: AnyEvent | None, players: Sequence[str], t: bool = False) -> dict[str, Any] | None:
    """The timeline's event cell: type, who, and (label, segments) lines."""
    if ev is None:
        return None
    d = ev.to_dict()
    seat = d.get("seat")
    who = ""
    if isinstance(seat, int):
        who = f"seat {seat}" + (f" ({players[seat]})" if seat < len(players) else "")
    lines: list[tuple[str, list[Seg]]] = []
    for k, v in d.items():
        if k in ("match_id", "seq", "type", "seat", "hash", "ts"):
            continue
        if ev.type == "dealt" and k == "hands":
            lines.extend((f"s{s}:", _segs(h, t)) for s, h in enumerate(v))
            continue
        if ev.type == "match_started" and k in ("players", "rules"):
            continue
        lines.append((k, _segs([v] if k == "tile" else v, t)))
    return {"type": ev.type, "who": who, "lines": lines}


def _state_data(view: Mapping[str, Any] | None, t: bool = False) -> list[tuple[str, list[Seg] | None]]:
    """The table after an event as (label, segments) lines (None segments: a bold heading)."""
    if not view:
        return []
    lines: list[tuple[str, list[Seg] | None]] = []
    for k, v in view.items():
        if k.startswith("refused"):
            lines.append((k, None))
            continue
        if v in (None, [], {}, ""):
            continue
        if k == "hands" and isinstance(v, list):
            lines.extend((f"hand s{s}:", _segs(h, t) if h else [("dash", None)]) for s, h in enumerate(v))
            continue
        lines.append((f"{k}:", _segs(v, t)))
    return lines


def _bars(players: Sequence[str], calc: Sequence[int] | None, rec: Sequence[int] | None) -> dict[str, Any] | None:
    """Geometry of the per-seat paired bars (rules dark, server light) for the template's SVG."""
    n = len(calc or rec or [])
    if n == 0:
        return None
    values = [abs(v) for v in (*(calc or []), *(rec or []))] or [1]
    top = max(values) or 1
    row_h, w, mid = 34, 560, 330
    scale = (w - mid - 50) / top
    h = row_h * n + 30
    rows = []
    for s in range(n):
        y = 6 + s * row_h
        bars = []
        for j, (vals, colour) in enumerate(((calc, "#1f5fa8"), (rec, "#9cc3ee"))):
            if vals is None:
                continue
            v = vals[s]
            length = abs(v) * scale
            bars.append({
                "x": f"{mid if v >= 0 else mid - length:.1f}", "y": y + j * 13, "w": f"{max(length, 1):.1f}",
                "colour": colour, "tx": f"{mid + length + 4 if v >= 0 else mid - length - 4:.1f}",
                "anchor": "start" if v >= 0 else "end", "label": f"{v:+d}",
            })  # fmt: skip
        rows.append({"y": y, "name": (players[s] if s < len(players) else "")[:16], "seat": s, "bars": bars})
    return {"w": w, "h": h, "mid": mid, "rows": rows, "ly": h - 10, "server": rec is not None}


def render_report(rep: Report) -> str:
    """The report as one self-contained HTML document (Jinja2 template, autoescaped)."""
    r = rep.result
    players = r.players or []
    tiles = r.game in MAHJONG_GAMES
    first_bad = next((i for i, row in enumerate(rep.rows) if row.status in ("illegal", "unreadable")), None)
    rows = [
        {
            "row": row, "first": i == first_bad, "seq": "" if row.seq is None else str(row.seq),
            "event": _event_data(row.event, players, tiles), "state": _state_data(row.view, tiles),
        }
        for i, row in enumerate(rep.rows)
    ]  # fmt: skip
    items = [
        {"n": i + 1, "it": it, "detail": [(k, json.dumps(v, ensure_ascii=False)) for k, v in it.items()
                                          if k not in ("kind", "seat", "from", "points")]}
        for i, it in enumerate(r.items)
    ]  # fmt: skip
    seats = []
    for s, d in enumerate(r.deltas or []):
        rd = r.recorded_deltas[s] if r.recorded_deltas is not None else None
        seats.append({"seat": s, "name": players[s] if s < len(players) else "", "star": s in r.winners,
                      "rules": f"{d:+d}", "server": None if rd is None else f"{rd:+d}",
                      "gap": None if rd is None else rd - d})  # fmt: skip
    page = _env().get_template("dispute.html.j2").render(
            rep=rep, r=r, players=players, rows=rows, items=items, seats=seats,
            bars=_bars(players, r.deltas, r.recorded_deltas) if r.deltas is not None else None,
            options=[(n, json.dumps(v, ensure_ascii=False), json.dumps(d, ensure_ascii=False), m, by)
                     for n, v, d, m, by in rep.options],
            rejects=[{**rj, "raw": str(rj.get("raw", ""))[:300]} for rj in rep.rejects],
        now=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )  # fmt: skip
    return str(page)


def render_dispute_html(entries: Sequence[Any], *, rejects: Sequence[Mapping[str, Any]] = (), source: str = "") -> str:
    """The dispute report of one match's events (events, JSON lines or dicts) as HTML."""
    return render_report(build_report(entries, rejects=rejects, source=source))


# ---------------------------------------------------------------- loading and the command


def load_from_lake(lake: str, match_id: str) -> tuple[list[Entry], list[dict[str, Any]]]:
    """One match's stored lines (exactly as received), the refusals charged to it at a seq no
    stored event holds (issue 17, as the lake replays it), and its quarantined lines."""
    from analytics import queries  # the one way to read the lake
    from analytics.lake import open_lake
    from ingest.tables import charged_sql, refusal_entry

    con = open_lake(lake)
    lines = queries.match_lines(con, match_id)
    sql = charged_sql(
        "SELECT * FROM rejects WHERE match_id = $m", "SELECT match_id, seq FROM events WHERE match_id = $m"
    )
    charged = [
        refusal_entry(m, s, c, msg, ln)
        for m, s, ln, c, msg in con.execute(f"{sql} ORDER BY seq", {"m": match_id}).fetchall()
    ]
    cur = con.execute(
        "SELECT seq, code, message, raw, file_name, line FROM rejects WHERE match_id = $m ORDER BY seq, file_name, line",
        {"m": match_id},
    )
    cols = [d[0] for d in cur.description]
    rejects = [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]
    return to_entries(lines) + charged, rejects


def load_from_logs(paths: Sequence[str], match_id: str) -> list[Entry]:
    """One match's lines from JSON Lines files (`--log`), in file order."""
    out: list[Entry] = []
    for p in paths:
        for ln in read_log(p):
            if hasattr(ln, "event"):
                if ln.event.match_id == match_id:
                    out.append(ln.event)
            elif ln.error.match_id == match_id:
                out.append(ln.error)
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("match_id", metavar="MATCH_ID", help="the match to report on")
    p.add_argument("--lake", default="lake", help="the lake directory (default ./lake)")
    p.add_argument(
        "--log", nargs="+", metavar="PATH", help="read the match from these .jsonl(.gz) logs instead of the lake"
    )
    p.add_argument("--out", help="the HTML file to write (default dispute-MATCH_ID.html)")
    p.add_argument("--json", action="store_true", help="print the verdict as one JSON line instead of text")


def run(args: argparse.Namespace) -> int:
    from events.errors import UsageError

    if args.log:
        for p in args.log:
            if not Path(p).is_file():
                raise UsageError(f"cannot read {p}: no such file")
        entries, rejects, source = load_from_logs(args.log, args.match_id), [], ", ".join(args.log)
    else:
        if not Path(args.lake).is_dir():
            raise UsageError(f"no lake at {args.lake} (run 'paiju ingest' first, or pass --log PATH)")
        try:
            entries, rejects = load_from_lake(args.lake, args.match_id)
        except ImportError as e:
            raise UsageError(f"cannot read the lake in this build: {e}") from None
        source = f"lake {args.lake}"
    if not entries:
        raise UsageError(f"no match {args.match_id!r} in {source}")
    rep = build_report(entries, rejects=rejects, source=source)
    safe = re.sub(r"[^A-Za-z0-9_.\-]", "_", args.match_id)
    out = Path(args.out or f"dispute-{safe}.html")
    text = render_report(rep)
    tmp = out.with_name(out.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out)
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror or e}") from None
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    r = rep.result
    if args.json:
        print(json.dumps({
            "match_id": rep.match_id, "status": r.status, "error": r.error, "chain_ok": r.chain_ok,
            "chain_break_seq": rep.chain_break_seq, "final_hash": r.final_hash, "deltas": r.deltas,
            "recorded_deltas": r.recorded_deltas, "settlement_matches": r.settlement_matches,
            "verdict": rep.verdict, "exit_code": rep.exit_code, "out": str(out),
        }, ensure_ascii=False))  # fmt: skip
    else:
        print(f"{rep.match_id}: {rep.verdict}")
        print(f"report written to {out} ({len(text)} bytes, sha256 {digest}…)")
    return rep.exit_code
