"""Fans and scores: fan frequency and value per game and rule set, fan totals, score spread."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from dashboard.common import guarded, query, rule_set_picker

MAX_SERIES = 6
"""Rule sets drawn side by side for one game."""


def body() -> None:
    game, rules_id = rule_set_picker("fans")
    if game is False:
        return
    st.markdown("#### Fan frequency (share of wins scoring each fan)")
    if game is not None and rules_id is None:
        # one game: its rule sets (presets and option sets) side by side, the most played first
        sets = query("rule_sets", game=game).head(MAX_SERIES)
        parts = [
            query("fan_distribution", game=game, rules_id=r.rules_id).assign(series=f"{r.preset} · {r.rules_id[:8]}")
            for r in sets.itertuples()
        ]
        ff = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    else:
        ff = query("fan_distribution", game=game, rules_id=rules_id)
        if not ff.empty:
            ff = ff.assign(series=ff["game"])
    if ff.empty:
        st.caption("no wins with fans for this choice (the card games have no fans)")
    else:
        chart = alt.Chart(ff).mark_bar().encode(
            y=alt.Y("fan_id:N", sort="-x", title=None),
            x=alt.X("share_of_wins:Q", axis=alt.Axis(format="%"), title="share of wins"),
            color=alt.Color("series:N", title=None),
            yOffset="series:N",
            tooltip=["series", "fan_id", "wins", alt.Tooltip("share_of_wins:Q", format=".1%"),
                     alt.Tooltip("mean_value:Q", format=".2f"), "max_value"],
        )  # fmt: skip
        st.altair_chart(chart, width="stretch")
        st.dataframe(ff, hide_index=True, width="stretch")
        ft = query("fan_total_distribution", game=game, rules_id=rules_id)
        if not ft.empty:
            st.markdown("#### Wins by total fan")
            st.bar_chart(ft, x="fan", y="share", color="game", stack=False)
    st.markdown("#### Score spread (per seat and match, points)")
    sp = query("score_distribution", game=game, rules_id=rules_id)
    if sp.empty:
        st.caption("no finished matches")
        return
    st.dataframe(sp, hide_index=True, width="stretch")
    width = st.select_slider("Histogram bucket (points)", [1, 2, 5, 10, 20, 50, 100], value=1, key="fans_width")
    hist = query("score_histogram", game=game, rules_id=rules_id, width=width)
    if not hist.empty:
        st.bar_chart(hist, x="bucket", y="seats", color="game", stack=False)
    top = query("biggest_wins", game=game, rules_id=rules_id, limit=10)
    if not top.empty:
        st.markdown("#### Biggest wins")
        st.dataframe(top, hide_index=True, width="stretch")


st.title("Fans and scores")
guarded(body)
