"""Small helpers shared by the sub-commands: reading user files and JSON without a traceback.

Every failure is a `UsageError` whose one-line message names what was bad and where (docs/cli.md:
exit 2, one line on stderr).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from events.errors import UsageError


def decode_utf8(data: bytes, where: str) -> str:
    """`data` as UTF-8 text; UsageError naming `where` and the byte offset otherwise."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"{where}: not UTF-8 ({e.reason} at byte {e.start})") from None


def read_text(path: str, where: str) -> str:
    """The UTF-8 text of the file at `path` (UsageError when it cannot be read or decoded)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise UsageError(f"{where}: cannot read {path}: {e.strerror or e}") from None
    return decode_utf8(data, where)


def parse_json(text: str, where: str) -> Any:
    """Parse JSON text; UsageError naming `where` for bad JSON, too deep a nesting or a huge integer."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        at = f"line {e.lineno} column {e.colno}" if e.lineno > 1 else f"column {e.colno}"
        raise UsageError(f"{where} is not JSON: {e.msg} at {at}") from None
    except RecursionError:
        raise UsageError(f"{where}: JSON nested too deeply") from None
    except ValueError as e:  # an integer over Python's int/str conversion limit
        raise UsageError(f"{where}: unusable JSON ({str(e)[:80]})") from None


def load_rules_arg(value: str | None, *, allow_preset_name: bool = False, option: str = "--rules") -> dict[str, Any]:
    """`--rules JSON` or `--rules @FILE` (or, where allowed, a bare preset name such as `chengdu`)
    → a rules object (UsageError when unreadable)."""
    if value is None:
        return {}
    text = value.strip()
    where = option
    if text.startswith("@"):
        where = f"{option} {text}"
        text = read_text(text[1:], where)
    elif allow_preset_name and not text.startswith("{"):
        return {"preset": text} if text else {}
    obj = parse_json(text, where)
    if not isinstance(obj, dict):
        raise UsageError(f"{where} must be a JSON object like {{\"preset\": \"standard\", \"rob\": true}}")
    return obj


def game_and_rules(game_id: str, rules_arg: str | None) -> tuple[Any, dict[str, Any]]:
    """The game and its `--rules` object, both checked: an unknown game or rules the game refuses
    is a one-line `UsageError` (what `simulate` and `simulate --to` share)."""
    from engine.errors import Illegal
    from engine.registry import GameNotAvailable, get_game

    try:
        game = get_game(game_id)
    except GameNotAvailable as e:
        raise UsageError(str(e)) from None
    rules = load_rules_arg(rules_arg)
    try:
        game.parse_rules(rules)
    except Illegal as e:
        raise UsageError(f"bad rules for {game_id}: {e.message}") from None
    return game, rules


def print_json(obj: Any) -> None:
    """One JSON Lines record on standard output (a string that is not valid Unicode is escaped)."""
    try:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a command-line argument: \ud800 escapes
        text = json.dumps(obj, ensure_ascii=True, separators=(",", ":"))
    sys.stdout.write(text + "\n")
