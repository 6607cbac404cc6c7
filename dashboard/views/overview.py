"""Overview: what the lake holds (matches, events, games, rule sets, rejects, mismatches), the
matches still in progress, and the activity per day (a day without matches drawn as zero)."""

from __future__ import annotations

import altair as alt
import streamlit as st

from dashboard.common import cjk_fonts, empty_lake_note, game_scale, guarded, query

STATUS_COLORS = {"finished": "#54a24b", "incomplete": "#f2cf5b", "invalid": "#e45756"}
IN_PROGRESS = 50


def _in_progress() -> None:
    live = query("in_progress", limit=IN_PROGRESS)
    st.markdown("#### Matches in progress")
    if live.empty:
        st.caption("no match in the lake is waiting for its end")
        return
    show = live.assign(
        players=[", ".join(p) if p is not None and len(p) else "" for p in live["players"]],
        replay=["/replay?match=" + m for m in live["match_id"]],
    )
    st.dataframe(
        show[["match_id", "game", "players", "events", "started_ts", "last_event_ts", "replay"]],
        hide_index=True, width="stretch",
        column_config={"replay": st.column_config.LinkColumn("replay", display_text="open ›"),
                       "started_ts": "started", "last_event_ts": "last event"},
    )  # fmt: skip
    st.caption(
        f"status `incomplete`: the lake has the match's events but not its end yet (a live match the "
        f"referee publishes as it grows, or a log cut short); the {IN_PROGRESS} with the latest event first"
    )


def body() -> None:
    per_game = query("overview")
    rejects = query("reject_codes")
    total = int(per_game["matches"].sum()) if len(per_game) else 0
    figures = [
        ("Matches", total),
        ("In progress", int(per_game["incomplete"].sum()) if len(per_game) else 0),
        ("Events", int(per_game["events"].sum()) if len(per_game) else 0),
        ("Games", len(per_game)),
        ("Rule sets", int(per_game["rule_sets"].sum()) if len(per_game) else 0),
        ("Rejected lines", int(rejects["lines"].sum()) if len(rejects) else 0),
        ("Invalid matches", int(per_game["invalid"].sum()) if len(per_game) else 0),
        ("Settlement mismatches", int(per_game["mismatches"].sum()) if len(per_game) else 0),
    ]
    for col, (label, value) in zip(st.columns(len(figures)), figures, strict=True):
        col.metric(label, f"{value:,}")
    if empty_lake_note(total):
        return
    _in_progress()
    st.markdown("#### Matches by game")
    st.dataframe(per_game, hide_index=True, width="stretch")
    status = per_game[["game", "finished", "incomplete", "invalid"]].melt(
        id_vars="game", var_name="status", value_name="matches"
    )
    chart = (
        alt.Chart(status)
        .mark_bar()
        .encode(
            y=alt.Y("game:N", title=None, sort=list(per_game["game"])),
            x=alt.X("matches:Q", title="matches", axis=alt.Axis(format=",d")),
            color=alt.Color("status:N", scale=alt.Scale(domain=list(STATUS_COLORS), range=list(STATUS_COLORS.values())),
                            legend=alt.Legend(title=None)),
            tooltip=["game", "status", alt.Tooltip("matches:Q", format=",")],
        )
        .properties(height=max(160, 36 * len(per_game) + 60))
    )  # fmt: skip
    st.altair_chart(chart, width="stretch")
    st.markdown("#### Recent activity (matches per day, last 60 days of the lake)")
    act = query("activity", days=60)
    if act.empty:
        st.caption("no dated matches")
    else:
        line = (
            alt.Chart(act)
            .mark_line(point=alt.OverlayMarkDef(size=20))
            .encode(
                x=alt.X("date:T", title=None, axis=alt.Axis(format="%b %d")),
                y=alt.Y("matches:Q", title="matches per day", axis=alt.Axis(format=",d")),
                color=alt.Color("game:N", scale=game_scale(act["game"]), legend=alt.Legend(title=None)),
                tooltip=[alt.Tooltip("date:T", format="%Y-%m-%d"), "game", alt.Tooltip("matches:Q", format=",")],
            )
            .properties(height=300)
        )  # fmt: skip
        st.altair_chart(line, width="stretch")
        st.caption("a day without matches is drawn at 0")


st.title("Paiju")
cjk_fonts()
st.caption("Replay, audit and analyse card and mahjong matches from their event logs.")
guarded(body)
