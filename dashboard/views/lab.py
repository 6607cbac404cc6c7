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

from analytics.lab import (
    Comparison,
    LabRun,
    format_diff,
    format_interval,
    format_p,
    format_value,
    metric_info,
    normalized_rules,
    rules_name,
    start_lab,
    validate_rules,
)
from dashboard.common import AB_COLORS, ab_scale, cjk_fonts, term
from engine.base import rules_doc
from engine.registry import available_games, get_game

MAX_MATCHES = 5000
# A long run is simulated in chunks of about this long: the bar moves, the estimate updates and Stop
# answers between two chunks (what is done is kept and compared). (A comment, not a string: Streamlit
# would print a bare string of a page as text.)
CHUNK_SECONDS = 0.5


def _tag(side: str) -> str:
    """`A` or `B` in its own colour (the same in every table, chart and caption)."""
    return f'<span style="color:{AB_COLORS[side]};font-weight:700">{side}</span>'


def _plain_metric(metric: str) -> tuple[str, str, str]:
    name, unit, meaning = metric_info(metric)
    if metric.startswith("fan[") and metric.endswith("]"):
        name = f"matches with {term(metric[4:-1])}"
    return name, unit, meaning


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
    st.markdown(f"{_tag(side)} **{rules_name(game_id, rules)}**", unsafe_allow_html=True)
    st.code(json.dumps(rules, ensure_ascii=False), language="json")
    return rules


def _show(cmp: Comparison, note: str | None = None) -> None:
    a, b = cmp.a, cmp.b
    if note:
        st.warning(note)
    if cmp.same_rules:
        st.warning("A and B are the same rule set: every difference below is chance (same deals, same bots).")
    c1, c2 = st.columns(2)
    for col, s in ((c1, a), (c2, b)):
        col.metric(f"rule set {s.label}: finished", f"{s.finished:,} / {s.matches:,}")
        if s.failed:
            col.warning(f"{s.failed} simulated matches failed: {s.first_error}")
    sig = cmp.significant()
    if sig:
        names = "; ".join(
            f"{_plain_metric(r.metric)[0]} ({format_diff(r.diff, r.kind)}, {r.effect_label} effect)" for r in sig
        )
        st.success(f"{len(sig)} significant difference{'s' if len(sig) != 1 else ''} (Holm-corrected, "
                   f"α = {cmp.alpha:g}): {names}")  # fmt: skip
    else:
        st.info(f"no significant difference at α = {cmp.alpha:g} (Holm-corrected) with these sample sizes")
    table = pd.DataFrame(
        [
            {
                "metric": _plain_metric(r.metric)[0],
                "unit": _plain_metric(r.metric)[1],
                "A": format_value(r.a, r.kind),
                "B": format_value(r.b, r.kind),
                "B − A": format_diff(r.diff, r.kind),
                "effect size": "–" if math.isnan(r.effect) else f"{r.effect_name} = {r.effect:+.2f} ({r.effect_label})",
                "p": format_p(r.p),
                "significant": "✓" if r.significant else "",
                "B − A 95% interval": format_interval(r.diff_lo, r.diff_hi, r.kind, diff=True),
                "A 95% interval": format_interval(r.a_lo, r.a_hi, r.kind),
                "B 95% interval": format_interval(r.b_lo, r.b_hi, r.kind),
                "what it means": _plain_metric(r.metric)[2],
            }
            for r in cmp.rows
        ]
    )
    st.dataframe(table, hide_index=True, width="stretch")
    st.caption(
        "B − A of a rate is in percentage points (pp). Effect size: Cohen's h for a rate, Cohen's d for a mean "
        "(|0.2| small, |0.5| medium, |0.8| large). p: two-proportion z test or Welch's test; significant = "
        "survives the Holm correction over every metric of the table."
    )
    chart_rows = [
        {"metric": _plain_metric(r.metric)[0], "rule set": side, "value": v, "lo": lo, "hi": hi}
        for r in cmp.rows
        if r.kind == "rate"
        for side, v, lo, hi in (("A", r.a, r.a_lo, r.a_hi), ("B", r.b, r.b_lo, r.b_hi))
    ]
    if chart_rows:
        import altair as alt

        df = pd.DataFrame(chart_rows)
        base = alt.Chart(df).encode(
            y=alt.Y("metric:N", sort=None, title=None, axis=alt.Axis(labelLimit=320, labelOverlap=False)),
            yOffset=alt.YOffset("rule set:N", scale=alt.Scale(domain=list(AB_COLORS))),
            color=alt.Color("rule set:N", scale=ab_scale(), legend=alt.Legend(title=None)),
        )
        chart = base.mark_rule(strokeWidth=2).encode(
            x=alt.X("lo:Q", title="share of matches (dot) and its 95% Wilson interval (line)",
                    axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1])),
            x2="hi:Q",
        )  # fmt: skip
        chart += base.mark_point(filled=True, size=60).encode(
            x="value:Q",
            tooltip=["metric", "rule set", alt.Tooltip("value:Q", format=".1%"),
                     alt.Tooltip("lo:Q", format=".1%"), alt.Tooltip("hi:Q", format=".1%")],
        )  # fmt: skip
        st.altair_chart(chart.properties(height=36 * (len(df) // 2) + 50), width="stretch")
    money = pd.DataFrame(
        [
            {"points changing hands": k, "rule set": s.label, "share of matches": v / max(1, s.finished)}
            for s in (a, b)
            for k, v in s.money_counts.items()
        ]
    )
    if not money.empty:
        import altair as alt

        st.markdown("**Points changing hands per match** (share of finished matches)")
        bars = (
            alt.Chart(money)
            .mark_bar(opacity=0.8)
            .encode(
                x=alt.X("points changing hands:O", title="points changing hands in one match", axis=alt.Axis(labelAngle=0)),
                xOffset=alt.XOffset("rule set:N", scale=alt.Scale(domain=list(AB_COLORS))),
                y=alt.Y("share of matches:Q", axis=alt.Axis(format="%"), title="share of matches"),
                color=alt.Color("rule set:N", scale=ab_scale(), legend=alt.Legend(title=None)),
                tooltip=["rule set", "points changing hands", alt.Tooltip("share of matches:Q", format=".1%")],
            )
            .properties(height=260)
        )
        st.altair_chart(bars, width="stretch")
    st.download_button(
        "Download the comparison (JSON)",
        json.dumps(cmp.to_dict(), ensure_ascii=False, indent=1),
        file_name="paiju-lab.json",
        mime="application/json",
        key="lab_download",
    )


def _stop() -> None:
    job = st.session_state.get("lab_job")
    if job is not None:
        job[1].stopped = True


def _progress_text(job: LabRun) -> str:
    eta = job.eta()
    left = "estimating…" if eta is None else f"about {eta:,.0f} s left"
    return f"{job.done:,} of {job.matches:,} matches per rule set · {job.seconds:,.1f} s so far · {left}"


def _run(params: str, job: LabRun) -> None:
    """Simulate `job` chunk by chunk under a progress bar with a Stop button (kept in the session)."""
    stop = st.empty()
    stop.button("Stop the run", key="lab_stop", on_click=_stop, icon=":material/stop:")
    bar = st.progress(job.done / job.matches, text=_progress_text(job))
    chunk = 2
    while not job.finished and not job.stopped:
        job.step(chunk)
        bar.progress(job.done / job.matches, text=_progress_text(job))
        per = job.seconds / max(1, job.done)
        chunk = max(1, int(CHUNK_SECONDS / per)) if per > 0 else 50
    bar.empty()
    stop.empty()
    st.session_state["lab_result"] = (params, job.comparison(), None)


def body() -> None:
    games = available_games()
    if not games:
        st.warning("no game engine is available in this build")
        return
    game_id = st.selectbox("Game", games, key="lab_game")
    ca, cb = st.columns(2)
    with ca:
        st.markdown(f"#### Rule set {_tag('A')}", unsafe_allow_html=True)
        rules_a = _rule_set("A", game_id)
    with cb:
        st.markdown(f"#### Rule set {_tag('B')}", unsafe_allow_html=True)
        rules_b = _rule_set("B", game_id)
    ready = rules_a is not None and rules_b is not None
    if ready and normalized_rules(game_id, rules_a) == normalized_rules(game_id, rules_b):
        st.warning(
            f"A and B are the same rule set (both are `{rules_name(game_id, rules_a)}`): a comparison can only "
            "show chance. Change an option of B to test it."
        )
    c1, c2 = st.columns(2)
    matches = int(c1.number_input("Matches per rule set", 1, MAX_MATCHES, 200, step=50, key="lab_matches"))
    seed = int(c2.number_input("Seed", 0, 2**31 - 1, 0, key="lab_seed"))
    run = st.button("Run the comparison", type="primary", disabled=not ready, key="lab_run")
    params = json.dumps([game_id, rules_a, rules_b, matches, seed], sort_keys=True)
    if run and ready:
        try:
            job = start_lab(game_id, rules_a or {}, rules_b or {}, matches, seed)
        except ValueError as e:
            st.error(str(e))
            return
        st.session_state["lab_job"] = (params, job)
        st.session_state.pop("lab_result", None)
    progress = st.container()
    slot = st.empty()  # the result: one element, so a new run blanks the old result at once
    current = st.session_state.get("lab_job")
    if current is not None and not current[1].finished and not current[1].stopped and current[0] == params:
        with progress:
            _run(*current)  # a new run, or one a rerun interrupted: go on from where it is
    elif current is not None and current[1].stopped and "lab_result" not in st.session_state:
        job = current[1]
        note = f"stopped after {job.done:,} of {job.matches:,} matches per rule set"
        if job.done:
            st.session_state["lab_result"] = (current[0], job.comparison(), note + ": the figures are for those")
        else:
            progress.warning(note)
    saved = st.session_state.get("lab_result")
    if saved is not None:
        with slot.container():
            if saved[0] != params:
                st.caption("the result below is for other settings; press Run to update it")
            _show(saved[1], saved[2])


st.title("House-rules lab")
cjk_fonts()
st.caption(
    "Bots play the same seeded deals under two rule sets; rates with Wilson 95% intervals, means with normal "
    "intervals, differences tested (two-proportion z, Welch) with a Holm correction over all metrics."
)
try:
    body()
except Exception as e:  # the page must stay up: show the reason, never a trace
    st.error(f"the lab could not run: {type(e).__name__}: {e}")
