"""The Integrity page in headless Chromium: a lake with a colluding pair shows it flagged, and its
evidence links open the replay console at the event (issue 18)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.sim.simulate import World, simulate_lines
from ingest.pipeline import ingest
from tests import browser_util

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not browser_util.have_chromium(), reason=f"{browser_util.CHROMIUM} is missing"),
]


def test_integrity_page_links_evidence_into_the_replay(tmp_path: Path) -> None:
    log = tmp_path / "z.jsonl"
    log.write_text("".join(simulate_lines("zhajinhua", None, 250, 6, world=World(pool=8, colluders=(("p01", "p05"),)))),
                   encoding="utf-8")  # fmt: skip
    ingest([str(log)], tmp_path / "lake", workers=0)
    with browser_util.dashboard(str(tmp_path / "lake"), timeout=120) as url, \
            browser_util.browser_page(1400, 1800) as (page, _):  # fmt: skip
        page.goto(f"{url}/integrity")
        page.get_by_text("pairs flagged at FDR").wait_for(timeout=120_000)
        page.get_by_text("evidence: p01 + p05 (zhajinhua)").first.wait_for(timeout=60_000)
        links = page.locator("a[href*='/replay?match=']")
        links.first.wait_for(timeout=60_000)
        ARTIFACTS.mkdir(exist_ok=True)
        page.wait_for_timeout(5000)  # the tables draw on a canvas after the page settles
        page.screenshot(path=str(ARTIFACTS / "dashboard_integrity.png"), full_page=True)
        href = links.first.get_attribute("href") or ""
        m = re.fullmatch(r"/replay\?match=(sim-zhajinhua-6-\d{6})&step=(\d+)", href)
        assert m, href
        page.goto(url + href)
        page.get_by_text(f"Step {m.group(2)} of").wait_for(timeout=120_000)
        assert m.group(1) in page.content()
