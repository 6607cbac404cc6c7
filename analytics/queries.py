"""Named queries over the lake, each returning a pandas DataFrame.

Every query's SQL is one constant in `SQL` below; values are always BOUND as named parameters
(`$game`, `$rules_id`, `$limit`, …), never formatted into the text. Every query takes the lake
(a folder, or a connection from `analytics.lake.open_lake`) and the common filters `game` and
`rules_id` (None = all). Rates come with 95 % Wilson score intervals (`lo`, `hi`).

Definitions (see ingest.tables): a match counts in win rates only when `finished` and not a draw
(a draw — 流局, a void redeal — is a finished match with no winner; draws have their own rate);
`role` is landlord/farmer for Dou Dizhu, else dealer/player; a win for fan statistics is one
(match, win_no).

Also `match_events(lake, match_id)` (the stored events of one match as contract models, in seq
order, as received) and `find_matches(lake, text)` (by id, id prefix or player).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from events.chain import fill_chain
from events.codec import parse_line
from events.models import AnyEvent

Z = 1.96

_FILTER = "($game::VARCHAR IS NULL OR game = $game) AND ($rules_id::VARCHAR IS NULL OR rules_id = $rules_id)"


def _wilson(k: str, n: str, rate: str = "rate") -> str:
    """SQL of the rate k/n and its Wilson interval as columns `rate`, lo, hi (constant text only)."""
    z2 = Z * Z
    p = f"({k})::DOUBLE / nullif({n}, 0)"
    centre = f"(({p}) + {z2}/(2.0*{n})) / (1 + {z2}/{n})"
    half = f"({Z} * sqrt(({p}) * (1 - ({p})) / {n} + {z2}/(4.0*{n}*{n})) / (1 + {z2}/{n}))"
    return f"{p} AS {rate}, greatest(0.0, {centre} - {half}) AS lo, least(1.0, {centre} + {half}) AS hi"


_DECIDED_SEATS = (
    # seats of finished matches minus those of draws: an anti-join against the few draws is ~2x faster
    # on a million matches than a semi-join against every decided match (bench/dashboard.py)
    "match_id NOT IN (SELECT match_id FROM matches WHERE status = 'finished' AND n_winners = 0) AND " + _FILTER
)

SQL: dict[str, str] = {
    "overview": f"""
        SELECT game, count(*) AS matches,
               count(*) FILTER (WHERE status = 'finished') AS finished,
               count(*) FILTER (WHERE status = 'incomplete') AS incomplete,
               count(*) FILTER (WHERE status = 'invalid') AS invalid,
               count(*) FILTER (WHERE is_draw) AS draws,
               count(*) FILTER (WHERE settlement_matches = false) AS mismatches,
               count(*) FILTER (WHERE chain_ok = false) AS broken_chains,
               count(DISTINCT rules_id) AS rule_sets, sum(events)::BIGINT AS events
        FROM matches WHERE {_FILTER} GROUP BY game ORDER BY game""",
    "win_rate_by_role": f"""
        WITH m AS (
            SELECT game, landlord IS NOT NULL AS ll, coalesce(landlord, dealer) AS lead, winners FROM matches
            WHERE status = 'finished' AND n_winners > 0 AND {_FILTER}),
        per AS (
            SELECT game, CASE WHEN ll THEN 'landlord' ELSE 'dealer' END AS role, list_contains(winners, lead) AS won
            FROM m
            UNION ALL
            SELECT game, CASE WHEN ll THEN 'farmer' ELSE 'player' END, len(list_filter(winners, lambda w: w <> lead)) > 0
            FROM m)
        SELECT game, role, count(*) AS matches, count(*) FILTER (WHERE won) AS wins,
               {_wilson("count(*) FILTER (WHERE won)", "count(*)")}
        FROM per GROUP BY game, role HAVING count(*) >= $min_n ORDER BY game, role""",
    "win_rate_by_seat": f"""
        SELECT game, seat, count(*) AS seats, count(*) FILTER (WHERE won) AS wins,
               {_wilson("count(*) FILTER (WHERE won)", "count(*)")}, avg(delta) AS mean_delta
        FROM seats WHERE status = 'finished' AND {_DECIDED_SEATS}
        GROUP BY game, seat HAVING count(*) >= $min_n ORDER BY game, seat""",
    "win_rate_by_dealer": f"""
        WITH m AS (
            SELECT game, dealer, winners FROM matches
            WHERE status = 'finished' AND n_winners > 0 AND dealer IS NOT NULL AND {_FILTER}),
        per AS (
            SELECT game, true AS is_dealer, list_contains(winners, dealer) AS won FROM m
            UNION ALL
            SELECT game, false, len(list_filter(winners, lambda w: w <> dealer)) > 0 FROM m)
        SELECT game, is_dealer, count(*) AS matches, count(*) FILTER (WHERE won) AS wins,
               {_wilson("count(*) FILTER (WHERE won)", "count(*)")}
        FROM per GROUP BY game, is_dealer HAVING count(*) >= $min_n ORDER BY game, is_dealer DESC""",
    "win_rate_by_player": f"""
        SELECT game, player, count(*) AS seats, count(*) FILTER (WHERE won) AS wins,
               {_wilson("count(*) FILTER (WHERE won)", "count(*)")}, sum(delta) AS total_delta
        FROM seats WHERE status = 'finished' AND {_DECIDED_SEATS}
        GROUP BY game, player HAVING count(*) >= $min_n
        ORDER BY game, lo DESC, rate DESC, player LIMIT $limit""",
    "draw_rate": f"""
        SELECT game, rules_id, count(*) AS finished, count(*) FILTER (WHERE is_draw) AS draws,
               {_wilson("count(*) FILTER (WHERE is_draw)", "count(*)")}
        FROM matches WHERE status = 'finished' AND {_FILTER}
        GROUP BY game, rules_id HAVING count(*) >= $min_n ORDER BY game, finished DESC, rules_id""",
    "fan_distribution": f"""
        WITH wins AS (SELECT game, count(*) AS n FROM items WHERE opens_win AND {_FILTER} GROUP BY game
                      HAVING count(*) >= $min_n)
        SELECT f.game, f.fan_id, any_value(w.n) AS n, count(*) AS wins,
               {_wilson("count(*)", "any_value(w.n)", "share_of_wins")}, avg(f.value) AS mean_value, max(f.value) AS max_value
        FROM fans f JOIN wins w USING (game)
        WHERE ($game::VARCHAR IS NULL OR f.game = $game) AND ($rules_id::VARCHAR IS NULL OR f.rules_id = $rules_id)
        GROUP BY f.game, f.fan_id ORDER BY f.game, wins DESC, f.fan_id""",
    "fan_total_distribution": f"""
        SELECT game, fan, n, wins, {_wilson("wins", "n", "share")}
        FROM (SELECT game, fan, count(*) AS wins, sum(count(*)) OVER (PARTITION BY game) AS n
              FROM items WHERE opens_win AND {_FILTER} GROUP BY game, fan)
        WHERE n >= $min_n ORDER BY game, fan""",
    "score_distribution": f"""
        SELECT game, role, seats, mean, sd, min, q[1] AS p10, q[2] AS p25, q[3] AS median, q[4] AS p75,
               q[5] AS p90, max
        FROM (SELECT game, role, count(*) AS seats, avg(delta) AS mean, stddev_samp(delta) AS sd,
                     min(delta) AS min, quantile_disc(delta, [0.1, 0.25, 0.5, 0.75, 0.9]) AS q, max(delta) AS max
              FROM seats WHERE status = 'finished' AND {_FILTER} GROUP BY game, role HAVING count(*) >= $min_n)
        ORDER BY game, role""",
    "score_histogram": f"""
        SELECT game, floor(delta / $width)::BIGINT * $width AS bucket, count(*) AS seats
        FROM seats WHERE status = 'finished' AND {_FILTER}
        GROUP BY game, bucket ORDER BY game, bucket""",
    "match_length": f"""
        SELECT game, status, count(*) AS matches, avg(events) AS mean_events,
               quantile_disc(events, 0.5) AS median_events, quantile_disc(events, 0.9) AS p90_events,
               max(events) AS max_events
        FROM matches WHERE {_FILTER} GROUP BY game, status ORDER BY game, status""",
    "biggest_wins": """
        SELECT s.match_id, s.game, s.rules_id, s.seat, s.player, s.role, s.delta
        FROM seats s WHERE s.status = 'finished' AND s.won
             AND ($game::VARCHAR IS NULL OR s.game = $game) AND ($rules_id::VARCHAR IS NULL OR s.rules_id = $rules_id)
        ORDER BY s.delta DESC, s.match_id, s.seat LIMIT $limit""",
    "settlement_mismatch_rate": f"""
        SELECT game, count(*) AS with_settled, count(*) FILTER (WHERE NOT settlement_matches) AS mismatches,
               {_wilson("count(*) FILTER (WHERE NOT settlement_matches)", "count(*)")}
        FROM matches WHERE settlement_matches IS NOT NULL AND {_FILTER}
        GROUP BY game ORDER BY game""",
    "rules_comparison": f"""
        WITH m AS (
            SELECT game, rules_id, count(*) AS matches, avg(events) AS mean_events,
                   count(*) FILTER (WHERE is_draw)::DOUBLE / count(*) AS draw_rate, avg(max_delta) AS mean_top_win,
                   count(*) FILTER (WHERE settlement_matches = false) AS mismatches
            FROM matches WHERE status = 'finished' AND {_FILTER} GROUP BY game, rules_id
            HAVING count(*) >= $min_n),
        s AS (
            SELECT rules_id, count(*) FILTER (WHERE role IN ('landlord', 'dealer')) AS lead_seats,
                   count(*) FILTER (WHERE role IN ('landlord', 'dealer') AND won) AS lead_wins,
                   avg(abs(delta)) AS mean_abs_delta
            FROM seats WHERE status = 'finished' AND {_FILTER} GROUP BY rules_id)
        SELECT m.game, m.rules_id, r.preset, m.matches, m.mean_events, m.draw_rate,
               s.lead_seats AS lead_matches, s.lead_wins,
               {_wilson("s.lead_wins", "s.lead_seats", "landlord_or_dealer_win_rate")},
               s.mean_abs_delta, m.mean_top_win, m.mismatches, r.options
        FROM m LEFT JOIN s USING (rules_id) LEFT JOIN rules r USING (rules_id)
        ORDER BY m.game, m.matches DESC, m.rules_id""",
    "error_codes": f"""
        SELECT game, error_code, count(*) AS matches, min(match_id) AS example
        FROM matches WHERE status = 'invalid' AND {_FILTER}
        GROUP BY game, error_code ORDER BY game, matches DESC, error_code""",
    "reject_codes": """
        SELECT code, count(*) AS lines, count(DISTINCT file_sha) AS files, min(message) AS example
        FROM rejects GROUP BY code ORDER BY lines DESC, code""",
    # --- for the replay page and the dispute report
    "match_events": "SELECT line FROM events WHERE match_id = $match_id ORDER BY seq, file_sha, file_line",
    # the events of a match sit in its match_started's game=/date= partition, or in game=unknown/
    # date=none while that had not arrived (ingest.pipeline._store_events): DuckDB then reads those
    # folders only, not every segment of the lake
    "match_partition": "SELECT game, coalesce(date, 'none') FROM matches WHERE match_id = $match_id",
    "match_events_in": """SELECT line FROM events WHERE match_id = $match_id AND game IN ($game, 'unknown')
                          AND date IN ($date, 'none') ORDER BY seq, file_sha, file_line""",
    "find_matches": """
        WITH hits AS (
            SELECT match_id FROM matches WHERE match_id = $text OR starts_with(match_id, $text)
            UNION SELECT match_id FROM seats WHERE player = $text),
        top AS (
            SELECT match_id, game, status, rules_id, events, winners, deltas, date FROM matches
            WHERE match_id IN (SELECT match_id FROM hits)
            ORDER BY (match_id = $text) DESC, match_id LIMIT $limit)
        SELECT t.*, p.players FROM top t LEFT JOIN (
            SELECT match_id, list(player ORDER BY seat) AS players FROM seats
            WHERE match_id IN (SELECT match_id FROM top) GROUP BY match_id) p USING (match_id)
        ORDER BY (t.match_id = $text) DESC, t.match_id""",
}


def _connect(lake: Any) -> Any:
    if isinstance(lake, str | Path):
        from analytics.lake import open_lake

        return open_lake(lake)
    return lake


def run_sql(lake: Any, name: str, **params: Any) -> pd.DataFrame:
    """Run the named SQL with bound parameters (only those the SQL uses are passed)."""
    sql = SQL[name]
    bound = {k: v for k, v in params.items() if f"${k}" in sql}
    return _connect(lake).execute(sql, bound).df()  # type: ignore[no-any-return]


def _filters(game: str | None, rules_id: str | None) -> dict[str, Any]:
    return {"game": game, "rules_id": rules_id}


def overview(lake: Any, game: str | None = None, rules_id: str | None = None) -> pd.DataFrame:
    """Per game: matches by status, draws, settlement mismatches, broken chains, rule sets."""
    return run_sql(lake, "overview", **_filters(game, rules_id))


def win_rate_by_role(
    lake: Any, game: str | None = None, rules_id: str | None = None, *, min_n: int = 1
) -> pd.DataFrame:
    """Win rate of each role (landlord/farmer, dealer/player) over decided matches, Wilson 95 %.

    Counted per match (`matches`: decided matches where the role sat; `wins`: those its side won):
    the two farmers of one Dou Dizhu match win or lose together, so counting seats would halve
    the interval's true width. Groups under `min_n` matches are left out."""
    return run_sql(lake, "win_rate_by_role", **_filters(game, rules_id), min_n=min_n)


def win_rate_by_seat(
    lake: Any, game: str | None = None, rules_id: str | None = None, *, min_n: int = 1
) -> pd.DataFrame:
    """Win rate of each seat over decided matches, Wilson 95 %."""
    return run_sql(lake, "win_rate_by_seat", **_filters(game, rules_id), min_n=min_n)


def win_rate_by_dealer(
    lake: Any, game: str | None = None, rules_id: str | None = None, *, min_n: int = 1
) -> pd.DataFrame:
    """Win rate of the dealer seat vs the others, counted per match like `win_rate_by_role`."""
    return run_sql(lake, "win_rate_by_dealer", **_filters(game, rules_id), min_n=min_n)


def win_rate_by_player(lake: Any, game: str | None = None, rules_id: str | None = None, *,
                       min_matches: int = 1, limit: int = 100) -> pd.DataFrame:  # fmt: skip
    """Win rate of each player with at least `min_matches` decided matches, Wilson 95 %, ranked by
    the interval's lower bound (9 wins in 9 matches does not outrank 600 in 1,000)."""
    return run_sql(lake, "win_rate_by_player", **_filters(game, rules_id), min_n=min_matches, limit=limit)


def draw_rate(
    lake: Any, game: str | None = None, rules_id: str | None = None, *, min_n: int = 1
) -> pd.DataFrame:
    """Share of finished matches without a winner (流局, void) per game and rules_id."""
    return run_sql(lake, "draw_rate", **_filters(game, rules_id), min_n=min_n)


def fan_distribution(
    lake: Any, game: str | None = None, rules_id: str | None = None, *, min_n: int = 1
) -> pd.DataFrame:
    """How often each fan appears in a win, and its mean value."""
    return run_sql(lake, "fan_distribution", **_filters(game, rules_id), min_n=min_n)


def fan_total_distribution(
    lake: Any, game: str | None = None, rules_id: str | None = None, *, min_n: int = 1
) -> pd.DataFrame:
    """Wins by total fan."""
    return run_sql(lake, "fan_total_distribution", **_filters(game, rules_id), min_n=min_n)


def score_distribution(
    lake: Any, game: str | None = None, rules_id: str | None = None, *, min_n: int = 1
) -> pd.DataFrame:
    """Per game and role: mean, sd and quantiles of the per-seat delta of finished matches."""
    return run_sql(lake, "score_distribution", **_filters(game, rules_id), min_n=min_n)


def score_histogram(lake: Any, game: str | None = None, rules_id: str | None = None, *, width: int = 10) -> pd.DataFrame:
    """Per-seat deltas of finished matches in buckets of `width` points."""
    if width < 1:
        raise ValueError("width must be at least 1")
    return run_sql(lake, "score_histogram", **_filters(game, rules_id), width=width)


def match_length(lake: Any, game: str | None = None, rules_id: str | None = None) -> pd.DataFrame:
    """Events per match by game and status: mean, median, p90, max."""
    return run_sql(lake, "match_length", **_filters(game, rules_id))


def biggest_wins(lake: Any, game: str | None = None, rules_id: str | None = None, *, limit: int = 20) -> pd.DataFrame:
    """The largest single-seat wins."""
    return run_sql(lake, "biggest_wins", **_filters(game, rules_id), limit=limit)


def settlement_mismatch_rate(lake: Any, game: str | None = None, rules_id: str | None = None) -> pd.DataFrame:
    """Share of matches with a `settled` event whose deltas differ from the rules' settlement."""
    return run_sql(lake, "settlement_mismatch_rate", **_filters(game, rules_id))


def rules_comparison(
    lake: Any, game: str | None = None, rules_id: str | None = None, *, min_n: int = 1
) -> pd.DataFrame:
    """One row per rules_id: matches, length, draw rate, landlord/dealer win rate, score spread."""
    return run_sql(lake, "rules_comparison", **_filters(game, rules_id), min_n=min_n)


def error_codes(lake: Any, game: str | None = None, rules_id: str | None = None) -> pd.DataFrame:
    """Invalid matches by the error code that stopped their replay."""
    return run_sql(lake, "error_codes", **_filters(game, rules_id))


def reject_codes(lake: Any, game: str | None = None, rules_id: str | None = None) -> pd.DataFrame:
    """Refused lines by code (not filtered: a refused line may have no game)."""
    return run_sql(lake, "reject_codes")


QUERIES: dict[str, Callable[..., pd.DataFrame]] = {
    f.__name__: f
    for f in (
        overview, win_rate_by_role, win_rate_by_seat, win_rate_by_dealer, win_rate_by_player, draw_rate,
        fan_distribution, fan_total_distribution, score_distribution, score_histogram, match_length,
        biggest_wins, settlement_mismatch_rate, rules_comparison, error_codes, reject_codes,
    )
}  # fmt: skip
"""Every named statistics query: name → function(lake, game=None, rules_id=None)."""


def match_events(lake: Any, match_id: str, *, fill_hashes: bool = False) -> list[AnyEvent]:
    """The stored events of one match as contract models, in seq order, exactly as received;
    with `fill_hashes` every event carries its hash-chain link (events.md §5: the store fills
    the chain in where the server left it out; a present hash that does not verify is replaced,
    so compare with the as-received events to find it)."""
    events = [parse_line(line) for line in _lines(_connect(lake), match_id)]
    return fill_chain(events) if fill_hashes else events


def match_lines(lake: Any, match_id: str) -> list[str]:
    """The stored lines of one match, in seq order, byte for byte as received (a log)."""
    return _lines(_connect(lake), match_id)


def _lines(con: Any, match_id: str) -> list[str]:
    """One match's stored lines, in order, reading its partitions only when the lake knows them."""
    part = con.execute(SQL["match_partition"], {"match_id": match_id}).fetchall()
    if not part or part[0][0] is None:
        return [r[0] for r in con.execute(SQL["match_events"], {"match_id": match_id}).fetchall()]
    bound = {"match_id": match_id, "game": part[0][0], "date": part[0][1]}
    return [r[0] for r in con.execute(SQL["match_events_in"], bound).fetchall()]


def find_matches(lake: Any, text: str, limit: int = 50) -> pd.DataFrame:
    """Matches whose id is `text` or starts with it, or where `text` played."""
    return run_sql(lake, "find_matches", text=text, limit=limit)


# ================================================================ dashboard queries (issue 9)
# Added by the dashboard (dashboard/views/*) for its activity chart, rule-set picker and
# data-quality lists. Same conventions as above: constant SQL, bound parameters, run by run_sql.

SQL.update(
    {
        "activity": """
            WITH d AS (
                SELECT CAST(date AS DATE) AS date, game FROM matches
                WHERE date IS NOT NULL AND ($game::VARCHAR IS NULL OR game = $game)),
            hi AS (SELECT max(date) AS hi, min(date) AS lo FROM d),
            days AS (
                SELECT CAST(unnest(generate_series(greatest(lo, hi - ($days::INTEGER - 1)), hi, INTERVAL 1 DAY)) AS DATE)
                       AS date
                FROM hi WHERE hi IS NOT NULL),
            counts AS (
                SELECT date, game, count(*) AS matches FROM d
                WHERE date > (SELECT hi FROM hi) - $days::INTEGER GROUP BY ALL)
            SELECT days.date, g.game, coalesce(counts.matches, 0) AS matches
            FROM days CROSS JOIN (SELECT DISTINCT game FROM d) g LEFT JOIN counts USING (date, game)
            ORDER BY days.date, g.game""",
        "rule_sets": """
            SELECT m.rules_id, m.game, any_value(r.preset) AS preset, any_value(r.options) AS options,
                   count(*) AS matches
            FROM matches m LEFT JOIN rules r USING (rules_id)
            WHERE ($game::VARCHAR IS NULL OR m.game = $game) AND m.rules_id IS NOT NULL
            GROUP BY m.rules_id, m.game ORDER BY matches DESC, m.rules_id""",
        "room_findings_of": """
            SELECT match_id, seq, code, rule, message, room, previous FROM room_findings
            WHERE match_id = $match_id ORDER BY rule""",
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
        "in_progress": """
            WITH open AS (
                SELECT match_id, game, rules_id, events, started_ts, ended_ts FROM matches
                WHERE status = 'incomplete' AND ($game::VARCHAR IS NULL OR game = $game)
                ORDER BY ended_ts DESC NULLS LAST, match_id LIMIT $limit)
            SELECT o.match_id, o.game, o.rules_id, p.players, o.events, o.started_ts, o.ended_ts AS last_event_ts
            FROM open o LEFT JOIN (
                SELECT match_id, list(player ORDER BY seat) AS players FROM seats  -- the status first: a cheap filter
                WHERE status = 'incomplete' AND match_id IN (SELECT match_id FROM open) GROUP BY match_id) p USING (match_id)
            ORDER BY o.ended_ts DESC NULLS LAST, o.match_id""",
        "broken_chains": """
            SELECT match_id, game, status, error_seq, error_code
            FROM matches WHERE chain_ok = false AND ($game::VARCHAR IS NULL OR game = $game)
            ORDER BY match_id LIMIT $limit""",
    }
)


def activity(lake: Any, game: str | None = None, *, days: int = 60) -> pd.DataFrame:
    """Matches per day and game over the last `days` days of the lake (from its first day at the
    earliest); a day without matches is 0."""
    return run_sql(lake, "activity", game=game, days=days)


def rule_sets(lake: Any, game: str | None = None) -> pd.DataFrame:
    """Every rules_id with its game, preset, options (JSON) and number of matches, most played first."""
    return run_sql(lake, "rule_sets", game=game)


def rejects(lake: Any, *, limit: int = 200) -> pd.DataFrame:
    """The quarantine's rows (conflicts included) with code and reason."""
    return run_sql(lake, "rejects", limit=limit)


def room_findings_of(lake: Any, match_id: str) -> pd.DataFrame:
    """The cross-match findings charged to one match (its dealer against its room's previous
    match: PDK-R2/R16, ZJH-R2, SC-R23, HZ-R15, AS-R17; `ingest.rooms`)."""
    return run_sql(lake, "room_findings_of", match_id=match_id)


def invalid_matches(lake: Any, game: str | None = None, *, limit: int = 200) -> pd.DataFrame:
    """Matches whose replay stopped at an illegal event: the event's seq, type, code and reason."""
    return run_sql(lake, "invalid_matches", game=game, limit=limit)


def settlement_mismatches(lake: Any, game: str | None = None, *, limit: int = 200) -> pd.DataFrame:
    """Matches whose recorded `settled` deltas differ from the engine's."""
    return run_sql(lake, "settlement_mismatches", game=game, limit=limit)


def broken_chains(lake: Any, game: str | None = None, *, limit: int = 200) -> pd.DataFrame:
    """Matches whose hash chain does not verify."""
    return run_sql(lake, "broken_chains", game=game, limit=limit)


def in_progress(lake: Any, game: str | None = None, *, limit: int = 50) -> pd.DataFrame:
    """Matches the lake holds without their end yet (status `incomplete`: a live match the referee
    publishes as it grows, or a log cut short), the latest event first, with their players."""
    return run_sql(lake, "in_progress", game=game, limit=limit)
