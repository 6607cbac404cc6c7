"""Small helpers shared by the engine's sub-commands."""

from __future__ import annotations

import json
import sys
from typing import Any

from events.errors import UsageError


def load_rules_arg(value: str | None, *, allow_preset_name: bool = False) -> dict[str, Any]:
    """`--rules JSON` or `--rules @FILE` (or, where allowed, a bare preset name such as `chengdu`)
    → a rules object (UsageError when unreadable)."""
    if value is None:
        return {}
    text = value.strip()
    if text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise UsageError(f"cannot read rules file {text[1:]}: {e.strerror}") from None
    elif allow_preset_name and not text.startswith("{"):
        return {"preset": text} if text else {}
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"--rules is not JSON: {e.msg} at column {e.colno}") from None
    if not isinstance(obj, dict):
        raise UsageError("--rules must be a JSON object like {\"preset\": \"standard\", \"rob\": true}")
    return obj


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
