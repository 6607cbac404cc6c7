"""Finding matches and players from any page: links, cached searches, result rows (issue 16).

`replay_url` / `player_url` build the deep links (relative, so the app works under a path prefix);
`dashboard.common.player_link_column` is the column config every table that names a player uses; `quick_pick`
is the Replay page's search box. The SQL lives in `analytics.search` (bound parameters only).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from analytics import search
from dashboard.common import TTL, _open, lake, player_link_column

PAGE_SIZE = 50


def replay_url(match_id: str, step: int | None = None, seat: int | None = None) -> str:
    """`replay?match=…&step=…&seat=…` (seat omitted: everyone's view)."""
    q: dict[str, Any] = {"match": match_id}
    if step is not None:
        q["step"] = int(step)
    if seat is not None:
        q["seat"] = int(seat)
    return "replay?" + urlencode(q)


def player_url(player: str) -> str:
    return "player?" + urlencode({"name": player})


@st.cache_resource(ttl=TTL, show_spinner=False, max_entries=32)
def _found(path: str, gen: int, f: search.Filters) -> search.Found:
    return search.found(_open(path, gen).cursor(), f)


@st.cache_data(ttl=TTL, show_spinner=False, max_entries=256)
def _count(path: str, gen: int, f: search.Filters) -> int:
    return _found(path, gen, f).total if f.who else search.count(_open(path, gen).cursor(), f)


@st.cache_data(ttl=TTL, show_spinner=False, max_entries=64)
def _buckets(path: str, gen: int, f: search.Filters) -> search.Buckets:
    return search.buckets(_open(path, gen).cursor(), f)


@st.cache_data(ttl=TTL, show_spinner=False, max_entries=256)
def _search(path: str, gen: int, f: search.Filters, limit: int, offset: int) -> list[dict[str, Any]]:
    con = _open(path, gen).cursor()
    if f.who:
        keys = _found(path, gen, f).page(limit, offset)
    elif offset + limit <= search.DIRECT:
        keys = search.page_keys(con, f, limit=limit, offset=offset)
    else:
        keys = search.page_keys(con, f, limit=limit, offset=offset, bks=_buckets(path, gen, f))
    return search.rows(con, keys, f)


def count(f: search.Filters) -> int:
    """The true number of matches fitting `f` (cached per lake generation)."""
    return _count(*lake(), f)


def find(f: search.Filters, *, limit: int = PAGE_SIZE, offset: int = 0) -> tuple[int, list[dict[str, Any]]]:
    """The true number of matches fitting `f` and one page of them (cached per lake generation)."""
    path, gen = lake()
    return count(f), _search(path, gen, f, limit, offset)


@st.cache_resource(ttl=TTL, show_spinner=False, max_entries=32)
def _player(path: str, gen: int, player: str) -> search.Player:
    return search.player(_open(path, gen).cursor(), player)


def player_stats(player: str) -> search.Player:
    """The Player page's figures and the player's rows (one join, kept per lake generation; read only)."""
    path, gen = lake()
    return _player(path, gen, player)


@st.cache_data(ttl=TTL, show_spinner=False, max_entries=64)
def _player_page(path: str, gen: int, player: str, limit: int, offset: int) -> list[dict[str, Any]]:
    keys = _player(path, gen, player).page(limit, offset)
    return search.rows(_open(path, gen).cursor(), keys, search.Filters(player=player))


def player_matches(player: str, *, limit: int = PAGE_SIZE, offset: int = 0) -> list[dict[str, Any]]:
    """One page of the player's matches, newest first, as `find` rows (the player's seat hit)."""
    path, gen = lake()
    return _player_page(path, gen, player, limit, offset)


@st.cache_data(ttl=TTL, show_spinner=False, max_entries=256)
def _exact(path: str, gen: int, text: str) -> str | None:
    return search.exact_id(_open(path, gen).cursor(), text)


@st.cache_data(ttl=TTL, show_spinner=False, max_entries=8)
def _games(path: str, gen: int) -> list[str]:
    return search.games(_open(path, gen).cursor())


def games() -> list[str]:
    path, gen = lake()
    return _games(path, gen)


def _is_missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and x != x) or x is pd.NA or x is pd.NaT


def _seq(x: Any) -> list[Any]:
    return [] if _is_missing(x) else list(x)


def _signed(x: Any) -> str:
    return "—" if _is_missing(x) else f"{int(x):+d}"


def result_of(row: Any, seat: int) -> str:
    """One seat's result in words: `won +12`, `lost −6`, `no result (invalid)`."""
    deltas = _seq(row.get("seat_deltas"))
    winners = _seq(row.get("winners"))
    if row.get("status") != "finished" or seat >= len(deltas) or _is_missing(deltas[seat]):
        rec = _seq(row.get("seat_recorded"))
        charged = f"; the server charged {_signed(rec[seat])}" if seat < len(rec) and not _is_missing(rec[seat]) else ""
        return f"no result ({row.get('status')}){charged}"
    if not winners:
        return f"draw {_signed(deltas[seat])}"
    return f"{'won' if seat in winners else 'lost'} {_signed(deltas[seat])}"


def result_rows(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Search results for a table: links, the players by name, the searched player's result."""
    rows = []
    for rec in found:
        players = [str(p) for p in _seq(rec.get("players"))]
        roles = _seq(rec.get("roles"))
        hit = rec.get("hit_seat")
        if not _is_missing(hit):
            s = int(hit)
            role = f", {roles[s]}" if s < len(roles) and not _is_missing(roles[s]) else ""
            name = players[s] if s < len(players) else f"seat {s}"
            result = f"{name} (seat {s}{role}): {result_of(rec, s)}"
        else:
            winners = [players[w] if w < len(players) else f"seat {w}" for w in _seq(rec.get("winners"))]
            result = ("won by " + ", ".join(winners)) if winners else (
                "no winner" if rec.get("status") == "finished" else f"no result ({rec.get('status')})")
        flags = []
        if rec.get("settlement_matches") is False:
            flags.append("settlement mismatch")
        if rec.get("chain_ok") is False:
            flags.append("broken chain")
        if not _is_missing(rec.get("error_code")):
            at = "" if _is_missing(rec.get("error_seq")) else f" at seq {int(rec['error_seq'])}"
            why = rec.get("error_message") if not _is_missing(rec.get("error_message")) else rec["error_code"]
            flags.append(f"refused{at}: {why}")
        won = [int(w) for w in _seq(rec.get("winners"))]
        shown = int(hit) if not _is_missing(hit) else (won[0] if won else 0)  # the searched player, else the winner
        rows.append({  # the player's page beside the match: the table is wider than the page
            "match": replay_url(str(rec["match_id"])),
            "player": player_url(players[shown]) if shown < len(players) else None,
            "result": result, "game": rec.get("game") or "", "status": rec.get("status") or "",
            "date": "" if _is_missing(rec.get("date")) else str(rec["date"]), "flags": "; ".join(flags),
            "events": 0 if _is_missing(rec.get("events")) else int(rec["events"]), "players": ", ".join(players),
        })  # fmt: skip
    return rows


RESULT_COLUMNS = {  # widths in px that show whole values; the match stays pinned when the table scrolls
    "match": st.column_config.LinkColumn("match", display_text=r"match=([^&]*)", width=180, pinned=True),
    "player": player_link_column("player", width=90),
    "result": st.column_config.TextColumn("result", width=260),
    "flags": st.column_config.TextColumn("flags", width=380),
    "game": st.column_config.TextColumn("game", width=130),
    "status": st.column_config.TextColumn("status", width=85),
    "date": st.column_config.TextColumn("date", width=95),
    "events": st.column_config.NumberColumn("events", width=65),
    "players": st.column_config.TextColumn("players", width=220),
}


def results_table(rows: list[dict[str, Any]]) -> None:
    """A page of result rows, every row in view (no scrolling inside the table)."""
    st.dataframe(rows, hide_index=True, width="stretch", column_config=RESULT_COLUMNS, height=35 * (len(rows) + 1) + 3)


def quick_pick() -> str | None:
    """The Replay page's search box: a match id or part of one, or a player (any case)."""
    qp_match = st.query_params.get("match", "")
    text = st.text_input(
        "Match id or player", value=qp_match, key="replay_search", placeholder="e.g. sim-ddz-1-000004, illegal, or bo"
    ).strip()
    if not text:
        st.info("type a match id, part of one, or a player's name (the Search page has filters)")
        return None
    exact = _exact(*lake(), text)
    if exact is not None:
        return exact
    total, found = find(search.Filters(text=text), limit=PAGE_SIZE)
    ids = [str(r["match_id"]) for r in found]
    if not ids:
        st.warning(f"no match with the id or player `{text}` in the lake (searched: part of an id or a name, any case)")
        return None
    rows = {r["match"]: r for r in result_rows(found)}
    labels = {mid: f"{mid} · {r['game']} · {r['status']} · {r['result']}" for mid, r in zip(ids, rows.values(), strict=True)}
    more = f" (the first {len(ids)} shown: see all on the Search page)" if total > len(ids) else ""
    st.caption(f"{total} match{'es' if total != 1 else ''} for `{text}`{more}")
    return st.selectbox("Match", ids, format_func=lambda m: labels.get(m, m), key="replay_pick")


def open_picker(found: list[dict[str, Any]], key: str) -> None:
    """Pick one of the listed matches and open it in Replay (a real link: same tab, deep-linkable)."""
    if not found:
        return
    rows = result_rows(found)
    ids = [str(r["match_id"]) for r in found]
    labels = {mid: f"{mid} · {r['game']} · {r['status']} · {r['result']}" for mid, r in zip(ids, rows, strict=True)}
    c1, c2 = st.columns([4, 1])
    mid = c1.selectbox("Open a match of this page", ids, format_func=lambda m: labels.get(m, m), key=key)
    if mid is not None:
        c2.page_link("views/replay.py", label="Open in Replay ›", icon=":material/replay:", query_params={"match": mid})
