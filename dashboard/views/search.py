"""Search: any match by (part of) its id or a player's name, any case, with filters and paging.

Deep link: `/search?q=TEXT`. Every result links to its replay and to the player's page; the count
is the true number of matches (no cap), shown a page at a time.
"""

from __future__ import annotations

import datetime as dt

import streamlit as st

from analytics.search import Filters
from dashboard.common import guarded
from dashboard.finder import PAGE_SIZE, count, find, games, open_picker, result_rows, results_table

STATUSES = ("finished", "incomplete", "invalid")


def body() -> None:
    c = st.columns([3, 1.2, 1.2, 2])
    text = c[0].text_input("Match id or player (part of it, any case)", value=st.query_params.get("q", ""), key="search_text")
    game = c[1].selectbox("Game", ["all games", *games()], key="search_game")
    status = c[2].selectbox("Status", ["any status", *STATUSES], key="search_status")
    dates = c[3].date_input("Date range", value=(), key="search_dates", format="YYYY-MM-DD")
    f1, f2, _ = st.columns([1.3, 1.3, 3])
    mismatch = f1.checkbox("settlement mismatch only", key="search_mismatch")
    broken = f2.checkbox("broken hash chain only", key="search_broken")
    d_from = d_to = None
    if isinstance(dates, tuple | list) and dates:
        d_from = dates[0].isoformat()
        d_to = (dates[1] if len(dates) > 1 else dates[0]).isoformat()
    elif isinstance(dates, dt.date):
        d_from = d_to = dates.isoformat()
    filters = Filters(
        text=text.strip() or None, game=None if game == "all games" else game,
        status=None if status == "any status" else status, date_from=d_from, date_to=d_to,
        mismatch=mismatch, broken=broken,
    )  # fmt: skip
    if st.session_state.get("search_filters") != filters:
        st.session_state["search_filters"] = filters
        st.session_state["search_page"] = 1
    if text.strip():
        st.query_params["q"] = text.strip()
    else:
        st.query_params.pop("q", None)
    total = count(filters)
    pages = max(1, -(-total // PAGE_SIZE))
    if total == 0:
        st.warning("no match fits: loosen a filter, or search part of the id or name")
        return
    if pages > 1:
        p1, p2 = st.columns([1, 4], vertical_alignment="bottom")
        page = int(p1.number_input("Page", 1, pages, key="search_page", step=1))
    else:
        page, p2 = 1, st.container()
    first = (page - 1) * PAGE_SIZE
    _, df = find(filters, limit=PAGE_SIZE, offset=first)
    p2.markdown(f"**{total:,} match{'es' if total != 1 else ''}** · showing {first + 1}–{first + len(df)} · page {page} of {pages}")
    open_picker(df, "search_open")
    results_table(result_rows(df))


st.title("Search")
guarded(body)
