"""`paiju ingest PATH… [--lake DIR] [--workers N] [--engine local]` (docs/cli.md).

Exit status: 0 every file was stored (refused lines are in `rejects`, not an error of the run);
2 some path could not be read (the rest is ingested) or the lake is busy and `--no-wait` was given.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

ENGINES = ["local", "spark"]
"""`--engine` choices: `local` (a process pool) or `spark` (the scale-out runner, `ingest.spark`)."""


def add_lake_arguments(p: argparse.ArgumentParser, json_help: str = "print the summary as one JSON object") -> None:
    """--lake, --workers and --json: what ingest, verify and rebuild share (--workers checked here)."""
    p.add_argument("--lake", default="lake", metavar="DIR", help="the lake folder (default ./lake)")
    p.add_argument("--workers", type=_workers, default=min(2, os.cpu_count() or 1), metavar="N",
                   help="worker processes for parsing and replay (0 = in this process)")  # fmt: skip
    p.add_argument("--json", action="store_true", help=json_help)


def _workers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("--workers must be 0 or more")
    return n


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help=".jsonl or .jsonl.gz event logs")
    add_lake_arguments(p)
    p.add_argument("--engine", choices=ENGINES, default="local", help="where replay runs (default local)")
    p.add_argument("--no-wait", action="store_true", help="refuse instead of waiting when another ingest holds the lake")


def run(args: argparse.Namespace) -> int:
    from events.errors import UsageError
    from ingest.pipeline import ingest
    from ingest.store import LakeBusy

    replayer = None
    spark_errors: tuple[type[Exception], ...] = ()
    if args.engine == "spark":  # imported only when chosen: pyspark is the optional extra `dist`
        from engine.sim.spark import SparkUnavailable, require_spark
        from ingest.spark import SparkReplayer, SparkReplayError

        try:
            require_spark()
        except SparkUnavailable as e:
            raise UsageError(str(e)) from None
        replayer = SparkReplayer()
        spark_errors = (SparkReplayError,)
    show = not args.json and sys.stderr.isatty()

    def waiting(pid: str) -> None:
        print(f"paiju ingest: waiting for another ingest (pid {pid}) to finish with {args.lake}", file=sys.stderr)

    try:
        s = ingest(args.paths, args.lake, workers=args.workers, progress=show, wait=not args.no_wait, on_wait=waiting,
                   replayer=replayer)  # fmt: skip
    except LakeBusy as e:
        raise UsageError(str(e)) from None
    except spark_errors as e:  # names the failing match ids; nothing was published
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"cannot write the lake {args.lake}: {e.strerror or e}") from None
    for u in s.unreadable:
        print(f"paiju ingest: cannot read {u}", file=sys.stderr)
    if args.json:
        print(json.dumps(s.as_dict(), ensure_ascii=False))
    else:
        from rich.console import Console
        from rich.table import Table

        t = Table(title=f"ingest into {args.lake}", show_header=False, box=None)
        rows = [
            ("files stored", s.files), ("files already stored", s.skipped), ("unreadable paths", len(s.unreadable)),
            ("lines read", s.lines), ("events stored", s.events), ("identical re-sends", s.duplicates),
            ("rejected lines", s.rejected), ("conflicts", s.conflicts), ("matches replayed", s.matches),
            ("  of them while parsing", s.speculative), ("raw files repaired", len(s.repaired)),
        ] + [(f"  {k}", v) for k, v in sorted(s.statuses.items())] + [("room findings", len(s.room_findings))]  # fmt: skip
        for k, v in rows:
            t.add_row(k, str(v))
        Console().print(t)
        print_room_findings(s.room_findings)
    return 2 if s.unreadable else 0


ROOM_FINDINGS_SHOWN = 20


def print_room_findings(lines: list[str], shown: int = ROOM_FINDINGS_SHOWN) -> None:
    """The room findings of a run (ingest.rooms): a line naming the count, then one line each."""
    if not lines:
        return
    print(f"{len(lines)} room finding{'s' if len(lines) != 1 else ''}: {lines[0]}")
    for line in lines[1:shown]:
        print(f"  {line}")
    if len(lines) > shown:
        print(f"  … and {len(lines) - shown} more (the lake's room_findings table)")
