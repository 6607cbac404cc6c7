"""End to end in a real headless browser: Debian's chromium driven by Playwright.

Starts `paiju dashboard`'s exact command (dashboard.cli) on a free localhost port over a small
real lake, opens a replay deep link, checks the rendered hands against the log, steps forward,
checks again, and saves a screenshot to artifacts/.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests import browser_util, dashboard_lake

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    if not dashboard_lake.games():
        pytest.skip("no game engine is available in this build yet")
    lake = dashboard_lake.build(tmp_path_factory.mktemp("browser"))
    with browser_util.dashboard(lake["lake"]) as url:
        yield url, lake


def _hands(page: Any) -> dict[int, list[str]]:
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('[data-hand]')].map(
             row => [row.dataset.hand, [...row.querySelectorAll('[data-card],[data-tile]')]
                     .map(g => g.dataset.card || g.dataset.tile)]))"""
    )


def _landlord(page: Any) -> int | None:
    for seat in page.evaluate(
        """() => [...document.querySelectorAll('[data-seat]')]
                 .filter(d => [...d.querySelectorAll('.pj-tag')].some(t => t.textContent === 'landlord'))
                 .map(d => Number(d.dataset.seat))"""
    ):
        return int(seat)
    return None


def _wait_for_hands(page: Any, evs: list[dict[str, Any]], step: int, n: int, timeout: float = 20) -> None:
    """Streamlit replaces the table a moment after the heading: wait until the hands are step's."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        hands, landlord = _hands(page), _landlord(page)
        if len(hands) == n and all(
            Counter(hands[str(s)]) == dashboard_lake.expected_hand(evs, s, step, landlord) for s in range(n)
        ):
            return
        page.wait_for_timeout(200)


def test_replay_deep_link_step_forward_and_screenshot(server: tuple[str, dict[str, Any]]) -> None:
    from playwright.sync_api import sync_playwright

    url, lake = server
    mid, evs = next(
        (m, e) for m, e in lake["matches"].items() if m.startswith("sim-") and e[0]["game"] in ("ddz", "paodekuai")
    )
    k = 6
    n = len(evs[0]["players"])
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            page.goto(f"{url}/replay?match={mid}&step={k}")
            page.get_by_text(f"Step {k} of {len(evs) - 1}").wait_for(timeout=60_000)
            page.locator('[data-hand="0"]').wait_for(timeout=30_000)
            for step in (k, k + 1):
                _wait_for_hands(page, evs, step, n)
                hands = _hands(page)
                assert sorted(map(int, hands)) == list(range(n))
                landlord = _landlord(page)
                for seat in range(n):
                    assert Counter(hands[str(seat)]) == dashboard_lake.expected_hand(evs, seat, step, landlord), seat
                if step == k:
                    page.get_by_role("button", name="forward ›").click()
                    page.get_by_text(f"Step {k + 1} of {len(evs) - 1}").wait_for(timeout=30_000)
            assert re.search(rf"[?&]step={k + 1}\b", page.url), page.url
            assert f"match={mid}" in page.url
            page.screenshot(path=str(ARTIFACTS / "dashboard_replay.png"), full_page=True)
            # the error of an invalid match is highlighted with its code
            page.goto(f"{url}/replay?match=bad-turn-1")
            page.get_by_text("first illegal event").wait_for(timeout=60_000)
            page.get_by_text("REFUSED at seq").wait_for(timeout=30_000)  # it opens at the refused event
            page.get_by_role("button", name="forward ›").wait_for(timeout=30_000)
            page.wait_for_timeout(1000)
            page.screenshot(path=str(ARTIFACTS / "dashboard_replay_error.png"), full_page=True)
        finally:
            browser.close()
    assert (ARTIFACTS / "dashboard_replay.png").stat().st_size > 10_000
