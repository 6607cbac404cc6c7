"""`paiju hand G CARDS [options] [--json]` and `paiju hand G --batch FILE` (docs/cli.md).

Each game object answers `hand(query: dict) -> dict`, where the query has the batch fields
(`cards`, `rules`, `laizi`, `melds`, `win_tile`, `zimo`, `void`, `situation`) and may raise
ValueError with a readable reason.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from engine.cli_common import decode_utf8, load_rules_arg, parse_json, print_json
from engine.errors import Illegal
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


QUERY_FIELDS: dict[str, tuple[type, ...]] = {
    "cards": (str, list),
    "rules": (dict,),
    "laizi": (str,),
    "melds": (str, list),
    "win_tile": (str,),
    "zimo": (bool,),
    "void": (str,),
    "situation": (str, list),
}
"""The batch fields of docs/cli.md and the JSON types each takes (null = not given; lists of strings)."""

_TYPE_NAMES = {str: "a string", list: "a list of strings", dict: "an object", bool: "true or false"}


def check_query(q: Any) -> str | None:
    """Why the batch object `q` is not a query (unknown field, wrong type), or None when it is one."""
    if not isinstance(q, dict):
        return f"not a JSON object (got {type(q).__name__})"
    for k, v in q.items():
        kinds = QUERY_FIELDS.get(k)
        if kinds is None:
            return f"unknown field {k!r}; fields: {', '.join(QUERY_FIELDS)}"
        if v is None:
            continue
        if not isinstance(v, kinds) or (isinstance(v, list) and not all(isinstance(x, str) for x in v)):
            return f"field {k!r} must be " + " or ".join(_TYPE_NAMES[t] for t in kinds)
    return None


def _answer(game: Any, query: dict[str, Any]) -> dict[str, Any]:
    """The game's answer, or `{"valid": false, "error": why}` when the query is bad input."""
    try:
        game.parse_rules(query.get("rules") or {})
    except Illegal as e:
        return {"valid": False, "error": str(e)}
    try:
        return game.hand(query)  # type: ignore[no-any-return]
    except (ValueError, Illegal) as e:
        return {"valid": False, "error": str(e)}
    except KeyError as e:  # a lookup of an unknown name: say which
        return {"valid": False, "error": f"unknown {e.args[0]!r}"}


def _batch(game: Any, path: str) -> int:
    """One result line per input line, in order; a bad line gets an error line and the rest go on.
    Exit 2 (one line on stderr naming the first bad line) when any line was bad input."""
    try:
        stream = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    except OSError as e:
        raise UsageError(f"--batch: cannot read {path}: {e.strerror or e}") from None
    name = "standard input" if path == "-" else path
    bad: list[str] = []
    with stream:
        for n, raw in enumerate(stream, 1):
            if not raw.strip():
                continue
            try:
                q = parse_json(decode_utf8(raw, f"line {n}"), f"line {n}")
                why = check_query(q)
                answer = {"valid": False, "error": why} if why else _answer(game, q)
            except UsageError as e:
                answer = {"valid": False, "error": str(e)}
            if "error" in answer:
                msg = str(answer["error"])
                answer["error"] = msg if msg.startswith(f"line {n}") else f"line {n}: {msg}"
                bad.append(answer["error"])
            print_json(answer)
    if bad:
        more = f" (and {len(bad) - 1} more bad lines)" if len(bad) > 1 else ""
        raise UsageError(f"--batch {name}: {bad[0]}{more}")
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        game = get_game(args.game)
    except GameNotAvailable as e:
        raise UsageError(str(e)) from None
    if not hasattr(game, "hand"):
        raise UsageError(f"the rules calculator is not available for {args.game}")
    if args.batch is not None:
        if args.cards is not None:
            raise UsageError("give the cards/tiles or --batch FILE, not both")
        return _batch(game, args.batch)
    if args.cards is None:
        raise UsageError("give the cards/tiles, or --batch FILE")
    rules = load_rules_arg(args.rules)
    try:
        game.parse_rules(rules)
    except Illegal as e:
        raise UsageError(f"--rules: {e}") from None
    query: dict[str, Any] = {"cards": args.cards, "rules": rules}
    for k in ("laizi", "melds", "win_tile", "void", "situation"):
        if getattr(args, k) is not None:
            query[k] = getattr(args, k)
    if args.zimo:
        query["zimo"] = True
    answer = _answer(game, query)
    if "error" in answer:
        raise UsageError(f"{args.game} {args.cards!r}: {answer['error']}")
    if args.json:
        print_json(answer)
    else:
        from rich.console import Console
        from rich.pretty import Pretty

        Console().print(Pretty(answer))
    return 0
