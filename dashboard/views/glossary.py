"""Glossary: every fan, win kind, role and table term the pages use, with its Chinese name,
pinyin, English meaning, the rule ids that define it (/work/shared/rules) and its games."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.common import GAMES, cjk_fonts, glossary

KINDS = {"fan": "fan (番)", "win": "win kind", "hand": "hand type", "role": "role", "term": "table term",
         "stat": "statistics"}  # fmt: skip


def body() -> None:
    rows = pd.DataFrame(list(glossary()))
    c1, c2, c3 = st.columns([1, 1, 2])
    kind = c1.selectbox("Kind", ["all", *KINDS], format_func=lambda k: KINDS.get(k, k), key="gl_kind")
    game = c2.selectbox("Game", ["all games", *GAMES], key="gl_game")
    text = c3.text_input("Search (中文, pinyin, English or id)", key="gl_search").strip().lower()
    if kind != "all":
        rows = rows[rows["kind"] == kind]
    if game != "all games":
        rows = rows[[game in g or not g for g in rows["games"]]]
    if text:
        hay = (rows["id"] + " " + rows["zh"] + " " + rows["pinyin"] + " " + rows["en"]).str.lower()
        rows = rows[hay.str.contains(text, regex=False)]
    st.dataframe(
        pd.DataFrame({
            "中文": rows["zh"], "pinyin": rows["pinyin"], "English": rows["en"], "rule": rows["rule"],
            "kind": rows["kind"].map(KINDS), "games": [", ".join(g) if g else "all" for g in rows["games"]], "id": rows["id"],
        }),
        hide_index=True, width="stretch", height=min(36 * (len(rows) + 1), 2400),
        # what a reader needs fits the page (widths in px); kind, games and id scroll into view
        column_config={"中文": st.column_config.TextColumn(width=170, pinned=True),
                       "pinyin": st.column_config.TextColumn(width=210),
                       "English": st.column_config.TextColumn(width=390),
                       "rule": st.column_config.TextColumn(width=150)},
    )  # fmt: skip
    st.caption(
        f"{len(rows)} terms. Rule ids refer to the rule files (SC = Sichuan, HZ = Hongzhong, AS = Anshun, "
        "DDZ = Dou Dizhu, PDK = Pao De Kuai, ZJH = Zha Jin Hua); a fan's value depends on the preset's fan table."
    )


st.title("Glossary · 术语表")
cjk_fonts()
body()
