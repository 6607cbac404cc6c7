"""Player: one player's matches, results by role and trend. Deep link: `/player?name=NAME`."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.common import guarded
from dashboard.finder import PAGE_SIZE, open_picker, player_matches, player_stats, result_rows, results_table

MIN_DAYS = 7  # days played before the trend is drawn per day (fewer: per match; a string here would print)
TREND_NAMES = {"cumulative": "running total", "delta": "points that match"}


def body() -> None:
    name = st.text_input("Player (exact name)", value=st.query_params.get("name", ""), key="player_name").strip()
    if not name:
        st.info("type a player's exact name, or open a player from a table (Search, Replay)")
        return
    st.query_params["name"] = name
    pl = player_stats(name)
    summary, roles, trend, recent = pl.summary, pl.roles, pl.trend, pl.recent
    if not summary.get("matches"):
        st.warning(f"no player named `{name}` in the lake (names are exact here; the Search page finds parts of names)")
        return
    st.subheader(name)
    c = st.columns(5)
    c[0].metric("Matches", f"{summary['matches']:,}")
    c[1].metric("Finished", f"{summary['finished']:,}")
    c[2].metric("Wins", f"{summary['wins']:,}")
    c[3].metric("Points, total", f"{int(summary['total_delta']):+,}")
    c[4].metric("Games", str(summary["games"]))
    if summary.get("first_date"):
        st.caption(f"played from {summary['first_date']} to {summary['last_date']}")
    st.markdown("#### Results by role (decided matches; 95 % Wilson interval)")
    if roles.empty:
        st.caption("no decided match yet")
    else:
        shown = pd.DataFrame({
            "game": roles["game"], "role": roles["role"], "matches": roles["matches"], "wins": roles["wins"],
            "win rate": [f"{r:.1%}" for r in roles["rate"]],
            "95 % interval": [f"{lo:.1%}–{hi:.1%}" for lo, hi in zip(roles["lo"], roles["hi"], strict=True)],
            "points per match": [f"{m:+.2f}" for m in roles["mean_delta"].fillna(0)],
            "points, total": [f"{int(t):+d}" for t in roles["total_delta"].fillna(0)],
        })  # fmt: skip
        st.dataframe(shown, hide_index=True, width="stretch", height=35 * (len(shown) + 1) + 3)  # every role in view
    if len(trend) >= MIN_DAYS:
        st.markdown("#### Trend: points per day and their running total")
        per_day = trend.set_index("date")[["cumulative", "delta"]].rename(columns=TREND_NAMES | {"delta": "points that day"})
        st.line_chart(per_day, height=260, x_label="day", y_label="points")
    elif not recent.empty:  # a few days only: a time axis would be hours; per match instead
        st.markdown(f"#### Trend: points over the last {len(recent)} matches and their running total")
        st.line_chart(recent.set_index("match_no")[["cumulative", "delta"]].rename(columns=TREND_NAMES), height=260,
                      x_label="match (oldest first)", y_label="points")  # fmt: skip
    total = int(summary["distinct_matches"])
    pages = max(1, -(-total // PAGE_SIZE))
    st.markdown(f"#### Matches ({total:,}, newest first)")
    if pages > 1:
        p1, p2 = st.columns([1, 4], vertical_alignment="bottom")
        page = int(p1.number_input("Page", 1, pages, key="player_page"))
    else:
        page, p2 = 1, st.container()
    df = player_matches(name, offset=(page - 1) * PAGE_SIZE)
    first = (page - 1) * PAGE_SIZE
    p2.markdown(f"showing {first + 1}–{first + len(df)} · page {page} of {pages}")
    open_picker(df, "player_open")
    rows = [{k: v for k, v in r.items() if k != "player"} for r in result_rows(df)]  # the page's player: no link column
    results_table(rows)

st.title("Player")
guarded(body)
