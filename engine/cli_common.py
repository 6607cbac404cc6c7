"""Small helpers shared by the engine's sub-commands."""

from __future__ import annotations

import json
import sys
from typing import Any

from paiju import UsageError


def load_rules_arg(value: str | None) -> dict[str, Any]:
    """`--rules JSON` or `--rules @FILE` → a rules object (UsageError when unreadable)."""
    if value is None:
        return {}
    text = value
    if value.startswith("@"):
        try:
            with open(value[1:], encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise UsageError(f"cannot read rules file {value[1:]}: {e.strerror}") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"--rules is not JSON: {e.msg} at column {e.colno}") from None
    if not isinstance(obj, dict):
        raise UsageError("--rules must be a JSON object like {\"preset\": \"standard\", \"rob\": true}")
    return obj


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
