"""`paiju dispute` (issue 10) on real logs: clean, illegal, settled differently, tampered.

Logs are played by the bots through the real engines (the simulator), then damaged the way a
dispute would find them: an illegal move the server accepted and hashed, a settlement the server
computed wrongly, a stored line edited afterwards. The report must name the right seq, code, rule
id and amounts, the exit status must be right, the HTML must pass a strict parser, and it must
render in headless chromium (screenshots under artifacts/).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import html5lib
import pytest

import paiju
from analytics.dispute import build_report, render_dispute_html
from engine.registry import available_games, get_game
from engine.replay import replay
from engine.sim.simulate import simulate_match
from events.chain import fill_chain
from events.codec import event_to_json, parse_event
from events.models import Pass, Settled
from events.notation import MAHJONG_GAMES

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
pytestmark = pytest.mark.skipif("ddz" not in available_games(), reason="the ddz engine is not in this build")


def _unhashed(events: list[Any]) -> list[Any]:
    return [e.model_copy(update={"hash": None}) for e in events]


def _clean() -> list[Any]:
    return simulate_match("ddz", {}, seed=3, index=0, prefix="dsp")


def _illegal() -> tuple[list[Any], int]:
    """The leader passes instead of leading (DDZ-R17 must_play); the server hashed it anyway."""
    ev = _clean()
    k = next(i for i, e in enumerate(ev) if e.type == "play")
    bad = Pass(match_id=ev[k].match_id, seq=k, seat=ev[k].seat)
    return fill_chain([*_unhashed(ev[:k]), bad, *_unhashed(ev[k + 1 :])]), k


def _settled(deltas: list[int]) -> list[Any]:
    ev = _clean()
    last = Settled(match_id=ev[-1].match_id, seq=ev[-1].seq, deltas=deltas)
    return fill_chain([*_unhashed(ev[:-1]), last])


def _write(tmp: Path, name: str, events: list[Any]) -> Path:
    p = tmp / f"{name}.jsonl"
    p.write_text("".join(event_to_json(e) + "\n" for e in events), encoding="utf-8")
    return p


def _dispute(*args: str) -> tuple[int, dict[str, Any] | None, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = paiju.main(["dispute", *args])
    lines = [x for x in out.getvalue().splitlines() if x.startswith("{")]
    return rc, (json.loads(lines[0]) if lines else None), err.getvalue()


def strict_parse(text: str) -> Any:
    """html5lib in strict mode raises on any parse error (unclosed tag, bad nesting, stray end tag)."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)


def _text(node: Any) -> str:
    return "".join(node.itertext())


def _row(doc: Any, seq: int) -> Any:
    for tr in doc.find(".//table[@id='timeline']").iter("tr"):
        tds = tr.findall("td")
        if tds and _text(tds[0]).strip() == str(seq):
            return tr
    raise AssertionError(f"no timeline row for seq {seq}")


# ------------------------------------------------------------------ the four real logs


def test_clean_match_exit_0_valid_verdict_and_final_hash(tmp_path: Path) -> None:
    ev = _clean()
    log = _write(tmp_path, "clean", ev)
    out = tmp_path / "clean.html"
    rc, js, _ = _dispute(ev[0].match_id, "--log", str(log), "--out", str(out), "--json")
    assert rc == 0
    r = replay(ev)
    assert js is not None and js["status"] == "finished" and js["settlement_matches"] is True
    text = out.read_text(encoding="utf-8")
    doc = strict_parse(text)
    assert "Valid" in _text(doc.find(".//div[@id='verdict']"))
    assert r.final_hash in text and js["final_hash"] == r.final_hash
    assert f"All {len(ev)} hashes verify" in text
    # every event of the log is a row, each checked legal under a DDZ rule id
    for e in ev[:-1]:
        row = _row(doc, e.seq)
        assert "✓ legal" in _text(row) and re.search(r"DDZ-R\d+", _text(row))
    # the rules' deltas and items are shown next to the server's
    for it in r.items:
        assert it["kind"] in text
    assert "<svg" in text and "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_illegal_match_names_seq_code_rule_and_exits_1(tmp_path: Path) -> None:
    ev, k = _illegal()
    log = _write(tmp_path, "illegal", ev)
    out = tmp_path / "illegal.html"
    rc, js, _ = _dispute(ev[0].match_id, "--log", str(log), "--out", str(out), "--json")
    assert rc == 1
    assert js is not None and js["error"]["seq"] == k and js["error"]["code"] == "must_play"
    doc = strict_parse(out.read_text(encoding="utf-8"))
    first = doc.find(".//tr[@id='first-illegal']")
    assert first is not None
    cell = _text(first)
    assert _text(first.findall("td")[0]).strip() == str(k)
    assert "must_play" in cell and "DDZ-R17" in cell
    verdict = _text(doc.find(".//div[@id='verdict']"))
    assert f"seq {k}" in verdict and "must_play" in verdict and "DDZ-R17" in verdict
    assert "The server nevertheless settled" in verdict
    # the events after it are listed, not replayed
    assert "not replayed" in _text(_row(doc, k + 1))
    assert "The rules give no settlement" in _text(doc)


@pytest.mark.parametrize(
    ("case", "expect"),
    [
        ("doubled", "× 2"),
        ("item_left_out", "left it out"),
        ("item_counted_twice", "counted it twice"),
        ("not_zero_sum", "not zero-sum"),
        ("seats_swapped", "wrong seats"),
    ],
)
def test_settlement_that_differs_is_explained_with_amounts(case: str, expect: str, tmp_path: Path) -> None:
    r = replay(_clean())
    assert r.deltas is not None and len(r.items) >= 2
    d = list(r.deltas)
    it = r.items[1]
    if case == "doubled":
        rec = [2 * x for x in d]
    elif case in ("item_left_out", "item_counted_twice"):
        sign = -1 if case == "item_left_out" else 1
        rec = list(d)
        rec[it["seat"]] += sign * it["points"]
        rec[it["from"]] -= sign * it["points"]
    elif case == "not_zero_sum":
        rec = [*d[:-1], d[-1] + 5]
    else:
        rec = [d[1], d[0], *d[2:]] if d[0] != d[1] else [d[2], d[1], d[0]]
    ev = _settled(rec)
    log = _write(tmp_path, case, ev)
    out = tmp_path / f"{case}.html"
    rc, js, _ = _dispute(ev[0].match_id, "--log", str(log), "--out", str(out), "--json")
    assert rc == 1
    assert js is not None and js["settlement_matches"] is False and js["recorded_deltas"] == rec
    text = out.read_text(encoding="utf-8")
    doc = strict_parse(text)
    verdict = _text(doc.find(".//div[@id='verdict']"))
    assert verdict.startswith("Verdict. Settlement mismatch")
    for s, (calc, got) in enumerate(zip(d, rec, strict=True)):
        if calc != got:
            assert f"seat {s}: charged {got:+d}, rules {calc:+d}" in verdict
    explain = _text(doc.find(".//ul[@class='explain']"))
    assert expect in explain
    if case.startswith("item"):
        assert f"#2 {it['kind']} ({it['points']} to seat {it['seat']} from seat {it['from']})" in explain


def test_tampered_log_breaks_the_chain_at_the_edited_seq(tmp_path: Path) -> None:
    ev = _clean()
    lines = [event_to_json(e) for e in ev]
    dealt = json.loads(lines[1])
    # swap one card between two hands: still a legal deal, but not the one that was hashed
    dealt["hands"][0][0], dealt["hands"][1][0] = dealt["hands"][1][0], dealt["hands"][0][0]
    lines[1] = json.dumps(dealt)
    log = tmp_path / "tampered.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "tampered.html"
    rc, js, _ = _dispute(ev[0].match_id, "--log", str(log), "--out", str(out), "--json")
    assert rc == 1
    assert js is not None and js["chain_ok"] is False and js["chain_break_seq"] == 1
    assert js["error"]["code"] == "bad_hash" and js["error"]["seq"] == 1
    doc = strict_parse(out.read_text(encoding="utf-8"))
    verdict = _text(doc.find(".//div[@id='verdict']"))
    assert "Tampered" in verdict and "seq 1" in verdict
    assert "✗ edited" in _text(_row(doc, 1))
    assert "broken at seq 1" in _text(doc)


# ------------------------------------------------------------------ from the lake, and usage errors


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    tmp = tmp_path_factory.mktemp("dlake")
    ev_ok = simulate_match("ddz", {}, seed=3, index=1, prefix="lk")
    ev_bad, _ = _illegal()
    ev_bad = fill_chain([e.model_copy(update={"match_id": "lk-illegal", "hash": None}) for e in ev_bad])
    ev_set = fill_chain(
        [*_unhashed(ev_ok[:-1]), Settled(match_id=ev_ok[0].match_id, seq=ev_ok[-1].seq, deltas=[0] * len(ev_ok[-1].deltas))]
    )
    ev_set = [e.model_copy(update={"match_id": "lk-settled"}) for e in _unhashed(ev_set)]
    ev_set = fill_chain(ev_set)
    # a stored line edited before it reached the lake: a card moved between two hands
    tam = [json.loads(event_to_json(e.model_copy(update={"match_id": "lk-tampered"}))) for e in ev_set]
    tam = [json.loads(event_to_json(e)) for e in fill_chain([parse_event({k: v for k, v in d.items() if k != "hash"}) for d in tam])]
    tam[1]["hands"][0][0], tam[1]["hands"][1][0] = tam[1]["hands"][1][0], tam[1]["hands"][0][0]
    (tmp / "d.jsonl").write_text("".join(json.dumps(d) + "\n" for d in tam), encoding="utf-8")
    # a later file re-sends an event of the clean match with a different time: a conflict, quarantined
    resent = json.loads(event_to_json(ev_ok[3]))
    resent["ts"] = "2030-01-01T00:00:00Z"
    resent.pop("hash")
    (tmp / "e.jsonl").write_text(json.dumps(resent) + "\n", encoding="utf-8")
    files = [_write(tmp, "a", ev_ok), _write(tmp, "b", ev_bad), _write(tmp, "c", ev_set), tmp / "d.jsonl"]
    lake_dir = tmp / "lake"
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        rc = paiju.main(["ingest", *map(str, files), "--lake", str(lake_dir), "--workers", "1"])
        rc2 = paiju.main(["ingest", str(tmp / "e.jsonl"), "--lake", str(lake_dir), "--workers", "1"])
    assert rc in (0, 1) and rc2 in (0, 1)
    ids = {"ok": ev_ok[0].match_id, "illegal": "lk-illegal", "settled": "lk-settled", "tampered": "lk-tampered"}
    return lake_dir, ids


def test_dispute_from_the_lake(lake: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    lake_dir, ids = lake
    expected = {"ok": (0, "finished"), "illegal": (1, "invalid"), "settled": (1, "finished"), "tampered": (1, "invalid")}
    for name, mid in ids.items():
        out = tmp_path / f"{name}.html"
        rc, js, err = _dispute(mid, "--lake", str(lake_dir), "--out", str(out), "--json")
        assert (rc, js and js["status"]) == expected[name], (name, err)
        doc = strict_parse(out.read_text(encoding="utf-8"))
        verdict = _text(doc.find(".//div[@id='verdict']"))
        if name == "tampered":
            assert js is not None and js["chain_break_seq"] == 1 and js["error"]["code"] == "bad_hash"
            assert "Tampered" in verdict
        if name == "ok":  # the conflicting re-send is shown as quarantined, and changes nothing
            assert "Valid" in verdict
            text = _text(doc)
            assert "quarantined" in text and "conflict" in text and "2030-01-01T00:00:00Z" in text


def test_unknown_match_and_missing_lake_exit_2(lake: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    lake_dir, _ = lake
    rc, _, err = _dispute("no-such-match", "--lake", str(lake_dir), "--out", str(tmp_path / "x.html"))
    assert rc == 2 and "no match 'no-such-match'" in err
    rc, _, err = _dispute("m", "--lake", str(tmp_path / "nowhere"), "--out", str(tmp_path / "x.html"))
    assert rc == 2 and "no lake" in err
    assert not (tmp_path / "x.html").exists()


def test_render_accepts_lines_dicts_and_events_alike() -> None:
    ev = _clean()
    a = build_report(ev)
    b = build_report([event_to_json(e) for e in ev])
    c = build_report([e.to_dict() for e in ev])
    assert a.result.to_dict() == b.result.to_dict() == c.result.to_dict()
    strict_parse(render_dispute_html([event_to_json(e).encode() for e in ev]))


def test_unreadable_line_in_the_match_is_reported_not_raised() -> None:
    lines = [event_to_json(e) for e in _clean()]
    lines[4] = lines[4].replace('"seat":', '"seat":"x", "oops":')
    rep = build_report(lines)
    assert rep.result.status == "invalid" and rep.result.error is not None
    assert rep.exit_code == 1
    strict_parse(render_dispute_html(lines))


@pytest.mark.parametrize("game", [g for g in available_games() if g != "ddz"])
def test_every_available_game_gets_a_valid_report(game: str) -> None:
    ev = simulate_match(game, {}, seed=5, index=0)
    rep = build_report(ev)
    assert rep.exit_code == 0 and rep.result.status == "finished"
    text = render_dispute_html(ev)
    doc = strict_parse(text)
    assert len([tr for tr in doc.iter("tr") if tr.get("class") == "ok"]) >= len(ev) - 1
    if game in MAHJONG_GAMES:  # `5s` is the 5 of bamboo here, never the 5 of spades
        assert 'class="tile' in text and 'class="card' not in text


# ------------------------------------------------------------------ headless browser


CHROMIUM = "/usr/bin/chromium"


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed (/usr/bin/chromium)")
def test_reports_render_in_headless_chromium_without_network(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    ev, _ = _illegal()
    reports = {
        "clean": render_dispute_html(_clean()),
        "illegal": render_dispute_html(ev),
        "settled": render_dispute_html(_settled([2 * x for x in replay(_clean()).deltas or []])),
    }
    ARTIFACTS.mkdir(exist_ok=True)
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )  # fmt: skip
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1400})
            page.on("request", lambda r: requests.append(r.url))
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            for name, text in reports.items():
                path = tmp_path / f"{name}.html"
                path.write_text(text, encoding="utf-8")
                page.goto(path.as_uri())
                assert page.locator("#verdict").is_visible()
                assert page.locator("svg").count() >= (1 if name != "illegal" else 0)
                if name == "illegal":
                    row = page.locator("#first-illegal")
                    assert row.is_visible() and "must_play" in row.inner_text()
                    row.scroll_into_view_if_needed()
                if name == "settled":
                    page.locator("#settlement").scroll_into_view_if_needed()
                    assert "× 2" in page.locator("ul.explain").inner_text()
                page.screenshot(path=str(ARTIFACTS / f"dispute_{name}.png"), full_page=False)
                pdf = page.pdf(format="A4") if hasattr(page, "pdf") else b""
                assert pdf[:4] == b"%PDF"
            assert errors == []
        finally:
            browser.close()
    assert all(u.startswith("file://") for u in requests), requests
    assert all((ARTIFACTS / f"dispute_{n}.png").stat().st_size > 10_000 for n in reports)
    shutil.copy(tmp_path / "illegal.html", ARTIFACTS / "dispute_illegal.html")


@pytest.mark.skipif("sichuan_xuezhan" not in available_games(), reason="the Sichuan engine is not in this build")
def test_header_lists_the_preset_and_every_non_default_option_with_its_meaning() -> None:

    game = get_game("sichuan_xuezhan")
    ev = simulate_match("sichuan_xuezhan", {"preset": "chengdu", "fan_cap": 3}, seed=5, index=1)
    rules = game.parse_rules(ev[0].rules).options()
    changed = {k: v for k, v in rules.items() if k != "preset" and v != game.Rules.model_fields[k].default}
    assert "fan_cap" in changed and len(changed) >= 2
    doc = strict_parse(render_dispute_html(ev))
    header = {}
    for tr in doc.find(".//table[@id='options']").iter("tr"):
        tds = tr.findall("td")
        if len(tds) == 5:
            header[_text(tds[0])] = [_text(td) for td in tds]
    assert set(header) == set(changed)
    for name, value in changed.items():
        cells = header[name]
        assert cells[1] == json.dumps(value, ensure_ascii=False)
        assert cells[3] == ("the log" if name == "fan_cap" else "preset chengdu")
        assert cells[4] == (game.Rules.model_fields[name].description or "")
    assert "chengdu" in _text(doc)


def test_the_replay_cli_says_why_the_server_charge_differs() -> None:
    """dispute-overcharged (tests/data/disputes): the rules owe [-21, -21, -21, +63] (two concealed
    kongs at 2 from each of three payers, then 自摸 at 6 fan: 2^4 = 16 + 1 = 17 from each, SC-S4/S7), the
    server charged ann -48 and dan +90: 27 points more from seat 0 to seat 3 — said in words, each line
    whole (no folding at 80 columns), and the fans as a sum."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, str(root / "paiju.py"), "replay", str(root / "tests/data/disputes/sichuan_server_overcharged.jsonl")],
        capture_output=True, text=True, env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"}, check=False,
    )  # fmt: skip
    assert out.returncode == 1, out.stderr
    text = out.stdout
    assert "the server moved 27 points more from seat 0 (ann) to seat 3 (dan) than the rules owe" in text
    assert "#7 hu_zimo: seat 3 ← seat 0  17  (seq 35 · dui_dui_hu 1 + qing_yi_se 2 + gen 2 + gang_shang_hua 1 = 6 fan · multiplier 16)" in text
