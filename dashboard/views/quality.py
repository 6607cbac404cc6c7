"""Data quality: rejects and conflicts with reasons, invalid matches, settlement mismatches, broken chains."""

from __future__ import annotations

import streamlit as st

from dashboard.common import cjk_fonts, guarded, name_rule_sets, query


def _section(title: str, name: str, empty: str, **kw: object) -> None:
    st.markdown(f"#### {title}")
    df = query(name, **kw)
    if df.empty:
        st.success(empty)
        return
    df = name_rule_sets(df)
    config = {}
    if "match_id" in df and df["match_id"].notna().any():
        df = df.assign(replay=["/replay?match=" + m if isinstance(m, str) else None for m in df["match_id"]])
        config["replay"] = st.column_config.LinkColumn("replay", display_text="open ›")
    st.dataframe(df, hide_index=True, width="stretch", column_config=config)


def body() -> None:
    st.markdown("#### Rejected lines and conflicts, by code")
    codes = query("reject_codes")
    if codes.empty:
        st.success("no line or event was refused")
    else:
        st.bar_chart(codes, x="code", y="lines", horizontal=True)
        _section("Latest rejects", "rejects", "", limit=200)
    _section("Invalid matches by error code", "error_codes", "no invalid match")
    _section("Invalid matches", "invalid_matches", "no invalid match", limit=200)
    _section("Settlement mismatches (server ≠ engine)", "settlement_mismatches", "every recorded settlement matches",
             limit=200)  # fmt: skip
    _section("Broken hash chains", "broken_chains", "every hashed match verifies", limit=200)
    st.caption("open any match id on the Replay page to see the event, its code and the rule that refused it")


st.title("Data quality")
cjk_fonts()
guarded(body)
