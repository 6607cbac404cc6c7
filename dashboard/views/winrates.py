"""Win rates by game, rules, role, seat, dealer and player, with Wilson 95% intervals.

Counted over decided matches (finished with a winner), as `analytics.queries` defines them; the
draw rate per rule set is beside them.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from dashboard.common import guarded, query, rule_set_picker

BY = {
    "role": ("win_rate_by_role", "role"),
    "seat": ("win_rate_by_seat", "seat"),
    "dealer": ("win_rate_by_dealer", "is_dealer"),
    "player": ("win_rate_by_player", "player"),
}


def _chart(df: pd.DataFrame, key: str) -> alt.Chart:
    d = df.assign(label=df["game"].astype(str) + " · " + df[key].astype(str))
    base = alt.Chart(d).encode(
        y=alt.Y("label:N", sort=None, title=None, axis=alt.Axis(labelLimit=260, labelOverlap=False))
    )
    bars = base.mark_bar(opacity=0.55).encode(
        x=alt.X("rate:Q", title="win rate (95% Wilson interval)", axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("game:N", legend=None),
        tooltip=["game", key, "seats", "wins", alt.Tooltip("rate:Q", format=".1%"),
                 alt.Tooltip("lo:Q", format=".1%"), alt.Tooltip("hi:Q", format=".1%")],
    )  # fmt: skip
    return (bars + base.mark_rule(color="black", strokeWidth=2).encode(x="lo:Q", x2="hi:Q")).properties(
        height=max(80, 26 * len(d))
    )


def body() -> None:
    game, rules_id = rule_set_picker("wr")
    if game is False:
        return
    by = st.radio("By", list(BY), horizontal=True, key="wr_by")
    name, key = BY[by]
    kw = {"min_matches": 1, "limit": 60} if by == "player" else {}
    if by == "player" and game is None:
        # a player table is per game; over every game at once it is one group per (game, player)
        game = str(query("overview").sort_values("matches", ascending=False)["game"].iloc[0])
        st.caption(f"players are ranked per game: showing `{game}` (pick another game above)")
    df = query(name, game=game, rules_id=rules_id, **kw)
    if df.empty:
        st.info("no decided matches for this choice")
        return
    st.altair_chart(_chart(df, key), width="stretch")
    show = df.assign(
        **{
            "win rate": df["rate"].map("{:.1%}".format),
            "95% CI": [f"{a:.1%} – {b:.1%}" for a, b in zip(df["lo"], df["hi"], strict=True)],
        }
    ).drop(columns=["rate", "lo", "hi"])
    st.dataframe(show, hide_index=True, width="stretch")
    if by == "player":
        st.caption("best 60 players per game by win rate (every player with a decided match)")
    st.markdown("#### Draw rate and leading-role win rate per rule set")
    dr = query("draw_rate", game=game, rules_id=rules_id)
    if not dr.empty:
        st.dataframe(
            dr.assign(**{"draw rate": dr["rate"].map("{:.1%}".format),
                         "95% CI": [f"{a:.1%} – {b:.1%}" for a, b in zip(dr["lo"], dr["hi"], strict=True)]})
            .drop(columns=["rate", "lo", "hi"]),
            hide_index=True, width="stretch",
        )  # fmt: skip
    rc = query("rules_comparison", game=game, rules_id=rules_id)
    if not rc.empty:
        st.dataframe(rc, hide_index=True, width="stretch")


st.title("Win rates")
guarded(body)
