"""What every page shares: the lake it reads, cached named queries, intervals, friendly errors.

The lake directory comes from the `PAIJU_LAKE` environment variable (set by `paiju dashboard
--lake DIR`), default `./lake`. DuckDB is opened only through `analytics.lake` (in memory, over
the Parquet files, so a running ingest never locks the dashboard out) and every SQL statement is a
named query of `analytics.queries`; results are cached for `TTL` seconds and only aggregates (or
one match's events) ever reach the browser.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import pandas as pd
import streamlit as st

from dashboard import LAKE_ENV
from ingest.store import LakeError

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
    except LakeError as e:  # a damaged lake: its one line already says what to run
        st.error(f"The lake cannot be read as it is: {e}", icon="🗄️")
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
    game, rules_id, _ = filters(key, with_min_sample=False)
    return game, rules_id


def filters(key: str, *, with_min_sample: bool = True) -> tuple[Any, str | None, int]:
    """Game, rule-set and minimum-sample controls in one row: (game | None, rules_id | None, min_n);
    (False, None, 0) after saying the lake is empty. Rule sets with fewer matches than the minimum
    sample are not offered (and the page says how many are hidden); each is named by how it
    differs from its preset."""
    sets = query("rule_sets")
    if empty_lake_note(len(sets)):
        return False, None, 0
    cols = st.columns([1, 2, 1] if with_min_sample else [1, 2])
    games = sorted(set(sets["game"]), key=lambda g: (GAMES.index(g) if g in GAMES else len(GAMES), g))
    choice = cols[0].selectbox("Game", ["all games", *games], key=f"{key}_game")
    game = None if choice == "all games" else choice
    with cols[-1] if with_min_sample else st.container():
        min_n = min_sample(key) if with_min_sample else 1
    mine = sets if game is None else sets[sets["game"] == game]
    shown = mine[mine["matches"] >= min_n]
    labels = {
        r.rules_id: f"{r.game} · {rule_set_name(r.game, r.options, r.preset)} · {r.matches:,} "
        f"match{'es' if r.matches != 1 else ''}"
        for r in shown.itertuples()
    }
    rid = cols[1].selectbox("Rule set", ["all rule sets", *labels], key=f"{key}_rules",
                            format_func=lambda r: labels.get(r, r))  # fmt: skip
    hidden = len(mine) - len(shown)
    if hidden:
        st.caption(
            f"{hidden} rule set{'s' if hidden != 1 else ''} with fewer than {min_n} matches "
            f"{'are' if hidden != 1 else 'is'} not offered and not drawn (lower the minimum sample to see "
            f"{'them' if hidden != 1 else 'it'})"
        )
    return game, None if rid == "all rule sets" else rid, min_n


# ================================================================ honest statistics (issue 16)
# One colour per game on every page, one pair of colours for the lab's A and B, one minimum-sample
# control, rule sets named by what they change, and the chart every grouped rate is drawn with.

GAMES: tuple[str, ...] = (
    "ddz", "ddz_laizi", "paodekuai", "zhajinhua", "sichuan_xuezhan", "sichuan_xueliu", "hongzhong", "anshun",
)  # fmt: skip
GAME_COLORS: dict[str, str] = dict(
    zip(GAMES, ("#4c78a8", "#9ecae9", "#f58518", "#b279a2", "#54a24b", "#88d27a", "#e45756", "#eeca3b"), strict=True)
)
"""Each game's colour everywhere (Vega's tableau-like palette; the two Dou Dizhu and the two Sichuan
games are light and dark shades of one hue)."""
OTHER_COLOR = "#8c8c8c"
AB_COLORS: dict[str, str] = {"A": "#1f77b4", "B": "#d62728"}
"""Rule set A is blue and B is red in every table, chart and caption of the lab."""
MIN_SAMPLE = 30
ROW_PX = 30
"""Height of one bar row in a chart (labels never overlap, bars never collapse to zero height)."""


def game_scale(games: Any) -> Any:
    """An Altair colour scale giving each game present its fixed colour."""
    import altair as alt

    present = list(dict.fromkeys(str(x) for x in games))
    return alt.Scale(domain=present, range=[GAME_COLORS.get(g, OTHER_COLOR) for g in present])


def ab_scale() -> Any:
    import altair as alt

    return alt.Scale(domain=list(AB_COLORS), range=list(AB_COLORS.values()))


def min_sample(key: str, what: str = "matches") -> int:
    """The minimum-sample control of a page (default 30): smaller groups are left out, and said so."""
    return int(
        st.number_input(
            f"Minimum sample ({what} per group)", min_value=1, max_value=1_000_000, value=MIN_SAMPLE, step=10,
            key=f"{key}_min_n",
            help="Groups with fewer matches are hidden: a rate over a handful of matches says little "
            "(its 95% interval is wide). Lower it to see them anyway.",
        )
    )


def interval_text(lo: Any, hi: Any) -> str:
    """`41.2 % – 48.9 %` (the Wilson 95 % interval of a rate)."""
    return f"{float(lo):.1%} – {float(hi):.1%}"


@functools.lru_cache(maxsize=4096)
def _rules_name(game: str, options: str | None, preset: str | None) -> str:
    from analytics.lab import rules_name

    try:
        rules = json.loads(options) if options else {}
    except (TypeError, ValueError):
        rules = {}
    if not isinstance(rules, dict):
        rules = {}
    if preset and "preset" not in rules:
        rules["preset"] = preset
    return rules_name(game, rules)


def rule_set_name(game: Any, options: Any, preset: Any = None) -> str:
    """A lake rule set named by how it differs from its preset: `standard + bomb_factor 3, rob on`."""
    opt = options if isinstance(options, str) else None
    pre = preset if isinstance(preset, str) else None
    return _rules_name(str(game), opt, pre)


def name_rule_sets(df: pd.DataFrame) -> pd.DataFrame:
    """`df` with a `rule set` column (named) in place of rules_id / preset / options where it has them."""
    if "rules_id" not in df or df.empty:
        return df
    sets = query("rule_sets")
    names = {
        r.rules_id: rule_set_name(r.game, r.options, r.preset) for r in sets.itertuples() if isinstance(r.rules_id, str)
    }
    out = df.assign(**{"rule set": [names.get(r, "unknown rules") for r in df["rules_id"]]})
    cols = ["rule set", *[c for c in out.columns if c not in ("rule set", "rules_id", "preset", "options")]]
    return out[cols]


def player_link(name: Any) -> str | None:
    """The player page of `name` (`/player?name=…`)."""
    return f"/player?name={quote(str(name), safe='')}" if isinstance(name, str) and name else None


def player_link_column(label: str = "player", width: int | None = None) -> Any:
    """A dataframe column of `player_link`s that shows the player's name."""
    return st.column_config.LinkColumn(label, display_text=r"name=([^&]*)", width=width)


SERIES_COLORS = ("#393b79", "#8c6d31", "#843c39", "#7b4173", "#637939", "#5254a3")
"""Rule sets of one game drawn side by side (dark shades no game uses)."""


def rate_chart(
    df: pd.DataFrame, label: str, *, color: str = "game", title: str = "win rate", scale: Any = None
) -> Any:
    """Horizontal bars of `rate` with the Wilson interval (`lo`–`hi`) drawn over them and n beside,
    one row of ROW_PX per group, the axis numeric in % (0–100 %), coloured by game."""
    import altair as alt

    d = df.assign(
        _label=df[label].astype(str),
        _text=[f"{r:.1%}  (n = {n:,})" for r, n in zip(df["rate"], df["n"], strict=True)],
    )
    y = alt.Y("_label:N", sort=None, title=None, axis=alt.Axis(labelLimit=320, labelOverlap=False))
    if scale is None:
        scale = game_scale(d[color]) if color == "game" else alt.Undefined
    base = alt.Chart(d).encode(y=y)
    tips = [alt.Tooltip(f"{label}:N"), alt.Tooltip("n:Q", format=","), alt.Tooltip("rate:Q", format=".1%"),
            alt.Tooltip("lo:Q", format=".1%", title="95% low"), alt.Tooltip("hi:Q", format=".1%", title="95% high")]  # fmt: skip
    bars = base.mark_bar(opacity=0.6, height=ROW_PX * 0.6).encode(
        x=alt.X("rate:Q", title=f"{title} (bar) and its 95% Wilson interval (line)",
                axis=alt.Axis(format="%", values=[i / 10 for i in range(11)]), scale=alt.Scale(domain=[0, 1.22])),
        color=alt.Color(f"{color}:N", scale=scale, legend=alt.Legend(title=None)),
        tooltip=tips,
    )  # fmt: skip
    ci = base.mark_rule(color="black", strokeWidth=2).encode(x="lo:Q", x2="hi:Q", tooltip=tips)
    ends = base.mark_tick(color="black", thickness=2, size=ROW_PX * 0.5).encode(x="lo:Q") + base.mark_tick(
        color="black", thickness=2, size=ROW_PX * 0.5
    ).encode(x="hi:Q")
    text = base.mark_text(align="left", dx=6, fontSize=12).encode(x="hi:Q", text="_text:N")
    return (bars + ci + ends + text).properties(height=max(160, ROW_PX * len(d) + 60))


@functools.lru_cache(maxsize=1)
def glossary() -> tuple[dict[str, Any], ...]:
    """The glossary (dashboard/glossary.json): kind, id, 中文, pinyin, English, rule ids, games."""
    return tuple(json.loads((Path(__file__).resolve().parent / "glossary.json").read_text(encoding="utf-8")))


def term(term_id: str) -> str:
    """`清一色 qing_yi_se` for a glossary id (the id alone when it is not in the glossary)."""
    for t in glossary():
        if t["id"] == term_id:
            return f"{t['zh'].split(' / ')[0]} {term_id}"
    return term_id


_CJK = "U+2E80-2FDF, U+3000-303F, U+3100-312F, U+31A0-31BF, U+3400-4DBF, U+4E00-9FFF, U+F900-FAFF, U+FE30-FE4F, U+FF00-FFEF"
_SC = ("Noto Sans CJK SC", "Noto Sans CJK SC Regular", "NotoSansCJKsc-Regular", "Noto Sans SC")
CJK_CSS = "".join(
    # the same descriptors as Streamlit's own faces (weight 100 900, style normal): the browser then
    # joins them into one family, and only the CJK ranges come from here
    f"@font-face {{ font-family: '{family}'; font-weight: 100 900; font-style: normal; unicode-range: {_CJK}; "
    f"src: {', '.join(f'local({name!r})' for name in _SC)}; }}\n"
    for family in ("Source Sans", "Source Code Pro")
)
"""Chinese glyphs from the machine's Noto Sans CJK **SC** (Debian's fonts-noto-cjk), never a web font:
the app's own families get a face for the CJK ranges only, so Latin text keeps Streamlit's font and
Han characters stop falling back to the JP variant fontconfig picks for an English page."""


def cjk_fonts() -> None:
    """Inject CJK_CSS into the page (a style element only: it takes no space)."""
    st.html(f"<style>{CJK_CSS}</style>")
