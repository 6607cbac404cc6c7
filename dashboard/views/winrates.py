"""Win rates by role, seat, dealer and player, each with n and its Wilson 95 % interval.

Counted over decided matches (finished with a winner), as `analytics.queries` defines them; a role
or the dealer is counted once per match (two farmers win together). Groups under the minimum
sample are left out and the page says so; players are ranked by the lower end of their interval.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.common import cjk_fonts, filters, guarded, interval_text, name_rule_sets, player_link, query, rate_chart

BY = {
    "role": ("win_rate_by_role", "role", "matches"),
    "seat": ("win_rate_by_seat", "seat", "seats"),
    "dealer": ("win_rate_by_dealer", "is_dealer", "matches"),
    "player": ("win_rate_by_player", "player", "seats"),
}
TOP_PLAYERS = 60


def _table(df: pd.DataFrame, key: str) -> pd.DataFrame:
    show = pd.DataFrame(
        {
            "game": df["game"],
            key: df[key],
            "n (matches)": df["n"],
            "wins": df["wins"],
            "win rate": df["rate"].map("{:.1%}".format),
            "95% interval": [interval_text(a, b) for a, b in zip(df["lo"], df["hi"], strict=True)],
        }
    )
    if key == "is_dealer":
        show[key] = show[key].map({True: "dealer", False: "other seats"})
        show = show.rename(columns={key: "seat"})
    return show


def _md(text: object) -> str:
    """Text safe inside a Markdown table cell or link label."""
    return "".join("\\" + c if c in "\\`*_{}[]()#+-.!|<>~" else c for c in str(text))


def _player_ranking(df: pd.DataFrame) -> str:
    """The player ranking as a Markdown table whose names link to each player's page."""
    lines = [
        "| rank | player | n (matches) | wins | win rate | 95% interval | total points |",
        "|---:|:---|---:|---:|---:|---:|---:|",
    ]
    for i, r in enumerate(df.itertuples(), start=1):
        link = player_link(r.player) or ""
        lines.append(
            f"| {i} | [{_md(r.player)}]({link}) | {r.n:,} | {r.wins:,} | {r.rate:.1%} | "
            f"{interval_text(r.lo, r.hi)} | {int(r.total_delta):+,} |"
        )
    return "\n".join(lines)


def body() -> None:
    game, rules_id, min_n = filters("wr")
    if game is False:
        return
    by = st.radio("By", list(BY), horizontal=True, key="wr_by")
    name, key, n_col = BY[by]
    kw: dict[str, object] = {"min_matches": min_n, "limit": TOP_PLAYERS} if by == "player" else {"min_n": min_n}
    if by == "player" and game is None:
        # a player table is per game; over every game at once it is one group per (game, player)
        game = str(query("overview").sort_values("matches", ascending=False)["game"].iloc[0])
        st.caption(f"players are ranked per game: showing `{game}` (pick another game above)")
    df = query(name, game=game, rules_id=rules_id, **kw)
    if df.empty:
        st.info(f"no group has {min_n} or more decided matches for this choice (lower the minimum sample)")
        return
    df = df.rename(columns={n_col: "n"})
    label = df["game"].astype(str) + " · " + (
        df[key].map({True: "dealer", False: "other seats"}) if key == "is_dealer" else df[key].astype(str)
    )
    if by == "player":  # the ranking first (names link to each player's page), its chart below
        st.markdown(_player_ranking(df))
    st.altair_chart(rate_chart(df.assign(group=label), "group"), width="stretch")
    if by != "player":
        st.dataframe(_table(df, key), hide_index=True, width="stretch")
    if by == "player":
        st.caption(
            f"the best {TOP_PLAYERS} players of `{game}` with at least {min_n} decided matches, ranked by the "
            "lower end of their 95% interval: a short lucky streak does not outrank a long good record"
        )
    else:
        st.caption(
            "n = decided matches the group took part in (a role or the dealer counted once per match); "
            "the interval is Wilson's 95% score interval"
        )
    st.markdown("#### Draw rate per rule set")
    dr = query("draw_rate", game=game, rules_id=rules_id, min_n=min_n)
    if dr.empty:
        st.caption(f"no rule set has {min_n} or more finished matches")
    else:
        st.dataframe(
            name_rule_sets(dr).assign(**{"draw rate": dr["rate"].map("{:.1%}".format),
                                         "95% interval": [interval_text(a, b) for a, b in zip(dr["lo"], dr["hi"], strict=True)]})
            .drop(columns=["rate", "lo", "hi"]).rename(columns={"finished": "n (finished matches)"}),
            hide_index=True, width="stretch",
        )  # fmt: skip
    rc = query("rules_comparison", game=game, rules_id=rules_id, min_n=min_n)
    if not rc.empty:
        st.markdown("#### Rule sets side by side")
        rc = rc.assign(**{"95% interval": [interval_text(a, b) for a, b in zip(rc["lo"], rc["hi"], strict=True)]})
        cols = ["game", "matches", "lead_wins", "landlord_or_dealer_win_rate", "95% interval",
                "mean_events", "mean_abs_delta", "mean_top_win", "mismatches"]  # fmt: skip
        shown = name_rule_sets(rc.drop(columns=["draw_rate", "lo", "hi"]))
        st.dataframe(
            shown[[c for c in ["rule set", *cols] if c in shown.columns]].rename(
                columns={"matches": "n (finished matches)", "lead_wins": "landlord / dealer wins"}
            ),
            hide_index=True,
            width="stretch",
            column_config={
                "landlord_or_dealer_win_rate": st.column_config.NumberColumn(
                    "landlord / dealer win rate", format="percent"
                ),
                "mean_events": st.column_config.NumberColumn("events per match", format="%.1f"),
                "mean_abs_delta": st.column_config.NumberColumn("mean |points| per seat", format="%.1f"),
                "mean_top_win": st.column_config.NumberColumn("mean top win (points)", format="%.1f"),
            },
        )


st.title("Win rates")
cjk_fonts()
guarded(body)
