"""What every page shares: the lake it reads, cached named queries, intervals, friendly errors.

The lake directory comes from the `PAIJU_LAKE` environment variable (set by `paiju dashboard
--lake DIR`), default `./lake`. DuckDB is opened only through `analytics.lake` (in memory, over
the Parquet files, so a running ingest never locks the dashboard out) and every SQL statement is a
named query of `analytics.queries`; results are cached for `TTL` seconds and only aggregates (or
one match's events) ever reach the browser.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
import streamlit as st

from dashboard import LAKE_ENV

TTL = 30
T = TypeVar("T")


class LakeUnavailable(RuntimeError):
    """The lake is missing or empty: a message for the page, never a trace."""


def lake_dir() -> str:
    return os.environ.get(LAKE_ENV) or "lake"


@st.cache_resource(show_spinner=False, max_entries=4)
def _open(path: str, generation: int) -> Any:
    """One in-memory DuckDB per published lake generation (a new ingest opens a fresh one)."""
    from analytics.lake import open_lake

    return open_lake(path)


def _generation(path: str) -> int:
    from analytics.lake import lake_generation

    return int(lake_generation(path))


def lake() -> tuple[str, int]:
    """The lake's path and published generation; LakeUnavailable when there is no lake."""
    path = lake_dir()
    if not Path(path).is_dir():
        raise LakeUnavailable(
            f"no lake at `{path}`: ingest some logs first (`paiju ingest LOGS --lake {path}`) "
            "or start the dashboard with `paiju dashboard --lake DIR`"
        )
    return path, _generation(path)


@st.cache_data(ttl=TTL, show_spinner=False, max_entries=256)
def _query(path: str, generation: int, name: str, kwargs: tuple[tuple[str, Any], ...]) -> pd.DataFrame:
    from analytics import queries

    fn = getattr(queries, name)
    out = fn(_open(path, generation).cursor(), **dict(kwargs))
    return out if isinstance(out, pd.DataFrame) else pd.DataFrame(out)


def query(name: str, **kwargs: Any) -> pd.DataFrame:
    """Run the named query of `analytics.queries` on the lake (cached per lake generation)."""
    path, gen = lake()
    return _query(path, gen, name, tuple(sorted(kwargs.items())))


@st.cache_data(ttl=TTL, show_spinner=False, max_entries=64)
def _lines(path: str, generation: int, match_id: str) -> list[str]:
    from analytics.queries import match_lines

    return list(match_lines(_open(path, generation).cursor(), match_id))


def match_lines(match_id: str) -> list[str]:
    """One match's stored lines, in seq order, as received (cached)."""
    path, gen = lake()
    return _lines(path, gen, match_id)


def guarded(fn: Callable[[], T]) -> T | None:
    """Run a page body; a missing lake or a failed query becomes a message, never a trace."""
    try:
        return fn()
    except LakeUnavailable as e:
        st.info(str(e), icon="🗄️")
    except Exception as e:  # the page must stay up whatever the data holds
        st.error(f"this page could not be drawn: {type(e).__name__}: {e}", icon="⚠️")
    return None


def empty_lake_note(total: int) -> bool:
    """Say so when the lake holds no matches yet; True if it is empty."""
    if total == 0:
        st.info(
            f"the lake `{lake_dir()}` holds no matches yet: `paiju simulate … --out demo.jsonl` then "
            f"`paiju ingest demo.jsonl --lake {lake_dir()}`",
            icon="🗄️",
        )
        return True
    return False


def rule_set_picker(key: str) -> tuple[Any, str | None]:
    """Game and rule-set pickers; (False, None) after saying the lake is empty."""
    sets = query("rule_sets")
    if empty_lake_note(len(sets)):
        return False, None
    c1, c2 = st.columns(2)
    games = sorted(set(sets["game"]))
    choice = c1.selectbox("Game", ["all games", *games], key=f"{key}_game")
    game = None if choice == "all games" else choice
    mine = sets if game is None else sets[sets["game"] == game]
    labels = {r.rules_id: f"{r.game} · {r.preset} · {r.matches} matches · {r.options}" for r in mine.itertuples()}
    rid = c2.selectbox("Rule set", ["all rule sets", *labels], key=f"{key}_rules",
                       format_func=lambda r: labels.get(r, r))  # fmt: skip
    return game, None if rid == "all rule sets" else rid
