"""`paiju`: the command line (docs/cli.md). Thin sub-commands that call into the packages.

Each sub-command lives next to the code it drives, as a module with `add_arguments(parser)` and
`run(args) -> int`; this file only wires them. Exit status: 0 success, 1 the work found what it
looked for (an invalid match, a mismatch), 2 bad usage or unreadable input (one line on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from events.errors import UsageError

COMMANDS: dict[str, tuple[str, str]] = {
    "simulate": ("engine.sim.cli", "bots play N matches of a game; writes an event log"),
    "replay": ("engine.cli_replay", "replay every match in log files (events.md §6)"),
    "ingest": ("ingest.cli", "store logs in the lake, replay them, write the tables"),
    "verify": ("ingest.verify", "check that the lake is whole: raw/, files, rows, chains, manifest"),
    "rebuild": ("ingest.rebuild", "rebuild every table of the lake from raw/ alone"),
    "stats": ("analytics.cli", "win rates, fan and score distributions from the lake"),
    "hand": ("engine.cli_hand", "the rules calculator: what a set of cards or tiles is worth"),
    "dispute": ("analytics.dispute", "a self-contained HTML evidence report for one match"),
    "lab": ("analytics.lab_cli", "the house-rules lab: simulate two rule sets and compare"),
    "dashboard": ("dashboard.cli", "start the Streamlit app on a lake"),
    "schema": ("events.cli_schema", "print the JSON Schema of every event type"),
    "rules": ("engine.cli_rules", "print a game's house-rule options, defaults and presets"),
    "integrity": ("analytics.integrity_cli", "collusion signals per pair of players and deal fairness per player"),
    "serve": ("referee.cli", "the live referee: an HTTP service that checks each event as the game server plays it"),
}

OPTIONAL_PACKAGES: dict[str, str] = {
    name: "serve" for name in ("fastapi", "uvicorn", "httpx", "prometheus_client", "starlette")
}
"""Packages a command imports when it runs, by the extra that installs them (`make run` has none)."""

ROUTED: dict[tuple[str, str], tuple[str, str]] = {
    ("simulate", "--to"): ("referee.sim_cli", "bots play N matches against a running referee (paiju serve)"),
}
"""`paiju simulate --to URL` is served by the referee's module, so that the engine never imports the referee."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (docs/cli.md): `paiju replay: the following arguments are
    required: PATH (paiju replay --help)`, exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        one_line(f"{self.prog}: {message} ({self.prog} --help)")
        raise SystemExit(2)


def one_line(message: str) -> None:
    """Print `message` on stderr as one line (newlines folded, lone surrogates escaped)."""
    text = " ".join(str(message).split())
    sys.stderr.write(text.encode("utf-8", "backslashreplace").decode("utf-8") + "\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with `only`, just that command's module is imported (the others
    keep their help line), so that `paiju replay` does not pay for the lake's and the dashboard's
    imports (pyarrow, duckdb: about a quarter of a second of start-up)."""
    parser = _Parser(prog="paiju", description="Replay, audit and analyse Chinese card and mahjong matches.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if only is not None and name != only:
            continue
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


def _routed(argv: Sequence[str]) -> argparse.ArgumentParser | None:
    """A parser for a command whose option hands it to another module (`ROUTED`), else None."""
    for (command, option), (module_name, help_text) in ROUTED.items():
        if argv[:1] == [command] and any(a == option or a.startswith(option + "=") for a in argv[1:]):
            parser = _Parser(prog="paiju")
            sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
            p = sub.add_parser(command, help=help_text, description=help_text)
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as e:
                p.set_defaults(_missing=f"'paiju {command} {option}' is not available in this build ({e.name} missing)")
                return parser
            module.add_arguments(p)
            p.set_defaults(_run=module.run)
            return parser
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run one sub-command; the exit status (0, 1, 2; 130 when interrupted).

    No traceback reaches a user: a `UsageError` is its one line; anything else a sub-command lets
    escape is a bug, reported as one `internal error` line (exit 2) unless PAIJU_DEBUG is set.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _routed(argv) or build_parser(argv[0] if argv[:1] and argv[0] in COMMANDS else "")
    try:
        args, extra = parser.parse_known_args(argv)
    except SystemExit as e:  # argparse: --help (0) or a one-line error (2)
        return e.code if isinstance(e.code, int) else 2
    if extra:
        where = f"paiju {args.command}" if args.command else "paiju"
        one_line(f"{where}: unrecognized arguments: {' '.join(extra)} ({where} --help)")
        return 2
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    if getattr(args, "_missing", None):
        one_line(f"paiju: {args._missing}")
        return 2
    try:
        return int(args._run(args))
    except UsageError as e:
        one_line(f"paiju {args.command}: {e}")
        return 2
    except KeyboardInterrupt:
        one_line(f"paiju {args.command}: interrupted")
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except RecursionError:
        one_line(f"paiju {args.command}: input nested too deeply")
        return 2
    except Exception as e:
        extra_name = OPTIONAL_PACKAGES.get((getattr(e, "name", None) or "").split(".")[0])
        if isinstance(e, ModuleNotFoundError) and extra_name is not None:
            one_line(f"paiju {args.command}: needs the optional package {e.name!r}: pip install 'paiju[{extra_name}]'")
            return 2
        if os.environ.get("PAIJU_DEBUG"):
            raise
        one_line(f"paiju {args.command}: internal error (a bug; PAIJU_DEBUG=1 shows where): {type(e).__name__}: {e}")
        return 2


def _quiet_stdout() -> None:
    """After a closed pipe (`paiju replay … | head`), point stdout at /dev/null so the exit flush is silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (captured in tests)
        pass


if __name__ == "__main__":
    raise SystemExit(main())
