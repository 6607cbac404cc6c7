"""Where each microsecond of an event goes, per game: parse, replay, table building (issue 22).

    .venv/bin/python bench/parse.py [--root DIR] [--rounds 3]

On the simulated base set of every game (bench/_data.py, cached in /tmp), CPU µs per event on one
core of:
- bare `orjson.loads` and bare `json.loads` of each line (the floor);
- the line parser `events.codec.parse_line` (decode, every contract check, the event object),
  and its ratio to the bare `orjson.loads` (goal <= 1.5x); beside it `decode`, the part of the
  parser that runs in C (the msgspec typed decode of `events.fastparse`, of every type): what is
  left is the Python around it;
- the replay `engine.replay.replay` of each match from its parsed events (seq checks, hash chain,
  the game's reducer, settlement), and its ratio to the line parser of the same events
  (goal <= 5x);
- table building `ingest.tables.build_rows` of each match beyond its replay (views, rows, Arrow);
- `struct`: what the line parser would cost if the events were msgspec Structs decoded in C (a
  tagged union on `type`, built here from the pydantic models' wire types), with the same checks
  in Python around it as `events.fastparse` (backslash, hash hex, match id characters, the colon
  count that finds duplicate and unknown keys); `match_started` by today's parser. A measurement
  of that design, not code the product runs: every line it takes must be one today's parser takes.
`--root` imports the code under test from another checkout (e.g. the base commit's worktree) so
that before and after are measured by the same script. Best of `--rounds` interleaved rounds;
the load average is printed beside the figures (2 cores shared: ratios, not absolute times).

`--instructions` counts instead, for all games together, the instructions per event (valgrind's
cachegrind: exact and the same on a loaded machine) of `orjson.loads`, the C decode, the line
parser and the `struct` prototype, on every line, on the `match_started` lines or on the rest (`--lines`):
each the difference of a child that parses the lines twice and one that does not (imports, the
log's read and a warm-up pass cancel).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _best(rounds: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        c = time.process_time()
        fn()
        best = min(best, time.process_time() - c)
    return best


def struct_parser() -> Callable[[bytes], object]:
    """The `struct` column's parser: one msgspec decoder of a tagged union of frozen Structs, a
    field per wire field (optional ones UNSET when the line leaves them out), and the checks of
    `events.fastparse.parse_clean` around it; None where today's fast path also bails out."""
    from typing import Union

    import msgspec
    from msgspec import UNSET, UnsetType

    from events.fastparse import _FREE_TEXT, _WIRE, _hex_ok, _id_colons
    from events.models import EVENT_TYPES

    structs: list[Any] = []
    keys: dict[Any, int] = {}
    for typ, model in EVENT_TYPES.items():
        if typ == "match_started":
            continue
        required: list[Any] = []
        optional: list[Any] = []
        for name, f in model.model_fields.items():
            if name != "type":
                wire = bool if (model.__name__, name) == ("Rob", "value") else _WIRE[name]
                if f.is_required():
                    required.append((f.alias or name, wire))
                else:
                    optional.append((f.alias or name, Union[wire, UnsetType], UNSET))  # noqa: UP007
        cls = msgspec.defstruct(model.__name__, required + optional, tag_field="type", tag=typ,
                                forbid_unknown_fields=True, frozen=True, kw_only=True)  # fmt: skip
        structs.append(cls)
        keys[cls] = len(required) + len(optional) + 1  # and the tag
    decode = msgspec.json.Decoder(Union[tuple(structs)]).decode  # type: ignore[valid-type]  # noqa: UP007
    astuple = msgspec.structs.astuple
    errors = (msgspec.ValidationError, msgspec.DecodeError, RecursionError)

    def parse(raw: bytes) -> object:
        if 92 in raw:  # a backslash: the reference path
            return None
        try:
            ev = decode(raw)
        except errors:
            return None
        h = ev.hash
        id_colons = _id_colons(ev.match_id)
        if id_colons < 0 or (h is not UNSET and not _hex_ok(h)):
            return None
        extra = raw.count(b":") - keys[ev.__class__] + astuple(ev).count(UNSET) - id_colons
        if extra:
            ts = ev.ts
            if ts is not UNSET:
                extra -= ts.count(":")
            for name in _FREE_TEXT:
                v = getattr(ev, name, UNSET)
                if v is not UNSET:
                    extra -= v.count(":") if name == "reason" else sum(x.count(":") for x in v)
            if extra:
                return None
        return ev

    return parse


_SUBSETS = ("all", "match_started", "other")
_METHODS = ("orjson", "decode", "parser", "struct")


def _subset(lines: list[bytes], which: str) -> list[bytes]:
    if which == "all":
        return lines
    started = [b'"type":"match_started"' in x for x in lines]
    return [x for x, s in zip(lines, started, strict=True) if s == (which == "match_started")]


def _child(log: Path, method: str, which: str, passes: int) -> None:
    """Parse the lines of `which` by `method` `passes` times, after one warm-up pass of every
    method (so that a child with no pass runs the same code up to the loop)."""
    import orjson

    from events.codec import parse_line

    lines = _subset(log.read_bytes().splitlines(), which)
    struct_parse = struct_parser()
    dec = _decoders(lines)
    fns: dict[str, Callable[[], object]] = {
        "orjson": lambda: [orjson.loads(x) for x in lines],
        "decode": lambda: [d(x) for d, x in dec],
        "parser": lambda: [parse_line(x) for x in lines],
        "struct": lambda: [struct_parse(x) or parse_line(x) for x in lines],
    }
    for fn in fns.values():
        fn()
    gc.disable()  # the collector's passes depend on the heap's history, not on the parser
    for _ in range(passes):
        fns[method]()
    print(len(lines))


def _count(root: str, method: str, which: str, passes: int) -> tuple[int, int]:
    """(instructions of a child, its number of lines): valgrind cachegrind `I refs`, user space."""
    env = {**os.environ, "PYTHONPATH": root, "PYTHONHASHSEED": "0"}
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", sys.executable,
           str(Path(__file__).resolve()), "--root", root, "--child", method, which, str(passes)]  # fmt: skip
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    line = next(x for x in res.stderr.splitlines() if "I   refs:" in x or "I refs:" in x)
    return int(line.rsplit(":", 1)[1].replace(",", "")), int(res.stdout.split()[-1])


def _instructions(root: str, subsets: list[str]) -> None:
    """Instructions per event of each method on each subset of the lines (2 passes minus none)."""
    print(f"code under test: {root}  instructions per event by valgrind (2 passes - 0 passes)")
    print(f"{'lines':14} {'events':>7} " + " ".join(f"{m:>9}" for m in _METHODS) + f" {'/orjson':>8} {'struct/o':>8}")
    for which in subsets:
        base, n = _count(root, "orjson", which, 0)
        per = {m: (_count(root, m, which, 2)[0] - base) / (2 * n) for m in _METHODS}
        print(f"{which:14} {n:7d} " + " ".join(f"{per[m]:9.0f}" for m in _METHODS)
              + f" {per['parser'] / per['orjson']:7.2f}x {per['struct'] / per['orjson']:7.2f}x", flush=True)  # fmt: skip
    print("goal: parser <= 1.5x orjson")


def _decoders(lines: list[bytes]) -> list[tuple[Callable[[bytes], object], bytes]]:
    """Each line with the C decoder the fast path picks for it (`orjson.loads` for the rest)."""
    import orjson

    from events.fastparse import _FAST, _TYPE_RE

    out = []
    for x in lines:
        m = _TYPE_RE.search(x)
        fast = _FAST.get(m.group(1)) if m is not None else None
        out.append((fast[1] if fast is not None else orjson.loads, x))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=str(ROOT), help="checkout whose code is measured (default: this one)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--instructions", action="store_true", help="count instructions per event (valgrind)")
    ap.add_argument("--lines", default="all", help=f"with --instructions: comma-separated, of {', '.join(_SUBSETS)}")
    ap.add_argument("--child", nargs=3, metavar=("METHOD", "LINES", "PASSES"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench._data import base_log

    log = base_log()
    if args.instructions:
        _instructions(str(Path(args.root).resolve()), args.lines.split(","))
        return
    sys.path.insert(0, args.root)
    for name in [m for m in sys.modules if m.split(".")[0] in ("events", "engine", "ingest")]:
        del sys.modules[name]
    if args.child:
        _child(log, args.child[0], args.child[1], int(args.child[2]))
        return
    import orjson

    import events.codec
    from engine.replay import replay
    from events.codec import parse_line
    from ingest.tables import build_rows

    print(f"code under test: {Path(events.codec.__file__).resolve().parent.parent}")
    by_game: dict[str, list[bytes]] = {}
    game_of: dict[str, str] = {}
    for raw in log.read_bytes().splitlines():
        o = json.loads(raw)
        if o["type"] == "match_started":
            game_of[o["match_id"]] = o["game"]
        by_game.setdefault(game_of[o["match_id"]], []).append(raw)
    struct_parse = struct_parser()
    print(f"{'game':16} {'events':>7} {'orjson':>7} {'json':>7} {'decode':>7} {'parser':>7} {'/orjson':>7} "
          f"{'replay':>7} {'/parser':>7} {'tables':>7} {'struct':>7} {'/orjson':>7}   (CPU µs per event)")  # fmt: skip
    totals = dict.fromkeys(("n", "orjson", "json", "decode", "parser", "replay", "tables", "struct"), 0.0)
    for game, lines in by_game.items():
        evs = [parse_line(x) for x in lines]
        matches: dict[str, list[Any]] = {}
        for e in evs:
            matches.setdefault(e.match_id, []).append(e)
        pairs = list(matches.items())
        for _, m in pairs:  # warm the reducers' lazy tables
            replay(m)
        n = len(lines)
        t_orjson = _best(args.rounds, lambda lines=lines: [orjson.loads(x) for x in lines])
        t_json = _best(args.rounds, lambda lines=lines: [json.loads(x) for x in lines])
        dec = _decoders(lines)
        t_decode = _best(args.rounds, lambda dec=dec: [d(x) for d, x in dec])
        t_parse = _best(args.rounds, lambda lines=lines: [parse_line(x) for x in lines])
        t_replay = _best(args.rounds, lambda pairs=pairs: [replay(m) for _, m in pairs])
        t_rows = _best(args.rounds, lambda pairs=pairs: build_rows(pairs))
        taken = [struct_parse(x) is not None for x in lines]
        if taken != [e.type != "match_started" and (b"\\" not in x) for e, x in zip(evs, lines, strict=True)]:
            raise SystemExit(f"{game}: the struct parser does not take the lines today's fast path takes")
        t_struct = _best(args.rounds, lambda lines=lines: [struct_parse(x) or parse_line(x) for x in lines])
        us = 1e6 / n
        print(f"{game:16} {n:7d} {t_orjson * us:7.2f} {t_json * us:7.2f} {t_decode * us:7.2f} {t_parse * us:7.2f} {t_parse / t_orjson:6.2f}x "
              f"{t_replay * us:7.2f} {t_replay / t_parse:6.2f}x {(t_rows - t_replay) * us:7.2f} "
              f"{t_struct * us:7.2f} {t_struct / t_orjson:6.2f}x")  # fmt: skip
        for k, v in (("n", n), ("orjson", t_orjson), ("json", t_json), ("decode", t_decode), ("parser", t_parse), ("replay", t_replay),
                     ("tables", t_rows - t_replay), ("struct", t_struct)):  # fmt: skip
            totals[k] += v
    us = 1e6 / totals["n"]
    print(f"{'all':16} {int(totals['n']):7d} {totals['orjson'] * us:7.2f} {totals['json'] * us:7.2f} {totals['decode'] * us:7.2f} "
          f"{totals['parser'] * us:7.2f} {totals['parser'] / totals['orjson']:6.2f}x {totals['replay'] * us:7.2f} "
          f"{totals['replay'] / totals['parser']:6.2f}x {totals['tables'] * us:7.2f} {totals['struct'] * us:7.2f} "
          f"{totals['struct'] / totals['orjson']:6.2f}x")  # fmt: skip
    print("goals: parser <= 1.5x orjson; every game's replay <= 5x its parser")
    print(f"machine load average: {Path('/proc/loadavg').read_text().split()[0]} (2 cores shared)")


if __name__ == "__main__":
    main()
