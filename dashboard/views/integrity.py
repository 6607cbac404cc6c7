"""Integrity: pairs of players whose play together looks like collusion, players whose deals look
too good (docs/integrity.md). Reads the tables the last ingest published (`pair_signals`,
`deal_strength`); every evidence match opens in the replay console at the event that carries it.
A flag is a reason for review, never a verdict.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from analytics.lab import format_p
from dashboard.common import guarded, lake, player_link, player_link_column

TOP = 20
_PLAYER_LINKS = {"player a": player_link_column("player a"), "player b": player_link_column("player b")}


@st.cache_data(show_spinner=False, max_entries=8)
def _tables(path: str, generation: int) -> dict[str, Any] | None:
    from analytics.integrity import published

    return published(path)


def _link(match_id: str, seqs: list[int]) -> str:
    return f"/replay?match={match_id}" + (f"&step={seqs[0]}" if seqs else "")


def _pairs_view(pairs: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "player a": [player_link(p) for p in pairs["player_a"]], "player b": [player_link(p) for p in pairs["player_b"]],
        "game": pairs["game"],
        "together": pairs["matches_together"], "score": pairs["score"].round(2),
        "p": [format_p(x) for x in pairs["p_value"]], "q": [format_p(x) for x in pairs["q_value"]],
        "flagged": pairs["flagged"],
        "behaviour z": [_num(s.get("behaviour_z")) for s in pairs["signals"]],
        "co-seating z": [_num(s.get("co_seating_z")) for s in pairs["signals"]],
        "money a → b": [_num(s.get("flow_ab"), "+.0f") for s in pairs["signals"]],
        "money z": [_num(s.get("flow_z")) for s in pairs["signals"]],
    })  # fmt: skip


def _num(value: Any, spec: str = ".2f") -> str:
    """A signal as the table shows it: `—` where the row has none (the `all` rows combine the
    games' scores and carry no per-game signal), not `None`."""
    return "—" if value is None or value != value else format(value, spec)


def _evidence(row: pd.Series) -> None:
    sig = {k: v for k, v in row["signals"].items()}
    st.markdown(f"**{row['player_a']} + {row['player_b']}** · {row['game']} · {row['matches_together']} matches together · "
                f"score {row['score']:.2f} · q {format_p(row['q_value'])}")  # fmt: skip
    st.caption(" · ".join(f"{k.replace('_', ' ')} {v:.3g}" for k, v in sig.items()))
    if "flow_ab" in sig:
        st.caption(f"money through the settlement: {row['player_a']} paid {row['player_b']} {sig['flow_ab']:+.0f} points net "
                   f"(z {sig['flow_z']:.2f} against the seat shuffle; p {format_p(sig['flow_p'])}, one of the score's three p-values)")  # fmt: skip
    lines = []
    for m in row["evidence"]:
        seqs = row["evidence_seqs"].get(m, [])
        at = f" · seq {', '.join(map(str, seqs[:8]))}" + (" …" if len(seqs) > 8 else "") if seqs else ""
        lines.append(f"- [{m}]({_link(m, seqs)}){at}")
    st.markdown("\n".join(lines) if lines else "no single match stands out")


def body() -> None:
    from ingest.integrity_tables import deal_fairness, position_effects

    path, gen = lake()
    tabs = _tables(path, gen)
    if tabs is None:
        st.info(f"no integrity tables in `{path}` yet: they are built by `paiju ingest … --lake {path}`", icon=":material/database:")
        return
    pairs, deals = tabs["pair_signals"], tabs["deal_strength"]
    games = sorted(set(pairs["game"]) | set(deals["game"]))
    game = st.selectbox("game", ["all games", *[g for g in games if g != "all"]], key="integrity_game")
    if game != "all games":
        pairs = pairs[pairs["game"] == game]
        deals = deals[deals["game"] == game]
    st.markdown("#### Pairs of players")
    flagged = pairs[pairs["flagged"]]
    if flagged.empty:
        st.success(f"no pair flagged at FDR 5 % ({len(pairs)} pairs tested)")
    else:
        st.warning(f"{len(flagged)} of {len(pairs)} pairs flagged at FDR 5 %: review the evidence below", icon=":material/search:")
    st.dataframe(_pairs_view(pairs.head(TOP)), hide_index=True, width="stretch", column_config=_PLAYER_LINKS)
    for _, row in (flagged if not flagged.empty else pairs.head(1)).iterrows():
        with st.expander(f"evidence: {row['player_a']} + {row['player_b']} ({row['game']})", expanded=bool(row["flagged"])):
            _evidence(row)
    st.markdown("#### Deals per player")
    fair = pd.DataFrame(deal_fairness(deals.to_dict("records"), min_matches=10))
    if fair.empty:
        st.info("no player with 10 deals yet")
    else:
        bad = fair[fair["flagged"]]
        if bad.empty:
            st.success(f"no player's deals differ from a fair shuffle at FDR 5 % ({len(fair)} player-games tested)")
        else:
            st.warning(f"{len(bad)} player-games with deals unlike a fair shuffle: " +
                       ", ".join(f"{r.player} ({r.game}, z {r.strength_z:.1f})" for r in bad.itertuples()), icon=":material/playing_cards:")  # fmt: skip
        shown = fair.head(TOP).assign(p_value=lambda d: [format_p(x) for x in d["p_value"]],
                                      q_value=lambda d: [format_p(x) for x in d["q_value"]],
                                      player=lambda d: [player_link(p) for p in d["player"]])  # fmt: skip
        shown = shown.rename(columns={"strength_z": "deal strength z", "p_value": "p", "q_value": "q"})
        st.dataframe(shown, hide_index=True, width="stretch", column_config={"player": player_link_column()})
    st.markdown("#### Seat and dealer effects")
    seats = pd.DataFrame(position_effects(deals.to_dict("records")))
    if not seats.empty:
        seats = seats.assign(p_value=[format_p(x) for x in seats["p_value"]]) if "p_value" in seats else seats
        st.dataframe(seats.rename(columns={"mean_z": "mean z", "p_value": "p"}), hide_index=True, width="stretch")
        st.caption("position 0 is the dealer; z = Σ(deal strength z) / √deals against a fair shuffle's reference")
    st.caption("a flag is a reason for review, never a verdict (docs/integrity.md)")


st.title("Integrity")
guarded(body)
