"""Replay: find a match by id or player and step through it with every hand visible.

Deep link: `/replay?match=ID&step=K` (step K = the state after the event with seq K).
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from dashboard import render
from dashboard import replay_view as rv
from dashboard.common import guarded, lake_dir, match_lines, query
from events.notation import MAHJONG_GAMES

STEP = "replay_step"


@st.cache_resource(show_spinner="replaying…", max_entries=16)
def _load(match_id: str, lines: tuple[str, ...]) -> rv.Loaded:
    return rv.load(match_id, lines)


@st.cache_data(show_spinner=False, max_entries=16)
def _evidence(match_id: str, lines: tuple[str, ...]) -> str:
    """`paiju dispute`'s self-contained HTML report of this match (analytics.dispute)."""
    from analytics.dispute import render_dispute_html

    return render_dispute_html(list(lines), source=f"lake {lake_dir()}")


def _set_step(value: int) -> None:
    st.session_state[STEP] = value


def _move(delta: int, last: int) -> None:
    st.session_state[STEP] = max(0, min(last, int(st.session_state.get(STEP, 0)) + delta))


def _pick_match() -> str | None:
    qp_match = st.query_params.get("match", "")
    text = st.text_input(
        "Match id or player", value=qp_match, key="replay_search", placeholder="e.g. sim-ddz-1-000004 or p07"
    ).strip()
    if not text:
        st.info("type a match id (or a player id to list their matches)")
        return None
    found = query("find_matches", text=text)
    ids = list(found["match_id"]) if "match_id" in found else []
    if text in ids:
        return text
    if not ids:
        st.warning(f"no match with the id or player `{text}` in the lake")
        return None

    def label(mid: str) -> str:
        row = found[found["match_id"] == mid].iloc[0]
        bits = [mid] + [str(row[c]) for c in ("game", "status", "date") if c in found and row[c] is not None]
        if "players" in found and row["players"] is not None:
            bits.append(", ".join(map(str, row["players"])))
        return " · ".join(bits)

    st.caption(f"{len(ids)} match{'es' if len(ids) != 1 else ''} for `{text}`")
    return st.selectbox("Match", ids, format_func=label, key="replay_pick")


def _legal_list(actions: list[dict[str, Any]]) -> str:
    if not actions:
        return "_none (finished, or nobody may act)_"
    shown = actions[:80]
    more = f"\n\n… and {len(actions) - len(shown)} more" if len(actions) > len(shown) else ""
    return "\n".join(f"- `{render.move_text(a)}`" for a in shown) + more


def body() -> None:
    match_id = _pick_match()
    if match_id is None:
        return
    lines = match_lines(match_id)
    if not lines:
        st.warning(f"unknown match id `{match_id}`: the lake holds no events for it")
        return
    loaded = _load(match_id, tuple(lines))
    steps, result = loaded.steps, loaded.result
    last = len(steps) - 1
    if last < 0:
        st.warning(f"match `{match_id}`: nothing could be replayed")
        return

    if st.session_state.get("replay_match") != match_id:
        # a new match: start at the deep link's step, else at the refused event, else at the start
        st.session_state["replay_match"] = match_id
        wanted = loaded.error_step or 0
        raw = st.query_params.get("step") if st.query_params.get("match") == match_id else None
        if raw is not None and raw.strip().isdigit():
            wanted = int(raw)
        st.session_state[STEP] = max(0, min(last, wanted))
    st.session_state[STEP] = max(0, min(last, int(st.session_state.get(STEP, 0))))

    game_id = result.game or "?"
    status = result.status
    chain = {True: "hash chain verifies ✓", False: "hash chain BROKEN ✗", None: "no hashes"}[result.chain_ok]
    st.subheader(f"{match_id}")
    st.markdown(
        f"**{game_id}** · status **{status}** · {len(steps)} steps · {chain} · players "
        + ", ".join(f"{i}: `{p}`" for i, p in enumerate(loaded.players))
    )
    if result.rules:
        with st.expander(f"rules: preset `{result.rules.get('preset', 'standard')}`"):
            st.json(result.rules)
    err_at = loaded.error_step
    if result.error:
        e = result.error
        st.error(f"first illegal event: seq {e['seq']} `{e['type']}` — **{e['code']}**: {e['message']}")
    if result.chain_ok is False:
        st.error("the hash chain does not verify: the log was edited after it was written (events.md §5)")

    c = st.columns([1, 1, 1, 1, 1.4])
    c[0].button("« first", key="first", on_click=_set_step, args=(0,), width="stretch")
    c[1].button("‹ back", key="back", on_click=_move, args=(-1, last), width="stretch")
    c[2].button("forward ›", key="forward", on_click=_move, args=(1, last), width="stretch")
    c[3].button("last »", key="last", on_click=_set_step, args=(last,), width="stretch")
    if err_at is not None:
        c[4].button(f"jump to the error (step {err_at})", key="to_error", on_click=_set_step, args=(err_at,))
    if last > 0:
        st.slider("Step", 0, last, key=STEP)
    k = int(st.session_state[STEP])
    st.query_params["match"] = match_id
    st.query_params["step"] = str(k)

    step = steps[k]
    game = None
    if result.game:
        from engine.registry import get_game

        game = get_game(result.game)
    left, right = st.columns([3, 2])
    with left:
        st.markdown(f"#### Step {k} of {last}")
        if step.error is not None:
            st.error(
                f"REFUSED at seq {step.error.seq} `{step.error.type}` — **{step.error.code}**: {step.error.message}"
                " (the table shows the state before it)"
            )
        view = rv.safe_view(game, step.state) if game is not None else None
        if view is None:
            st.info("no table yet: the deal is step 1")
        else:
            tiles = game_id in MAHJONG_GAMES
            st.markdown(rv.table_html(view, loaded.players, loaded.dealer, tiles=tiles), unsafe_allow_html=True)
    with right:
        st.markdown("**Event at this step**")
        if step.event is not None:
            st.code(json.dumps(step.event.to_dict(), ensure_ascii=False), language="json", wrap_lines=True)
        elif step.error is not None:
            st.code(f"unreadable line: {step.error}", language="text")
        finished_here = game is not None and step.state is not None and game.is_finished(step.state)
        actions = rv.safe_legal(game, step.state, finished_here) if game is not None else []
        st.markdown(f"**Legal actions now** ({len(actions)})")
        st.markdown(_legal_list(actions))

    st.markdown("#### Settlement")
    if status == "finished":
        st.markdown(f"winners: **{', '.join(map(str, result.winners)) or 'nobody'}**")
        st.dataframe(rv.items_frame(result.items), hide_index=True, width="stretch")
    else:
        st.caption(f"no settlement: the match is {status}")
    rows = rv.deltas_frame(result, loaded.players)
    if result.settlement_matches is False:
        st.error("the server's recorded settlement differs from the engine's")
    elif result.settlement_matches:
        st.success("the server's recorded settlement equals the engine's")
    st.dataframe(rows, hide_index=True, width="stretch")
    try:
        report = _evidence(match_id, tuple(lines))
    except Exception as e:  # the report is an extra: its failure must not hide the replay
        st.caption(f"the evidence report could not be built: {type(e).__name__}: {e}")
    else:
        st.download_button(
            "Download the evidence report (HTML, as `paiju dispute`)",
            report,
            file_name=f"dispute-{match_id}.html",
            mime="text/html",
            key="replay_evidence",
        )


st.title("Replay")
guarded(body)
