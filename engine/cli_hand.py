"""`paiju hand G CARDS [options] [--json]` and `paiju hand G --batch FILE` (spec/cli.md).

Each game object answers `hand(query: dict) -> dict`, where the query has the batch fields
(`cards`, `rules`, `laizi`, `melds`, `win_tile`, `zimo`, `void`, `situation`) and may raise
ValueError with a readable reason.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine.cli_common import load_rules_arg, print_json
from engine.registry import GameNotAvailable, get_game
from events.errors import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game")
    p.add_argument("cards", nargs="?", help="cards or tiles, e.g. \"3s 3h 3d 4c\" or 123m456p789s11z")
    p.add_argument("--batch", metavar="FILE", help="JSON Lines of queries ('-' = standard input)")
    p.add_argument("--rules", help="rules object as JSON or @FILE")
    p.add_argument("--laizi", help="ddz_laizi: the wild rank")
    p.add_argument("--melds", help="mahjong melds: peng:5p,gang_an:9m,gang_bu:3s,gang_zhi:1p")
    p.add_argument("--win-tile", dest="win_tile", help="mahjong: the winning tile")
    p.add_argument("--zimo", action="store_true", help="mahjong: self-drawn win")
    p.add_argument("--void", help="mahjong: the void suit (定缺) m, p or s")
    p.add_argument("--situation", help="mahjong: comma-separated situations, e.g. gang_shang_hua")
    p.add_argument("--json", action="store_true")


def _answer(game: Any, query: dict[str, Any]) -> dict[str, Any]:
    try:
        return game.hand(query)  # type: ignore[no-any-return]
    except ValueError as e:
        return {"valid": False, "error": str(e)}
    except KeyError as e:  # a lookup of an unknown name: say which
        return {"valid": False, "error": f"unknown {e.args[0]!r}"}


def run(args: argparse.Namespace) -> int:
    try:
        game = get_game(args.game)
    except GameNotAvailable as e:
        raise UsageError(str(e)) from None
    if not hasattr(game, "hand"):
        raise UsageError(f"the rules calculator is not available for {args.game}")
    if args.batch is not None:
        try:
            stream = sys.stdin if args.batch == "-" else open(args.batch, encoding="utf-8")  # noqa: SIM115
        except OSError as e:
            raise UsageError(f"cannot read {args.batch}: {e.strerror}") from None
        with stream:
            for n, line in enumerate(stream, 1):
                if not line.strip():
                    continue
                try:
                    q = json.loads(line)
                    if not isinstance(q, dict):
                        raise ValueError("not an object")
                except ValueError as e:
                    print_json({"valid": False, "error": f"line {n}: not a JSON object ({e})"})
                    continue
                print_json(_answer(game, q))
        return 0
    if args.cards is None:
        raise UsageError("give the cards/tiles, or --batch FILE")
    query: dict[str, Any] = {"cards": args.cards, "rules": load_rules_arg(args.rules)}
    for k in ("laizi", "melds", "win_tile", "void", "situation"):
        if getattr(args, k) is not None:
            query[k] = getattr(args, k)
    if args.zimo:
        query["zimo"] = True
    answer = _answer(game, query)
    if args.json:
        print_json(answer)
    else:
        from rich.console import Console
        from rich.pretty import Pretty

        Console().print(Pretty(answer))
    return 0
