"""`paiju schema`: the JSON Schema of every event type."""

from __future__ import annotations

import argparse
import json

from pydantic import TypeAdapter

from events.models import Event


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="(the output is always JSON)")


def event_schema() -> dict[str, object]:
    return TypeAdapter(Event).json_schema(by_alias=True)


def run(args: argparse.Namespace) -> int:
    print(json.dumps(event_schema(), indent=2, ensure_ascii=False))
    return 0
