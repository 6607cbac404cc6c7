"""Item 5 of issue 16: the report and the page say the same thing, and the report is a Jinja2 template
with autoescape (no hand-assembled HTML strings)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from analytics import dispute
from tests import console_lake

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "analytics" / "templates" / "dispute.html.j2"


def _lines(path: Path) -> list[str]:
    return [x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_the_report_is_a_jinja2_template_with_autoescape() -> None:
    assert TEMPLATE.is_file()
    env = dispute._env()
    assert env.autoescape("dispute.html.j2") is True
    assert "dispute.html.j2" in env.list_templates()
    assert '"*.j2"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")  # shipped as package data
    src = (ROOT / "analytics" / "dispute.py").read_text(encoding="utf-8")
    assert not re.search(r"[\"']<(tr|td|table|div|span)\b", src), "HTML is assembled in Python again"


def test_markup_in_a_log_is_text_in_the_report() -> None:
    lines = _lines(console_lake.DISPUTES / "ddz_pass_while_leading.jsonl")
    lines[0] = lines[0].replace('"ann"', '"<script>alert(1)</script>"')
    out = dispute.render_dispute_html(lines)
    assert "<script>alert(1)</script>" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out


def test_one_explanation_for_the_report_and_the_page() -> None:
    """The report lists exactly `explain_settlement`'s sentences, escaped; the page renders the same list
    (tests/test_dashboard_console.py compares the page with `paiju dispute`'s file)."""
    lines = _lines(console_lake.OVERCHARGED)
    rep = dispute.build_report(lines)
    assert rep.explanations == dispute.explain_settlement(rep.result, rep.server_deltas)
    out = dispute.render_report(rep)
    ul = re.search(r"<ul class='explain'>(.*?)</ul>", out, re.S)
    assert ul is not None
    assert [html.unescape(x).strip() for x in re.findall(r"<li>(.*?)</li>", ul.group(1), re.S)] == rep.explanations


def test_explanations_by_hand() -> None:
    """Causes computed by hand from the overcharged match (rules' deltas [-21, -21, -21, +63], line #7 =
    hu_zimo 17 to seat 3 from seat 0): left out, doubled, swapped, not zero-sum, invalid but charged."""
    lines = _lines(console_lake.OVERCHARGED)
    result = dispute.build_report(lines).result

    def why(server: list[int]) -> str:
        result.recorded_deltas = server
        return " ".join(dispute.explain_settlement(result))

    assert "#7 hu_zimo (17 to seat 3 from seat 0): the server left it out" in why(console_lake.LEFT_OUT)
    assert "× 2" in why(console_lake.DOUBLED)
    assert "seats swapped" in why([-21, -21, 63, -21])
    assert "not zero-sum: they add up to +5" in why([-21, -21, -21, 68])
    assert why([-21, -21, -21, 63]) == "The server's settlement equals the rules' settlement."
    illegal = dispute.build_report(_lines(console_lake.DISPUTES / "ddz_pass_while_leading.jsonl"))
    assert illegal.explanations == [
        "The rules owe no settlement (replay stops at seq 5 (must_play)), yet the server charged [-12, +6, +6]."
    ]
