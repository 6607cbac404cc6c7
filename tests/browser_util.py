"""Shared by the real-browser journeys: `paiju dashboard`'s exact command on a free loopback port,
Debian's chromium driven by Playwright, Streamlit's data grids read from their accessible table."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = Path(__file__).resolve().parent.parent / "artifacts" / "screenshots"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def have_chromium() -> bool:
    return os.path.exists(CHROMIUM)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def dashboard(lake: str, timeout: float = 90) -> Iterator[str]:
    """Start the dashboard on `lake`; yield its URL; stop it (this process only) afterwards."""
    from dashboard.cli import command, environment

    port = _free_port()
    proc = subprocess.Popen(
        command(port, "127.0.0.1"), env=environment(lake), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        end = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {proc.returncode}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                if time.monotonic() > end:
                    raise TimeoutError("the dashboard did not come up") from None
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextmanager
def browser_page(width: int = 1400, height: int = 1000) -> Iterator[tuple[Any, list[str]]]:
    """A fresh chromium page and the list of every URL it requests."""
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = b.new_page(viewport={"width": width, "height": height})
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            yield page, requests
        finally:
            b.close()


def grids(page: Any) -> list[list[list[str]]]:
    """Every st.dataframe of the page as rows of cell texts (header row first), from the grid's
    accessible table (the visible grid is a canvas)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('table[role=grid]')].map(t =>
             [...t.querySelectorAll('tr')].map(tr => [...tr.querySelectorAll('th,td')].map(c => c.innerText.trim())))"""
    )


def grid_with(page: Any, column: str, timeout: float = 30) -> list[dict[str, str]]:
    """The first data grid that has `column`, as a list of {column: text}; waits for it to appear."""
    end = time.monotonic() + timeout
    while True:
        for g in grids(page):
            if g and column in g[0]:
                return [dict(zip(g[0], row, strict=False)) for row in g[1:] if row]
        if time.monotonic() > end:
            raise AssertionError(f"no table with a {column!r} column: {[g[0] for g in grids(page) if g]}")
        page.wait_for_timeout(250)


def pick(page: Any, label: str, option: str, nth: int = 0) -> None:
    """Choose `option` in the Streamlit selectbox labelled `label`."""
    box = page.get_by_test_id("stSelectbox").filter(has_text=label).nth(nth)
    box.click()
    page.get_by_role("option", name=option, exact=True).click()
    page.wait_for_timeout(300)


def offline(requests: list[str]) -> list[str]:
    """The requests that left the loopback interface (web fonts, CDNs): there must be none."""
    return [u for u in requests if not u.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:"))]
