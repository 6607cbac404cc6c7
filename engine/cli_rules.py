"""`paiju rules G [--preset P] [--json]`: the house-rule options, their defaults and the presets."""

from __future__ import annotations

import argparse
from typing import Any

from engine.base import rules_doc
from engine.cli_common import print_json
from engine.registry import GameNotAvailable, get_game
from events.errors import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help="game id, e.g. ddz, sichuan_xuezhan")
    p.add_argument("--preset", help="show the values of this preset")
    p.add_argument("--json", action="store_true")


def _range(o: dict[str, Any]) -> str:
    """`0–100`, `≥ 1` (no upper bound, as section 6 of the rule files states it) or the type."""
    lo, hi = o["minimum"], o["maximum"]
    if lo is None:
        return str(o["type"]) if hi is None else f"≤ {hi}"
    return f"≥ {lo}" if hi is None else f"{lo}–{hi}"


def run(args: argparse.Namespace) -> int:
    try:
        game = get_game(args.game)
    except GameNotAvailable as e:
        raise UsageError(str(e)) from None
    doc = rules_doc(game.Rules, game.presets)
    if args.preset is not None:
        if args.preset not in game.presets:
            raise UsageError(f"unknown preset {args.preset!r}; presets: {', '.join(game.presets)}")
        values = game.parse_rules({"preset": args.preset}).options()
        for o in doc["options"]:
            o["value"] = values[o["option"]]
    if args.json:
        print_json({"game": args.game, **doc})
        return 0
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"{args.game} house rules" + (f" (preset {args.preset})" if args.preset else ""))
    for col in ("option", "default", "allowed", "help") + (("value",) if args.preset else ()):
        t.add_column(col)
    for o in doc["options"]:
        allowed = ", ".join(map(str, o["allowed"])) if o["allowed"] else _range(o)
        row = [o["option"], str(o["default"]), allowed, o["help"]]
        if args.preset:
            row.append(str(o["value"]))
        t.add_row(*row)
    Console().print(t)
    print("presets: " + ", ".join(f"{k} {v}" if v else k for k, v in doc["presets"].items()))
    return 0
