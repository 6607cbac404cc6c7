"""Every rule id a refusal message cites exists in its rule file, and the shared mahjong claim flow
cites each game's own rule for each step (hongzhong.md and anshun.md number their rules apart).

The expected ids come from the rule files themselves (`docs/rules/*.md`, the project's copies of the rule files): a rule is defined
where its id opens a bold run (`**HZ-R12 Draw.**`, `**C1**`) or a heading (`### SC-H5 Preset …`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.mahjong.anshun import ANSHUN
from engine.mahjong.claimflow import RULE_ROLES
from engine.mahjong.hongzhong import HONGZHONG

RULES = Path(__file__).resolve().parents[1] / "docs" / "rules"
ENGINE = Path(__file__).resolve().parent.parent / "engine"
FILES = {"HZ": "hongzhong", "AS": "anshun", "SC": "sichuan", "PDK": "paodekuai", "ZJH": "zhajinhua", "DDZ": "doudizhu"}
ID = re.compile(r"\b(HZ|AS|SC|PDK|ZJH|DDZ)-([A-Z]+[0-9]+)\b")



def _titles(prefix: str) -> dict[str, str]:
    """id → the bold title that defines it (`HZ-R12` → `Draw.`; doudizhu's K/C/S rules have no prefix)."""
    text = (RULES / f"{FILES[prefix]}.md").read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(r"(?:\*\*|^#+ )((?:[A-Z]+-)?[A-Z]+[0-9]+)\b([^*\n]*)", text, re.M):
        rid = m.group(1) if "-" in m.group(1) else f"{prefix}-{m.group(1)}"
        out.setdefault(rid, m.group(2).strip())
    return out


def test_every_cited_rule_id_is_defined() -> None:
    cited: dict[str, set[str]] = {}
    for path in sorted(ENGINE.rglob("*.py")):
        for m in ID.finditer(path.read_text(encoding="utf-8")):
            cited.setdefault(m.group(0), set()).add(path.name)
    defined = {p: _titles(p) for p in FILES}
    missing = {rid: sorted(files) for rid, files in cited.items() if rid not in defined[rid.split("-")[0]]}
    assert not missing, missing


# role of the shared claim flow → a word the defining rule's title must contain, per rule file
ROLE_TITLE = {
    "hongzhong": {"act": "To act", "discard": "Discard", "window": "After a discard", "claim_hu": "After a discard",
                  "peng": "Peng", "zhi": "Zhi gang", "an": "An gang", "bu": "Bu gang", "self_hu": "Self-draw hu",
                  "rob": "Rob the kong", "draw": "Draw"},
    "anshun": {"act": "To act", "discard": "Discard", "window": "Claim window", "claim_hu": "Hu on a discard",
               "peng": "Peng", "zhi": "Zhi gang", "an": "An gang", "bu": "Bu gang", "self_hu": "Self-draw hu",
               "rob": "Rob", "draw": "Draw"},
}  # fmt: skip


@pytest.mark.parametrize("game", [HONGZHONG, ANSHUN], ids=lambda g: g.id)
def test_claim_flow_names_each_games_own_rules(game: object) -> None:
    titles = _titles(game.P)  # type: ignore[attr-defined]
    want = ROLE_TITLE[game.id]  # type: ignore[attr-defined]
    assert set(game.R) == set(RULE_ROLES) == set(want)  # type: ignore[attr-defined]
    for role, rid in game.R.items():  # type: ignore[attr-defined]
        assert rid.startswith(game.P + "-"), (role, rid)  # type: ignore[attr-defined]
        assert titles[rid].startswith(want[role]), (role, rid, titles[rid])


def test_issue_17_examples() -> None:
    """The renumberings the review found: AS-R12 → R15 (draw), R6 → R7 (peng), R10 → R14 (self-draw
    hu), R4 → R3 (discard), R8 → R9 (an gang); Hongzhong robbers out of order cite HZ-R11."""
    assert ANSHUN.R["draw"] == "AS-R15" and ANSHUN.R["peng"] == "AS-R7" and ANSHUN.R["self_hu"] == "AS-R14"
    assert ANSHUN.R["discard"] == "AS-R3" and ANSHUN.R["an"] == "AS-R9" and HONGZHONG.R["rob"] == "HZ-R11"
