"""The Integrity page in headless Chromium: a lake with a colluding pair shows it flagged, and its
evidence links open the replay console at the event (issue 18)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from engine.sim.simulate import World, simulate_lines
from ingest.pipeline import ingest

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing"),
]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_integrity_page_links_evidence_into_the_replay(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from dashboard.cli import command, environment

    log = tmp_path / "z.jsonl"
    log.write_text("".join(simulate_lines("zhajinhua", None, 250, 6, world=World(pool=8, colluders=(("p01", "p05"),)))),
                   encoding="utf-8")  # fmt: skip
    ingest([str(log)], tmp_path / "lake", workers=0)
    port = _port()
    proc = subprocess.Popen(command(port, "127.0.0.1"), env=environment(str(tmp_path / "lake")),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                time.sleep(0.3)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1800})
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
            finally:
                browser.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
