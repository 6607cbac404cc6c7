"""The lab a designer trusts (issue 16 item 4): effect sizes, readable p-values, plain metric names,
rule sets named and normalised, a run in chunks with an estimate, `paiju lab` at 80 columns.

Expected values are hand-computed (textbook Cohen's h and d, a Wald interval written out here) or
come from a `--json` run of the same command, formatted here by hand.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from analytics import lab

ROOT = Path(__file__).resolve().parent.parent


def _ddz() -> None:
    from engine.registry import available_games

    if "ddz" not in available_games():
        pytest.skip("ddz is not available in this build")


def test_cohens_h_and_d_known_values() -> None:
    # h(0.25 → 0.5) = 2·asin(√.5) − 2·asin(√.25) = π/2 − π/3 = π/6
    assert lab.cohens_h(0.25, 0.5) == pytest.approx(math.pi / 6)
    assert lab.cohens_h(0.5, 0.25) == pytest.approx(-math.pi / 6)
    assert lab.cohens_h(0.0, 1.0) == pytest.approx(math.pi)
    # d: means 10 and 12, both sd 4, equal n → 0.5
    assert lab.cohens_d(10, 4, 50, 12, 4, 50) == pytest.approx(0.5)
    # pooled sd of sd 2 (n 11) and sd 4 (n 21): sqrt((10·4 + 20·16) / 30) = sqrt(12)
    assert lab.cohens_d(0, 2, 11, 3, 4, 21) == pytest.approx(3 / math.sqrt(12))
    assert lab.cohens_d(5, 0, 10, 5, 0, 10) == 0.0


def test_difference_intervals_by_hand() -> None:
    lo, hi = lab.rate_diff_ci(30, 100, 45, 100)
    half = 1.959963984540054 * math.sqrt(0.3 * 0.7 / 100 + 0.45 * 0.55 / 100)
    assert (lo, hi) == pytest.approx((0.15 - half, 0.15 + half))
    lo, hi = lab.mean_diff_ci(2.0, 1.0, 25, 3.0, 2.0, 16)
    half = 1.959963984540054 * math.sqrt(1 / 25 + 4 / 16)
    assert (lo, hi) == pytest.approx((1 - half, 1 + half))


@pytest.mark.parametrize(
    ("p", "text"),
    [(1.02e-19, "< 0.001"), (0.000999, "< 0.001"), (0.001, "0.001"), (0.0234, "0.023"), (0.5, "0.500"), (1.0, "1.000")],
)
def test_p_values_read_plainly(p: float, text: str) -> None:
    assert lab.format_p(p) == text


def test_every_metric_has_a_plain_name_a_unit_and_a_meaning() -> None:
    for metric in ("draw_rate", "dealer_win_rate", "landlord_win_rate", "seat_win_rate[2]", "money_mean",
                   "money_spread", "dealer_delta_mean", "fan[qing_yi_se]", "mean_max_fan"):  # fmt: skip
        name, unit, meaning = lab.metric_info(metric)
        assert name and unit and meaning, metric
        assert "_" not in name.replace("qing_yi_se", "") and "[" not in name, name
    assert lab.metric_info("seat_win_rate[2]")[0] == "seat 2 wins"
    assert lab.metric_name("money_mean") == "points changing hands (points per match)"


def test_rule_sets_normalise_and_are_named_by_their_changes() -> None:
    _ddz()
    assert lab.normalized_rules("ddz", {}) == lab.normalized_rules("ddz", {"preset": "standard"})
    assert lab.normalized_rules("ddz", {"bomb_factor": 2}) == lab.normalized_rules("ddz", {})
    assert lab.rules_name("ddz", {}) == "standard"
    assert lab.rules_name("ddz", {"bomb_factor": 3, "rob": True}) == "standard + rob on, bomb_factor 3"
    # the lake's rules.options (every option spelled out) names the same way
    full = lab.normalized_rules("ddz", {"bomb_factor": 3, "rob": True})
    assert lab.rules_name("ddz", full) == "standard + rob on, bomb_factor 3"
    assert lab.rules_name("ddz", {"no_such_option": 1}) == "standard (not valid here)"


def test_a_equals_b_is_flagged_in_the_comparison() -> None:
    _ddz()
    assert lab.run_lab("ddz", {"preset": "standard"}, {}, 3, 1).same_rules
    assert not lab.run_lab("ddz", {}, {"bomb_factor": 3}, 3, 1).same_rules


def test_a_chunked_run_estimates_and_keeps_what_it_did() -> None:
    _ddz()
    job = lab.start_lab("ddz", {}, {"bomb_factor": 10}, 20, 4)
    assert job.eta() is None and job.done == 0
    job.step(5)
    assert job.done == 5 and len(job.out_a) == len(job.out_b) == 5
    eta = job.eta()
    assert eta is not None and eta == pytest.approx(job.seconds / 5 * 15)
    while not job.finished:
        job.step(7)
    assert job.done == 20
    # the chunked run compares exactly what a one-go run compares
    whole = lab.run_lab("ddz", {}, {"bomb_factor": 10}, 20, 4)
    assert [(r.metric, r.a, r.b, r.p) for r in job.comparison().rows] == [(r.metric, r.a, r.b, r.p) for r in whole.rows]
    with pytest.raises(ValueError):
        lab.start_lab("ddz", {}, {}, 0, 1)


def _paiju_lab(*args: str, columns: int = 80) -> str:
    env = {**os.environ, "COLUMNS": str(columns), "PYTHONPATH": str(ROOT)}
    env.pop("NO_COLOR", None)
    out = subprocess.run(
        [sys.executable, str(ROOT / "paiju.py"), "lab", *args], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def _value(x: float | None, kind: str) -> str:
    if x is None:
        return "–"
    return f"{x * 100:.1f}%" if kind == "rate" else f"{x:,.2f}"


def test_paiju_lab_is_readable_at_80_columns_and_json_has_everything() -> None:
    _ddz()
    args = ["--game", "ddz", "--a", "standard", "--b", '{"bomb_factor": 10}', "--matches", "60", "--seed", "2"]
    data = json.loads(_paiju_lab(*args, "--json"))
    text = _paiju_lab(*args, columns=80)
    lines = text.splitlines()
    assert max(len(x) for x in lines) <= 80, max(lines, key=len)
    assert "…" not in text and not re.search(r"\d\.(\s|$)", text), text  # no value cut like `100.`
    assert "A = standard:" in text and "B = standard + bomb_factor 10:" in text
    for row in data["rows"]:
        assert {"name", "unit", "meaning", "effect", "effect_name", "p_text", "diff_lo", "diff_hi"} <= set(row)
        # the row's line (its first line: a long metric name wraps) ends with the p-value: no empty last column
        first = row["name"].split(" ")[0]
        line = next(x for x in lines if x.strip().startswith(first) and _value(row["a"], row["kind"]) in x)
        assert _value(row["b"], row["kind"]) in line
        assert re.search(re.escape(row["p_text"]) + r"\*? *$", line), (row["p_text"], line)
        effect = f"{row['effect_name']} {row['effect']:+.2f}"
        assert effect in line, (effect, line)
    money = next(r for r in data["rows"] if r["metric"] == "money_mean")
    assert money["significant"] and money["name"] == "points changing hands"
    assert re.fullmatch(r"< 0\.001|0\.0\d\d", money["p_text"]) and money["p_text"] == lab.format_p(money["p"])
    assert data["a"]["name"] == "standard" and data["b"]["name"] == "standard + bomb_factor 10"
    assert not data["same_rules"]
    # wider terminals get the intervals too
    wide = _paiju_lab(*args, columns=160)
    assert "A 95% CI" in wide and "95% CI of B − A" in wide
    same = _paiju_lab("--game", "ddz", "--a", "standard", "--b", "{}", "--matches", "3")
    assert "A and B are the same rule set" in same
