"""Finding matches and players in the lake (the dashboard's Search and Player pages, issue 16).

`search(lake, text=…, game=…, …)` is a case-insensitive partial match on the match id and on the
players' names, with filters, the true count and one page of results; `player_*` are one player's
summary, results by role and trend. Same conventions as `analytics.queries`: constant SQL, every
value BOUND as a named parameter, never formatted into the text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from analytics.queries import _connect, _wilson

# The search is assembled from the constant fragments below, one per filter that is set (so DuckDB
# never evaluates a filter that is off); values are always bound, never formatted in.
# The page's ids are cut first (narrow), then joined to the wide columns and the seats. The true count
# comes with them as a window over the filtered rows when a name or id is searched (the filter is the
# cost: done once), else from its own statement (a plain count is all but free).
_NAMES = {
    "pat": "names AS (SELECT DISTINCT player FROM seats WHERE player ILIKE $pat ESCAPE '\\')",
    "player": "names AS (SELECT $player::VARCHAR AS player)",
}
_WHERE = {
    "pat": "(m.match_id ILIKE $pat ESCAPE '\\' OR m.match_id IN (SELECT match_id FROM seats WHERE player IN (SELECT player FROM names)))",
    "player": "m.match_id IN (SELECT match_id FROM seats WHERE player IN (SELECT player FROM names))",
    "game": "m.game = $game",
    "status": "m.status = $status",
    "date_from": "m.date >= $date_from",
    "date_to": "m.date <= $date_to",
    "mismatch": "m.settlement_matches = false",
    "broken": "m.chain_ok = false",
}
_SEARCH = """
    ids AS (SELECT m.match_id, <TOTAL> AS total FROM matches m WHERE <WHERE>
            ORDER BY m.started_ts DESC NULLS LAST, m.match_id LIMIT $limit OFFSET $offset),
    pg AS (SELECT m.match_id, m.game, m.date, m.started_ts, m.status, m.events, m.winners, m.deltas,
                  m.recorded_deltas, m.settlement_matches, m.chain_ok, m.error_seq, m.error_code
           FROM matches m WHERE m.match_id IN (SELECT match_id FROM ids)),
    st AS (SELECT match_id, list(player ORDER BY seat) AS players, list(role ORDER BY seat) AS roles,
                  list(delta ORDER BY seat) AS seat_deltas, list(recorded_delta ORDER BY seat) AS seat_recorded,
                  min(seat) FILTER (WHERE player IN (SELECT player FROM names)) AS hit_seat
           FROM seats WHERE match_id IN (SELECT match_id FROM ids) GROUP BY match_id)
    SELECT ids.total, pg.*, st.hit_seat, st.players, st.roles, st.seat_deltas, st.seat_recorded
    FROM ids JOIN pg USING (match_id) LEFT JOIN st USING (match_id)
    ORDER BY pg.started_ts DESC NULLS LAST, pg.match_id"""
_COUNT = "found AS (SELECT m.match_id FROM matches m WHERE <WHERE>) SELECT count(*) FROM found"
_EXACT = "SELECT match_id FROM matches WHERE lower(match_id) = lower($text) ORDER BY match_id LIMIT 1"

SQL: dict[str, str] = {
    "player_summary": """
        SELECT count(*) AS matches, count(*) FILTER (WHERE s.status = 'finished') AS finished,
               count(*) FILTER (WHERE s.won) AS wins, coalesce(sum(s.delta), 0)::BIGINT AS total_delta,
               min(m.date) AS first_date, max(m.date) AS last_date, count(DISTINCT s.game) AS games
        FROM seats s JOIN matches m USING (match_id) WHERE s.player = $player""",
    "player_roles": f"""
        SELECT s.game, s.role, count(*) AS matches, count(*) FILTER (WHERE s.won) AS wins,
               {_wilson("count(*) FILTER (WHERE s.won)", "count(*)")},
               avg(s.delta) AS mean_delta, sum(s.delta)::BIGINT AS total_delta
        FROM seats s JOIN matches m USING (match_id)
        WHERE s.player = $player AND m.status = 'finished' AND NOT coalesce(m.is_draw, false)
        GROUP BY ALL ORDER BY s.game, s.role""",
    "player_trend": """
        WITH d AS (
            SELECT CAST(m.date AS DATE) AS date, count(*) AS matches, count(*) FILTER (WHERE s.won) AS wins,
                   coalesce(sum(s.delta), 0)::BIGINT AS delta
            FROM seats s JOIN matches m USING (match_id)
            WHERE s.player = $player AND m.date IS NOT NULL GROUP BY 1)
        SELECT *, (sum(delta) OVER (ORDER BY date))::BIGINT AS cumulative FROM d ORDER BY date""",
    "player_recent": """
        WITH r AS (
            SELECT m.started_ts, m.match_id, coalesce(s.delta, 0)::BIGINT AS delta, s.won
            FROM seats s JOIN matches m USING (match_id)
            WHERE s.player = $player ORDER BY m.started_ts DESC NULLS LAST, m.match_id DESC LIMIT $limit)
        SELECT row_number() OVER (ORDER BY started_ts NULLS FIRST, match_id) AS match_no, match_id, delta, won,
               (sum(delta) OVER (ORDER BY started_ts NULLS FIRST, match_id))::BIGINT AS cumulative
        FROM r ORDER BY match_no""",
    "games": "SELECT DISTINCT game FROM matches WHERE game IS NOT NULL ORDER BY game",
}


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
        """The bound values of the filters that are set (text as an ILIKE pattern, escaped)."""
        text = (self.text or "").strip()
        out: dict[str, Any] = {}
        if self.player:
            out["player"] = self.player
        elif text:
            out["pat"] = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        for k in ("game", "status", "date_from", "date_to"):
            if getattr(self, k):
                out[k] = getattr(self, k)
        return out

    def sql(self, body: str) -> str:
        """`WITH names …, <body>` with `<WHERE>` = the set filters, from constant fragments only."""
        p = self.params()
        who = "player" if "player" in p else ("pat" if "pat" in p else None)
        conds = ([_WHERE[who]] if who else []) + [_WHERE[k] for k in ("game", "status", "date_from", "date_to") if k in p]
        conds += [_WHERE[k] for k in ("mismatch", "broken") if getattr(self, k)]
        names = _NAMES[who] if who else "names AS (SELECT NULL::VARCHAR AS player WHERE false)"
        return f"WITH {names}, " + body.replace("<WHERE>", " AND ".join(conds) or "true")


def _run(lake: Any, name: str, params: dict[str, Any]) -> Any:
    sql = SQL[name]
    return _connect(lake).execute(sql, {k: v for k, v in params.items() if f"${k}" in sql})


def _exec(lake: Any, sql: str, params: dict[str, Any]) -> Any:
    return _connect(lake).execute(sql, {k: v for k, v in params.items() if f"${k}" in sql})


def find(lake: Any, f: Filters, *, limit: int = 50, offset: int = 0) -> tuple[int, list[dict[str, Any]]]:
    """The true number of matches fitting the filters and one page of them, newest first (plain Python
    rows; `hit_seat` is the searched player's seat, `players`/`roles`/`seat_deltas` per seat)."""
    p = {**f.params(), "limit": int(limit), "offset": int(offset)}
    windowed = "pat" in p or "player" in p
    sql = f.sql(_SEARCH.replace("<TOTAL>", "count(*) OVER ()" if windowed else "NULL::BIGINT"))
    cur = _exec(lake, sql, p)
    cols = [d[0] for d in cur.description]
    rows = [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]
    totals = {r.pop("total") for r in rows}
    total = int(totals.pop()) if windowed and rows else count(lake, f)
    return total, rows


def count(lake: Any, f: Filters) -> int:
    """How many matches fit the filters (the true count, no cap)."""
    return int(_exec(lake, f.sql(_COUNT), f.params()).fetchone()[0])


def page(lake: Any, f: Filters, *, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
    """One page of `find`."""
    return find(lake, f, limit=limit, offset=offset)[1]


def exact_id(lake: Any, text: str) -> str | None:
    """The match whose id is `text`, any case (None: there is none)."""
    row = _connect(lake).execute(_EXACT, {"text": text.strip()}).fetchone()
    return None if row is None else str(row[0])


def player_summary(lake: Any, player: str) -> dict[str, Any]:
    cur = _run(lake, "player_summary", {"player": player})
    cols = [d[0] for d in cur.description]
    return dict(zip(cols, cur.fetchone(), strict=True))


def player_roles(lake: Any, player: str) -> pd.DataFrame:
    """Per game and role (landlord/farmer, dealer/player): decided matches, wins, Wilson 95 %, points."""
    return _run(lake, "player_roles", {"player": player}).df()


def player_trend(lake: Any, player: str) -> pd.DataFrame:
    """Per day the player played: matches, wins, points, and the running total of points."""
    return _run(lake, "player_trend", {"player": player}).df()


def player_recent(lake: Any, player: str, limit: int = 200) -> pd.DataFrame:
    """The player's last `limit` matches in time order: points each and their running total."""
    return _run(lake, "player_recent", {"player": player, "limit": int(limit)}).df()


def games(lake: Any) -> list[str]:
    return [r[0] for r in _run(lake, "games", {}).fetchall()]
