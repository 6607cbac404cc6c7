"""Replay: a dispute console. Find a match, read the verdict and the server's charge beside the
rules', then step through every event of the log (← → Home End), as everyone or as one seat saw it.

Deep link: `/replay?match=ID&step=K&seat=S` (step K = the table after line K of the log in seq
order, which is seq K when no line was re-sent; seat S = view as that seat, omitted for everyone).
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from dashboard import replay_view as rv
from dashboard.common import guarded, lake_dir, match_lines, query
from dashboard.finder import player_url, quick_pick, replay_url

STEP = "replay_step"
TIMELINE = "replay_timeline"
SEAT = "replay_seat"
EVERYONE = -1
SCROLL_JS = """<script data-step="STEP">
(() => {
  let tries = 0;
  const go = () => {
    const box = document.querySelector('.st-key-replay_timeline_box');
    const on = box && box.querySelectorAll('input[type=radio]')[STEP];
    const label = on && on.closest('label');
    if (!label) { if (tries++ < 40) setTimeout(go, 100); return; }
    let sc = label.parentElement;
    while (sc && sc !== box && sc.scrollHeight <= sc.clientHeight + 1) sc = sc.parentElement;
    if (!sc) return;
    const dy = label.getBoundingClientRect().top - sc.getBoundingClientRect().top;
    if (dy < 0 || dy > sc.clientHeight - 40) sc.scrollTop += dy - sc.clientHeight / 3;
  };
  setTimeout(go, 50);
})();
</script>"""  # keeps the current event of the timeline in view: a constant script, only the step number filled in


@st.cache_resource(show_spinner="replaying…", max_entries=16)
def _load(match_id: str, lines: tuple[str, ...]) -> rv.Console:
    return rv.load(match_id, lines)


@st.cache_resource(show_spinner=False, max_entries=64)
def _labels(match_id: str, lines: tuple[str, ...], viewer: int | None) -> tuple[list[str], list[set[str]]]:
    con = _load(match_id, lines)
    labels = [rv.timeline_label(ln, con.players, con.game, viewer) for ln in con.lines]
    return labels, [rv.tags(ln, con.game) for ln in con.lines]


@st.cache_data(show_spinner=False, max_entries=16)
def _evidence(match_id: str, lines: tuple[str, ...]) -> str:
    """`paiju dispute`'s self-contained HTML report of this match (analytics.dispute)."""
    from analytics.dispute import render_dispute_html

    return render_dispute_html(list(lines), source=f"lake {lake_dir()}")


def _set_step(value: int | None) -> None:
    if value is not None:
        st.session_state[STEP] = value


def _move(delta: int, last: int) -> None:
    st.session_state[STEP] = max(0, min(last, int(st.session_state.get(STEP, 0)) + delta))


def _from_timeline() -> None:
    st.session_state[STEP] = int(st.session_state[TIMELINE])


def _viewer() -> int | None:
    v = st.session_state.get(SEAT, EVERYONE)
    return None if v in (None, EVERYONE) else int(v)


def _open_match(con: rv.Console, last: int) -> None:
    """A new match: the deep link's step and seat, else the deal, seen by everyone."""
    st.session_state["replay_match"] = con.match_id
    same = st.query_params.get("match") == con.match_id
    raw = st.query_params.get("step") if same else None
    wanted = int(raw) if raw is not None and raw.strip().isdigit() else con.deal_step
    st.session_state[STEP] = max(0, min(last, wanted))
    seat = st.query_params.get("seat") if same else None
    n = len(con.players)
    st.session_state[SEAT] = int(seat) if seat is not None and seat.isdigit() and int(seat) < n else EVERYONE


def _verdict(con: rv.Console) -> None:
    """The verdict (analytics.dispute, as in the report) and the first illegal event, in one box."""
    rep = con.report
    box = {"bad": st.error, "warn": st.warning}.get(rep.verdict_class, st.success)
    text = f"**Verdict.** {rep.verdict}"
    if con.result.error:
        e = con.result.error
        text += f"\n\nfirst illegal event: seq {e['seq']} `{e['type']}` — **{e['code']}**: {e['message']}"
    box(text, icon={"bad": "⚖️", "warn": "⏸️"}.get(rep.verdict_class, "✅"))


def _settlement_summary(con: rv.Console) -> None:
    """The server's `settled` beside the engine's, per seat, with the one shared explanation."""
    st.markdown("##### What the server charged, and what the rules say")
    seats = rv.seat_rows(con)
    if seats:
        st.table(pd.DataFrame(seats).set_index("seat"))
    else:  # no match_started: no seat is known (the verdict above says why)
        st.caption("no seats to show: the log names no players")
    rep = con.report
    if con.result.settlement_matches is True:
        st.success("the server's recorded settlement equals the engine's")
    elif con.result.settlement_matches is False:
        st.error("the server's recorded settlement differs from the engine's")
    if rep.explanations and con.result.settlement_matches is not True:
        st.markdown("**Why they differ:**\n" + "\n".join(f"- {x}" for x in rep.explanations))


def _controls(con: rv.Console, last: int, tagged: list[set[str]]) -> None:
    c = st.columns([1, 1, 1, 1, 1.6, 2.2])
    c[0].button("« first", key="first", on_click=_set_step, args=(0,), width="stretch", shortcut="Home")
    c[1].button("‹ back", key="back", on_click=_move, args=(-1, last), width="stretch", shortcut="Left")
    c[2].button("forward ›", key="forward", on_click=_move, args=(1, last), width="stretch", shortcut="Right")
    c[3].button("last »", key="last", on_click=_set_step, args=(last,), width="stretch", shortcut="End")
    err_at = con.error_step
    if err_at is not None:
        c[4].button(f"jump to the error (step {err_at})", key="to_error", on_click=_set_step, args=(err_at,))
    seats = [EVERYONE, *range(len(con.players))]
    c[5].selectbox(
        "View as", seats, key=SEAT, label_visibility="collapsed",
        format_func=lambda s: "view as: everyone (audit, all hands)" if s == EVERYONE else f"view as {rv.who(s, con.players)}",
    )  # fmt: skip
    k = int(st.session_state[STEP])
    j = st.columns([2.2, 0.6, 1, 1, 1, 2.6])
    who = j[0].selectbox("next move of", range(len(con.players)), key="replay_next_seat", label_visibility="collapsed",
                         format_func=lambda s: f"next move of {rv.who(s, con.players)}")  # fmt: skip
    j[1].button("go ›", key="next_seat", on_click=_set_step, args=(rv.next_index(con, k, seat=who),))
    for col, tag in zip(j[2:5], ("claim", "bomb", "trick"), strict=True):
        if any(tag in t for t in tagged):
            target = rv.next_index(con, k, tag=tag, tagged=tagged)
            col.button(f"next {tag} ›", key=f"next_{tag}", on_click=_set_step, args=(target,), disabled=target is None)
    j[5].caption("keys: ← → step, Home / End jump to the first / last event")


def _step_panel(con: rv.Console, k: int, last: int, viewer: int | None) -> None:
    line = con.lines[k]
    st.markdown(f"#### Step {k} of {last}")
    sentence = rv.sentence(line, con.players, con.game, viewer)
    if line.status in ("illegal", "unreadable"):
        e = line.error or {}
        st.error(
            f"REFUSED at seq {line.seq} `{line.event.type if line.event else 'line'}` — **{e.get('code')}**: "
            f"{e.get('message')} ({line.rule or 'the contract'}). The table shows the state before it."
        )
    elif line.status == "not_replayed":
        st.warning(f"**not applied**: seq {line.seq} comes after the refused event; the table stays as it was before it")
    st.markdown(f"**{sentence}**")
    view = rv.safe_view(con.game, line.state, viewer)
    if not view:
        st.info("no table yet: the deal is step 1" if line.state is None else "the engine gives no picture of this table")
    else:
        st.markdown(
            rv.table_html(view, con.players, con.result.dealer, tiles=con.tiles, passed=rv.exchanges(con, k), viewer=viewer),
            unsafe_allow_html=True,
        )
    nxt = con.lines[k + 1].event if k + 1 < len(con.lines) else None
    groups = rv.legal_groups(con.game, line, nxt.to_dict() if nxt is not None else None, viewer)
    total = sum(len(g) for _, g in groups)
    if groups:
        summary = ", ".join(f"{kind} {len(g)}" for kind, g in groups)
        with st.expander(f"Legal moves now: {total} ({summary})"):
            for kind, moves in groups:
                played = [m for m, p in moves if p]
                head = f"**{kind}** ({len(moves)})" + (f" — played next: `{played[0]}` ✔" if played else "")
                st.markdown(head)
                st.markdown(" · ".join(f"**▶ `{m}`**" if p else f"`{m}`" for m, p in moves[:120])
                            + (f" … and {len(moves) - 120} more" if len(moves) > 120 else ""))  # fmt: skip
    elif line.applied and line.state is not None:
        st.caption("no legal moves: the match is over" if con.game and con.game.is_finished(line.state) else "")
    with st.expander("Event JSON (as logged)"):
        if line.event is not None:
            st.code(json.dumps(rv.mask_event(line.event.to_dict(), viewer), ensure_ascii=False), language="json", wrap_lines=True)
        else:
            st.code(f"unreadable line: {line.error}", language="text")


def _items(con: rv.Console, viewer: int | None) -> None:
    rows = rv.item_rows(con)
    st.markdown("#### Settlement lines (the rules')")
    if con.result.deltas is None:
        st.caption(f"no settlement by the rules: the match is {con.result.status}")
        return
    if not rows:
        st.caption("no transfers (a void match)")
        return
    for r in rows:
        step = r.pop("step")
        r["caused by (step)"] = replay_url(con.match_id, step, viewer) if step is not None else None
    st.dataframe(
        rows, hide_index=True, width="stretch",
        column_config={"caused by (step)": st.column_config.LinkColumn("caused by (step)", display_text=r"step=(\d+)")},
    )  # fmt: skip


def _room_findings(match_id: str) -> None:
    """What the room check found against this match (its own replay is clean: the finding is
    about who dealt, given the room's previous match)."""
    for f in query("room_findings_of", match_id=match_id).itertuples():
        prev = f" after [{f.previous}]({replay_url(f.previous)})" if isinstance(f.previous, str) and f.previous else ""
        st.warning(f"**Room check{prev}.** {f.code} {f.rule}: {f.message}", icon=":material/meeting_room:")


def body() -> None:
    match_id = quick_pick()
    if match_id is None:
        return
    lines = tuple(match_lines(match_id))
    if not lines:
        st.warning(f"unknown match id `{match_id}`: the lake holds no events for it")
        return
    con = _load(match_id, lines)
    last = len(con.lines) - 1
    if last < 0:
        st.warning(f"match `{match_id}`: nothing could be replayed")
        return
    if st.session_state.get("replay_match") != match_id:
        _open_match(con, last)
    st.session_state[STEP] = max(0, min(last, int(st.session_state.get(STEP, 0))))

    r = con.result
    chain = {True: "hash chain verifies ✓", False: "hash chain BROKEN ✗", None: "no hashes"}[r.chain_ok]
    st.subheader(match_id)
    st.markdown(
        f"**{r.game or '?'}** · status **{r.status}** · {len(con.lines)} events in the log · {chain} · players "
        + ", ".join(f"{i}: [**{p}**]({player_url(p)})" for i, p in enumerate(con.players))
    )
    top_left, top_right = st.columns([1.5, 3.5])
    with top_left:
        _verdict(con)
        if r.chain_ok is False:
            st.error("the hash chain does not verify: the log was edited after it was written (events.md §5)")
        _room_findings(match_id)
    with top_right:
        _settlement_summary(con)
    viewer = _viewer()
    labels, tagged = _labels(match_id, lines, viewer)
    st.divider()
    _controls(con, last, tagged)
    viewer = _viewer()
    if last > 0:
        st.slider("Step", 0, last, key=STEP)
    k = int(st.session_state[STEP])
    st.query_params["match"] = match_id
    st.query_params["step"] = str(k)
    if viewer is None:
        st.query_params.pop("seat", None)
    else:
        st.query_params["seat"] = str(viewer)
    left, right = st.columns([3, 2])
    with left:
        _step_panel(con, k, last, viewer)
    with right:
        st.markdown(f"**Timeline** — {len(con.lines)} events; click one to jump")
        st.session_state[TIMELINE] = k
        with st.container(height=560, key="replay_timeline_box"):
            st.radio("Timeline", range(len(con.lines)), key=TIMELINE, format_func=lambda i: labels[i],
                     on_change=_from_timeline, label_visibility="collapsed")  # fmt: skip
        st.html(SCROLL_JS.replace("STEP", str(int(k))), unsafe_allow_javascript=True)
    _items(con, viewer)
    if r.rules:
        with st.expander(f"rules: preset `{r.rules.get('preset', 'standard')}`"):
            st.json(r.rules)
    try:
        report = _evidence(match_id, lines)
    except Exception as e:  # the report is an extra: its failure must not hide the replay
        st.caption(f"the evidence report could not be built: {type(e).__name__}: {e}")
    else:
        st.download_button(
            "Download the evidence report (HTML, as `paiju dispute`)", report,
            file_name=f"dispute-{match_id}.html", mime="text/html", key="replay_evidence",
        )  # fmt: skip


st.title("Replay")
guarded(body)
