"""Overview: what the lake holds (matches, events, games, rule sets, rejects, mismatches) and recent activity."""

from __future__ import annotations

import streamlit as st

from dashboard.common import empty_lake_note, guarded, query


def body() -> None:
    per_game = query("overview")
    rejects = query("reject_codes")
    total = int(per_game["matches"].sum()) if len(per_game) else 0
    figures = [
        ("Matches", total),
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
    st.markdown("#### Matches by game")
    st.dataframe(per_game, hide_index=True, width="stretch")
    status = per_game[["game", "finished", "incomplete", "invalid"]].melt(
        id_vars="game", var_name="status", value_name="count"
    )
    st.bar_chart(status, x="game", y="count", color="status", horizontal=True)
    st.markdown("#### Recent activity (matches per day, last 60 days of the lake)")
    act = query("activity", days=60)
    if act.empty:
        st.caption("no dated matches")
    else:
        st.line_chart(act, x="date", y="matches", color="game")


st.title("Paiju")
st.caption("Replay, audit and analyse card and mahjong matches from their event logs.")
guarded(body)
