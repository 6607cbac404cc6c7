"""House-rules lab: simulate one game under two rule sets and compare (analytics/lab.py).

The option widgets are generated from the game's `Rules` model (`engine.base.rules_doc`: type,
allowed values, range, help text); a rule set is its preset plus the options that differ from the
preset's values, plus optional raw JSON overrides. Both are validated by the game before anything
runs; a refusal is shown as the game's message.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd
import streamlit as st

from analytics.lab import Comparison, run_lab, validate_rules
from engine.base import rules_doc
from engine.registry import available_games, get_game

MAX_MATCHES = 5000


def _widget(side: str, game_id: str, preset: str, opt: dict[str, Any], current: Any) -> Any:
    key = f"lab_{side}_{game_id}_{preset}_{opt['option']}"
    label, help_ = opt["option"], opt["help"] or None
    if isinstance(current, bool):
        return st.checkbox(label, value=current, help=help_, key=key)
    if opt["allowed"]:
        allowed = list(opt["allowed"])
        return st.selectbox(
            label, allowed, index=allowed.index(current) if current in allowed else 0, help=help_, key=key
        )
    if isinstance(current, int):
        lo, hi = opt["minimum"], opt["maximum"]
        return st.number_input(
            label, value=current, min_value=lo, max_value=hi, step=1, help=help_, key=key, format="%d"
        )
    text = st.text_input(label, value=json.dumps(current, ensure_ascii=False), help=help_, key=key)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text  # the game's validation will name it


def _rule_set(side: str, game_id: str) -> dict[str, Any] | None:
    """The widgets of one side; the rules object, or None after showing why it does not validate."""
    game = get_game(game_id)
    doc = rules_doc(game.Rules, game.presets)
    presets = list(doc["presets"])
    preset = st.selectbox("Preset", presets, key=f"lab_{side}_{game_id}_preset")
    base = game.parse_rules({"preset": preset}).options()
    rules: dict[str, Any] = {"preset": preset}
    with st.expander("Options", expanded=False):
        for opt in doc["options"]:
            name = opt["option"]
            value = _widget(side, game_id, preset, opt, base.get(name, opt["default"]))
            if value != base.get(name):
                rules[name] = value
        raw = st.text_area(
            "Extra overrides (JSON object)", value="", key=f"lab_{side}_{game_id}_raw", placeholder='{"option": value}'
        )
    if raw.strip():
        try:
            extra = json.loads(raw)
        except json.JSONDecodeError as e:
            st.error(f"rule set {side}: the overrides are not JSON ({e.msg} at column {e.colno})")
            return None
        if not isinstance(extra, dict):
            st.error(f'rule set {side}: the overrides must be a JSON object like {{"option": value}}')
            return None
        rules.update(extra)
    try:
        validate_rules(game_id, rules)
    except ValueError as e:
        st.error(f"rule set {side} does not validate: {e}")
        return None
    st.code(json.dumps(rules, ensure_ascii=False), language="json")
    return rules


def _fmt(x: float | None, kind: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.1%}" if kind == "rate" else f"{x:.3g}"


def _show(cmp: Comparison) -> None:
    a, b = cmp.a, cmp.b
    c1, c2 = st.columns(2)
    for col, s in ((c1, a), (c2, b)):
        col.metric(f"rule set {s.label}: finished", f"{s.finished} / {s.matches}")
        if s.failed:
            col.warning(f"{s.failed} simulated matches failed: {s.first_error}")
    sig = cmp.significant()
    if sig:
        names = ", ".join(r.metric for r in sig)
        st.success(f"significant differences (Holm-corrected, α = {cmp.alpha:g}): {names}")
    else:
        st.info(f"no significant difference at α = {cmp.alpha} (Holm-corrected) with these sample sizes")
    table = pd.DataFrame(
        [
            {
                "metric": r.metric,
                "A": _fmt(r.a, r.kind),
                "A 95% CI": f"{_fmt(r.a_lo, r.kind)} – {_fmt(r.a_hi, r.kind)}",
                "B": _fmt(r.b, r.kind),
                "B 95% CI": f"{_fmt(r.b_lo, r.kind)} – {_fmt(r.b_hi, r.kind)}",
                "B − A": _fmt(r.diff, r.kind) if r.kind == "mean" else f"{r.diff:+.1%}",
                "p": f"{r.p:.3g}",
                "significant": "✓" if r.significant else "",
            }
            for r in cmp.rows
        ]
    )
    st.dataframe(table, hide_index=True, width="stretch")
    chart_rows = [
        {"metric": r.metric, "rule set": side, "value": v, "lo": lo, "hi": hi}
        for r in cmp.rows
        if r.kind == "rate"
        for side, v, lo, hi in (("A", r.a, r.a_lo, r.a_hi), ("B", r.b, r.b_lo, r.b_hi))
    ]
    if chart_rows:
        import altair as alt

        df = pd.DataFrame(chart_rows)
        base = alt.Chart(df).encode(
            y=alt.Y("metric:N", sort=None, title=None, axis=alt.Axis(labelLimit=260, labelOverlap=False)),
            yOffset="rule set:N",
            color=alt.Color("rule set:N", scale=alt.Scale(range=["#1f77b4", "#e45756"])),
        )
        chart = base.mark_rule().encode(
            x=alt.X("lo:Q", title="rate (95% interval)", axis=alt.Axis(format="%")), x2="hi:Q"
        )
        chart += base.mark_point(filled=True, size=50).encode(
            x="value:Q", tooltip=["metric", "rule set", "value", "lo", "hi"]
        )
        st.altair_chart(chart.properties(height=max(120, 34 * (len(df) // 2))), width="stretch")
    money = pd.DataFrame(
        [
            {"points changing hands": k, "rule set": s.label, "share of matches": v / max(1, s.finished)}
            for s in (a, b)
            for k, v in s.money_counts.items()
        ]
    )
    if not money.empty:
        st.markdown("**Money per match** (points changing hands, share of finished matches)")
        st.bar_chart(money, x="points changing hands", y="share of matches", color="rule set", stack=False)
    st.download_button(
        "Download the comparison (JSON)",
        json.dumps(cmp.to_dict(), ensure_ascii=False, indent=1),
        file_name="paiju-lab.json",
        mime="application/json",
        key="lab_download",
    )


def body() -> None:
    games = available_games()
    if not games:
        st.warning("no game engine is available in this build")
        return
    game_id = st.selectbox("Game", games, key="lab_game")
    ca, cb = st.columns(2)
    with ca:
        st.markdown("#### Rule set A")
        rules_a = _rule_set("A", game_id)
    with cb:
        st.markdown("#### Rule set B")
        rules_b = _rule_set("B", game_id)
    c1, c2 = st.columns(2)
    matches = int(c1.number_input("Matches per rule set", 1, MAX_MATCHES, 200, step=50, key="lab_matches"))
    seed = int(c2.number_input("Seed", 0, 2**31 - 1, 0, key="lab_seed"))
    ready = rules_a is not None and rules_b is not None
    run = st.button("Run the comparison", type="primary", disabled=not ready, key="lab_run")
    params = json.dumps([game_id, rules_a, rules_b, matches, seed], sort_keys=True)
    if run and ready:
        bar = st.progress(0.0, text="simulating…")

        def tick(f: float) -> None:
            bar.progress(min(1.0, f), text=f"simulating… {f:.0%}")

        try:
            cmp = run_lab(game_id, rules_a, rules_b, matches, seed, progress=tick)
        except ValueError as e:
            bar.empty()
            st.error(str(e))
            return
        bar.progress(1.0, text=f"done: {2 * matches} matches simulated")
        st.session_state["lab_result"] = (params, cmp)
    saved = st.session_state.get("lab_result")
    if saved is not None:
        if saved[0] != params:
            st.caption("the result below is for other settings; press Run to update it")
        _show(saved[1])


st.title("House-rules lab")
st.caption(
    "Bots play the same seeded deals under two rule sets; rates with Wilson 95% intervals, means with normal "
    "intervals, differences tested (two-proportion z, Welch) with a Holm correction over all metrics."
)
try:
    body()
except Exception as e:  # the page must stay up: show the reason, never a trace
    st.error(f"the lab could not run: {type(e).__name__}: {e}")
