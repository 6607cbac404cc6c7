"""Every dashboard page under `streamlit.testing.v1.AppTest`, against a small real lake (no mocks)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests import dashboard_lake

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")
TIMEOUT = 60
HAND_RE = re.compile(r'data-hand="(\d+)">(.*?)</div>', re.S)
CARD_RE = re.compile(r'data-(?:card|tile)="([^"]+)"')


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not dashboard_lake.games():
        pytest.skip("no game engine is available in this build yet")
    return dashboard_lake.build(tmp_path_factory.mktemp("dash"))


def _app(monkeypatch: pytest.MonkeyPatch, lake_dir: str, page: str | None = None, **params: str) -> Any:
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("PAIJU_LAKE", lake_dir)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    if page is not None:
        at.switch_page(f"views/{page}.py")
        for k, v in params.items():
            at.query_params[k] = v
        at.run()
    _no_failure(at)
    return at


def _no_failure(at: Any) -> None:
    """No exception and no page caught in `guarded` (which would show "could not be drawn")."""
    assert not at.exception, [e.value for e in at.exception]
    assert not [e.value for e in at.error if "could not be drawn" in e.value or "could not run" in e.value]


def _text(at: Any) -> str:
    parts = [m.value for m in at.markdown] + [e.value for e in at.error] + [w.value for w in at.warning]
    parts += [i.value for i in at.info] + [s.value for s in at.success] + [c.value for c in at.caption]
    return "\n".join(str(p) for p in parts)


def _hands(at: Any) -> dict[int, list[str]]:
    html = "\n".join(m.value for m in at.markdown if "data-hand" in m.value)
    return {int(s): CARD_RE.findall(body) for s, body in HAND_RE.findall(html)}


def _landlord(at: Any) -> int | None:
    html = "\n".join(m.value for m in at.markdown if "data-hand" in m.value)
    m = re.search(
        r'data-seat="(\d+)"><b>seat \d+</b>[^<]*(?:<span class="pj-tag">[^<]*</span>)*?<span class="pj-tag">landlord',
        html,
    )
    return int(m.group(1)) if m else None


def _climbing_match(lake: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    for mid, evs in lake["matches"].items():
        if evs[0]["game"] in ("paodekuai", "ddz") and mid.startswith("sim-") and len(evs) > 8:
            return mid, evs
    pytest.skip("no climbing-game match in the test lake")


def test_overview_counts_the_lake(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    at = _app(monkeypatch, lake["lake"])
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Matches"] == f"{len(lake['matches']):,}"
    assert metrics["Games"] == str(len(lake["games"]))
    assert int(metrics["Invalid matches"]) >= 2  # bad-turn-1 and edited-1
    assert metrics["Settlement mismatches"] == "1"
    assert metrics["Rejected lines"] == "2"  # the unreadable line and the conflict
    assert int(metrics["Events"].replace(",", "")) == sum(len(v) for v in lake["matches"].values())


def test_replay_deep_link_steps_forward_and_shows_the_right_hand(
    monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]
) -> None:
    mid, evs = _climbing_match(lake)
    k = min(len(evs) - 3, 6)
    at = _app(monkeypatch, lake["lake"], "replay", match=mid, step=str(k))
    assert f"Step {k} of {len(evs) - 1}" in _text(at)
    for step in (k, k + 1):
        hands = _hands(at)
        n = len(evs[0]["players"])
        assert sorted(hands) == list(range(n))
        landlord = _landlord(at)
        for seat in range(n):
            assert Counter(hands[seat]) == dashboard_lake.expected_hand(evs, seat, step, landlord), (step, seat)
        shown = [c.value for c in at.code]
        assert any(f'"seq":{step}' in c.replace(" ", "") for c in shown), shown
        if step == k:
            at.button(key="forward").click().run()
            _no_failure(at)
    assert at.query_params["step"] in ("7", str(k + 1)) and at.query_params["match"] == mid
    assert f"Step {k + 1} of" in _text(at)
    # the slider jumps; back goes one step back
    at.slider(key="replay_step").set_value(2).run()
    assert "Step 2 of" in _text(at)
    at.button(key="back").click().run()
    assert "Step 1 of" in _text(at)
    # legal actions are listed while the match runs; the settlement at the end
    at.button(key="last").click().run()
    text = _text(at)
    assert f"Step {len(evs) - 1} of {len(evs) - 1}" in text
    assert "equals the engine" in text
    assert any("points" in df.value.columns for df in at.dataframe)


def test_replay_find_by_player(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    mid, evs = _climbing_match(lake)
    player = evs[0]["players"][0]
    at = _app(monkeypatch, lake["lake"], "replay")
    at.text_input(key="replay_search").input(player).run()
    _no_failure(at)
    pick = at.selectbox(key="replay_pick")
    assert mid in pick.options or any(mid in o for o in pick.options)


def test_replay_highlights_the_first_illegal_event(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    at = _app(monkeypatch, lake["lake"], "replay", match="bad-turn-1")
    errs = "\n".join(e.value for e in at.error)
    assert "first illegal event" in errs and f"seq {lake['bad_seq']}" in errs
    assert re.search(r"\*\*(not_your_turn|illegal_move|wrong_phase)\*\*", errs), errs
    at.button(key="to_error").click().run()
    assert "REFUSED" in "\n".join(e.value for e in at.error)
    assert at.query_params["step"] == str(lake["bad_seq"])


def test_replay_marks_mismatch_and_broken_chain(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    at = _app(monkeypatch, lake["lake"], "replay", match="mismatch-1")
    assert "differs from the engine" in _text(at)
    table = next(t.value for t in at.table if "server − engine" in t.value.columns)  # the Replay console (issue 16)
    assert list(table["server − engine"][:2]) == ["+5", "-5"]
    assert (table["check"] == "≠ MISMATCH").sum() == 2
    assert at.get("download_button"), "the evidence report download is offered"
    at = _app(monkeypatch, lake["lake"], "replay", match="edited-1")
    assert "hash chain BROKEN" in _text(at) and "bad_hash" in _text(at)


def test_replay_unknown_match_is_a_message(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    at = _app(monkeypatch, lake["lake"], "replay", match="no-such-match-42", step="3")
    assert "no match with the id or player `no-such-match-42`" in _text(at)
    # a step that is no number is ignored: a match opens at the deal (issue 16), the refusal named at the top
    at = _app(monkeypatch, lake["lake"], "replay", match="bad-turn-1", step="not-a-number")
    assert "Step 1 of" in _text(at) and "first illegal event" in _text(at)
    at = _app(monkeypatch, lake["lake"], "replay", match="bad-turn-1", step="0")
    assert "Step 0 of" in _text(at)


@pytest.mark.parametrize("page", ["winrates", "fans", "quality"])
def test_analysis_pages_render(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any], page: str) -> None:
    at = _app(monkeypatch, lake["lake"], page)
    if page in ("winrates", "fans"):  # the test lake is small: show groups of any size
        at.number_input(key=f"{'wr' if page == 'winrates' else 'fans'}_min_n").set_value(1).run()
    text = _text(at)
    if page == "winrates":
        df = at.dataframe[0].value
        assert {"n (matches)", "wins", "win rate", "95% interval"} <= set(df.columns)
        assert df["n (matches)"].sum() > 0
        at.radio(key="wr_by").set_value("seat").run()
        _no_failure(at)
        assert set(at.dataframe[0].value["seat"]) <= set(range(6))
        at.radio(key="wr_by").set_value("player").run()
        _no_failure(at)
        assert "players are ranked per game" in _text(at)
        assert len(set(at.dataframe[0].value["game"])) == 1
    if page == "quality":
        assert "bad-turn-1" in str([df.value.to_dict() for df in at.dataframe])
        assert "mismatch-1" in str([df.value.to_dict() for df in at.dataframe])
        assert "edited-1" in str([df.value.to_dict() for df in at.dataframe])
        codes = str([df.value.to_dict() for df in at.dataframe])
        assert "conflict" in codes and "bad_json" in codes
    if page == "fans":
        assert "Score spread" in text
        mahjong = [g for g in at.selectbox(key="fans_game").options if g.startswith("sichuan")]
        if mahjong:
            at.selectbox(key="fans_game").set_value(mahjong[0]).run()
            _no_failure(at)
            ff = at.dataframe[0].value
            assert "rule set" in ff and set(ff["fan"]) and (ff["wins with it"] <= ff["n (wins)"]).all()


@pytest.mark.parametrize("page", [None, "replay", "winrates", "fans", "quality"])
def test_empty_or_missing_lake_is_a_message(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, page: str | None) -> None:
    at = _app(monkeypatch, str(tmp_path / "nowhere"), page, **({"match": "x"} if page == "replay" else {}))
    assert "no lake at" in _text(at)


def test_lab_runs_a_small_comparison(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any], tmp_path: Path) -> None:
    at = _app(monkeypatch, str(tmp_path), "lab")
    g = lake["games"][0]
    at.selectbox(key="lab_game").set_value(g).run()
    at.number_input(key="lab_matches").set_value(4).run()
    at.button(key="lab_run").click().run()
    _no_failure(at)
    assert "finished" in " ".join(m.label for m in at.metric)
    df = at.dataframe[0].value
    assert {"metric", "A", "B", "p", "significant"} <= set(df.columns)
    assert "draws" in set(df["metric"])


def test_lab_refuses_a_bad_override(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any], tmp_path: Path) -> None:
    at = _app(monkeypatch, str(tmp_path), "lab")
    g = at.selectbox(key="lab_game").value
    at.text_area(key=f"lab_B_{g}_raw").input('{"no_such_option": 1}').run()
    _no_failure(at)
    errs = "\n".join(e.value for e in at.error)
    assert "rule set B does not validate" in errs and "no_such_option" in errs
    assert at.button(key="lab_run").disabled
    at.text_area(key=f"lab_B_{g}_raw").input("{oops").run()
    assert "not JSON" in "\n".join(e.value for e in at.error)


def test_paiju_dashboard_cli_refuses_a_bad_port_and_builds_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    import paiju
    from dashboard.cli import command, environment

    assert paiju.main(["dashboard", "--port", "70000"]) == 2
    assert "not a TCP port" in capsys.readouterr().err
    cmd = command(8600, "127.0.0.1")
    assert cmd[cmd.index("--server.port") + 1] == "8600" and cmd[-1] == "none" and "run" in cmd
    assert Path(cmd[cmd.index("run") + 1]).name == "app.py"
    env = environment("some/lake")
    assert env["PAIJU_LAKE"] == str(Path("some/lake").resolve())


def test_replay_mahjong_deal_shows_every_dealt_tile(monkeypatch: pytest.MonkeyPatch, lake: dict[str, Any]) -> None:
    mid, evs = next(
        ((m, e) for m, e in lake["matches"].items() if m.startswith("sim-") and "wall" in e[1]), (None, None)
    )
    if mid is None:
        pytest.skip("no mahjong match in the test lake")
    at = _app(monkeypatch, lake["lake"], "replay", match=mid, step="1")
    hands = _hands(at)
    assert {s: Counter(h) for s, h in hands.items()} == {s: Counter(h) for s, h in enumerate(evs[1]["hands"])}
    html = "\n".join(m.value for m in at.markdown if "data-hand" in m.value)
    assert "data-tile=" in html and "data-card=" not in html  # tiles, not cards, in a mahjong game


def test_lab_generates_the_options_of_every_game(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from engine.base import rules_doc
    from engine.registry import get_game

    at = _app(monkeypatch, str(tmp_path), "lab")
    for g in at.selectbox(key="lab_game").options:
        at.selectbox(key="lab_game").set_value(g).run()
        _no_failure(at)
        assert not at.error, (g, [e.value for e in at.error])
        game = get_game(g)
        doc = rules_doc(game.Rules, game.presets)
        keys = {w.key for w in [*at.checkbox, *at.selectbox, *at.number_input, *at.text_input]}
        for opt in doc["options"]:
            assert f"lab_A_{g}_standard_{opt['option']}" in keys, (g, opt["option"])
        # a preset other than standard validates and shows its rules object
        presets = list(doc["presets"])
        if len(presets) > 1:
            at.selectbox(key=f"lab_B_{g}_preset").set_value(presets[1]).run()
            assert not at.error and any(presets[1] in c.value for c in at.code)


def test_lab_option_widget_becomes_an_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    at = _app(monkeypatch, str(tmp_path), "lab")
    if "ddz" not in at.selectbox(key="lab_game").options:
        pytest.skip("ddz is not available in this build")
    at.selectbox(key="lab_game").set_value("ddz").run()
    at.checkbox(key="lab_B_ddz_standard_rob").check().run()
    at.number_input(key="lab_B_ddz_standard_bomb_factor").set_value(4).run()
    _no_failure(at)
    codes = [c.value for c in at.code]
    assert '{"preset": "standard"}' in codes
    assert '{"preset": "standard", "rob": true, "bomb_factor": 4}' in codes


@pytest.mark.parametrize("page", [None, "winrates", "fans", "quality"])
def test_an_existing_but_empty_lake_is_a_message(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, page: str | None
) -> None:
    (tmp_path / "lake").mkdir()
    at = _app(monkeypatch, str(tmp_path / "lake"), page)
    text = _text(at)
    if page == "quality":
        assert "no invalid match" in text and "no line or event was refused" in text
    else:
        assert "holds no matches yet" in text
