"""TEMPORARY: the dashboard queries, to be moved to the end of analytics/queries.py."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analytics.queries import _connect

# ---------------------------------------------------------------- dashboard queries (issue 9)
# Added for the dashboard pages (dashboard/views/*): the activity chart, the rule-set picker and
# the data-quality lists. Same conventions as above: constant SQL, bound parameters.

DASH_SQL: dict[str, str] = {
    "activity": """
        SELECT CAST(date AS DATE) AS date, game, count(*) AS matches
        FROM matches
        WHERE date IS NOT NULL AND ($game::VARCHAR IS NULL OR game = $game)
              AND CAST(date AS DATE) > (SELECT max(CAST(date AS DATE)) FROM matches) - $days::INTEGER
        GROUP BY ALL ORDER BY date, game""",
    "rule_sets": """
        SELECT m.rules_id, m.game, any_value(r.preset) AS preset, any_value(r.options) AS options,
               count(*) AS matches
        FROM matches m LEFT JOIN rules r USING (rules_id)
        WHERE ($game::VARCHAR IS NULL OR m.game = $game) AND m.rules_id IS NOT NULL
        GROUP BY m.rules_id, m.game ORDER BY matches DESC, m.rules_id""",
    "rejects": """
        SELECT code, message, file_name, line, match_id, seq, left(raw, 300) AS raw
        FROM rejects ORDER BY file_name, line, seq LIMIT $limit""",
    "invalid_matches": """
        SELECT match_id, game, error_seq, error_type, error_code, error_message, chain_ok
        FROM matches WHERE status = 'invalid' AND ($game::VARCHAR IS NULL OR game = $game)
        ORDER BY match_id LIMIT $limit""",
    "settlement_mismatches": """
        SELECT match_id, game, rules_id, array_to_string(deltas, ' ') AS engine,
               array_to_string(recorded_deltas, ' ') AS recorded
        FROM matches WHERE settlement_matches = false AND ($game::VARCHAR IS NULL OR game = $game)
        ORDER BY match_id LIMIT $limit""",
    "broken_chains": """
        SELECT match_id, game, status, error_seq, error_code
        FROM matches WHERE chain_ok = false AND ($game::VARCHAR IS NULL OR game = $game)
        ORDER BY match_id LIMIT $limit""",
}


def _run_dash(lake: Any, name: str, **params: Any) -> pd.DataFrame:
    sql = DASH_SQL[name]
    bound = {k: v for k, v in params.items() if f"${k}" in sql}
    return _connect(lake).execute(sql, bound).df()  # type: ignore[no-any-return]


def activity(lake: Any, game: str | None = None, *, days: int = 60) -> pd.DataFrame:
    """Matches per day and game over the last `days` days of the lake."""
    return _run_dash(lake, "activity", game=game, days=days)


def rule_sets(lake: Any, game: str | None = None) -> pd.DataFrame:
    """Every rules_id with its game, preset, options (JSON) and number of matches, most played first."""
    return _run_dash(lake, "rule_sets", game=game)


def rejects(lake: Any, *, limit: int = 200) -> pd.DataFrame:
    """The quarantine's rows (conflicts included) with code and reason."""
    return _run_dash(lake, "rejects", limit=limit)


def invalid_matches(lake: Any, game: str | None = None, *, limit: int = 200) -> pd.DataFrame:
    """Matches whose replay stopped at an illegal event, with the event's seq, type, code and reason."""
    return _run_dash(lake, "invalid_matches", game=game, limit=limit)


def settlement_mismatches(lake: Any, game: str | None = None, *, limit: int = 200) -> pd.DataFrame:
    """Matches whose recorded `settled` deltas differ from the engine's."""
    return _run_dash(lake, "settlement_mismatches", game=game, limit=limit)


def broken_chains(lake: Any, game: str | None = None, *, limit: int = 200) -> pd.DataFrame:
    """Matches whose hash chain does not verify."""
    return _run_dash(lake, "broken_chains", game=game, limit=limit)
