"""`paiju replay PATH… [--match ID] [--json] [--steps]` (docs/cli.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from itertools import chain
from typing import Any

from engine.registry import GameNotAvailable, get_game
from engine.replay import Entry, GroupedLog, ReplayResult, group_blocks, replay_final, replay_with_steps
from engine.rooms import Finding, RoomMatch, check_rooms, room_match, started_of, summarise
from events.codec import event_to_json, gc_paused, read_log_blocks
from events.errors import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help=".jsonl or .jsonl.gz event logs")
    p.add_argument("--match", metavar="ID", help="replay only this match id")
    p.add_argument("--json", action="store_true", help="one JSON result per match (JSON Lines)")
    p.add_argument("--steps", action="store_true", help="print every event with the state after it")


def _blocks(paths: list[str]) -> Iterator[tuple[bool, list[Any]]]:
    """Every block of lines of the files in turn (`read_log_blocks`; chained in C, issue 22)."""
    return chain.from_iterable(map(read_log_blocks, paths))


def run(args: argparse.Namespace) -> int:
    for p in args.paths:
        if not os.path.isfile(p) or not os.access(p, os.R_OK):
            raise UsageError(f"cannot read {p}: no such readable file")
    with gc_paused():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    grouped: GroupedLog = group_blocks(_blocks(args.paths))
    for orphan in grouped.orphans:
        print(f"{orphan.path}:{orphan.line}: {orphan.error.code}: {orphan.error.message}", file=sys.stderr)
    matches = grouped.matches
    if args.match is not None:
        if args.match not in matches:
            raise UsageError(f"no match {args.match!r} in {', '.join(args.paths)}")
        matches = {args.match: matches[args.match]}
    any_finding = bool(grouped.orphans)
    if not args.json:
        from rich.console import Console

        console = Console(highlight=False, soft_wrap=True)  # a line is never cut or folded (grep, less -S)
    rooms: dict[str, RoomMatch] = {}
    for entries in matches.values():
        if args.steps:
            steps, result = replay_with_steps(entries)
            state = next((st.state for st in reversed(steps) if st.state is not None), None)
        else:  # no states kept, no step objects: the fold alone (issue 22)
            steps, (result, state) = [], replay_final(entries)
        if (summary := summarise(entries, result, state)) is not None:
            rooms[summary.match_id] = summary
        any_finding |= result.status == "invalid" or bool(result.refused) or result.settlement_matches is False
        for err in result.refused:  # quarantined lines (events.md §5): not events of the match
            print(
                f"{result.match_id} seq {err.seq if err.seq is not None else '?'}: {err.code}: {err.message}",
                file=sys.stderr,
            )
        if args.json:
            if args.steps:
                for st in steps:
                    print(json.dumps(_step_dict(result, st), ensure_ascii=False, separators=(",", ":")))
            sys.stdout.write(result.to_json() + "\n")
        else:
            if args.steps:
                _print_steps(console, result, steps)
            print_result(console, result)
    found = _room_findings(grouped.matches, rooms, args.match)
    for f in found:
        print(json.dumps({"room_finding": f.to_dict()}, ensure_ascii=False, separators=(",", ":")) if args.json else f.line())
    return 1 if any_finding or found else 0


def _room_findings(every: dict[str, list[Entry]], rooms: dict[str, RoomMatch], only: str | None) -> list[Finding]:
    """The findings across the rooms of the replayed matches (engine/rooms.py: PDK-R2/R16, ZJH-R2,
    SC-R23, HZ-R15, AS-R17). With `--match`, that match's only, its room's other matches of the
    files replayed too (not shown)."""
    if only is None:
        return check_rooms(rooms.values())
    if only not in rooms:
        return []
    me = rooms[only]
    for mid, entries in every.items():
        st = started_of(entries)
        if mid != only and st is not None and (st.game, st.room) == (me.game, me.room):
            other = room_match(entries)
            if other is not None:
                rooms[mid] = other
    return [f for f in check_rooms(rooms.values()) if f.match_id == only]


def _view(game_id: str | None, state: Any) -> dict[str, Any] | None:
    if game_id is None or state is None:
        return None
    try:
        return get_game(game_id).view(state)
    except GameNotAvailable:
        return None


def _step_dict(result: ReplayResult, st: Any) -> dict[str, Any]:
    return {
        "match_id": result.match_id,
        "seq": st.seq,
        "event": None if st.event is None else st.event.to_dict(),
        "error": None if st.error is None else st.error.as_dict(),
        "state": _view(result.game, st.state),
    }


def _print_steps(console: Any, result: ReplayResult, steps: list[Any]) -> None:
    from rich.markup import escape

    for st in steps:
        ev = "—" if st.event is None else event_to_json(st.event)
        console.print(f"[bold]{result.match_id} #{st.seq}[/bold] {escape(ev)}")
        if st.error is not None:
            console.print(f"  [red]✗ {st.error.code}: {escape(st.error.message)}[/red]")
            continue
        view = _view(result.game, st.state)
        for k, v in (view or {}).items():
            shown = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
            console.print(f"    {k}: {escape(str(shown))}")


def item_detail(item: dict[str, Any]) -> str:
    """A settlement line's extra fields in words: `seq 35 · dui_dui_hu 1 + qing_yi_se 2 = 3 fan ·
    multiplier 16` (the `--json` output keeps the fields as they are)."""
    parts: list[str] = []
    fans, fan = item.get("fans"), item.get("fan")
    for key, value in item.items():
        if key in ("kind", "seat", "from", "points", "fan"):
            continue
        if key == "fans":
            terms = " + ".join(f"{k} {v}" for k, v in (fans or {}).items())
            if terms:
                parts.append(f"{terms} = {fan} fan" if fan is not None else terms)
            elif fan is not None:
                parts.append(f"{fan} fan")
        elif isinstance(value, list):
            parts.append(f"{key} {' '.join(map(str, value))}")
        elif isinstance(value, dict):
            parts.append(f"{key} {json.dumps(value, ensure_ascii=False, sort_keys=True)}")
        else:
            parts.append(f"{key} {value}")
    if fan is not None and fans is None:
        parts.append(f"{fan} fan")
    return " · ".join(p for p in parts if p)


def print_result(console: Any, r: ReplayResult) -> None:
    """A readable block per match: status, error, deltas per player, settlement lines."""
    from rich.markup import escape
    from rich.table import Table

    colour = {"finished": "green", "incomplete": "yellow", "invalid": "red"}[r.status]
    console.print(
        f"[bold]{escape(r.match_id)}[/bold] · {r.game or '?'} · [{colour}]{r.status}[/{colour}] · {r.events} events"
    )
    if r.error:
        e = r.error
        console.print(f"  [red]seq {e['seq']} ({e['type']}): {e['code']}: {escape(e['message'])}[/red]")
    if r.chain_ok is not None:
        console.print(f"  hash chain: {'[green]verified[/green]' if r.chain_ok else '[red]BROKEN[/red]'}")
    if r.deltas is not None:
        t = Table(show_header=True, header_style="bold", box=None, padding=(0, 2))
        t.add_column("seat")
        t.add_column("player")
        t.add_column("delta", justify="right")
        if r.recorded_deltas is not None:
            t.add_column("server", justify="right")
        players = r.players or [""] * len(r.deltas)
        for s, d in enumerate(r.deltas):
            mark = " ★" if s in r.winners else ""
            row = [str(s), escape(players[s]) + mark, f"{d:+d}"]
            if r.recorded_deltas is not None:
                rd = r.recorded_deltas[s]
                row.append(f"{rd:+d}" if rd == d else f"[red]{rd:+d}[/red]")
            t.add_row(*row)
        console.print(t)
        for n, it in enumerate(r.items, 1):
            detail = item_detail(it)
            console.print(
                f"    #{n} {it['kind']}: seat {it['seat']} ← seat {it['from']}  {it['points']}"
                + (f"  ({escape(detail)})" if detail else "")
            )
    if r.settlement_matches is False or (r.deltas is None and r.recorded_deltas is not None):
        from engine.explain import explain_settlement  # the text output's only: not paid by --json

        console.print("  [red]the server's settlement differs from the rules' settlement:[/red]")
        for line in explain_settlement(r):
            console.print(f"    {escape(line)}")
