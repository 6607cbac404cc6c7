"""The support agent's findings of issue 16, each under `streamlit.testing.v1.AppTest` on a real lake.

Expected values come from the log files (line counts, the server's `settled`, seqs), from hand
computation (the crafted server errors of tests/console_lake.py), from DuckDB queries written here
and from `paiju dispute`'s own HTML (a separate rendering of the same explanation), never from the
page's code.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests import console_lake, dashboard_lake
from tests.test_dashboard_app import _app, _no_failure, _text

DISPUTES = console_lake.DISPUTES
ILLEGAL = DISPUTES / "ddz_pass_while_leading.jsonl"
EDITED = DISPUTES / "zhajinhua_edited_bet.jsonl"
CARD_RE = re.compile(r'data-(?:card|tile)="([^"]+)"')
ROW_RE = re.compile(r'<div class="pj-row[^"]*" data-hand="(\d+)"( data-hidden="(\d+)")?>(.*?)</div>', re.S)


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not dashboard_lake.games():
        pytest.skip("no game engine is available in this build yet")
    return console_lake.build(tmp_path_factory.mktemp("console"))


def _log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _sql(lake_dir: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    from analytics.lake import open_lake

    return list(open_lake(lake_dir).execute(sql, list(params)).fetchall())


def _table_html(at: Any) -> str:
    return "\n".join(m.value for m in at.markdown if "data-hand" in m.value)


def _rows(at: Any) -> dict[int, tuple[list[str], int | None]]:
    """Per seat: the face-up cards of its row and how many it says are face down."""
    return {
        int(s): (CARD_RE.findall(body), int(hidden) if hidden else None)
        for s, _, hidden, body in ROW_RE.findall(_table_html(at))
    }


def _timeline(at: Any) -> list[str]:
    return list(at.radio(key="replay_timeline").options)


def _step(at: Any) -> int:
    m = re.search(r"#### Step (\d+) of \d+", _text(at))
    assert m, _text(at)
    return int(m.group(1))


# ------------------------------------------------------------------ every event, the server's charge


@pytest.mark.parametrize("path", [ILLEGAL, EDITED], ids=["illegal-pass", "edited-bet"])
def test_an_invalid_match_shows_every_event_greying_those_after_the_refusal(
    monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any], path: Path
) -> None:
    """Finding: the page stopped at the refused event (17 events, 5 steps; 13 events, 3 steps)."""
    log = _log(path)
    n = len(path.read_text(encoding="utf-8").splitlines())
    at = _app(monkeypatch, lake["lake"], "replay", match=log[0]["match_id"])
    labels = _timeline(at)
    assert len(labels) == n
    refused = int(_sql(lake["lake"], "SELECT error_seq FROM matches WHERE match_id = ?", log[0]["match_id"])[0][0])
    assert "REFUSED" in labels[refused]
    assert all("not applied" in x for x in labels[refused + 1 :])
    assert not any("not applied" in x for x in labels[:refused])
    at.button(key="last").click().run()
    assert _step(at) == n - 1
    assert "not applied" in _text(at)


def test_the_servers_charge_is_beside_the_engines_without_none(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    """Finding: the settlement showed `None` in every cell of an invalid match; `settled` was gone."""
    log = _log(ILLEGAL)
    server = log[-1]["deltas"]
    at = _app(monkeypatch, lake["lake"], "replay", match=log[0]["match_id"])
    table = next(t.value for t in at.table if "server (settled)" in t.value.columns)
    assert list(table["server (settled)"]) == [f"{d:+d}" for d in server]
    assert list(table["player"]) == log[0]["players"]
    cells = table.astype(str).to_numpy().ravel().tolist()
    assert not any(c in ("None", "nan", "NaN", "<NA>") for c in cells), cells
    text = _text(at)
    assert "the server charged [" + ", ".join(f"{d:+d}" for d in server) + "]" in text


def test_the_verdict_is_at_the_top(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    """Finding: the verdict existed only in the downloaded report. DDZ-R17: a leader cannot pass."""
    at = _app(monkeypatch, lake["lake"], "replay", match="dispute-illegal-pass")
    first = at.error[0].value
    assert first.startswith("**Verdict.** Invalid") and "seq 5" in first and "must_play" in first and "DDZ-R17" in first


def _report_explanations(lake_dir: str, match_id: str, tmp: Path) -> list[str]:
    """`paiju dispute MATCH --lake` run as a process; the items of its "why they differ" list."""
    import html

    out = tmp / f"{match_id}.html"
    subprocess.run([sys.executable, "paiju.py", "dispute", match_id, "--lake", lake_dir, "--out", str(out)],
                   cwd=Path(__file__).resolve().parent.parent, check=False, capture_output=True)  # fmt: skip
    body = out.read_text(encoding="utf-8")
    ul = re.search(r"<ul class='explain'>(.*?)</ul>", body, re.S)
    assert ul, body[-2000:]
    return [html.unescape(x).strip() for x in re.findall(r"<li>(.*?)</li>", ul.group(1), re.S)]


@pytest.mark.parametrize(
    ("match_id", "expect"),
    [
        ("dispute-left-out", ["#7 hu_zimo (17 to seat 3 from seat 0)", "left it out"]),
        ("dispute-doubled", ["× 2"]),
        ("dispute-illegal-pass", ["The rules owe no settlement", "[-12, +6, +6]"]),
    ],
)
def test_why_they_differ_is_on_the_page_and_the_same_as_the_report(
    monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any], tmp_path: Path, match_id: str, expect: list[str]
) -> None:
    """Finding: "why they differ" existed only in the report. Causes by hand (tests/console_lake.py)."""
    at = _app(monkeypatch, lake["lake"], "replay", match=match_id)
    md = next(m.value for m in at.markdown if m.value.startswith("**Why they differ:**"))
    page = [x[2:].strip() for x in md.splitlines()[1:] if x.startswith("- ")]
    for e in expect:
        assert any(e in x for x in page), (e, page)
    assert page == _report_explanations(lake["lake"], match_id, tmp_path)


def test_settlement_lines_link_to_their_event_and_seats_have_subtotals(
    monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]
) -> None:
    """Each line names players and links to the step of its event; subtotals from the lake's items."""
    log = _log(console_lake.OVERCHARGED)
    mid = log[0]["match_id"]
    at = _app(monkeypatch, lake["lake"], "replay", match=mid)
    items = next(d.value for d in at.dataframe if "caused by (step)" in d.value.columns)
    gangs = [e["seq"] for e in log if e["type"] == "gang"]
    hu = [e["seq"] for e in log if e["type"] == "hu"]
    steps = [int(re.search(r"step=(\d+)", u).group(1)) for u in items["caused by (step)"]]
    kinds = list(items["kind"])
    assert [s for s, k in zip(steps, kinds, strict=True) if k.startswith("gang")] == [gangs[0]] * 3 + [gangs[1]] * 3
    assert {s for s, k in zip(steps, kinds, strict=True) if k.startswith("hu")} == set(hu)
    names = log[0]["players"]
    assert set(items["to"]) == {f"seat 3 {names[3]}"}
    rows = _sql(lake["lake"], "SELECT seat, points, from_seat FROM items WHERE match_id = ?", mid)
    sub = Counter()
    for seat, pts, frm in rows:
        sub[seat] += pts
        sub[frm] -= pts
    table = next(t.value for t in at.table if "items subtotal" in t.value.columns)
    assert list(table["items subtotal"]) == [f"{sub[s]:+d}" for s in range(4)]
    assert list(table["engine"]) == [f"{d:+d}" for d in console_lake.RULES_DELTAS]


# ------------------------------------------------------------------ stepping


def test_the_match_opens_at_the_deal_and_the_keys_step(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    """Findings: a match opened on an empty step 0; no keyboard stepping."""
    log = _log(ILLEGAL)
    at = _app(monkeypatch, lake["lake"], "replay", match=log[0]["match_id"])
    assert _step(at) == 1
    rows = _rows(at)
    assert {s: Counter(c) for s, (c, _) in rows.items()} == {s: Counter(h) for s, h in enumerate(log[1]["hands"])}
    keys = {b.key: b.proto.shortcut for b in at.button}
    assert (keys["first"], keys["back"], keys["forward"], keys["last"]) == ("home", "left", "right", "end")
    at.button(key="forward").click().run()
    assert _step(at) == 2 and at.query_params["step"] == "2"


def test_the_timeline_is_in_plain_sentences_and_jumps(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    """Finding: no event list. Sentences name the seat and player and say the move."""
    log = _log(ILLEGAL)
    names = log[0]["players"]
    at = _app(monkeypatch, lake["lake"], "replay", match=log[0]["match_id"])
    labels = _timeline(at)
    assert labels[3].endswith(f"seat 1 {names[1]} passes the bid")
    assert f"seat 1 {names[1]} plays 3333" in labels[6]
    assert f"seat 0 {names[0]} plays 444" in labels[14]
    at.radio(key="replay_timeline").set_value(9).run()
    assert _step(at) == 9 and at.query_params["step"] == "9"


def test_a_climbing_play_says_its_kind(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    """`seat 1 bo plays pair KK`: the kind of an applied play (doudizhu.md §4.1 move ids) and its ranks."""
    mid, evs = next((m, e) for m, e in lake["matches"].items() if m.startswith("sim-ddz-"))
    at = _app(monkeypatch, lake["lake"], "replay", match=mid)
    labels = _timeline(at)
    for e, label in zip(evs, labels, strict=False):
        if e["type"] == "play" and len(e["cards"]) == 2 and e["cards"][0][0] == e["cards"][1][0] != "B":
            r = "10" if e["cards"][0][0] == "T" else e["cards"][0][0]
            assert label.endswith(f"plays pair {r}{r}"), label
        if e["type"] == "play" and len(e["cards"]) == 1:
            assert " plays solo " in label, label


def test_jump_to_the_next_move_of_a_seat_and_the_next_claim(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    log = _log(console_lake.OVERCHARGED)
    at = _app(monkeypatch, lake["lake"], "replay", match=log[0]["match_id"])
    at.selectbox(key="replay_next_seat").set_value(3).run()
    at.button(key="next_seat").click().run()
    assert _step(at) == next(e["seq"] for e in log[2:] if e.get("seat") == 3)
    at.button(key="next_claim").click().run()
    assert _step(at) == next(e["seq"] for e in log if e["type"] in ("peng", "gang", "hu"))


def test_view_as_seat_hides_what_that_seat_could_not_see(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    """Finding: no per-seat view. Deep link `seat=1`: its own hand face up, the others' counted."""
    log = _log(console_lake.OVERCHARGED)
    mid = log[0]["match_id"]
    draw = next(e for e in log if e["type"] == "draw" and e["seat"] == 2)
    at = _app(monkeypatch, lake["lake"], "replay", match=mid, step=str(draw["seq"]), seat="1")
    assert _step(at) == draw["seq"] and at.query_params["seat"] == "1"
    rows = _rows(at)
    assert rows[1][0] and rows[1][1] is None
    for other in (0, 2, 3):
        assert rows[other][0] == [] and rows[other][1] and rows[other][1] > 0
    labels = _timeline(at)
    assert labels[draw["seq"]].endswith(f"seat 2 {log[0]['players'][2]} draws a tile")
    shown = "\n".join(c.value for c in at.code)
    assert draw["tile"] not in json.loads(shown).values()
    at.selectbox(key="replay_seat").set_value(-1).run()
    assert "seat" not in at.query_params
    assert _rows(at)[2][1] is None and _timeline(at)[draw["seq"]].endswith(f"draws {draw['tile']}")


# ------------------------------------------------------------------ the panels


def test_the_table_centre_is_in_words(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    """Finding: raw state keys (`void: false`, `offered`, `next_dealer`, `play:window`) on the table."""
    from engine.registry import get_game

    raw = ("void:", "false", "true", "offered", "next_dealer", "play:window", "pass_locks", "wall_left", "last_play")
    for mid, evs in lake["matches"].items():
        if not mid.startswith("sim-") or evs[0]["game"] not in ("ddz", "sichuan_xuezhan", "hongzhong"):
            continue
        game = get_game(evs[0]["game"])
        from engine.replay import replay_with_steps
        from events.codec import parse_event

        steps, _ = replay_with_steps([parse_event(e) for e in evs])
        window = next(
            (st.seq for st in steps if st.state is not None and game.view(st.state).get("phase") in ("play:window", "claim")),
            None,
        )
        for k in {1, len(evs) - 1, *([window] if window is not None else [])}:
            at = _app(monkeypatch, lake["lake"], "replay", match=mid, step=str(k))
            html = _table_html(at)
            assert html
            visible = re.sub(r"<[^>]+>", " ", re.sub(r"<style>.*?</style>", "", html, flags=re.S))
            for word in raw:
                assert word not in visible, (mid, k, word)


def test_legal_moves_are_grouped_by_kind_behind_an_expander_with_the_played_one_marked(
    monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]
) -> None:
    """Finding: up to 80 legal moves pushed the settlement down; the move played was not marked."""
    from engine.registry import get_game
    from engine.replay import replay_with_steps
    from events.codec import parse_event

    mid, evs = next((m, e) for m, e in lake["matches"].items() if m.startswith("sim-ddz-"))
    steps, _ = replay_with_steps([parse_event(e) for e in evs])
    game = get_game("ddz")
    k = max(range(2, len(evs) - 2), key=lambda i: len(game.legal_actions(steps[i].state)))
    n = len(game.legal_actions(steps[k].state))
    at = _app(monkeypatch, lake["lake"], "replay", match=mid, step=str(k))
    exp = next(e for e in at.expander if e.label.startswith("Legal moves now"))
    assert exp.label.startswith(f"Legal moves now: {n} (")
    inside = "\n".join(m.value for m in exp.markdown)
    nxt = evs[k + 1]
    marked = re.findall(r"\*\*▶ `([^`]*)`\*\*", inside)
    assert len(marked) == 1
    assert f"seat {nxt['seat']} {nxt['type']}" in marked[0]
    assert all(c in marked[0] for c in nxt.get("cards", []))
    ev = next(e for e in at.expander if e.label.startswith("Event JSON"))
    assert json.loads(ev.code[0].value)["seq"] == k


def test_deep_link_with_step_and_seat(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    at = _app(monkeypatch, lake["lake"], "replay", match="dispute-illegal-pass", step="5", seat="1")
    assert _step(at) == 5 and "REFUSED at seq 5" in "\n".join(e.value for e in at.error)
    assert at.selectbox(key="replay_seat").value == 1


# ------------------------------------------------------------------ finding any match, players


def test_search_is_partial_case_insensitive_with_the_true_count_and_paging(
    monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]
) -> None:
    """Finding: exact-prefix, case-sensitive, silently capped at 50, labels printing `nan`."""
    at = _app(monkeypatch, lake["lake"], "search")
    at.text_input(key="search_text").input("ZO").run()
    want = _sql(lake["lake"], "SELECT count(DISTINCT match_id) FROM seats WHERE lower(player) LIKE '%zo%'")[0][0]
    assert want == console_lake.BULK > 50
    assert f"**{want:,} matches**" in _text(at)
    page1 = at.dataframe[0].value
    assert len(page1) == 50
    assert all(r.startswith("zoe (seat 0") for r in page1["result"])
    at.number_input(key="search_page").set_value(2).run()
    page2 = at.dataframe[0].value
    assert len(page2) == want - 50 and not set(page2["match"]) & set(page1["match"])
    # partial on the id, any case; the player's result is in each row
    at.text_input(key="search_text").input("ILLEGAL-P").run()
    rows = at.dataframe[0].value
    assert [re.search(r"match=([^&]+)", u).group(1) for u in rows["match"]] == ["dispute-illegal-pass"]
    at.text_input(key="search_text").input("bo").run()
    rows = at.dataframe[0].value
    assert any(r.startswith("bo (seat 1") and "no result (invalid)" in r for r in rows["result"])
    assert not any(x in str(v) for v in rows.to_numpy().ravel() for x in ("nan", "None", "NaT", "<NA>"))
    labels = at.selectbox(key="search_open").options
    assert not any(x in o for o in labels for x in ("nan", "None"))


def test_search_filters(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    at = _app(monkeypatch, lake["lake"], "search")
    at.checkbox(key="search_mismatch").check().run()
    want = _sql(lake["lake"], "SELECT count(*) FROM matches WHERE settlement_matches = false")[0][0]
    assert f"**{want:,} match" in _text(at)
    at.checkbox(key="search_mismatch").uncheck().run()
    at.checkbox(key="search_broken").check().run()
    want = _sql(lake["lake"], "SELECT count(*) FROM matches WHERE chain_ok = false")[0][0]
    assert f"**{want:,} match" in _text(at)
    at.checkbox(key="search_broken").uncheck().run()
    at.selectbox(key="search_game").set_value("ddz").run()
    at.selectbox(key="search_status").set_value("invalid").run()
    want = _sql(lake["lake"], "SELECT count(*) FROM matches WHERE game = 'ddz' AND status = 'invalid'")[0][0]
    assert f"**{want:,} match" in _text(at)
    import datetime as dt

    at.selectbox(key="search_game").set_value("all games").run()
    at.selectbox(key="search_status").set_value("any status").run()
    at.date_input(key="search_dates").set_value((dt.date(2026, 11, 1), dt.date(2026, 11, 1))).run()
    want = _sql(lake["lake"], "SELECT count(*) FROM matches WHERE date = '2026-11-01'")[0][0]
    assert f"**{want:,} match" in _text(at)


def test_replay_search_box_finds_a_player_in_any_case(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    at = _app(monkeypatch, lake["lake"], "replay")
    at.text_input(key="replay_search").input("ANN").run()
    _no_failure(at)
    opts = at.selectbox(key="replay_pick").options
    assert any(o.startswith("dispute-illegal-pass ·") for o in opts)
    assert not any("nan" in o or "None" in o for o in opts)


def test_player_page(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    """A per-player page: matches, results by role, trend; linked from search results."""
    at = _app(monkeypatch, lake["lake"], "player", name="zoe")
    metrics = {m.label: m.value for m in at.metric}
    n, wins, pts = _sql(lake["lake"], "SELECT count(*), count(*) FILTER (WHERE won), sum(delta) FROM seats WHERE player = 'zoe'")[0]
    assert metrics["Matches"] == f"{n:,}" and metrics["Wins"] == f"{wins:,}" and metrics["Points, total"] == f"{int(pts):+,}"
    roles = at.dataframe[0].value
    want = dict(_sql(lake["lake"], "SELECT role, count(*) FROM seats s JOIN matches m USING (match_id) "
                     "WHERE player = 'zoe' AND m.status = 'finished' AND NOT m.is_draw GROUP BY role"))  # fmt: skip
    assert dict(zip(roles["role"], roles["matches"], strict=True)) == want
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart") or any("Trend" in m.value for m in at.markdown)
    s = _app(monkeypatch, lake["lake"], "search", q="zoe")
    assert all(u == "player?name=zoe" for u in s.dataframe[0].value["player"])
    r = _app(monkeypatch, lake["lake"], "replay", match="dispute-illegal-pass")
    assert "[**ann**](player?name=ann)" in _text(r)


def test_search_rows_say_why_a_match_was_refused_and_link_the_player_beside_it(
    monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]
) -> None:
    """Looked at in chromium: the flags printed raw codes (`must_play at seq 5`) and the player's
    page link was the last column, cut off at the right edge of the page."""
    at = _app(monkeypatch, lake["lake"], "search", q="illegal-pass")
    rows = at.dataframe[0].value
    seq, message = _sql(lake["lake"], "SELECT error_seq, error_message FROM matches WHERE match_id = 'dispute-illegal-pass'")[0]
    assert list(rows["flags"]) == [f"refused at seq {seq}: {message}"] and "DDZ-R17" in message
    assert list(rows.columns[:3]) == ["match", "player", "result"]


def test_the_player_page_prints_no_stray_text_and_names_its_lines(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    """Looked at in chromium: a constant's docstring printed above the title; the trend's lines
    were called `cumulative` and `delta`."""
    at = _app(monkeypatch, lake["lake"], "player", name="zoe")
    assert not [m.value for m in at.markdown if "Days played" in m.value]
    assert "#### Trend" in _text(at)
    from tests.test_dashboard_stats import _charts

    ((_spec, data),) = _charts(at)
    names = {str(v) for df in data for col in df.columns for v in [col, *df[col].astype(str).unique()[:50]]}
    assert {"running total", "points that match"} <= names and not {"cumulative", "delta"} & names


def test_a_name_that_is_markup_is_shown_as_text(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    at = _app(monkeypatch, lake["lake"], "replay", match="dispute-markup")
    html = _table_html(at)
    assert "&lt;i&gt;eve&lt;/i&gt;" in html and "<i>eve</i>" not in html
