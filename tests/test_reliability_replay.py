"""Reliability (issue 12 §1, §4, §5): replay of damaged real logs, tamper evidence, limits.

Real logs come from the simulator (bots through the real engines, hashes filled in). Hypothesis
mutates one event (a field given a random value), drops, duplicates, swaps or inserts one, and the
replay must end in a contract result (never an exception), while the other match of the same file
replays exactly as before. Every edit of a stored event that changes its content is caught by the
hash chain at that very seq; `paiju replay` reports it with exit 1.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import paiju
from engine.registry import available_games
from engine.replay import ReplayResult, group_lines, replay
from engine.sim.simulate import simulate_match
from events.chain import fill_chain
from events.codec import MAX_SEQ, LineError, ParsedLine, event_to_json, iter_lines, parse_event
from events.errors import ERROR_CODES, ContractError
from events.notation import ALL_CARDS, ALL_TILE_KINDS

GAMES = available_games()
pytestmark = pytest.mark.skipif(not GAMES, reason="no game engine is available in this build yet")
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def _log(game: str, index: int) -> tuple[Any, ...]:
    return tuple(simulate_match(game, {}, seed=12, index=index, prefix="rel"))


def _dicts(game: str, index: int) -> list[dict[str, Any]]:
    return [e.to_dict() for e in _log(game, index)]


def _entries(dicts: list[dict[str, Any]]) -> list[Any]:
    """What `group_lines` hands the replay: an event, or the line's ContractError at its place."""
    out: list[Any] = []
    for d in dicts:
        try:
            out.append(parse_event(d))
        except ContractError as e:
            out.append(e)
    return out


def _check_result(r: ReplayResult) -> None:
    assert r.status in ("finished", "incomplete", "invalid")
    if r.status == "invalid":
        assert r.error is not None and r.error["code"] in ERROR_CODES and r.error["message"]
        assert r.deltas is None
    else:
        assert r.error is None
    if r.deltas is not None:
        assert sum(r.deltas) == 0
    json.dumps(r.to_dict())  # the result is always JSON


random_values = st.one_of(
    st.integers(-2, 7),
    st.integers(),
    st.booleans(),
    st.none(),
    st.text(max_size=4),
    st.sampled_from(ALL_CARDS + ALL_TILE_KINDS),
    st.lists(st.sampled_from(ALL_CARDS + ALL_TILE_KINDS), max_size=6),
    st.lists(st.integers(-50, 50), min_size=2, max_size=4),
    st.dictionaries(st.sampled_from(["preset", "x"]), st.one_of(st.text(max_size=3), st.integers()), max_size=2),
)


@st.composite
def damaged(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]], str]:
    game = draw(st.sampled_from(GAMES))
    dicts = _dicts(game, draw(st.integers(0, 2)))
    k = draw(st.integers(0, len(dicts) - 1))
    op = draw(st.sampled_from(["mutate", "mutate", "drop", "duplicate", "swap", "insert", "strip_hash"]))
    out = [dict(d) for d in dicts]
    if op == "mutate":
        keys = [key for key in out[k] if key not in ("hash",)]
        key = draw(st.sampled_from(keys))
        out[k][key] = draw(random_values)
    elif op == "drop":
        del out[k]
    elif op == "duplicate":
        out.insert(k, dict(out[k]))
    elif op == "swap" and k + 1 < len(out):
        out[k], out[k + 1] = out[k + 1], out[k]
    elif op == "insert":
        extra = dict(out[draw(st.integers(0, len(out) - 1))])
        extra["seq"] = draw(st.integers(0, len(out) + 1))
        extra.pop("hash", None)
        out.insert(k, extra)
    elif op == "strip_hash":
        out[k].pop("hash", None)
    return game, out, op


@FUZZ
@given(damaged())
def test_damaged_real_logs_give_contract_results_and_leave_other_matches_alone(case: Any) -> None:
    _, dicts, _ = case
    other = _dicts(GAMES[0], 5)
    clean_other = replay(list(_log(GAMES[0], 5)))
    # interleave the damaged match with a clean one, as a server's file would
    lines: list[bytes] = []
    for i in range(max(len(dicts), len(other))):
        if i < len(dicts):
            lines.append(json.dumps(dicts[i], ensure_ascii=False).encode())
        if i < len(other):
            lines.append(json.dumps(other[i], ensure_ascii=False).encode())
    grouped = group_lines(iter_lines(io.BytesIO(b"\n".join(lines) + b"\n"), "fuzz"))
    for mid, entries in grouped.matches.items():
        r = replay(entries)
        _check_result(r)
        if mid == clean_other.match_id:
            assert r.to_dict() == clean_other.to_dict()


# ------------------------------------------------------------------ tamper evidence (§4)


@FUZZ
@given(st.data())
def test_any_content_edit_of_a_stored_event_is_caught_at_its_seq(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(GAMES))
    dicts = _dicts(game, data.draw(st.integers(0, 2)))
    k = data.draw(st.integers(0, len(dicts) - 1))
    key = data.draw(st.sampled_from([x for x in dicts[k] if x not in ("hash", "match_id", "seq", "type")]))
    new = data.draw(random_values)
    edited = [dict(d) for d in dicts]
    edited[k][key] = new
    entries = _entries(edited)
    if isinstance(entries[k], ContractError) or entries[k] == parse_event(dicts[k]):
        return  # refused as a line (bad_field) or no change in content: nothing to prove here
    r = replay(entries)
    assert r.status == "invalid"
    assert r.chain_ok is False
    assert r.error is not None and r.error["seq"] <= k
    if r.error["seq"] == k:
        assert r.error["code"] == "bad_hash"


def _tamper_cases(events: list[Any]) -> dict[str, tuple[list[str], str, int]]:
    """name → (edited lines, the code expected, the seq expected)."""
    lines = [event_to_json(e) for e in events]
    dicts = [json.loads(x) for x in lines]
    play_at = next(i for i, d in enumerate(dicts) if i > 1 and d["type"] not in ("settled",))
    out: dict[str, tuple[list[str], str, int]] = {}
    # a card / tile in the deal swapped for another one
    d = json.loads(lines[1])
    hand = d["hands"][0]
    hand[0] = next(c for c in (ALL_CARDS if hand[0] in ALL_CARDS else ALL_TILE_KINDS) if c != hand[0])
    out["dealt_card"] = ([*lines[:1], json.dumps(d), *lines[2:]], "bad_hash", 1)
    # the recorded amount of the settlement
    d = json.loads(lines[-1])
    d["deltas"][0] += 1
    d["deltas"][1] -= 1
    out["settled_amount"] = ([*lines[:-1], json.dumps(d)], "bad_hash", len(lines) - 1)
    # a line deleted in the middle
    out["deleted_line"] = ([*lines[:play_at], *lines[play_at + 1 :]], "seq_gap", play_at + 1)
    # a line inserted with a seq already used
    ins = json.loads(lines[play_at])
    ins.pop("hash")
    ins["ts"] = "2026-11-01T00:00:00Z" if ins.get("ts") != "2026-11-01T00:00:00Z" else "2026-11-02T00:00:00Z"
    out["inserted_line"] = ([*lines[: play_at + 1], json.dumps(ins), *lines[play_at + 1 :]], "conflict", play_at)
    # a line inserted and every later seq renumbered to make room (with the old hashes)
    shifted = [json.loads(x) for x in lines[play_at:]]
    for x in shifted:
        x["seq"] += 1
    fake = dict(shifted[0], seq=play_at)
    fake.pop("hash")
    out["inserted_renumbered"] = ([*lines[:play_at], json.dumps(fake), *map(json.dumps, shifted)], "bad_hash", play_at + 1)
    # the match's players rewritten
    d = json.loads(lines[0])
    d["players"][0] = d["players"][0] + "x"
    out["player_name"] = ([json.dumps(d), *lines[1:]], "bad_hash", 0)
    return out


@pytest.mark.parametrize("game", GAMES or ["none"])
def test_paiju_replay_reports_each_kind_of_tampering(game: str, tmp_path: Path) -> None:
    events = list(_log(game, 0))
    clean = tmp_path / "clean.jsonl"
    clean.write_text("".join(event_to_json(e) + "\n" for e in events))
    assert _paiju_replay(clean)[0] == 0
    for name, (lines, code, seq) in _tamper_cases(events).items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        rc, results, err = _paiju_replay(path)
        assert rc == 1, name
        (r,) = results
        if code == "conflict":
            # the first event received at a seq stands; the later one is quarantined and named
            # on stderr (engine.replay.merge_entries: one decision with the lake)
            assert r["status"] == "finished" and r["error"] is None, name
            assert err.startswith(f"{r['match_id']} seq {seq}: conflict: ") and err.count("\n") == 1, err
            continue
        assert r["status"] == "invalid", name
        assert (r["error"]["code"], r["error"]["seq"]) == (code, seq), (name, r["error"])
        if code == "bad_hash":
            assert r["chain_ok"] is False, name


def _paiju_replay(path: Path) -> tuple[int, list[dict[str, Any]], str]:
    buf, err = io.StringIO(), io.StringIO()
    with redirect_stdout(buf), redirect_stderr(err):
        rc = paiju.main(["replay", str(path), "--json"])
    return rc, [json.loads(x) for x in buf.getvalue().splitlines() if x.strip()], err.getvalue()


def test_a_full_rewrite_with_recomputed_hashes_changes_the_final_hash() -> None:
    """The chain alone cannot tell a consistent rewrite; the final hash (shown by `paiju dispute`) can."""
    events = list(_log(GAMES[0], 0))
    d = events[-1].to_dict()
    d["deltas"] = [d["deltas"][1], d["deltas"][0], *d["deltas"][2:]]
    d.pop("hash")
    rewritten = fill_chain([*[e.model_copy(update={"hash": None}) for e in events[:-1]], parse_event(d)])
    a, b = replay(events), replay(rewritten)
    assert b.chain_ok is True
    assert a.final_hash != b.final_hash


# ------------------------------------------------------------------ limits (§5)


def test_a_match_with_an_absurd_number_of_events_is_refused_with_a_reason() -> None:
    events = list(_log(GAMES[0], 0))
    head = [event_to_json(e) for e in events[:2]]
    mid = events[0].match_id
    filler = (f'{{"match_id":"{mid}","seq":{s},"type":"pass","seat":0}}' for s in range(MAX_SEQ - 2, MAX_SEQ + 3))
    body = ("\n".join([*head, *filler]) + "\n").encode()
    grouped = group_lines(iter_lines(io.BytesIO(body), "absurd"))
    errors = [ln for ln in grouped.line_errors if isinstance(ln, LineError)]
    assert len(errors) == 2 and all(e.error.code == "bad_field" and "exceeds the limit" in e.error.message for e in errors)
    assert all(e.error.match_id == mid for e in errors)
    r = replay(grouped.matches[mid])
    assert r.status == "invalid"  # stops at the gap, well before the absurd seqs
    assert sum(isinstance(x, ParsedLine) for x in [*iter_lines(io.BytesIO(body), "again")]) == 5


@pytest.mark.parametrize("game", GAMES or ["none"])
def test_a_deal_of_the_wrong_kind_is_bad_deal_not_a_crash(game: str) -> None:
    """Found by the atheris run: a tile (`1s`) in a Dou Dizhu hand crashed the engine (KeyError)."""
    dicts = _dicts(game, 0)
    for wrong in ("1s", "7z", "As", "BJ"):
        d = [dict(x) for x in dicts]
        hands = [list(h) for h in d[1]["hands"]]
        if hands[0][0] == wrong or (wrong in ALL_CARDS) == (hands[0][0] in ALL_CARDS and hands[0][0] not in ALL_TILE_KINDS):
            continue
        hands[0][0] = wrong
        d[1]["hands"] = hands
        for x in d:
            x.pop("hash", None)
        r = replay(_entries(d))
        assert r.status == "invalid" and r.error is not None
        assert (r.error["seq"], r.error["code"]) == (1, "bad_deal"), (wrong, r.error)
