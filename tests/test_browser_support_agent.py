"""The support agent's journey in a real browser (Debian chromium + Playwright, issue 16).

Search for the player of `dispute-illegal-pass`, open the match, read the server's charge and see
every event of the log, step with the keyboard to the refused event, then view the table as seat 1.
Expected values come from the log file and from DuckDB queries written here, never from the page's
code. Screenshots go to artifacts/screenshots/.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests import browser_util, console_lake, dashboard_lake
from tests.test_dashboard_browser import ARGS, CHROMIUM

SHOTS = Path(__file__).resolve().parent.parent / "artifacts" / "screenshots"
LOG = console_lake.DISPUTES / "ddz_pass_while_leading.jsonl"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    if not dashboard_lake.games():
        pytest.skip("no game engine is available in this build yet")
    info = console_lake.build(tmp_path_factory.mktemp("agent"))
    with browser_util.dashboard(info["lake"]) as url:
        yield url, info


def _count_for(lake: str, text: str) -> int:
    """Matches whose id or a player's name contains `text`, any case (DuckDB, independently of the app)."""
    from analytics.lake import open_lake

    con = open_lake(lake)
    return int(
        con.execute(
            "SELECT count(*) FROM (SELECT match_id FROM matches WHERE lower(match_id) LIKE '%' || lower(?) || '%' "
            "UNION SELECT match_id FROM seats WHERE lower(player) LIKE '%' || lower(?) || '%')",
            [text, text],
        ).fetchone()[0]
    )


def _wait_text(page: Any, text: str, timeout: float = 30_000) -> None:
    page.get_by_text(text).first.wait_for(timeout=timeout)


def _cards(page: Any, seat: int) -> list[str]:
    return page.evaluate(
        f"""() => [...document.querySelectorAll('[data-hand="{seat}"] [data-card], [data-hand="{seat}"] [data-tile]')]
                 .map(g => g.dataset.card || g.dataset.tile)"""
    )


def _hidden(page: Any, seat: int) -> int:
    """How many cards the row of `seat` says it holds face down."""
    return int(page.evaluate(f"""() => Number(document.querySelector('[data-hand="{seat}"]').dataset.hidden || 0)"""))


def _idle(page: Any, timeout: float = 20) -> None:
    """Wait until the script run is over (Streamlit's running indicator is gone for a moment)."""
    end, quiet = time.monotonic() + timeout, 0
    while time.monotonic() < end and quiet < 3:
        quiet = quiet + 1 if page.locator("[data-testid='stStatusWidget']").count() == 0 else 0
        page.wait_for_timeout(100)


def _step_heading(page: Any, k: int, last: int, timeout: float = 20) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if page.get_by_text(f"Step {k} of {last}", exact=True).count():
            _idle(page)
            return
        page.wait_for_timeout(150)
    shown = page.locator("h4").all_inner_texts()
    raise AssertionError(f"the page never showed step {k}: {shown}, url {page.url}")


def test_support_agent_settles_the_illegal_pass(server: tuple[str, dict[str, Any]]) -> None:
    from playwright.sync_api import sync_playwright

    url, info = server
    log = [json.loads(x) for x in LOG.read_text(encoding="utf-8").splitlines() if x.strip()]
    n_lines = len(LOG.read_text(encoding="utf-8").splitlines())
    mid = log[0]["match_id"]
    player = log[0]["players"][0]  # ann
    refused = next(e["seq"] for e in log if e["type"] == "pass" and e["seq"] == 5)
    server_deltas = log[-1]["deltas"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[*ARGS, "--disable-quic"])
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1500})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            # 1. search for the player, in capitals: the search is case-insensitive and partial
            page.goto(f"{url}/search")
            box = page.get_by_label("Match id or player (part of it, any case)")
            box.wait_for(timeout=60_000)
            box.fill(player.upper())
            box.press("Enter")
            want = _count_for(info["lake"], player)
            _wait_text(page, f"{want:,} match{'es' if want != 1 else ''}")
            page.wait_for_timeout(800)
            page.screenshot(path=str(SHOTS / "agent_1_search.png"), full_page=True)
            # 2. open the disputed match from the results
            picker = page.locator(".st-key-search_open")
            picker.click()
            page.keyboard.type(mid)
            page.get_by_role("option").filter(has_text=mid).first.click()
            end = time.monotonic() + 20
            while time.monotonic() < end and not picker.locator("input").input_value().startswith(mid):
                page.wait_for_timeout(150)
            assert picker.locator("input").input_value().startswith(mid)
            _idle(page)
            page.get_by_text("Open in Replay ›").click()
            _wait_text(page, "Verdict.", 60_000)
            _step_heading(page, 1, n_lines - 1)  # it opens at the deal
            page.wait_for_timeout(800)
            # 3. the server's charge is on the page beside the engine's, and every event of the log
            seat_table = page.locator("[data-testid='stTable']").first.inner_text()
            for d in server_deltas:
                assert f"{d:+d}" in seat_table, (d, seat_table)
            assert "the server charged [" + ", ".join(f"{d:+d}" for d in server_deltas) + "]" in page.inner_text("body")
            page.screenshot(path=str(SHOTS / "agent_2_match_opened.png"), full_page=True)
            timeline = page.locator(".st-key-replay_timeline_box [role='radiogroup'] label")
            assert timeline.count() == n_lines
            greyed = page.locator(".st-key-replay_timeline_box").get_by_text("not applied")
            assert greyed.count() == n_lines - 1 - refused  # every event after the refused one
            page.screenshot(path=str(SHOTS / "agent_2_match_opened.png"), full_page=True)
            # 4. step with the keyboard to the refused event
            page.get_by_role("heading", name="Replay").click()
            for k in range(2, refused + 1):
                page.keyboard.press("ArrowRight")
                _step_heading(page, k, n_lines - 1)
            page.locator("[data-testid='stAlert']").get_by_text(f"REFUSED at seq {refused} pass").wait_for(timeout=20_000)
            assert f"step={refused}" in page.url
            page.keyboard.press("End")
            _step_heading(page, n_lines - 1, n_lines - 1)
            page.keyboard.press("Home")
            _step_heading(page, 0, n_lines - 1)
            page.goto(f"{url}/replay?match={mid}&step={refused}")
            _step_heading(page, refused, n_lines - 1, timeout=60)
            page.wait_for_timeout(800)
            page.screenshot(path=str(SHOTS / "agent_3_refused_event.png"), full_page=True)
            # 5. view as seat 1: its own hand face up, the others face down
            page.locator(".st-key-replay_seat").click()
            page.get_by_role("option", name=f"view as seat 1 {log[0]['players'][1]}").click()
            end = time.monotonic() + 20
            while time.monotonic() < end and "seat=1" not in page.url:
                page.wait_for_timeout(150)
            assert "seat=1" in page.url
            page.wait_for_timeout(800)
            assert sorted(_cards(page, 1)) == sorted(log[1]["hands"][1])  # only bids so far: the dealt hand
            # DDZ-R6 (all_pass = force_first): all three bid 0, so the first bidder is landlord with the bottom
            assert all(e["value"] == 0 for e in log[2:5])
            landlord = log[2]["seat"]
            for other in (0, 2):
                assert _cards(page, other) == []
                held = len(log[1]["hands"][other]) + (len(log[1]["bottom"]) if other == landlord else 0)
                assert _hidden(page, other) == held
            page.screenshot(path=str(SHOTS / "agent_4_view_as_seat_1.png"), full_page=True)
            page.mouse.move(700, 700)
            page.mouse.wheel(0, 1100)
            page.wait_for_timeout(500)
            page.screenshot(path=str(SHOTS / "agent_5_view_as_seat_1_lower.png"))
            assert errors == []
        finally:
            browser.close()
