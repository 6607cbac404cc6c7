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

_HITS = """
    hit AS (
        SELECT match_id, min(seat) AS hit_seat FROM seats
        WHERE ($player::VARCHAR IS NOT NULL AND player = $player)
           OR ($player::VARCHAR IS NULL AND $text::VARCHAR IS NOT NULL AND contains(lower(player), lower($text)))
        GROUP BY match_id),
    found AS (
        SELECT m.match_id, m.game, m.date, m.started_ts, m.status, m.events, m.winners, m.deltas,
               m.recorded_deltas, m.settlement_matches, m.chain_ok, m.error_seq, m.error_code, h.hit_seat
        FROM matches m LEFT JOIN hit h USING (match_id)
        WHERE ($player::VARCHAR IS NULL OR h.match_id IS NOT NULL)
          AND ($text::VARCHAR IS NULL OR $player::VARCHAR IS NOT NULL
               OR contains(lower(m.match_id), lower($text)) OR h.match_id IS NOT NULL)
          AND ($game::VARCHAR IS NULL OR m.game = $game)
          AND ($status::VARCHAR IS NULL OR m.status = $status)
          AND ($date_from::VARCHAR IS NULL OR m.date >= $date_from)
          AND ($date_to::VARCHAR IS NULL OR m.date <= $date_to)
          AND (NOT $mismatch OR m.settlement_matches = false)
          AND (NOT $broken OR m.chain_ok = false))"""

SQL: dict[str, str] = {
    "count": f"WITH {_HITS} SELECT count(*) FROM found",
    "page": f"""
        WITH {_HITS},
        page AS (SELECT * FROM found ORDER BY (lower(match_id) = lower($exact)) DESC, date DESC NULLS LAST,
                 started_ts DESC NULLS LAST, match_id LIMIT $limit OFFSET $offset)
        SELECT p.*, s.players, s.roles, s.seat_deltas, s.seat_recorded
        FROM page p LEFT JOIN (
            SELECT match_id, list(player ORDER BY seat) AS players, list(role ORDER BY seat) AS roles,
                   list(delta ORDER BY seat) AS seat_deltas, list(recorded_delta ORDER BY seat) AS seat_recorded
            FROM seats WHERE match_id IN (SELECT match_id FROM page) GROUP BY match_id) s USING (match_id)
        ORDER BY (lower(p.match_id) = lower($exact)) DESC, p.date DESC NULLS LAST, p.started_ts DESC NULLS LAST,
                 p.match_id""",
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
        text = (self.text or "").strip() or None
        return {
            "text": text, "player": self.player, "game": self.game, "status": self.status,
            "date_from": self.date_from, "date_to": self.date_to, "mismatch": self.mismatch, "broken": self.broken,
        }  # fmt: skip


def _run(lake: Any, name: str, params: dict[str, Any]) -> Any:
    sql = SQL[name]
    return _connect(lake).execute(sql, {k: v for k, v in params.items() if f"${k}" in sql})


def count(lake: Any, f: Filters) -> int:
    """How many matches fit the filters (the true count, no cap)."""
    return int(_run(lake, "count", f.params()).fetchone()[0])


def page(lake: Any, f: Filters, *, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
    """One page of matches fitting the filters (plain Python rows): exact id first, then newest first."""
    p = f.params()
    p.update(limit=int(limit), offset=int(offset), exact=p["text"] or "")
    cur = _run(lake, "page", p)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


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


def games(lake: Any) -> list[str]:
    return [r[0] for r in _run(lake, "games", {}).fetchall()]
