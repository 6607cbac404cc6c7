"""Finding matches and players in the lake (the dashboard's Search and Player pages, issue 16).

`search(lake, text=…, game=…, …)` is a case-insensitive partial match on the match id and on the
players' names, with filters, the true count and one page of results; `player_*` are one player's
summary, results by role and trend. Same conventions as `analytics.queries`: constant SQL, every
value BOUND as a named parameter, never formatted into the text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from analytics.queries import _connect, _wilson

# The search is assembled from the constant fragments below, one per filter that is set (so DuckDB
# never evaluates a filter that is off); values are always bound, never formatted in.
# - A search by text or player is narrow: one statement lists the (id, start) of every match that
#   fits (`_FOUND`); its count and its pages are taken from that list, in memory.
# - Other filters: the count is one `count(*)`; a page near the top is a top-N; a page deep down
#   (past `DIRECT` rows) is found without a deep OFFSET: one scan counts the fitting matches per hour
#   of their start (`_BUCKETS`, `BUCKET` characters of `started_ts`), the counts say in which hour
#   the page starts, and the page is cut from that hour on (`started_ts < $hi`, a range DuckDB
#   pushes into the Parquet scan) with an offset inside the hour only.
# The page's wide columns are then read for its rows only (`_ROWS`), its seats by their ids (`_SEATS`).
# contains(lower(…)) and not ILIKE … ESCAPE: no pattern to escape, and far faster over the seats.
_WHERE = {
    "text": "(contains(lower(m.match_id), lower($text)) OR m.match_id IN (SELECT match_id FROM seats WHERE contains(lower(player), lower($text))))",
    "player": "m.match_id IN (SELECT match_id FROM seats WHERE player = $player)",
    "game": "m.game = $game",
    "status": "m.status = $status",
    "date_from": "m.date >= $date_from",
    "date_to": "m.date <= $date_to",
    "mismatch": "m.settlement_matches = false",
    "broken": "m.chain_ok = false",
    # where the page is cut from (`_cut`): below an hour (`<`, or `<=` a start shorter than an hour),
    # from an hour on, with or without the undated matches, or the undated only
    "lt": "m.started_ts < $hi",
    "le": "m.started_ts <= $hi",
    "lt_null": "(m.started_ts < $hi OR m.started_ts IS NULL)",
    "le_null": "(m.started_ts <= $hi OR m.started_ts IS NULL)",
    "lo": "m.started_ts >= $lo",
    "null": "m.started_ts IS NULL",
}
_HIT = {"text": "contains(lower(player), lower($text))", "player": "player = $player", None: "false"}
"""The seat of the searched player, among the page's seats."""
BUCKET = 13
"""`YYYY-MM-DDTHH`: the hour a match started in, the unit a deep page's position is found by."""
DIRECT = 1000
"""Pages that end within this many rows of the top are a plain top-N."""
_FOUND = "SELECT m.match_id, m.started_ts FROM matches m WHERE <WHERE>"
_BUCKETS = "SELECT left(m.started_ts, 13) AS b, count(*) AS n FROM matches m WHERE <WHERE> GROUP BY 1"
_PAGE = """SELECT m.match_id, m.started_ts FROM matches m WHERE <WHERE>
    ORDER BY m.started_ts DESC NULLS LAST, m.match_id LIMIT $limit OFFSET $offset"""
# DuckDB decodes every column it is asked for over the whole table before it applies `= ANY($ids)`:
# the page's columns are the few the result rows show, no lists (the winners come from the seats)
_ROWS = """SELECT match_id, game, date, status, events, settlement_matches, chain_ok, error_seq, error_code,
                  error_message FROM matches WHERE match_id = ANY($ids)"""
_SEATS = """
    SELECT match_id, list(player ORDER BY seat) AS players, list(role ORDER BY seat) AS roles,
           list(delta ORDER BY seat) AS seat_deltas, list(recorded_delta ORDER BY seat) AS seat_recorded,
           coalesce(list(seat ORDER BY seat) FILTER (WHERE won), []) AS winners,
           min(seat) FILTER (WHERE <HIT>) AS hit_seat
    FROM seats WHERE <SEATS> match_id = ANY($ids) GROUP BY match_id"""
_SEATS_BY = {"game": "game = $game AND ", "status": "status = $status AND "}
"""The seats carry their match's game and status: a filter on those (cheap, pushed into the scan)
spares DuckDB most of the id comparisons."""
_COUNT = "SELECT count(*) FROM matches m WHERE <WHERE>"
_EXACT = "SELECT match_id FROM matches WHERE lower(match_id) = lower($text) ORDER BY match_id LIMIT 1"
_KEYS = """SELECT DISTINCT match_id, started_ts FROM mine
           ORDER BY started_ts DESC NULLS LAST, match_id LIMIT $limit OFFSET $offset"""
"""A page of (match_id, started_ts) from rows in memory (`Found`, `Player`)."""

_MINE = """
    SELECT s.match_id, s.seat, s.game, s.role, s.delta, s.won, m.status, coalesce(m.is_draw, false) AS is_draw,
           m.date, m.started_ts
    FROM seats s JOIN matches m USING (match_id) WHERE s.player = $player"""
"""One player's seats with what the Player page needs of their matches: the one join over the lake;
the page's figures are computed from these rows (`MINE`), in memory."""
# A player with few matches: their seats first (the name is a filter DuckDB pushes into the scan),
# then those matches by id, joined in memory: cheaper than a join probing every match.
_MY_SEATS = "SELECT match_id, seat, game, role, delta, won FROM seats WHERE player = $player"
_MY_MATCHES = "SELECT match_id, status, coalesce(is_draw, false) AS is_draw, date, started_ts FROM matches WHERE match_id = ANY($ids)"
_MINE_OF = """SELECT s.match_id, s.seat, s.game, s.role, s.delta, s.won, m.status, m.is_draw, m.date, m.started_ts
              FROM my_seats s JOIN my_matches m USING (match_id)"""
FEW = 2000
"""Matches up to which a player's rows are gathered in two look-ups (more: one join)."""
MINE: dict[str, str] = {
    "summary": """
        SELECT count(*) AS matches, count(*) FILTER (WHERE status = 'finished') AS finished,
               count(*) FILTER (WHERE won) AS wins, coalesce(sum(delta), 0)::BIGINT AS total_delta,
               min(date) AS first_date, max(date) AS last_date, count(DISTINCT game) AS games,
               count(DISTINCT match_id) AS distinct_matches
        FROM mine""",
    "roles": f"""
        SELECT game, role, count(*) AS matches, count(*) FILTER (WHERE won) AS wins,
               {_wilson("count(*) FILTER (WHERE won)", "count(*)")},
               avg(delta) AS mean_delta, sum(delta)::BIGINT AS total_delta
        FROM mine WHERE status = 'finished' AND NOT is_draw GROUP BY ALL ORDER BY game, role""",
    "trend": """
        WITH d AS (
            SELECT CAST(date AS DATE) AS date, count(*) AS matches, count(*) FILTER (WHERE won) AS wins,
                   coalesce(sum(delta), 0)::BIGINT AS delta
            FROM mine WHERE date IS NOT NULL GROUP BY 1)
        SELECT *, (sum(delta) OVER (ORDER BY date))::BIGINT AS cumulative FROM d ORDER BY date""",
    "recent": """
        WITH r AS (
            SELECT started_ts, match_id, coalesce(delta, 0)::BIGINT AS delta, won
            FROM mine ORDER BY started_ts DESC NULLS LAST, match_id DESC LIMIT 200)
        SELECT row_number() OVER (ORDER BY started_ts NULLS FIRST, match_id) AS match_no, match_id, delta, won,
               (sum(delta) OVER (ORDER BY started_ts NULLS FIRST, match_id))::BIGINT AS cumulative
        FROM r ORDER BY match_no""",
}
_GAMES = "SELECT DISTINCT game FROM matches WHERE game IS NOT NULL ORDER BY game"


@dataclass(frozen=True)
class Filters:
    """What to look for; None / False = no filter. Dates are `YYYY-MM-DD`, inclusive."""

    text: str | None = None
    player: str | None = None
    game: str | None = None
    status: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    mismatch: bool = False
    broken: bool = False

    def params(self) -> dict[str, Any]:
        """The bound values of the filters that are set."""
        text = (self.text or "").strip()
        out: dict[str, Any] = {}
        if self.player:
            out["player"] = self.player
        elif text:
            out["text"] = text
        for k in ("game", "status", "date_from", "date_to"):
            if getattr(self, k):
                out[k] = getattr(self, k)
        return out

    @property
    def who(self) -> str | None:
        """`player`, `text` (a narrow search) or None."""
        p = self.params()
        return "player" if "player" in p else ("text" if "text" in p else None)

    def sql(self, body: str, cut: tuple[str, ...] = ()) -> str:
        """`body` with `<WHERE>` = the set filters and the `cut` fragments, `<HIT>` = the searched
        player's seat; from constant fragments only."""
        p = self.params()
        conds = [_WHERE[k] for k in cut] + ([_WHERE[self.who]] if self.who else [])  # the cheap range first
        conds += [_WHERE[k] for k in ("game", "status", "date_from", "date_to") if k in p]
        conds += [_WHERE[k] for k in ("mismatch", "broken") if getattr(self, k)]
        seats = "".join(_SEATS_BY[k] for k in ("game", "status") if k in p)
        return body.replace("<WHERE>", " AND ".join(conds) or "true").replace("<HIT>", _HIT[self.who]).replace("<SEATS>", seats)


def _exec(lake: Any, sql: str, params: dict[str, Any]) -> Any:
    return _connect(lake).execute(sql, {k: v for k, v in params.items() if f"${k}" in sql})


Buckets = tuple[tuple[str | None, int], ...]
"""(hour a match started in, matches), newest hour first, the undated (None) last."""


def buckets(lake: Any, f: Filters) -> Buckets:
    """How many matches fit `f`, per hour of their start, in page order (one scan; the sum is the
    true count, no cap)."""
    rows = _exec(lake, f.sql(_BUCKETS), f.params()).fetchall()
    dated = sorted(((b, int(n)) for b, n in rows if b is not None), reverse=True)
    return tuple(dated + [(None, int(n)) for b, n in rows if b is None])


def _after(b: str) -> str | None:
    """The smallest string above every string that starts with `b` (None: there is none)."""
    if not b or ord(b[-1]) + 1 > 0x10FFFF or 0xD800 <= ord(b[-1]) + 1 <= 0xDFFF:
        return None
    return b[:-1] + chr(ord(b[-1]) + 1)


def _cut(bks: Buckets, limit: int, offset: int) -> tuple[tuple[str, ...], dict[str, Any], int] | None:
    """Where rows `offset`…`offset+limit` of the page order lie: the range fragments, their bound
    values and the offset left inside the range (None: past the end). Rows in hours after the range
    are exactly the `before` rows skipped, since `started_ts` orders like its first `BUCKET` chars."""
    before, start = 0, None
    for i, (_, n) in enumerate(bks):
        if before + n > offset:
            start = i
            break
        before += n
    if start is None:
        return None
    need, end, got = offset - before + limit, len(bks), 0
    for j in range(start, len(bks)):
        got += bks[j][1]
        if got >= need:
            end = j
            break
    b0, last = bks[start][0], bks[min(end, len(bks) - 1)][0]
    if b0 is None:
        return ("null",), {}, offset - before
    nulls = last is None  # the page reaches the undated (past the end: the last hour, which holds them if any)
    cut: list[str] = []
    p: dict[str, Any] = {}
    if start > 0:  # skip the newer hours by a range, not by an offset
        hi = _after(b0) if len(b0) == BUCKET else b0
        if hi is None:
            return (), {}, offset
        cut.append(("lt" if len(b0) == BUCKET else "le") + ("_null" if nulls else ""))
        p["hi"] = hi
    if not nulls:
        cut.append("lo")
        p["lo"] = last
    elif start == 0:
        return (), {}, offset - before
    return tuple(cut), p, offset - before


@dataclass(frozen=True)
class Found:
    """Every match a narrow search (text or player) found, as (match_id, started_ts) rows."""

    keys: Any
    total: int

    def page(self, limit: int = 50, offset: int = 0) -> list[tuple[str, str | None]]:
        return _keys(self.keys, limit, offset)


def found(lake: Any, f: Filters) -> Found:
    """The matches fitting `f`: one statement over the lake."""
    keys = _connect(lake).sql(f.sql(_FOUND), params=f.params()).to_arrow_table()
    return Found(keys, keys.num_rows)


def page_keys(lake: Any, f: Filters, *, limit: int = 50, offset: int = 0, bks: Buckets | None = None) -> list[tuple[str, str | None]]:
    """(match_id, started_ts) of rows `offset`…`offset+limit` of the matches fitting `f`, newest
    first, straight from the lake (`bks`: this filter's `buckets`, if known; only deep pages need them)."""
    con = _connect(lake)
    if limit <= 0:
        return []
    if offset + limit <= DIRECT:
        return _exec(con, f.sql(_PAGE), {**f.params(), "limit": int(limit), "offset": int(offset)}).fetchall()
    where = _cut(buckets(con, f) if bks is None else bks, int(limit), int(offset))
    if where is None:
        return []
    cut, bound, inner = where
    return _exec(con, f.sql(_PAGE, cut), {**f.params(), **bound, "limit": int(limit), "offset": inner}).fetchall()


def page(lake: Any, f: Filters, *, limit: int = 50, offset: int = 0, bks: Buckets | None = None) -> list[dict[str, Any]]:
    """Rows `offset`…`offset+limit` of the matches fitting `f`, newest first (see `rows`)."""
    con = _connect(lake)
    keys = found(con, f).page(limit, offset) if f.who else page_keys(con, f, limit=limit, offset=offset, bks=bks)
    return rows(con, keys, f)


def rows(lake: Any, keys: Sequence[tuple[str, str | None]], f: Filters | None = None) -> list[dict[str, Any]]:
    """The result rows of these (match_id, started_ts), in their order: the match's columns, its
    seats (`players`, `roles`, `seat_deltas`, `seat_recorded` per seat), and `hit_seat`, the seat of
    the player `f` searched for."""
    if not keys:
        return []
    f = f or Filters()
    con = _connect(lake)
    ids = [k[0] for k in keys]
    cur = _exec(con, _ROWS, {"ids": ids})
    cols = [d[0] for d in cur.description]
    by_id = {row[0]: dict(zip(cols, row, strict=True)) for row in cur.fetchall()}
    out = [by_id[i] for i in ids if i in by_id]
    cur = _exec(con, f.sql(_SEATS), {**f.params(), "ids": ids})
    names = [d[0] for d in cur.description][1:]
    seats = {r[0]: dict(zip(names, r[1:], strict=True)) for r in cur.fetchall()}
    empty = dict.fromkeys(names)
    for r in out:
        r.update(seats.get(r["match_id"], empty))
    return out


def find(lake: Any, f: Filters, *, limit: int = 50, offset: int = 0) -> tuple[int, list[dict[str, Any]]]:
    """The true number of matches fitting the filters and one page of them, newest first."""
    con = _connect(lake)
    if f.who:
        hit = found(con, f)
        return hit.total, rows(con, hit.page(limit, offset), f)
    return count(con, f), rows(con, page_keys(con, f, limit=limit, offset=offset), f)


def count(lake: Any, f: Filters) -> int:
    """How many matches fit the filters (the true count, no cap)."""
    return int(_exec(lake, f.sql(_COUNT), f.params()).fetchall()[0][0])


def exact_id(lake: Any, text: str) -> str | None:
    """The match whose id is `text`, any case (None: there is none)."""
    row = next(iter(_connect(lake).execute(_EXACT, {"text": text.strip()}).fetchall()), None)
    return None if row is None else str(row[0])


@dataclass(frozen=True)
class Player:
    """One player's page: the summary, results by role, trend, last 200 matches, and `mine`, their
    seats joined to their matches (`_MINE`), for `page`."""

    summary: dict[str, Any]
    roles: pd.DataFrame
    trend: pd.DataFrame
    recent: pd.DataFrame
    mine: Any

    def page(self, limit: int = 50, offset: int = 0) -> list[tuple[str, str | None]]:
        """(match_id, started_ts) of the player's matches `offset`…`offset+limit`, newest first."""
        return _keys(self.mine, limit, offset)


def _mem(mine: Any, fn: Callable[[Any], Any]) -> Any:
    """`fn` run on a fresh in-memory DuckDB that sees `mine` as a table."""
    import duckdb

    mem = duckdb.connect()
    try:
        mem.register("mine", mine)
        return fn(mem)
    finally:
        mem.close()


def _mem2(seats: Any, matches: Any) -> Any:
    import duckdb

    mem = duckdb.connect()
    try:
        mem.register("my_seats", seats)
        mem.register("my_matches", matches)
        return mem.sql(_MINE_OF).to_arrow_table()
    finally:
        mem.close()


def _keys(mine: Any, limit: int, offset: int) -> list[tuple[str, str | None]]:
    return _mem(mine, lambda m: m.execute(_KEYS, {"limit": int(limit), "offset": int(offset)}).fetchall())


def player(lake: Any, name: str) -> Player:
    """Everything the Player page shows of `name` (exact), from one join over the lake.

    `roles`: per game and role, decided matches, wins, Wilson 95 %, points; `trend`: per day played,
    matches, wins, points and their running total; `recent`: the last 200 matches in time order."""
    con = _connect(lake)
    seats = con.sql(_MY_SEATS, params={"player": name}).to_arrow_table()
    if seats.num_rows > FEW:
        mine = con.sql(_MINE, params={"player": name}).to_arrow_table()
    else:
        ids = sorted(set(seats.column("match_id").to_pylist()))
        matches = con.sql(_MY_MATCHES, params={"ids": ids}).to_arrow_table()
        mine = _mem2(seats, matches)

    def figures(mem: Any) -> Player:
        cur = mem.execute(MINE["summary"])
        summary = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
        return Player(summary, mem.execute(MINE["roles"]).df(), mem.execute(MINE["trend"]).df(),
                      mem.execute(MINE["recent"]).df(), mine)  # fmt: skip

    return _mem(mine, figures)


def games(lake: Any) -> list[str]:
    return [r[0] for r in _exec(lake, _GAMES, {}).fetchall()]
