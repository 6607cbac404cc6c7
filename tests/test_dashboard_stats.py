"""Issue 16 (analyst and designer) and issue 19 item 6, under `streamlit.testing.v1.AppTest`.

Each test pins one finding of the issue and fails on the code before it. Expected values come from
the written logs or from SQL written here over the lake's tables (never from analytics.queries),
intervals from a Wilson formula written here, fan names from the rule files and the engine's tables.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from tests import stats_lake
from tests.test_dashboard_app import _no_failure as _ok
from tests.test_dashboard_app import _text

_wilson = stats_lake.wilson

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")
RULES = Path("/work/shared/rules")
TIMEOUT = 90


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return stats_lake.build(tmp_path_factory.mktemp("stats"))


def _sql(lake: dict[str, Any], text: str) -> list[tuple[Any, ...]]:
    return stats_lake.sql(lake["lake"], text)


def _app(monkeypatch: pytest.MonkeyPatch, lake_dir: str, page: str | None = None) -> Any:
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("PAIJU_LAKE", lake_dir)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    if page is not None:
        at.switch_page(f"views/{page}.py")
        at.run()
    _ok(at)
    return at


def _charts(at: Any) -> list[tuple[dict[str, Any], list[Any]]]:
    """Every Vega-Lite chart of the page: (spec, its datasets as DataFrames)."""
    out = []
    for el in at.get("vega_lite_chart"):
        spec = json.loads(el.proto.spec)
        data = [pa.ipc.open_stream(d.data.data).read_pandas() for d in el.proto.datasets]
        if el.proto.data.data:
            data.append(pa.ipc.open_stream(el.proto.data.data).read_pandas())
        out.append((spec, data))
    return out


def _encodings(spec: dict[str, Any]) -> list[dict[str, Any]]:
    layers = spec.get("layer") or [spec]
    return [enc for lay in layers for enc in [lay.get("encoding") or {}]] + [spec.get("encoding") or {}]


def _pick(at: Any, key: str, value: str) -> None:
    at.selectbox(key=key).set_value(value).run()
    _ok(at)


# ---------------------------------------------------------------- win rates


def test_win_rate_chart_has_real_height_and_a_percent_axis(monkeypatch: pytest.MonkeyPatch, lake: dict) -> None:
    at = _app(monkeypatch, lake["lake"], "winrates")
    _pick(at, "wr_game", "ddz")
    (spec, data), *_ = _charts(at)
    rows = len(data[0])
    assert rows == 2  # landlord and farmer
    assert spec["height"] >= max(160, 30 * rows), spec["height"]
    xs = [e["x"] for e in _encodings(spec) if "x" in e and e["x"].get("field") == "rate"]
    assert xs and all(x["axis"]["format"] == "%" for x in xs)
    assert xs[0]["scale"]["domain"][0] == 0


def test_roles_are_counted_per_match_with_n_and_interval(monkeypatch: pytest.MonkeyPatch, lake: dict) -> None:
    expected = {
        role: (n, k)
        for role, n, k in _sql(lake, """
            SELECT role, count(DISTINCT match_id), count(DISTINCT match_id) FILTER (WHERE won)
            FROM seats WHERE game = 'ddz' AND status = 'finished'
              AND match_id IN (SELECT match_id FROM matches WHERE n_winners > 0)
            GROUP BY role""")
    }  # fmt: skip
    at = _app(monkeypatch, lake["lake"], "winrates")
    _pick(at, "wr_game", "ddz")
    table = at.dataframe[0].value
    assert {"n (matches)", "wins", "win rate", "95% interval"} <= set(table.columns)
    for _, row in table.iterrows():
        n, k = expected[row["role"]]
        lo, hi = _wilson(k, n)
        assert (row["n (matches)"], row["wins"]) == (n, k)
        assert row["win rate"] == f"{k / n:.1%}" and row["95% interval"] == f"{lo:.1%} – {hi:.1%}"
    # two farmers win together: the farmers' n is the number of matches, not of farmer seats
    assert expected["farmer"][0] == expected["landlord"][0] == len(table) // 2 * expected["landlord"][0]


def test_minimum_sample_defaults_to_30_and_hides_small_rule_sets(monkeypatch: pytest.MonkeyPatch, lake: dict) -> None:
    for page, key in (("winrates", "wr"), ("fans", "fans")):
        at = _app(monkeypatch, lake["lake"], page)
        assert at.number_input(key=f"{key}_min_n").value == 30
        _pick(at, f"{key}_game", "ddz")
        labels = at.selectbox(key=f"{key}_rules").options
        assert not [x for x in labels if "spring off" in x], labels  # the one-match rule set
        assert "1 rule set with fewer than 30 matches" in _text(at)
    # the draw-rate table of the win-rates page leaves it out too, and shows it when asked
    at = _app(monkeypatch, lake["lake"], "winrates")
    _pick(at, "wr_game", "ddz")
    tables = [df.value for df in at.dataframe if "draw rate" in df.value.columns]
    assert tables and "standard + spring off" not in set(tables[0]["rule set"])
    at.number_input(key="wr_min_n").set_value(1).run()
    tables = [df.value for df in at.dataframe if "draw rate" in df.value.columns]
    assert "standard + spring off" in set(tables[0]["rule set"])
    assert any("spring off" in x for x in at.selectbox(key="wr_rules").options)


def test_rule_sets_are_named_by_how_they_differ_from_the_preset(monkeypatch: pytest.MonkeyPatch, lake: dict) -> None:
    at = _app(monkeypatch, lake["lake"], "winrates")
    at.number_input(key="wr_min_n").set_value(1).run()
    labels = at.selectbox(key="wr_rules").options
    counts = {
        (game, json.loads(o)["bomb_factor"], json.loads(o)["rob"], json.loads(o)["spring"]): n
        for game, o, n in _sql(lake, """
            SELECT m.game, r.options, count(*) FROM matches m JOIN rules r USING (rules_id)
            WHERE m.game = 'ddz' GROUP BY ALL""")
    }  # fmt: skip
    assert f"ddz · standard + rob on, bomb_factor 3 · {counts[('ddz', 3, True, True)]} matches" in labels, labels
    assert "ddz · standard + spring off · 1 match" in labels
    assert f"ddz · standard · {counts[('ddz', 2, False, True)]} matches" in labels
    for label in labels:
        assert not re.search(r"[0-9a-f]{16}", label) and "{" not in label, label


def test_players_are_ranked_by_the_lower_end_of_their_interval(monkeypatch: pytest.MonkeyPatch, lake: dict) -> None:
    rows = _sql(lake, """
        SELECT player, count(*), count(*) FILTER (WHERE won) FROM seats
        WHERE game = 'ddz' AND status = 'finished'
          AND match_id IN (SELECT match_id FROM matches WHERE n_winners > 0)
        GROUP BY player HAVING count(*) >= 10""")  # fmt: skip
    ranked = sorted(rows, key=lambda r: (-_wilson(r[2], r[1])[0], -r[2] / r[1], r[0]))
    at = _app(monkeypatch, lake["lake"], "winrates")
    _pick(at, "wr_game", "ddz")
    at.radio(key="wr_by").set_value("player").run()
    at.number_input(key="wr_min_n").set_value(10).run()
    _ok(at)
    table = next(m.value for m in at.markdown if m.value.startswith("| rank | player"))
    shown = re.findall(r"^\| (\d+) \| \[([^\]]+)\]\(([^)]+)\) \| ([\d,]+) \| ([\d,]+) \|", table, re.M)
    assert [s[1] for s in shown] == [r[0] for r in ranked][:60]
    for (_, name, link, n, k), r in zip(shown, ranked, strict=False):
        assert link == f"/player?name={name}" and (int(n), int(k)) == (r[1], r[2])
    by_rate = sorted(rows, key=lambda r: -r[2] / r[1])
    assert [r[0] for r in by_rate] != [r[0] for r in ranked], "the lake must tell the two orders apart"


# ---------------------------------------------------------------- overview


def test_activity_draws_days_without_matches_as_zero(monkeypatch: pytest.MonkeyPatch, lake: dict) -> None:
    per_day = Counter((e[0]["ts"][:10], e[0]["game"]) for e in lake["matches"].values())
    at = _app(monkeypatch, lake["lake"])
    act = next(d[0] for s, d in _charts(at) if d and "date" in d[0].columns)
    got = {(str(r.date)[:10], r.game): r.matches for r in act.itertuples()}
    for day in ("2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05"):
        for game in ("ddz", "hongzhong", "sichuan_xuezhan"):
            assert got[(day, game)] == per_day.get((day, game), 0), (day, game)
    assert got[("2026-11-03", "ddz")] == 0 and got[("2026-11-04", "hongzhong")] == 0
    assert min(d for d, _ in got) == "2026-11-01"  # the window starts at the lake's first day


def test_overview_lists_the_matches_in_progress(monkeypatch: pytest.MonkeyPatch, lake: dict) -> None:
    at = _app(monkeypatch, lake["lake"])
    assert "Matches in progress" in _text(at)
    live = next(df.value for df in at.dataframe if "last_event_ts" in df.value.columns)
    assert sorted(live["match_id"]) == sorted(stats_lake.LIVE)
    for r in live.itertuples():
        evs = lake["matches"][r.match_id]
        assert r.events == len(evs) == stats_lake.LIVE[r.match_id]
        assert r.players == ", ".join(evs[0]["players"]) and r.last_event_ts == evs[-1]["ts"]
    assert {m.label: m.value for m in at.metric}["In progress"] == "2"


# ---------------------------------------------------------------- colours and axes


def test_one_colour_per_game_on_every_page(monkeypatch: pytest.MonkeyPatch, lake: dict) -> None:
    seen: dict[str, set[str]] = {}
    for page in (None, "winrates", "fans"):
        at = _app(monkeypatch, lake["lake"], page)
        if page == "winrates":
            at.radio(key="wr_by").set_value("seat").run()
        found = 0
        for spec, _ in _charts(at):
            for enc in _encodings(spec):
                color = enc.get("color") or {}
                if color.get("field") == "game":
                    scale = color.get("scale") or {}
                    assert "domain" in scale and "range" in scale, (page, color)
                    for g, c in zip(scale["domain"], scale["range"], strict=True):
                        seen.setdefault(g, set()).add(c)
                    found += 1
        assert found, page
    assert all(len(c) == 1 for c in seen.values()), seen
    colours = [next(iter(c)) for c in seen.values()]
    assert len(set(colours)) == len(colours)


def test_share_and_rate_axes_are_in_percent(monkeypatch: pytest.MonkeyPatch, lake: dict) -> None:
    at = _app(monkeypatch, lake["lake"], "fans")
    _pick(at, "fans_game", "sichuan_xuezhan")
    axes = 0
    for spec, _ in _charts(at):
        for enc in _encodings(spec):
            for ch in ("x", "y"):
                field = (enc.get(ch) or {}).get("field", "")
                if field in ("rate", "share", "share_of_wins"):
                    assert enc[ch]["axis"]["format"] == "%", (field, enc[ch])
                    axes += 1
    assert axes >= 2  # fan frequency, wins by total fan (and the histogram's share)


# ---------------------------------------------------------------- fans


def test_hongzhong_is_not_called_a_card_game(monkeypatch: pytest.MonkeyPatch, lake: dict) -> None:
    at = _app(monkeypatch, lake["lake"], "fans")
    _pick(at, "fans_game", "hongzhong")
    text = _text(at)
    assert "card game" not in text
    assert "Hongzhong" in text and "HZ-H5" in text


@pytest.mark.parametrize(
    ("page", "title"),
    [(None, "Paiju"), ("winrates", "Win rates"), ("fans", "Fans and scores"), ("lab", "House-rules lab"),
     ("quality", "Data quality"), ("glossary", "Glossary · 术语表")],
)  # fmt: skip
def test_no_stray_text_above_a_page_title(
    monkeypatch: pytest.MonkeyPatch, lake: dict, page: str | None, title: str
) -> None:
    """A bare string in a page's module (an attribute docstring) is printed by Streamlit's magic."""
    at = _app(monkeypatch, lake["lake"], page)
    first = next(iter(at.main.children.values()))
    assert first.type == "title" and first.value == title, first
    assert not [m.value for m in at.markdown if "Rule sets drawn side by side" in m.value or "chunks of" in m.value]


def test_fan_table_has_n_and_interval(monkeypatch: pytest.MonkeyPatch, lake: dict) -> None:
    wins = _sql(lake, "SELECT count(*) FROM items WHERE game = 'sichuan_xuezhan' AND opens_win")[0][0]
    per_fan = dict(_sql(lake, "SELECT fan_id, count(*) FROM fans WHERE game = 'sichuan_xuezhan' GROUP BY 1"))
    at = _app(monkeypatch, lake["lake"], "fans")
    _pick(at, "fans_game", "sichuan_xuezhan")
    table = at.dataframe[0].value
    assert len(table) == len(per_fan)
    for r in table.itertuples():
        fan_id = r.fan.split(" ")[-1]
        k = per_fan[fan_id]
        lo, hi = _wilson(k, wins)
        assert (r._4, r._5) == (k, wins)  # wins with it, n (wins)
        assert r._7 == f"{lo:.1%} – {hi:.1%}"
    assert "平胡 ping_hu" in set(table["fan"])


@pytest.mark.parametrize("page", [None, "winrates", "fans", "lab", "quality", "glossary"])
def test_pages_draw_chinese_with_the_local_simplified_face(
    monkeypatch: pytest.MonkeyPatch, lake: dict, page: str | None
) -> None:
    """Han characters come from the machine's Noto Sans CJK SC (no web font, not the JP variant)."""
    at = _app(monkeypatch, lake["lake"], page)
    css = "\n".join(str(h.proto.body) for h in at.get("html"))
    assert "local('Noto Sans CJK SC')" in css and "U+4E00-9FFF" in css, css
    assert "url(" not in css


# ---------------------------------------------------------------- glossary


def _engine_fan_ids() -> set[str]:
    from engine.mahjong.anshun import PATTERNS
    from engine.mahjong.fans_sichuan import FAN_TABLES

    ids = {p[0] for p in PATTERNS}
    for t in FAN_TABLES.values():
        ids |= {b[0] for b in t.base} | {e[0] for e in t.extras}
    return ids | {"tian_hu", "di_hu", "si_hong_zhong", "qiang_gang_hu", "zi_mo", "qi_dui"}


def test_glossary_names_every_fan_of_the_engine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    at = _app(monkeypatch, str(tmp_path), "glossary")
    table = at.dataframe[0].value
    assert {"中文", "pinyin", "English", "id", "rule"} <= set(table.columns)
    rows = {r.id: r for r in table.itertuples()}
    missing = _engine_fan_ids() - set(rows)
    assert not missing, missing
    for fid in _engine_fan_ids():
        r = rows[fid]
        assert r.中文 and r.pinyin and r.English and re.search(r"[A-Z]+-[A-Z]+\d+", r.rule), r
    # the Chinese names agree with the rule files' fan tables (where they are on this machine)
    if RULES.is_dir():
        checked = 0
        for md in RULES.glob("*.md"):
            for fid, zh in re.findall(r"^\| `([a-z_]+)` \| ([^|]+?) \| \d", md.read_text(encoding="utf-8"), re.M):
                if fid in rows and re.search(r"[\u4e00-\u9fff]", zh):
                    for name in (n.strip() for part in zh.split(" / ") for n in re.split(r"[()]", part)):
                        assert not name or name in rows[fid].中文, (md.name, fid, zh, rows[fid].中文)
                    checked += 1
        assert checked >= 20
    at.text_input(key="gl_search").input("qīng yī").run()
    assert "qing_yi_se" in set(at.dataframe[0].value["id"])


# ---------------------------------------------------------------- the lab


def _lab(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    at = _app(monkeypatch, str(tmp_path), "lab")
    if "ddz" not in at.selectbox(key="lab_game").options:
        pytest.skip("ddz is not available in this build")
    _pick(at, "lab_game", "ddz")
    return at


def _lab_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, matches: int) -> Any:
    """A = standard against B = bomb_factor 10, `matches` each, run to the end."""
    at = _lab(monkeypatch, tmp_path)
    at.number_input(key="lab_B_ddz_standard_bomb_factor").set_value(10).run()
    at.number_input(key="lab_matches").set_value(matches).run()
    at.button(key="lab_run").click().run()
    _ok(at)
    return at


def test_lab_warns_when_a_equals_b(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    at = _lab(monkeypatch, tmp_path)
    assert any("same rule set" in w.value for w in at.warning)
    # `standard` vs `{}` normalise alike too
    at.text_area(key="lab_B_ddz_raw").input('{"preset": "standard", "bomb_factor": 2}').run()
    assert any("same rule set" in w.value for w in at.warning)
    at.number_input(key="lab_B_ddz_standard_bomb_factor").set_value(10).run()
    at.text_area(key="lab_B_ddz_raw").input("").run()
    assert not any("same rule set" in w.value for w in at.warning)
    assert "standard + bomb_factor 10" in _text(at)


def test_lab_table_is_plain_with_units_effect_sizes_and_readable_p(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    at = _lab_run(monkeypatch, tmp_path, 60)
    table = next(df.value for df in at.dataframe if "effect size" in df.value.columns)
    assert {"metric", "unit", "A", "B", "B − A", "effect size", "p", "what it means"} <= set(table.columns)
    for r in table.itertuples():
        assert not re.search(r"[_\[\]]", r.metric), r.metric
        assert r.unit and r._12, r  # what it means
        assert re.fullmatch(r"< 0\.001|[01]\.\d{3}", r.p), r.p
    assert "points changing hands" in set(table["metric"]) and "landlord wins" in set(table["metric"])
    for r in table[table["unit"] == "% of matches"].itertuples():
        a, b = float(r.A[:-1]) / 100, float(r.B[:-1]) / 100
        h = 2 * math.asin(math.sqrt(b)) - 2 * math.asin(math.sqrt(a))
        shown = float(re.match(r"h = ([+-]\d\.\d\d)", r._6).group(1))
        assert abs(shown - h) <= 0.011, (r.metric, shown, h)


def test_lab_uses_the_same_a_b_colours_everywhere(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    at = _lab_run(monkeypatch, tmp_path, 20)
    scales = []
    for spec, _ in _charts(at):
        for enc in _encodings(spec):
            color = enc.get("color") or {}
            if color.get("field") == "rule set":
                scales.append((tuple(color["scale"]["domain"]), tuple(color["scale"]["range"])))
    assert len(scales) >= 2 and len(set(scales)) == 1, scales
    assert scales[0][0] == ("A", "B") and scales[0][1][0] != scales[0][1][1]
    colour_a = scales[0][1][0]
    assert any(colour_a in m.value for m in at.markdown)  # the A of the headings is A's colour


def test_a_stopped_lab_run_shows_what_it_has(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from analytics.lab import start_lab

    at = _lab(monkeypatch, tmp_path)
    job = start_lab("ddz", {"preset": "standard"}, {"preset": "standard", "bomb_factor": 10}, 500, 0)
    job.step(12)
    job.stopped = True
    at.session_state["lab_job"] = ("other settings", job)
    at.run()
    _ok(at)
    assert "stopped after 12 of 500 matches per rule set" in _text(at)
    assert {m.label: m.value for m in at.metric}["rule set A: finished"] == "12 / 12"
