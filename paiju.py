"""`paiju`: the command line (spec/cli.md). Thin sub-commands that call into the packages.

Each sub-command lives next to the code it drives, as a module with `add_arguments(parser)` and
`run(args) -> int`; this file only wires them. Exit status: 0 success, 1 the work found what it
looked for (an invalid match, a mismatch), 2 bad usage or unreadable input (one line on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from events.errors import UsageError

COMMANDS: dict[str, tuple[str, str]] = {
    "simulate": ("engine.sim.cli", "bots play N matches of a game; writes an event log"),
    "replay": ("engine.cli_replay", "replay every match in log files (events.md §6)"),
    "ingest": ("ingest.cli", "store logs in the lake, replay them, write the tables"),
    "stats": ("analytics.cli", "win rates, fan and score distributions from the lake"),
    "hand": ("engine.cli_hand", "the rules calculator: what a set of cards or tiles is worth"),
    "dispute": ("analytics.dispute", "a self-contained HTML evidence report for one match"),
    "lab": ("analytics.lab_cli", "the house-rules lab: simulate two rule sets and compare"),
    "dashboard": ("dashboard.cli", "start the Streamlit app on a lake"),
    "schema": ("events.cli_schema", "print the JSON Schema of every event type"),
    "rules": ("engine.cli_rules", "print a game's house-rule options, defaults and presets"),
    "integrity": ("analytics.integrity_cli", "collusion signals per pair of players and deal fairness per player"),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"paiju: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="paiju", description="Replay, audit and analyse Chinese card and mahjong matches.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name and module_name.startswith(e.name.split(".")[0]):
                p.set_defaults(_missing=f"'paiju {name}' is not available in this build ({e.name} missing)")
                continue
            raise
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if getattr(args, "_missing", None):
        print(f"paiju: {args._missing}", file=sys.stderr)
        return 2
    try:
        return int(args._run(args))
    except UsageError as e:
        print(f"paiju {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"paiju {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
