"""Fans and scores: how often each fan is scored (share of wins, n and 95 % interval), wins by fan
total, the score spread per role and the biggest wins. Fan names come from the glossary."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from dashboard.common import (
    SERIES_COLORS,
    cjk_fonts,
    filters,
    game_scale,
    guarded,
    interval_text,
    name_rule_sets,
    player_link,
    player_link_column,
    query,
    rate_chart,
    rule_set_name,
    term,
)

MAX_SERIES = 6  # rule sets drawn side by side for one game
CARD_GAMES = {"ddz", "ddz_laizi", "paodekuai", "zhajinhua"}
NO_FANS = {
    "hongzhong": "Hongzhong (红中麻将) scores no fans: every win has the same base value, and the birds (扎码) "
    "multiply it (HZ-H5, HZ-S2).",
}


def _no_fans_note(game: str | None, min_n: int) -> str:
    if game in NO_FANS:
        return NO_FANS[game]
    if game in CARD_GAMES:
        return f"`{game}` is a card game: its wins score no fans (see Score spread below)."
    return f"no game or rule set here has {min_n} or more wins with fans (lower the minimum sample)"


def body() -> None:
    game, rules_id, min_n = filters("fans")
    if game is False:
        return
    st.markdown("#### Fan frequency (share of wins scoring each fan)")
    if game is not None and rules_id is None:
        # one game: its rule sets (presets and option sets) side by side, the most played first
        sets = query("rule_sets", game=game)
        sets = sets[sets["matches"] >= min_n].head(MAX_SERIES)
        parts = [
            query("fan_distribution", game=game, rules_id=r.rules_id, min_n=min_n).assign(
                series=rule_set_name(r.game, r.options, r.preset)
            )
            for r in sets.itertuples()
        ]
        ff = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    else:
        ff = query("fan_distribution", game=game, rules_id=rules_id, min_n=min_n)
        if not ff.empty:
            ff = ff.assign(series="all rule sets" if rules_id is None else name_rule_sets(
                ff.assign(rules_id=rules_id))["rule set"])  # fmt: skip
    if ff.empty:
        st.info(_no_fans_note(game, min_n))
    else:
        ff = ff.rename(columns={"share_of_wins": "rate"}).assign(fan=[term(f) for f in ff["fan_id"]])
        by_series = game is not None and rules_id is None and ff["series"].nunique() > 1
        if by_series:  # the most scored fan first, its rule sets side by side
            order = ff.groupby("fan")["rate"].max().rank(ascending=False, method="first")
            ff = ff.assign(_o=ff["fan"].map(order)).sort_values(["_o", "series"]).drop(columns="_o")
        label = ff["fan"] + " · " + ff["series"] if by_series else ff["fan"]
        if ff["game"].nunique() > 1:
            label = ff["game"] + " · " + label
        scale = None
        if by_series:
            series = list(dict.fromkeys(ff["series"]))
            scale = alt.Scale(domain=series, range=list(SERIES_COLORS[: len(series)]))
        chart = rate_chart(ff.assign(group=label), "group", color="series" if by_series else "game",
                           title="share of wins", scale=scale)  # fmt: skip
        st.altair_chart(chart, width="stretch")
        if game in NO_FANS:
            st.caption(NO_FANS[game])
        st.dataframe(
            pd.DataFrame({
                "game": ff["game"], "rule set": ff["series"], "fan": ff["fan"], "wins with it": ff["wins"],
                "n (wins)": ff["n"], "share of wins": ff["rate"].map("{:.1%}".format),
                "95% interval": [interval_text(a, b) for a, b in zip(ff["lo"], ff["hi"], strict=True)],
                "mean value": ff["mean_value"].round(2), "max value": ff["max_value"],
            }),
            hide_index=True, width="stretch",
        )  # fmt: skip
        st.caption("fan names: see the Glossary page (中文, pinyin, English, rule id)")
        ft = query("fan_total_distribution", game=game, rules_id=rules_id, min_n=min_n)
        if not ft.empty:
            st.markdown("#### Wins by total fan")
            ft = ft.rename(columns={"share": "rate"})
            st.altair_chart(
                rate_chart(ft.assign(group=ft["game"] + " · " + ft["fan"].astype(str) + " fan"), "group",
                           title="share of wins"),
                width="stretch",
            )  # fmt: skip
    st.markdown("#### Score spread (per seat and match, points)")
    sp = query("score_distribution", game=game, rules_id=rules_id, min_n=min_n)
    if sp.empty:
        st.caption(f"no role has {min_n} or more finished seat results")
        return
    st.dataframe(sp.rename(columns={"seats": "n (seat results)"}), hide_index=True, width="stretch")
    width = st.select_slider("Histogram bucket (points)", [1, 2, 5, 10, 20, 50, 100], value=1, key="fans_width")
    hist = query("score_histogram", game=game, rules_id=rules_id, width=width)
    if not hist.empty:
        hist = hist.assign(share=hist["seats"] / hist.groupby("game")["seats"].transform("sum"))
        chart = (
            alt.Chart(hist)
            .mark_bar(opacity=0.7)
            .encode(
                x=alt.X("bucket:Q", title=f"points won or lost by a seat in a match (buckets of {width})"),
                y=alt.Y("share:Q", title="share of seat results", axis=alt.Axis(format="%"), stack=None),
                color=alt.Color("game:N", scale=game_scale(hist["game"]), legend=alt.Legend(title=None)),
                tooltip=["game", "bucket", alt.Tooltip("seats:Q", format=","), alt.Tooltip("share:Q", format=".1%")],
            )
            .properties(height=280)
        )
        st.altair_chart(chart, width="stretch")
    top = query("biggest_wins", game=game, rules_id=rules_id, limit=10)
    if not top.empty:
        st.markdown("#### Biggest wins")
        top = top.assign(replay=["/replay?match=" + m for m in top["match_id"]], player=[player_link(p) for p in top["player"]])
        st.dataframe(
            name_rule_sets(top), hide_index=True, width="stretch",
            column_config={"replay": st.column_config.LinkColumn("replay", display_text="open ›"), "player": player_link_column()},
        )  # fmt: skip


st.title("Fans and scores")
cjk_fonts()
guarded(body)
