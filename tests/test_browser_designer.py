"""The house-rules designer's journey in a real browser (issue 16): A = standard against B = one
changed option (`bomb_factor` 10) for 2 × 200 `ddz` matches, read the significant differences, then
start a long run, watch its estimate and stop it.

The page's figures are checked against the same seeded matches simulated and replayed here with the
engine (engine.sim + engine.replay, not the lab's code), with Welch's z test written out here.
Screenshots go to artifacts/screenshots/.
"""

from __future__ import annotations

import math
import re
import statistics
from pathlib import Path

import pytest

from tests import browser_util as bu

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not bu.have_chromium(), reason=f"{bu.CHROMIUM} is missing (apt-get install chromium)"),
]
MATCHES = 200
B_RULES = {"bomb_factor": 10}


def _outcomes(rules: dict[str, object]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(deltas, winners) of matches 0..199 of seed 0, replayed from their logs."""
    from engine.replay import replay
    from engine.sim.simulate import simulate_match

    out = []
    for i in range(MATCHES):
        r = replay(list(simulate_match("ddz", dict(rules), 0, i)))
        assert r.status == "finished"
        out.append((tuple(r.deltas), tuple(r.winners)))
    return out


def _money(outs: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> list[float]:
    return [float(sum(d for d in deltas if d > 0)) for deltas, _ in outs]


def test_designer_compares_two_rule_sets_and_stops_a_long_run(tmp_path: Path) -> None:
    from engine.registry import available_games

    if "ddz" not in available_games():
        pytest.skip("ddz is not available in this build")
    a, b = _outcomes({}), _outcomes(B_RULES)
    ma, mb = _money(a), _money(b)
    se = math.sqrt(statistics.variance(ma) / len(ma) + statistics.variance(mb) / len(mb))
    p_money = math.erfc(abs(statistics.fmean(mb) - statistics.fmean(ma)) / se / math.sqrt(2))
    seat0 = (sum(0 in w for _, w in a) / MATCHES, sum(0 in w for _, w in b) / MATCHES)
    (tmp_path / "lake").mkdir()
    with bu.dashboard(str(tmp_path / "lake")) as url, bu.browser_page(height=2400) as (page, requests):
        page.goto(f"{url}/lab")
        page.get_by_text("Rule set B").first.wait_for(timeout=60_000)
        bu.pick(page, "Game", "ddz")
        page.get_by_text("same rule set").first.wait_for(timeout=30_000)  # A = B is said at once
        page.get_by_text("Options", exact=True).nth(1).click()
        box = page.get_by_label("bomb_factor", exact=True).and_(page.locator("input")).nth(1)
        box.fill(str(B_RULES["bomb_factor"]))
        box.press("Enter")
        page.get_by_text("standard + bomb_factor 10").first.wait_for(timeout=30_000)
        # Streamlit keeps the last run's elements on screen until the rerun replaces them: wait for
        # the A = B warning to go (it must, within the rerun) instead of reading it at once
        page.get_by_text("same rule set").first.wait_for(state="detached", timeout=30_000)
        assert page.get_by_text("same rule set").count() == 0
        page.get_by_role("button", name="Run the comparison").click()
        page.get_by_text(re.compile(r"significant difference")).first.wait_for(timeout=180_000)
        rows = {r["metric"]: r for r in bu.grid_with(page, "effect size")}
        page.get_by_role("button", name="Stop the run").first.wait_for(state="detached", timeout=30_000)
        assert page.get_by_role("button", name="Stop the run").count() == 0  # gone once the run is done
        page.get_by_text("Download the comparison").first.scroll_into_view_if_needed()
        page.screenshot(path=str(bu.SCREENSHOTS / "designer_lab_result.png"), full_page=True)
        money = rows["points changing hands"]
        assert money["A"] == f"{statistics.fmean(ma):,.2f}" and money["B"] == f"{statistics.fmean(mb):,.2f}"
        assert money["unit"] == "points per match"
        assert money["p"] == ("< 0.001" if p_money < 0.001 else f"{p_money:.3f}")
        assert money["significant"] == ("✓" if p_money * len(rows) < 0.05 else money["significant"])
        assert money["significant"] == "✓"
        assert money["effect size"].startswith("d = +")
        s0 = rows["seat 0 wins"]
        assert (s0["A"], s0["B"]) == (f"{seat0[0]:.1%}", f"{seat0[1]:.1%}")
        # every p is readable, every effect size is beside it
        for r in rows.values():
            assert re.fullmatch(r"< 0\.001|[01]\.\d{3}", r["p"]), r
            assert re.match(r"[hd] = [+-]\d\.\d\d \(", r["effect size"]) or r["effect size"] == "–", r
        success = page.get_by_test_id("stAlertContentSuccess").inner_text()
        assert "points changing hands" in success
        # a long run shows an estimate and stops on request, keeping what it did
        m = page.get_by_label("Matches per rule set", exact=True).and_(page.locator("input"))
        m.fill("5000")
        m.press("Enter")
        page.wait_for_timeout(500)
        page.get_by_role("button", name="Run the comparison").click()
        page.get_by_text(re.compile(r"about [\d,]+ s left")).first.wait_for(timeout=60_000)
        page.wait_for_timeout(1500)
        page.screenshot(path=str(bu.SCREENSHOTS / "designer_lab_progress.png"), full_page=False)
        page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Stop the run").click()
        page.get_by_text(re.compile(r"stopped after [\d,]+ of 5,000")).first.wait_for(timeout=60_000)
        done = int(re.search(r"stopped after ([\d,]+) of", page.content()).group(1).replace(",", ""))
        assert 0 < done < 5000
        page.wait_for_timeout(1000)
        page.screenshot(path=str(bu.SCREENSHOTS / "designer_lab_stopped.png"), full_page=True)
        assert bu.offline(requests) == [], bu.offline(requests)
