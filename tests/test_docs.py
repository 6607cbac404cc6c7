"""The documentation ships with the project and says what the code does (issue 20).

- every game id has a rule reference in docs/rules/ (the index table of docs/rules/README.md);
- `paiju rules G --json` and the options table of section 6 of that file agree on every option,
  its type, its default (per preset for Sichuan), the allowed values of an enum, and the presets;
- docs/events.schema.json is what `paiju schema` prints, and an independent validator (jsonschema)
  accepts every golden log line with it and refuses broken ones;
- no link of README.md or docs/ leaves the repository or points at a missing file;
- `paiju replay --json --steps` prints the one stream docs/cli.md describes.

Expected values are read from the docs (copies of the project's rule files), not from the code.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import paiju
from events.notation import GAME_IDS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RULES = DOCS / "rules"
GOLDEN = ROOT / "tests" / "data" / "golden"


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def rule_files() -> dict[str, Path]:
    """Game id → its rule reference, from the index table of docs/rules/README.md."""
    out: dict[str, Path] = {}
    for line in (RULES / "README.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `"):
            continue
        ids, file, *_ = _cells(line)
        for g in re.findall(r"`([a-z_]+)`", ids):
            out[g] = RULES / file.strip("`")
    return out


def section6(path: Path) -> tuple[list[dict[str, str]], list[str]]:
    """The rows of the options table of section 6 and the other lines of that section."""
    text = path.read_text(encoding="utf-8")
    m = re.search(r"^## 6\..*?$(.*?)^## 7\.", text, re.M | re.S)
    assert m, f"{path.name}: no section 6"
    rows, other, header = [], [], None
    for line in m.group(1).splitlines():
        if line.startswith("|"):
            cells = _cells(line)
            if header is None:
                header = cells
            elif not set(cells[0]) <= set("-: "):
                rows.append(dict(zip(header, cells, strict=True)))
        else:
            other.append(line)
    assert header and header[:4] == ["option", "type", "default", "allowed"], header
    return rows, other


def _value(cell: str, type_: str, allowed: str) -> Any:
    """A default as the table writes it → the JSON value."""
    cell = cell.strip().strip("`")
    if type_ == "bool":
        assert cell in ("true", "false"), cell
        return cell == "true"
    if type_ == "int":
        return int(cell)
    if type_ == "int list":
        return json.loads(cell)
    if type_ == "set":
        assert cell == "all three", cell  # Sichuan exchange_directions: every allowed value
        return _choices(allowed.split(" of ", 1)[1])
    return cell


def _choices(allowed: str) -> list[str]:
    return [a.strip().strip("`") for a in allowed.split(",") if a.strip()]


JSON_TYPE = {"bool": "boolean", "int": "integer", "enum": "string", "set": "array", "int list": "array"}


def documented(path: Path) -> dict[str, Any]:
    """{options: {id: {type, defaults: {preset: value}, choices}}, presets: {name: overrides}}."""
    rows, other = section6(path)
    presets: dict[str, dict[str, Any]] = {"standard": {}}  # README: every game has `standard`
    for row in rows:
        if row["option"] == "`preset`":
            presets = {p: {} for p in _choices(row["allowed"])}
    for line in other:  # "Presets: `standard` (…) and `gold` = `{"mode": "gold"}` (…)."
        if line.startswith("Presets:"):
            for name, over in re.findall(r"`([a-z_]+)`(?: = `(\{.*?\})`)?", line):
                presets[name] = json.loads(over) if over else {}
    options: dict[str, Any] = {}
    for row in rows:
        oid = row["option"].strip("`")
        if oid == "preset":
            continue
        cells = [c.strip() for c in row["default"].split(" / ")]
        names = list(presets)
        if len(cells) == 1:
            cells = cells * len(names)
        assert len(cells) == len(names), (path.name, oid, cells)
        defaults = {p: _value(c, row["type"], row["allowed"]) for p, c in zip(names, cells, strict=True)}
        for p, over in presets.items():
            if oid in over:
                defaults[p] = over[oid]
        choices = _choices(row["allowed"]) if row["type"] == "enum" else None
        options[oid] = {"type": JSON_TYPE[row["type"]], "defaults": defaults, "choices": choices}
    return {"options": options, "presets": list(presets)}


def paiju_rules(game: str, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    assert paiju.main(["rules", game, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_every_game_has_a_rule_reference() -> None:
    files = rule_files()
    assert set(files) == set(GAME_IDS)
    assert all(p.is_file() for p in files.values())


def test_the_table_reader_on_a_hand_made_section(tmp_path: Path) -> None:
    p = tmp_path / "x.md"
    p.write_text(
        "## 6. House-rule options\n\n| option | type | default | allowed | effect |\n|---|---|---|---|---|\n"
        "| `preset` | enum | `standard` | standard, fast | |\n"
        "| `a` | int | 0 / 4 | ≥ 0 | |\n| `b` | enum | `x` | `x`, `y` | |\n\n## 7. Next\n",
        encoding="utf-8",
    )
    doc = documented(p)
    assert doc["presets"] == ["standard", "fast"]
    assert doc["options"]["a"] == {"type": "integer", "defaults": {"standard": 0, "fast": 4}, "choices": None}
    assert doc["options"]["b"]["choices"] == ["x", "y"]


@pytest.mark.parametrize("game", GAME_IDS)
def test_paiju_rules_agrees_with_the_rule_reference(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    doc = documented(rule_files()[game])
    got = paiju_rules(game, capsys)
    only = "ddz only" if game == "ddz_laizi" else "ddz_laizi only" if game == "ddz" else None
    want = {
        k: v
        for k, v in doc["options"].items()
        if only is None or only not in _effect(rule_files()[game], k)
    }
    assert {o["option"] for o in got["options"]} == set(want), "options"
    assert list(got["presets"]) == doc["presets"], "presets"
    for o in got["options"]:
        w = want[o["option"]]
        assert o["type"] == w["type"], o["option"]
        assert o["default"] == w["defaults"]["standard"], o["option"]
        if w["choices"] is not None:
            assert o["allowed"] == w["choices"], o["option"]
    for preset in doc["presets"]:
        values = {o["option"]: o["value"] for o in paiju_rules(game, capsys, "--preset", preset)["options"]}
        assert values == {k: w["defaults"][preset] for k, w in want.items()}, preset


def _effect(path: Path, option: str) -> str:
    rows, _ = section6(path)
    return next(r["effect"] for r in rows if r["option"].strip("`") == option).replace("`", "")


def test_the_doudizhu_table_splits_by_game() -> None:
    """doudizhu.md serves ddz and ddz_laizi; its 'ddz only' / 'ddz_laizi only' effects say which."""
    path = rule_files()["ddz"]
    assert rule_files()["ddz_laizi"] == path
    assert "ddz only" in _effect(path, "rob") and "ddz_laizi only" in _effect(path, "hard_bomb_factor")


# ------------------------------------------------------------------ the event format
def test_events_schema_is_what_paiju_schema_prints(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert paiju.main(["schema"]) == 0
    printed = capsys.readouterr().out
    assert (DOCS / "events.schema.json").read_text(encoding="utf-8") == printed, (
        "docs/events.schema.json is stale: python paiju.py schema > docs/events.schema.json"
    )


def test_an_independent_validator_reads_the_golden_logs_with_the_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((DOCS / "events.schema.json").read_text(encoding="utf-8"))
    v = jsonschema.Draft202012Validator(schema)
    lines = [json.loads(x) for p in sorted(GOLDEN.glob("*.jsonl")) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]
    assert len(lines) > 300
    bad = [(x["match_id"], x["seq"], e.message) for x in lines for e in list(v.iter_errors(x))[:1]]
    assert bad == []
    first = dict(lines[0])
    assert not v.is_valid({**first, "type": "no_such_type"})
    assert not v.is_valid({**first, "seq": -1})
    assert not v.is_valid({k: x for k, x in first.items() if k != "match_id"})


# ------------------------------------------------------------------ links
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _docs() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


@pytest.mark.parametrize("path", _docs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_links_stay_in_the_repository_and_resolve(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert "../shared/" not in text and "shared/spec" not in text and "shared/rules" not in text
    for target in _LINK.findall(text):
        if re.match(r"[a-z]+://|#|mailto:", target):
            continue
        dest = (path.parent / target.split("#")[0]).resolve()
        assert dest.is_relative_to(ROOT), f"{path.name}: {target} leaves the repository"
        assert dest.exists(), f"{path.name}: {target} does not exist"


# ------------------------------------------------------------------ docs/cli.md: --json --steps
def test_replay_json_steps_is_the_documented_stream(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/cli.md: per match, one step line per event (keys match_id, seq, event, error, state; no
    status) in seq order, then the §6 result line (has status, no state)."""
    cli = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert "--json --steps" in cli and '"state"' in cli
    files = [str(GOLDEN / "ddz_e1_spring.jsonl"), str(GOLDEN / "ddz_e3_forced_landlord.jsonl")]
    capsys.readouterr()
    assert paiju.main(["replay", "--json", "--steps", *files]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    results = [i for i, x in enumerate(lines) if "status" in x]
    assert len(results) == 2 and results[-1] == len(lines) - 1
    start = 0
    for r in results:
        steps, result = lines[start:r], lines[r]
        assert "state" not in result
        assert all(set(s) == {"match_id", "seq", "event", "error", "state"} for s in steps)
        assert [s["seq"] for s in steps] == list(range(result["events"]))
        assert {s["match_id"] for s in steps} == {result["match_id"]}
        start = r + 1
