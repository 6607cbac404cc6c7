"""The analyst's journey in a real browser (issue 16): read landlord vs farmer win rate for `ddz`
with intervals, then open a player's page from the ranking.

The figures on the page are checked against SQL written here over the lake's own tables (not the
dashboard's queries) and a Wilson formula written here; every request of the journey stays on
loopback (no web font: Chinese glyphs come from the machine's fonts-noto-cjk). Screenshots go to
artifacts/screenshots/.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests import browser_util as bu
from tests import stats_lake

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not bu.have_chromium(), reason=f"{bu.CHROMIUM} is missing (apt-get install chromium)"),
]
APP = Path(__file__).resolve().parent.parent / "dashboard" / "app.py"
_wilson = stats_lake.wilson
_sql = stats_lake.sql


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return stats_lake.build(tmp_path_factory.mktemp("analyst"))


def test_analyst_reads_landlord_vs_farmer_and_opens_a_player(lake: dict[str, Any]) -> None:
    roles = {
        role: (n, k)
        for role, n, k in _sql(lake["lake"], """
            SELECT role, count(DISTINCT match_id), count(DISTINCT match_id) FILTER (WHERE won) FROM seats
            WHERE game = 'ddz' AND status = 'finished'
              AND match_id IN (SELECT match_id FROM matches WHERE status = 'finished' AND n_winners > 0)
            GROUP BY role""")
    }  # fmt: skip
    players = _sql(lake["lake"], """
        SELECT player, count(*), count(*) FILTER (WHERE won) FROM seats
        WHERE game = 'ddz' AND status = 'finished'
          AND match_id IN (SELECT match_id FROM matches WHERE status = 'finished' AND n_winners > 0)
        GROUP BY player HAVING count(*) >= 10""")  # fmt: skip
    best = max(players, key=lambda r: (_wilson(r[2], r[1])[0], r[2] / r[1]))
    with bu.dashboard(lake["lake"]) as url, bu.browser_page() as (page, requests):
        page.goto(f"{url}/winrates")
        page.get_by_text("Minimum sample").first.wait_for(timeout=60_000)
        bu.pick(page, "Game", "ddz")
        page.get_by_text("ddz · landlord").first.wait_for(timeout=30_000)
        rows = {r["role"]: r for r in bu.grid_with(page, "role") if r.get("game") == "ddz"}
        assert set(rows) == {"landlord", "farmer"}
        for role, (n, k) in roles.items():
            lo, hi = _wilson(k, n)
            assert rows[role]["n (matches)"].replace(",", "") == str(n), rows[role]
            assert rows[role]["wins"] == str(k)
            assert rows[role]["win rate"] == f"{k / n:.1%}"
            assert rows[role]["95% interval"] == f"{lo:.1%} – {hi:.1%}"
        page.wait_for_timeout(800)
        page.screenshot(path=str(bu.SCREENSHOTS / "analyst_winrates_ddz_roles.png"), full_page=True)
        # the ranking: players by the lower end of their interval, each linked to its page
        page.get_by_text("player", exact=True).click()
        box = page.get_by_label("Minimum sample (matches per group)", exact=True).and_(page.locator("input"))
        box.fill("10")
        box.press("Enter")
        page.get_by_text("ranked by the lower end").wait_for(timeout=30_000)
        page.wait_for_timeout(800)
        link = page.locator("a[href*='/player?name=']").first
        href = link.get_attribute("href") or ""
        assert href.endswith(f"/player?name={best[0]}"), (href, best)
        assert link.inner_text() == best[0]
        page.screenshot(path=str(bu.SCREENSHOTS / "analyst_player_ranking.png"), full_page=True)
        page.goto(href if href.startswith("http") else url + href)
        if '"player"' in APP.read_text(encoding="utf-8"):  # the player page is there: it opens on that player
            page.get_by_text(best[0]).first.wait_for(timeout=60_000)
            page.wait_for_timeout(1500)
            assert re.search(rf"[?&]name={best[0]}\b", page.url), page.url
            page.screenshot(path=str(bu.SCREENSHOTS / "analyst_player_page.png"), full_page=True)
        # the glossary's Chinese names are drawn with the machine's CJK font, nothing fetched
        page.goto(f"{url}/glossary")
        page.get_by_text("Glossary").first.wait_for(timeout=60_000)
        page.wait_for_timeout(1500)
        page.screenshot(path=str(bu.SCREENSHOTS / "analyst_glossary.png"), full_page=False)
        # which font Chromium drew the Chinese of the title with: the local Simplified Chinese face,
        # not the JP variant fontconfig falls back to on an English page, and no web font
        cdp = page.context.new_cdp_session(page)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument")["root"]["nodeId"]
        h1 = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "h1"})["nodeId"]
        used = {f["familyName"] for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": h1})["fonts"]}
        assert "Noto Sans CJK SC" in used, used
        page.goto(f"{url}/fans")
        page.get_by_text("Minimum sample").first.wait_for(timeout=60_000)
        bu.pick(page, "Game", "sichuan_xuezhan")
        page.get_by_text("平胡 ping_hu").first.wait_for(timeout=30_000)
        page.wait_for_timeout(1500)
        page.screenshot(path=str(bu.SCREENSHOTS / "analyst_fans_sichuan.png"), full_page=True)
        assert bu.offline(requests) == [], bu.offline(requests)
    if shutil.which("fc-list"):
        fonts = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True).stdout
        assert "CJK" in fonts, "no CJK font: install fonts-noto-cjk"
