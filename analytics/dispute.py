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

Exit status (spec/cli.md): 0 when nothing is wrong (the match is not invalid, the chain does not
break, and a recorded settlement, if any, equals the rules'), 1 otherwise, 2 when the match or the
lake cannot be read. An incomplete match (the log stops before the end; nothing wrong found) exits 0.

`render_dispute_html(entries, ...)` is the same report as a string, for the dashboard's download
button; `entries` may be events, JSON lines (str/bytes) or event dicts.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from itertools import combinations
from pathlib import Path
from typing import Any

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
"""Event type (or `gang:KIND`) → the numbered rules of `shared/rules/<game>.md` that check it."""

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
class Difference:
    seat: int
    recomputed: int
    recorded: int

    @property
    def diff(self) -> int:
        return self.recorded - self.recomputed


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


def _norm(payload: Mapping[str, Any]) -> str:
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
    return f"one of {len(actions)} legal actions" if _norm(event.to_dict()) in {_norm(a) for a in actions} else ""


def _options(game: Any, rules: Mapping[str, Any] | None, raw: Mapping[str, Any] | None) -> list[tuple[str, Any, Any, str, str]]:
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


def _explain(result: ReplayResult, diffs: list[Difference]) -> list[str]:
    """Plain-language causes of the gap between the server's deltas and the rules' deltas."""
    rec, calc = result.recorded_deltas or [], result.deltas or []
    gap = [d.diff for d in diffs]
    out: list[str] = []
    if sum(rec) != 0:
        out.append(f"The server's deltas are not zero-sum: they add up to {sum(rec):+d} points.")
    if sorted(rec) == sorted(calc) and rec != calc:
        out.append("The server's amounts are the rules' amounts given to the wrong seats (seats swapped).")
    nz = [(r, c) for r, c in zip(rec, calc, strict=False) if c != 0 or r != 0]
    if nz and all(c != 0 for _, c in nz):
        ratios = {Fraction(r, c) for r, c in nz}
        if len(ratios) == 1:
            (k,) = ratios
            if k not in (0, 1):
                out.append(f"Every server amount is the rules' amount × {k}: a multiplier was applied wrongly (factor {k}).")
    items = result.items
    n = len(calc)
    nets = []
    for it in items:
        v = [0] * n
        v[it["seat"]] += it["points"]
        v[it["from"]] -= it["points"]
        nets.append(v)
    found = False
    for size in (1, 2):
        if found or len(items) > 40:
            break
        for combo in combinations(range(len(items)), size):
            tot = [sum(nets[i][s] for i in combo) for s in range(n)]
            names = ", ".join(f"#{i + 1} {items[i]['kind']} ({items[i]['points']} to seat {items[i]['seat']} from seat {items[i]['from']})" for i in combo)
            if tot == [-g for g in gap]:
                out.append(f"The difference is exactly settlement line{'s' if size > 1 else ''} {names}: the server left {'them' if size > 1 else 'it'} out.")
                found = True
            elif tot == gap:
                out.append(f"The difference is exactly settlement line{'s' if size > 1 else ''} {names}: the server counted {'them' if size > 1 else 'it'} twice.")
                found = True
            if found:
                break
    if not out:
        out.append("No single settlement line, multiplier or seat swap explains the difference; see the lines below.")
    return out


def build_report(entries: Sequence[Any], *, rejects: Sequence[Mapping[str, Any]] = (), source: str = "") -> Report:
    """Replay one match's entries and gather everything the report shows."""
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
        if result.settlement_matches is False:
            report.explanations = _explain(result, report.differences)
    _verdict(report)
    return report


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
        return Row(st.seq, ev, status, rule=_broken_rule(game_id, ev, st.error), error=st.error.as_dict(), view=before, hash_status=hs)
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
            rep.verdict += f" The server nevertheless settled {_fmt_deltas(rep.server_deltas)}."
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
        diffs = "; ".join(f"seat {d.seat}: charged {d.recorded:+d}, rules {d.recomputed:+d}" for d in rep.differences if d.diff)
        rep.verdict = f"Settlement mismatch: every event is legal, but the server's settlement differs from the rules' ({diffs})."
        rep.verdict_class = "bad"
    elif r.settlement_matches is True:
        rep.verdict = "Valid: every event followed the rules and the server's settlement equals the rules' settlement."
    else:
        rep.verdict = "Valid: every event followed the rules. The log holds no settled event to compare with."
    if r.status != "invalid" and r.chain_ok is None:
        rep.verdict += " The log carries no hashes, so edits cannot be ruled out from the log alone."
    rep.exit_code = 1 if (r.status == "invalid" or bad_chain or r.settlement_matches is False) else 0


def _fmt_deltas(deltas: Sequence[int]) -> str:
    return "[" + ", ".join(f"{d:+d}" for d in deltas) + "]"


# ---------------------------------------------------------------- HTML


CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 -apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC",sans-serif;color:#1d232a;margin:0;background:#fff}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:2px solid #dfe3e8;padding-bottom:4px}
.sub{color:#5b6670;margin:0 0 16px}
table{border-collapse:collapse;width:100%;margin:6px 0}
th,td{border:1px solid #dfe3e8;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f4f6f8;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
code,.mono{font-family:"SFMono-Regular",Consolas,"DejaVu Sans Mono",monospace;font-size:12px}
.hash{word-break:break-all}
.verdict{border-radius:6px;padding:12px 14px;margin:12px 0;font-size:15px;border:2px solid}
.verdict.ok{background:#e8f6ec;border-color:#2e8b57}.verdict.warn{background:#fff7e0;border-color:#c99a06}
.verdict.bad{background:#fdecec;border-color:#c0392b}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;font-weight:600}
.b-ok{background:#e8f6ec;color:#1e6b3f}.b-bad{background:#fdecec;color:#a12a1e}.b-mute{background:#eef0f2;color:#5b6670}
.b-warn{background:#fff3cf;color:#8a6800}
tr.illegal td{background:#fdecec}tr.illegal td:first-child{border-left:4px solid #c0392b}
tr.not_replayed td,tr.resent td{color:#8a949c}
.card,.tile{display:inline-block;border:1px solid #c5ccd3;border-radius:3px;padding:0 3px;margin:1px;background:#fff;font-family:"DejaVu Sans Mono",monospace;font-size:12px;white-space:nowrap}
.red{color:#c0392b}.joker{font-weight:700}
.tm{color:#1f5fa8}.tp{color:#2e8b57}.ts{color:#8e44ad}.tz{color:#c0392b}
.state{font-size:12px;color:#36414b}.state div{margin:1px 0}
.k{color:#5b6670}
.explain li{margin:3px 0}
svg{max-width:100%}
footer{margin-top:32px;color:#8a949c;font-size:12px}
@media print{
  body{font-size:11px}main{max-width:none;padding:0}
  tr,.verdict{page-break-inside:avoid;break-inside:avoid}
  h2{page-break-after:avoid;break-after:avoid}
  a{color:inherit;text-decoration:none}
  @page{size:A4;margin:12mm}
}
"""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _chip(x: str, tiles: bool = False) -> str:
    """A card or tile string as a small coloured chip (`tiles`: read `5s` as a tile, not a card)."""
    if tiles and x in TILE_SET:
        return f'<span class="tile t{x[1]}">{_e(x)}</span>'
    if len(x) == 2 and x[1] in SUIT_SYMBOL and x[0] in "3456789TJQKA2":
        cls = "card red" if x[1] in "hd" else "card"
        return f'<span class="{cls}">{_e(x[0])}{SUIT_SYMBOL[x[1]]}</span>'
    if x in ("BJ", "RJ"):
        return f'<span class="card joker{" red" if x == "RJ" else ""}">{_e(x)}</span>'
    if x in TILE_SET:
        return f'<span class="tile t{x[1]}">{_e(x)}</span>'
    return f"<code>{_e(x)}</code>"


def _is_chips(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, str) and len(x) <= 3 for x in v)


def _value(v: Any, t: bool = False) -> str:
    """A view value: chips for card lists, per-seat lists as `s0: …`, JSON otherwise."""
    if _is_chips(v):
        return "".join(_chip(x, t) for x in v)
    if isinstance(v, list) and v and all(isinstance(x, list) for x in v):
        parts = []
        for s, x in enumerate(v):
            parts.append(f'<span class="k">s{s}:</span> {_value(x, t) if x else "—"}')
        return " · ".join(parts)
    if isinstance(v, list) and v and all(isinstance(x, Mapping) and "tiles" in x for x in v):
        return " ".join(f'<span class="k">{_e(m.get("kind", ""))}</span> {_value(m["tiles"], t)}' for m in v)
    if isinstance(v, Mapping) and set(v) >= {"cards"}:
        rest = {k: x for k, x in v.items() if k != "cards"}
        return _value(v["cards"], t) + (f' <span class="k">{_e(json.dumps(rest, ensure_ascii=False))}</span>' if rest else "")
    if v is None:
        return "—"
    if isinstance(v, str | int | float | bool):
        return _e(v)
    return f"<code>{_e(json.dumps(v, ensure_ascii=False))}</code>"


def _event_cell(ev: AnyEvent | None, players: Sequence[str], t: bool = False) -> str:
    if ev is None:
        return "<em>unreadable line</em>"
    d = ev.to_dict()
    parts = [f"<b>{_e(ev.type)}</b>"]
    seat = d.get("seat")
    if isinstance(seat, int):
        who = f" ({_e(players[seat])})" if seat < len(players) else ""
        parts.append(f"seat {seat}{who}")
    for k, v in d.items():
        if k in ("match_id", "seq", "type", "seat", "hash", "ts"):
            continue
        if ev.type == "dealt" and k == "hands":
            parts.append("<br>".join(f'<span class="k">s{s}:</span> {_value(h, t)}' for s, h in enumerate(v)))
            continue
        if ev.type == "match_started" and k in ("players", "rules"):
            continue
        parts.append(f'<span class="k">{_e(k)}</span> {_value([v] if k == "tile" else v, t)}')
    return " ".join(parts[:2]) + ("<br>" + "<br>".join(parts[2:]) if len(parts) > 2 else "")


def _state_cell(view: Mapping[str, Any] | None, t: bool = False) -> str:
    if not view:
        return ""
    lines = []
    for k, v in view.items():
        if k.startswith("refused"):
            lines.append(f'<div><b>{_e(k)}:</b></div>')
            continue
        if v in (None, [], {}, ""):
            continue
        if k == "hands" and isinstance(v, list):
            lines.extend(f'<div><span class="k">hand s{s}:</span> {_value(h, t) if h else "—"}</div>' for s, h in enumerate(v))
            continue
        lines.append(f'<div><span class="k">{_e(k)}:</span> {_value(v, t)}</div>')
    return f'<div class="state">{"".join(lines)}</div>'


def _check_cell(row: Row) -> str:
    if row.status == "illegal" or row.status == "unreadable":
        err = row.error or {}
        rule = f" <b>{_e(row.rule)}</b>" if row.rule else ""
        return f'<span class="badge b-bad">✗ {_e(err.get("code"))}</span>{rule}<br>{_e(err.get("message", ""))}'
    if row.status == "resent":
        return '<span class="badge b-mute">identical re-send</span> a no-op (events.md §5)'
    if row.status == "not_replayed":
        if row.event is None and row.error:
            return f'<span class="badge b-mute">unreadable</span> {_e(row.error.get("code"))}: {_e(row.error.get("message"))}'
        return '<span class="badge b-mute">not replayed</span> after the first illegal event'
    if row.status == "settled":
        return '<span class="badge b-mute">recorded</span> the server\'s settlement (never used by the rules)'
    legal = f"<br><span class='k'>{_e(row.legal)}</span>" if row.legal else ""
    rule = f" {_e(row.rule)}" if row.rule else ""
    return f'<span class="badge b-ok">✓ legal</span>{rule}{legal}'


def _hash_badge(s: str) -> str:
    return {
        "ok": '<span class="badge b-ok">✓</span>',
        "broken": '<span class="badge b-bad">✗ edited</span>',
        "absent": '<span class="badge b-mute">none</span>',
    }.get(s, "")


def _bars_svg(players: Sequence[str], calc: Sequence[int] | None, rec: Sequence[int] | None) -> str:
    """Per-seat deltas as paired horizontal bars: the rules' (dark) and the server's (light)."""
    n = len(calc or rec or [])
    if n == 0:
        return ""
    values = [abs(v) for v in (*(calc or []), *(rec or []))] or [1]
    top = max(values) or 1
    row_h, w, mid = 34, 560, 330
    scale = (w - mid - 50) / top
    h = row_h * n + 30
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" '
        'aria-label="deltas per seat: rules versus server">'
    ]
    out.append(f'<line x1="{mid}" y1="4" x2="{mid}" y2="{h - 24}" stroke="#8a949c"/>')
    for s in range(n):
        y = 6 + s * row_h
        name = players[s] if s < len(players) else ""
        out.append(f'<text x="4" y="{y + 16}" font-size="12" fill="#1d232a">seat {s} {_e(name)[:16]}</text>')
        for j, (vals, colour) in enumerate(((calc, "#1f5fa8"), (rec, "#9cc3ee"))):
            if vals is None:
                continue
            v = vals[s]
            length = abs(v) * scale
            x = mid if v >= 0 else mid - length
            yy = y + j * 13
            out.append(f'<rect x="{x:.1f}" y="{yy}" width="{max(length, 1):.1f}" height="11" fill="{colour}"/>')
            tx = mid + length + 4 if v >= 0 else mid - length - 4
            anchor = "start" if v >= 0 else "end"
            out.append(f'<text x="{tx:.1f}" y="{yy + 10}" font-size="11" text-anchor="{anchor}" fill="#1d232a">{v:+d}</text>')
    ly = h - 10
    out.append(f'<rect x="4" y="{ly - 9}" width="10" height="10" fill="#1f5fa8"/><text x="18" y="{ly}" font-size="11">rules (recomputed)</text>')
    if rec is not None:
        out.append(f'<rect x="150" y="{ly - 9}" width="10" height="10" fill="#9cc3ee"/><text x="164" y="{ly}" font-size="11">server (recorded)</text>')
    out.append("</svg>")
    return "".join(out)


def render_report(rep: Report) -> str:
    """The report as one self-contained HTML document."""
    r = rep.result
    players = r.players or []
    esc_id = _e(rep.match_id)
    out: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Dispute evidence · {esc_id}</title>",
        f"<style>{CSS}</style></head><body><main>",
        f"<h1>Dispute evidence report · <span class='mono'>{esc_id}</span></h1>",
        f"<p class='sub'>{_e(r.game or 'unknown game')} · {r.events} events · status <b>{_e(r.status)}</b>"
        f"{' · source ' + _e(rep.source) if rep.source else ''}</p>",
        f"<div class='verdict {rep.verdict_class}' id='verdict'><b>Verdict.</b> {_e(rep.verdict)}"
        + (" <a href='#first-illegal'>Go to the first illegal event.</a>" if r.error else "")
        + "</div>",
    ]
    # 1. header
    out.append("<h2>1. Match</h2><table><tbody>")
    out.append(f"<tr><th>Game</th><td>{_e(r.game or '?')}</td></tr>")
    if players:
        ps = ", ".join(f"seat {s}: <b>{_e(p)}</b>{' (dealer)' if s == r.dealer else ''}" for s, p in enumerate(players))
        out.append(f"<tr><th>Players</th><td>{ps}</td></tr>")
    if r.base is not None:
        out.append(f"<tr><th>Stake (base)</th><td>{r.base}</td></tr>")
    if r.rules is not None:
        out.append(f"<tr><th>Rules preset</th><td><code>{_e(r.rules.get('preset', 'standard'))}</code></td></tr>")
    out.append("</tbody></table>")
    if r.rules is not None:
        if rep.options:
            out.append(
                "<table id='options'><thead><tr><th>Option (differs from the default)</th><th>Value</th><th>Default</th>"
                "<th>Set by</th><th>Meaning</th></tr></thead><tbody>"
            )
            for name, value, default, meaning, by in rep.options:
                out.append(
                    f"<tr><td><code>{_e(name)}</code></td><td><code>{_e(json.dumps(value, ensure_ascii=False))}</code></td>"
                    f"<td><code>{_e(json.dumps(default, ensure_ascii=False))}</code></td><td>{_e(by)}</td><td>{_e(meaning)}</td></tr>"
                )
            out.append("</tbody></table>")
        else:
            out.append("<p>Every option has the game's default value.</p>")
    # 2. integrity
    out.append("<h2>2. Integrity (hash chain, events.md §5)</h2>")
    if rep.hashed == 0:
        out.append("<p><span class='badge b-warn'>no hashes</span> The log carries no hashes: edits cannot be ruled out from the log alone.</p>")
    elif rep.chain_break_seq is None and r.chain_ok is not False:
        out.append(f"<p><span class='badge b-ok'>✓ verified</span> All {rep.hashed} hashes verify: the log was not edited since it was written.</p>")
    else:
        out.append(
            f"<p><span class='badge b-bad'>✗ broken at seq {rep.chain_break_seq}</span> The event stored at seq "
            f"{rep.chain_break_seq} is not the one that was hashed when it was written.</p>"
        )
    if r.final_hash:
        out.append(
            f"<p>Final hash (recomputed over the events as stored; compare it with the server's record): "
            f"<code class='hash'>{_e(r.final_hash)}</code></p>"
        )
    if rep.rejects:
        out.append("<p>Lines the store quarantined for this match:</p><table><thead><tr><th class='num'>seq</th><th>code</th><th>reason</th><th>line</th></tr></thead><tbody>")
        for rj in rep.rejects:
            out.append(
                f"<tr><td class='num'>{_e(rj.get('seq', ''))}</td><td>{_e(rj.get('code', ''))}</td><td>{_e(rj.get('message', ''))}</td>"
                f"<td><code>{_e(str(rj.get('raw', ''))[:300])}</code></td></tr>"
            )
        out.append("</tbody></table>")
    # 3. timeline
    out.append("<h2>3. Timeline</h2>")
    out.append("<table id='timeline'><thead><tr><th class='num'>seq</th><th>event</th><th>rule check</th><th>hash</th><th>table after the event</th></tr></thead><tbody>")
    marked = False
    tiles = r.game in MAHJONG_GAMES
    for row in rep.rows:
        attrs = f" class='{row.status}'"
        if row.status in ("illegal", "unreadable") and not marked:
            attrs += " id='first-illegal'"
            marked = True
        seq = "" if row.seq is None else str(row.seq)
        out.append(
            f"<tr{attrs}><td class='num'>{seq}</td><td>{_event_cell(row.event, players, tiles)}</td><td>{_check_cell(row)}</td>"
            f"<td>{_hash_badge(row.hash_status)}</td><td>{_state_cell(row.view, tiles)}</td></tr>"
        )
    out.append("</tbody></table>")
    # 4. settlement
    out.append("<h2 id='settlement'>4. Settlement</h2>")
    if r.deltas is None:
        out.append(f"<p>The rules give no settlement: the match is <b>{_e(r.status)}</b>.</p>")
        if rep.server_deltas is not None:
            out.append(f"<p>The server nevertheless recorded {_e(_fmt_deltas(rep.server_deltas))}.</p>")
    else:
        out.append(_bars_svg(players, r.deltas, r.recorded_deltas))
        out.append("<table><thead><tr><th>seat</th><th>player</th><th class='num'>rules</th>")
        if r.recorded_deltas is not None:
            out.append("<th class='num'>server</th><th class='num'>difference</th>")
        out.append("</tr></thead><tbody>")
        for s, d in enumerate(r.deltas):
            star = " ★" if s in r.winners else ""
            name = _e(players[s]) if s < len(players) else ""
            cells = f"<td>{s}</td><td>{name}{star}</td><td class='num'>{d:+d}</td>"
            if r.recorded_deltas is not None:
                rd = r.recorded_deltas[s]
                gap = rd - d
                cls = " class='num' style='color:#a12a1e;font-weight:700'" if gap else " class='num'"
                cells += f"<td class='num'>{rd:+d}</td><td{cls}>{gap:+d}</td>"
            out.append(f"<tr>{cells}</tr>")
        out.append("</tbody></table>")
        if rep.explanations:
            out.append("<p><b>Why they differ:</b></p><ul class='explain'>")
            out.extend(f"<li>{_e(x)}</li>" for x in rep.explanations)
            out.append("</ul>")
        elif r.settlement_matches is True:
            out.append("<p><span class='badge b-ok'>✓ equal</span> The server's settlement equals the rules' settlement.</p>")
        out.append("<p>Settlement lines (seat receives points from seat):</p>")
        out.append("<table><thead><tr><th class='num'>#</th><th>kind</th><th>to</th><th>from</th><th class='num'>points</th><th>detail (fans, multipliers, factors)</th></tr></thead><tbody>")
        for i, it in enumerate(r.items):
            detail = {k: v for k, v in it.items() if k not in ("kind", "seat", "from", "points")}
            det = " ".join(f"<span class='k'>{_e(k)}</span> <code>{_e(json.dumps(v, ensure_ascii=False))}</code>" for k, v in detail.items())
            out.append(
                f"<tr><td class='num'>{i + 1}</td><td>{_e(it['kind'])}</td><td>seat {it['seat']}</td><td>seat {it['from']}</td>"
                f"<td class='num'>{it['points']}</td><td>{det}</td></tr>"
            )
        if not r.items:
            out.append("<tr><td colspan='6'>no transfers (a void match)</td></tr>")
        out.append("</tbody></table>")
    # 5. verdict
    out.append(f"<h2>5. Verdict</h2><p>{_e(rep.verdict)}</p>")
    out.append(f"<p>Exit status of <code>paiju dispute</code>: <b>{rep.exit_code}</b>.</p>")
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    out.append(f"<footer>Generated by paiju dispute on {now}. Rules: shared/rules; contract: events.md.</footer>")
    out.append("</main></body></html>")
    return "\n".join(out)


def render_dispute_html(entries: Sequence[Any], *, rejects: Sequence[Mapping[str, Any]] = (), source: str = "") -> str:
    """The dispute report of one match's events (events, JSON lines or dicts) as HTML."""
    return render_report(build_report(entries, rejects=rejects, source=source))


# ---------------------------------------------------------------- loading and the command


def load_from_lake(lake: str, match_id: str) -> tuple[list[Entry], list[dict[str, Any]]]:
    """One match's stored lines (exactly as received) and its quarantined lines, from the lake."""
    from analytics import queries  # the one way to read the lake
    from analytics.lake import open_lake

    con = open_lake(lake)
    lines = queries.match_lines(con, match_id)
    cur = con.execute(
        "SELECT seq, code, message, raw, file_name, line FROM rejects WHERE match_id = $m ORDER BY seq, file_name, line",
        {"m": match_id},
    )
    cols = [d[0] for d in cur.description]
    rejects = [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]
    return to_entries(lines), rejects


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
    p.add_argument("--log", nargs="+", metavar="PATH", help="read the match from these .jsonl(.gz) logs instead of the lake")
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
