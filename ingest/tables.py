"""Replay + table building: ONE pure function over a batch of complete matches (issue 11 part 1).

`build_tables(events)` takes a table of stored events (Arrow or pandas; columns `match_id`,
`seq`, `line` at least, every stored event of each match it names; optional `code`/`message`
rows are the stored refusals charged to a match at a seq no event holds, issue 17) and returns the rows of the
derived tables `matches`, `seats`, `items`, `fans` and `rules` as Arrow tables with the lake's
schemas (`ingest.schema`). No I/O, no clock, no randomness: the local process pool and the
Spark runner call this same function and must get the same rows.

Choices where the contract is silent (documented here, tested in tests/test_ingest_tables.py):
- role: `landlord`/`farmer` when the game's view names a landlord (Dou Dizhu), else `dealer` for
  the match's dealer seat and `player` for the others; `is_dealer` is kept separately.
- a draw (流局 / void) is a `finished` match with no winners.
- a win (for `fans` and `items.win_no`) is a run of consecutive items that carry `fans`, receive
  for the same seat with the same kind and fans, each payer at most once (a self-drawn win pays
  from every other seat but is one win).
- `rules_id` = first 16 hex digits of SHA-256 over the canonical JSON of
  `{"game": id, "options": every validated option with its value}` (preset included), so two
  spellings of the same rules share an id and any change of an option changes it.
- an engine that raises something other than a contract refusal marks the match `invalid`
  with `error_code` = `engine_error` (the message names the exception), never stopping the batch.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa

from engine.registry import GameNotAvailable, get_game
from engine.replay import Entry, ReplayResult, replay_final, replay_states
from events.chain import canonical_json
from events.errors import ContractError
from events.models import AnyEvent, MatchStarted
from ingest.integrity_tables import facts_record, match_facts
from ingest.parse import NO_DATE, date_of, parse_fast, stored_event
from ingest.schema import BUILT, schemas

ENGINE_ERROR = "engine_error"
_ITEM_KEYS = frozenset({"kind", "seat", "from", "points", "fan", "fans"})


def rules_id_of(game: str, options: dict[str, Any]) -> str:
    """Stable short id of a validated rules object (see the module docstring)."""
    return hashlib.sha256(canonical_json({"game": game, "options": options})).hexdigest()[:16]


def _column(tbl: Any, name: str) -> list[Any]:
    if isinstance(tbl, pa.Table | pa.RecordBatch):
        return tbl.column(name).to_pylist()
    return list(tbl[name])  # pandas


def _has(tbl: Any, name: str) -> bool:
    return name in (tbl.schema.names if isinstance(tbl, pa.Table | pa.RecordBatch) else tbl.columns)


def group_events(events: Any) -> dict[str, list[tuple[int, str]]]:
    """`match_id` → [(seq, line)] in seq order (first of equal seqs kept in input order).

    Rows with a `code` (a charged refusal, `group_refusals`) are not events and are left out.
    """
    mids = _column(events, "match_id")
    seqs = _column(events, "seq")
    lines = _column(events, "line")
    codes = _column(events, "code") if _has(events, "code") else [None] * len(mids)
    out: dict[str, list[tuple[int, str]]] = {}
    for m, s, ln, c in zip(mids, seqs, lines, codes, strict=True):
        if c is None:
            out.setdefault(m, []).append((int(s), ln))
    for rows in out.values():
        rows.sort(key=lambda r: r[0])
    return out


def refusal_entry(match_id: str, seq: int, code: str, message: str, raw: str | None) -> ContractError:
    """The refusal a stored `rejects` row charges its match with, as `paiju replay` charges the
    line (issue 17, `engine.replay.merge_entries`): the same code, message and seq; the event
    type where parsing the kept text again gives the same refusal (it names the type)."""
    typ = None
    if raw:
        try:
            parse_fast(raw.encode("utf-8", "surrogatepass"))
        except ContractError as e:
            if (e.code, e.message) == (code, message):
                typ = e.type
        except Exception:  # the type is a nicety; the row's code and message stand
            pass
    return ContractError(code, message, match_id=match_id, seq=seq, type=typ)  # type: ignore[arg-type]


def charged_sql(rejects: str, events: str) -> str:
    """SQL over a `rejects` source and the stored (rank-1) events of the same matches: the
    refusals charged to a match (issue 17), as rows `match_id, seq, line, code, message` for
    `build_tables`. One per (match_id, seq) that names both and that no stored event holds, as
    `engine.replay.merge_entries` charges an unreadable line; of two at one seq, the first by
    (file_sha, line) stands (`paiju replay` takes the first in the order it reads the files).
    `rejects` and `events` are SQL sources (our own table files, never user text)."""
    return f"""SELECT match_id, seq, raw AS line, code, message FROM (
        SELECT j.match_id, j.seq, j.raw, j.code, j.message,
               row_number() OVER (PARTITION BY j.match_id, j.seq ORDER BY j.file_sha, j.line) AS k
        FROM ({rejects}) j
        WHERE j.match_id IS NOT NULL AND j.seq IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM ({events}) e WHERE e.match_id = j.match_id AND e.seq = j.seq))
        WHERE k = 1"""


def group_refusals(events: Any) -> dict[str, list[ContractError]]:
    """`match_id` → the refusals charged to it: the rows with a `code` (then `line` is the kept
    text of the refused line), one per seq that no stored event holds (`CHARGED_SQL`)."""
    if not _has(events, "code"):
        return {}
    out: dict[str, list[ContractError]] = {}
    cols = zip(*(_column(events, n) for n in ("match_id", "seq", "line", "code", "message")), strict=True)
    for m, s, ln, c, msg in cols:
        if c is not None:
            out.setdefault(m, []).append(refusal_entry(m, int(s), c, msg or "", ln))
    return out


def _entries(rows: Sequence[tuple[int, str]], validate: bool) -> list[Entry]:
    out: list[Entry] = []
    for _, line in rows:
        try:
            out.append(parse_fast(line.encode("utf-8")) if validate else stored_event(line))
        except ContractError as err:
            out.append(err)
        except Exception as e:  # not even JSON: only possible with validate=False on foreign input
            out.append(ContractError("bad_json", f"unreadable stored line: {type(e).__name__}: {e}"))
    return out


def _replay(
    match_id: str, entries: list[Entry], keep: bool = False
) -> tuple[ReplayResult, Any, list[AnyEvent], list[Any]]:
    """The replay result, the last state (None when the deal was never applied) and, with
    `keep`, the events applied and the state after each (else two empty lists)."""
    try:
        if not keep:
            return (*replay_final(entries), [], [])
        return replay_states(entries)
    except Exception as e:  # a bug in an engine must not stop the batch
        result = ReplayResult(match_id=match_id, events=len(entries), status="invalid")
        first = next((x for x in entries if isinstance(x, MatchStarted)), None)
        if first is not None:
            result.game, result.players, result.dealer, result.base = (
                first.game,
                list(first.players),
                first.dealer,
                first.base,
            )
        result.error = {"seq": None, "type": None, "code": ENGINE_ERROR, "message": f"{type(e).__name__}: {e}"}
        return result, None, [], []


def _view(game_id: str | None, state: Any) -> dict[str, Any]:
    if game_id is None or state is None:
        return {}
    try:
        v = get_game(game_id).view(state)
    except (GameNotAvailable, Exception):
        return {}
    return v if isinstance(v, dict) else {}


def _wins(items: Sequence[dict[str, Any]]) -> list[int | None]:
    """win_no of each item (None for items that are not part of a win)."""
    out: list[int | None] = []
    win = -1
    key: tuple[Any, ...] | None = None
    payers: set[int] = set()
    for it in items:
        fans = it.get("fans")
        if not isinstance(fans, dict):
            out.append(None)
            key = None
            continue
        k = (it.get("seat"), it.get("kind"), json.dumps(fans, sort_keys=True), it.get("fan"))
        if k != key or it.get("from") in payers:
            win += 1
            key = k
            payers = set()
        payers.add(it.get("from"))  # type: ignore[arg-type]
        out.append(win)
    return out


FACTS = "facts"
"""`build_rows(…, facts=True)`'s extra table: the integrity facts of each finished match (match_id,
`facts` and `deals` as `ingest.integrity_tables` stores them). Not a lake table: the ingest's
integrity step takes them from its stage instead of reading the match's lines back (issue 22)."""
FACTS_SCHEMA = pa.schema([("match_id", pa.string()), ("facts", pa.string()), ("deals", pa.string())])


class _Rows:
    def __init__(self) -> None:
        self.cols = {t: {n: [] for n in schemas()[t].names} for t in BUILT}
        self.facts: dict[str, list[Any]] | None = None

    def add(self, table: str, **row: Any) -> None:
        cols = self.cols[table]
        for name, values in cols.items():
            values.append(row.get(name))

    def tables(self) -> dict[str, pa.Table]:
        out = {t: pa.Table.from_pydict(c, schema=schemas()[t]) for t, c in self.cols.items()}
        if self.facts is not None:
            out[FACTS] = pa.Table.from_pydict(self.facts, schema=FACTS_SCHEMA)
        return out


def _match_date(started: MatchStarted | None) -> str | None:
    """`yyyy-mm-dd` of the match_started `ts`; None without one (the events partition says `none`)."""
    d = date_of(started.ts if started else None)
    return None if d == NO_DATE else d


def _int_or_none(x: Any) -> int | None:
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _fact_events(applied: list[AnyEvent]) -> list[Mapping[str, Any]]:
    """The events as `match_facts` reads them when it is given the replay's states (docs/integrity.md):
    `match_started` and `dealt` as their lines' JSON objects (`wire_fields`), every later event as
    its own field dict (`__dict__`, no copy: issue 22, a dict built per event was 2 µs of it).

    The two answer every look-up `match_facts` makes of an event after the deal alike: it reads
    required fields by `[]` (set on every event of a match that replayed) and the optional ones by
    `.get` with None as the default, which is the model's default of each (`kind`, `tile`,
    `amount` … are required; `as` is the one aliased field: an event that set it is given as
    `wire_fields`). With the states given it never rebuilds an event from these dicts
    (`integrity_tables._states`); tests/test_ingest_speed6.py compares the facts both ways."""
    out: list[Mapping[str, Any]] = []
    for k, e in enumerate(applied):
        d = e.__dict__
        out.append(e.wire_fields() if k < 2 or d.get("as_") is not None else d)
    return out


def _add_facts(rows: _Rows, match_id: str, result: ReplayResult, applied: list[AnyEvent], states: list[Any]) -> None:
    """The integrity facts of a finished match, from the replay just made: the events as the lake
    stores them (their set fields = the JSON of the line), the settlement's deltas and lines as the
    `matches` and `items` rows hold them, and the replay's states (no second replay)."""
    if rows.facts is None or result.status != "finished" or result.deltas is None:
        return
    items = [(it.get("seat"), it.get("from"), it.get("points")) for it in result.items]
    whole = len(states) == len(applied)
    try:
        f = match_facts(match_id, _fact_events(applied) if whole else [e.wire_fields() for e in applied], result.deltas,
                        [(int(a), int(b), int(c)) for a, b, c in items if a is not None and b is not None and c is not None],
                        states if whole else None)  # fmt: skip
    except Exception:  # a bug behind the facts must not stop the replay: the integrity step reads
        return  # this match back from the lake instead (and names a failure there, after publishing)
    if f is not None:
        facts, deals = facts_record(f)
        rows.facts["match_id"].append(match_id)
        rows.facts["facts"].append(facts)
        rows.facts["deals"].append(deals)


def _add_match(rows: _Rows, rules_seen: set[str], match_id: str, entries: list[Entry]) -> None:
    result, state, applied, states = _replay(match_id, entries, keep=rows.facts is not None)
    _add_facts(rows, match_id, result, applied, states)
    evs: list[AnyEvent] = [e for e in entries if not isinstance(e, ContractError)]
    started = next((e for e in evs if isinstance(e, MatchStarted) and e.seq == 0), None)
    game = result.game or (started.game if started else None)
    rules_id = preset = None
    if result.rules is not None and game is not None:
        rules_id = rules_id_of(game, result.rules)
        preset = result.rules.get("preset")
        if rules_id not in rules_seen:
            rules_seen.add(rules_id)
            rows.add("rules", rules_id=rules_id, game=game, preset=preset,
                     options=canonical_json(result.rules).decode("utf-8"))  # fmt: skip
    elif started is not None:
        p = started.rules.get("preset", "standard")
        preset = p if isinstance(p, str) else None
    view = _view(game, state)
    landlord = _int_or_none(view.get("landlord"))
    players = result.players or (list(started.players) if started else [])
    dealer = result.dealer if result.dealer is not None else (started.dealer if started else None)
    err = result.error or {}
    deltas = result.deltas
    recorded = result.recorded_deltas
    status = result.status
    winners = sorted(result.winners)
    rows.add(
        "matches",
        match_id=match_id, game=game, rules_id=rules_id, preset=preset, status=status,
        n_players=len(players) if players else None, dealer=dealer,
        base=started.base if started else None, room=started.room if started else None,
        round=(started.round or 1) if started else None, events=result.events,
        error_seq=err.get("seq"), error_type=err.get("type"), error_code=err.get("code"),
        error_message=err.get("message"), winners=winners, n_winners=len(winners),
        is_draw=(status == "finished" and not winners), deltas=deltas, recorded_deltas=recorded,
        settlement_matches=result.settlement_matches, chain_ok=result.chain_ok,
        final_hash=result.final_hash, max_delta=max(deltas) if deltas else None, landlord=landlord,
        date=_match_date(started), started_ts=started.ts if started else None,
        ended_ts=evs[-1].ts if evs else None,
    )  # fmt: skip
    for seat, player in enumerate(players):
        if landlord is not None:
            role = "landlord" if seat == landlord else "farmer"
        else:
            role = "dealer" if seat == dealer else "player"
        rows.add(
            "seats",
            match_id=match_id, game=game, rules_id=rules_id, status=status, seat=seat, player=player,
            role=role, is_dealer=seat == dealer, delta=deltas[seat] if deltas else None,
            won=(seat in winners) if status == "finished" else None,
            recorded_delta=recorded[seat] if recorded and seat < len(recorded) else None,
        )  # fmt: skip
    wins = _wins(result.items)
    fans_done: set[int] = set()
    opens = rows.cols["items"]["opens_win"]
    for no, (it, win_no) in enumerate(zip(result.items, wins, strict=True)):
        detail = {k: v for k, v in it.items() if k not in _ITEM_KEYS}
        fan = _int_or_none(it.get("fan"))
        rows.add(
            "items",
            match_id=match_id, game=game, rules_id=rules_id, item_no=no, kind=str(it.get("kind")),
            seat=it.get("seat"), from_seat=it.get("from"), points=it.get("points"), fan=fan, win_no=win_no,
            opens_win=False,
            detail=json.dumps(detail, ensure_ascii=False, sort_keys=True, separators=(",", ":")) if detail else None,
        )  # fmt: skip
        if win_no is None or win_no in fans_done:
            continue
        fans_done.add(win_no)
        opens[-1] = True
        for fan_id, value in it["fans"].items():
            rows.add(
                "fans",
                match_id=match_id, game=game, rules_id=rules_id, win_no=win_no, seat=it.get("seat"),
                kind=str(it.get("kind")), fan_id=str(fan_id), value=_int_or_none(value), fan_total=fan,
            )  # fmt: skip


def build_rows(matches: Iterable[tuple[str, list[Entry]]], *, facts: bool = False) -> dict[str, pa.Table]:
    """(match_id, that match's entries) pairs → rows of matches/seats/items/fans/rules, in the
    given order. Each match is replayed with the entries given: the caller vouches that they are
    ALL of its stored events (the lake's rank-1 events, see `ingest.pipeline`). With `facts`,
    also the table `FACTS`."""
    rows = _Rows()
    if facts:
        rows.facts = {n: [] for n in FACTS_SCHEMA.names}
    rules_seen: set[str] = set()
    for match_id, entries in matches:
        _add_match(rows, rules_seen, match_id, entries)
    return rows.tables()


def build_tables(events: Any, *, validate: bool = False, facts: bool = False) -> dict[str, pa.Table]:
    """Stored events of complete matches (Arrow or pandas) → rows of matches/seats/items/fans/rules.

    Pure: the same events give the same rows, in match_id order. The lines are the lake's
    (validated when they were stored), so they are not validated again unless `validate`.
    """
    grouped = group_events(events)
    refused = group_refusals(events)
    return build_rows(((m, _entries(grouped.get(m, []), validate) + refused.get(m, [])) for m in sorted(grouped.keys() | refused.keys())),
                      facts=facts)  # fmt: skip


def build_tables_from_lines(lines: Iterable[tuple[str, int, str]]) -> dict[str, pa.Table]:
    """Convenience for tests: (match_id, seq, line) triples → tables."""
    mids, seqs, texts = [], [], []
    for m, s, ln in lines:
        mids.append(m)
        seqs.append(s)
        texts.append(ln)
    return build_tables(pa.table({"match_id": mids, "seq": seqs, "line": texts}), validate=True)
