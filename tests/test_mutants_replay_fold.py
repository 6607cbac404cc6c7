"""Mutation-killing tests for `engine/replay.py` (issue 17): `Fold`, the whole-log driver and the result.

events.md §5 (append-only, hash chain) and §6 (result fields, verdicts, error codes). A toy two-seat
game stands in for the rules so that only the driver is under test. Every hash is a from-scratch
`hashlib.sha256` over the contract's formula, `SHA-256(utf8(hash(k-1)) ‖ canonical JSON of event k
without hash)`, with canonical JSON from `json.dumps(sort_keys, no spaces, ensure_ascii=False)` of
the test's own dicts (never `events.chain`). Verdicts and fields are written out by hand.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

import pytest

import engine.replay as replay_mod
from engine.base import GameRules, Settlement, item, parse_rules
from engine.errors import Illegal
from engine.replay import (
    APPLIED,
    DUPLICATE,
    Fold,
    Outcome,
    ReplayResult,
    merge_entries,
    order_entries,
    replay,
    replay_final,
    replay_with_steps,
    same_event,
    steps,
)
from events.codec import parse_event
from events.errors import ContractError
from tests.test_replay_driver import raw_event


@dataclass(frozen=True)
class ToyState:
    turn: int
    passes: int


class ToyGame:
    """Seats alternate `pass` (the dealer first); after four passes seat 1 wins 1 point from seat 0.

    After the end, one more `pass` by seat 1 is accepted (`continues_after_end`, like 一炮多响).
    """

    id = "toy"
    seats = (2, 3)
    Rules = GameRules
    presets = {"standard": {}}

    def parse_rules(self, raw: Any) -> GameRules:
        return parse_rules(GameRules, self.presets, raw)

    def start(self, started: Any, dealt: Any, rules: Any) -> ToyState:
        return ToyState(started.dealer, 0)

    def apply(self, state: ToyState, ev: Any) -> ToyState:
        if ev.type != "pass":
            raise Illegal("wrong_phase", f"TOY-2 only pass, got {ev.type}")
        if state.passes < 4 and ev.seat != state.turn:
            raise Illegal("not_your_turn", f"TOY-3 seat {state.turn} acts, not {ev.seat}")
        return replace(state, turn=1 - state.turn, passes=state.passes + 1)

    def is_finished(self, state: ToyState) -> bool:
        return state.passes >= 4

    def continues_after_end(self, state: ToyState, ev: Any) -> bool:
        return state.passes == 4 and getattr(ev, "seat", None) == 1

    def settle(self, state: ToyState) -> Settlement:
        return Settlement.from_items(2, [item("toy_win", 1, 0, 1)], [1])

    def turn_phase(self, state: ToyState) -> tuple[int | None, str]:
        return state.turn, "play"


class ToyNoHook(ToyGame):
    """The same game without `continues_after_end`: nothing after the end."""

    continues_after_end = None  # type: ignore[assignment]


class ToyRuled(ToyGame):
    """The same game naming its deal rule (`deal_rule`, as DDZ-R2 / PDK-R2 do)."""

    deal_rule = "TOY-R2"


GAME: dict[str, Any] = {"g": ToyGame()}


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    GAME["g"] = ToyGame()

    def get(g: str) -> Any:
        if g == "anshun":
            raise replay_mod.GameNotAvailable("game 'anshun' is not available")
        return GAME["g"]

    monkeypatch.setattr(replay_mod, "get_game", get)


d = raw_event


def full_dicts(mid: str = "t1", settled: list[int] | None = None) -> list[dict[str, Any]]:
    out = [d(0, "match_started", mid), d(1, "dealt", mid)] + [d(s, mid=mid) for s in range(2, 6)]
    if settled is not None:
        out.append(d(6, "settled", mid, deltas=settled))
    return out


def ev(seq: int, typ: str = "pass", mid: str = "t1", **f: Any) -> Any:
    return parse_event(d(seq, typ, mid, **f))


def sha(prev: str, obj: dict[str, Any]) -> str:
    body = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(prev.encode("utf-8") + body).hexdigest()


def chain_of(dicts: list[dict[str, Any]]) -> list[str]:
    prev, out = "", []
    for x in dicts:
        prev = sha(prev, {k: v for k, v in x.items() if k != "hash"})
        out.append(prev)
    return out


def hashed(dicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**x, "hash": h} for x, h in zip(dicts, chain_of(dicts), strict=True)]


def parsed(dicts: list[dict[str, Any]]) -> list[Any]:
    return [parse_event(x) for x in dicts]


# --- Outcome ---------------------------------------------------------------------------------------


def test_outcome_constants() -> None:
    assert (APPLIED.accepted, APPLIED.duplicate, APPLIED.error) == (True, False, None)
    assert (DUPLICATE.accepted, DUPLICATE.duplicate, DUPLICATE.error) == (True, True, None)
    o = Outcome(False)
    assert (o.duplicate, o.error) == (False, None)


# --- Fold.step ---------------------------------------------------------------------------------------


def test_fold_fresh_state() -> None:
    f = Fold("m")
    assert f.result.match_id == "m" and f.events == [] and f.next_seq == 0
    assert (f.game, f.state, f.rules, f.started, f.n) == (None, None, None, None, 0)
    assert (f.finished, f.settled_seen, f.prev_hash, f.any_hash, f.chain_broken, f.link_chain) == (
        False, False, "", False, False, False)  # fmt: skip
    assert Fold("m", link_chain=True).link_chain is True
    assert f.turn_phase() == (None, "dealing")


def test_fold_applies_a_whole_match_and_concludes() -> None:
    f = Fold("t1")
    outs = [f.step(e) for e in parsed(full_dicts(settled=[-1, 1]))]
    assert all(o is APPLIED for o in outs)
    assert f.next_seq == 7 and f.n == 2 and f.finished and f.settled_seen
    r = f.conclude()
    assert r is f.result
    assert r.to_dict() == {
        "match_id": "t1", "game": "ddz", "status": "finished", "events": 0, "error": None,
        "winners": [1], "deltas": [-1, 1], "items": [{"kind": "toy_win", "seat": 1, "from": 0, "points": 1}],
        "recorded_deltas": [-1, 1], "settlement_matches": True, "chain_ok": None,
    }  # fmt: skip
    # not hashed, not linked: no final hash
    assert r.final_hash is None and f.prev_hash == ""
    assert (r.players, r.base, r.dealer, r.rules) == (["a", "b"], 1, 0, {"preset": "standard"})
    assert f.conclude().to_dict() == r.to_dict()  # idempotent


def test_fold_turn_phase_after_the_deal() -> None:
    f = Fold("t1")
    f.step(ev(0, "match_started"))
    assert f.turn_phase() == (None, "dealing")  # state None until the deal
    f.step(ev(1, "dealt"))
    assert f.turn_phase() == (0, "play")
    f.step(ev(2))
    assert f.turn_phase() == (1, "play")


def test_fold_duplicate_and_conflict() -> None:
    """§5: an identical re-send is a no-op; a different event at a stored seq is `conflict`."""
    f = Fold("t1")
    es = parsed(full_dicts())
    for e in es[:4]:
        f.step(e)
    assert f.step(ev(2)) is DUPLICATE
    assert f.step(ev(0, "match_started")) is DUPLICATE
    out = f.step(ev(3, seat=0))
    assert out.accepted is False and out.duplicate is False
    assert out.error is not None
    assert (out.error.code, out.error.seq, out.error.type, out.error.match_id) == ("conflict", 3, "pass", "t1")
    assert out.error.message == "a different event is already at seq 3 (events.md §5: append-only)"
    assert f.next_seq == 4


def test_fold_gap_and_not_started_messages() -> None:
    out = Fold("t1").step(ev(3))
    assert out.error is not None and out.error.code == "not_started"
    assert out.error.message == "the match has no seq 0 (match_started); its first line is seq 3"
    assert (out.error.seq, out.error.type, out.error.match_id) == (3, "pass", "t1")
    f = Fold("t1")
    f.step(ev(0, "match_started"))
    f.step(ev(1, "dealt"))
    out = f.step(ev(4))
    assert out.error is not None and out.error.code == "seq_gap"
    assert out.error.message == "seq 4 follows seq 1; seq 2 is missing"
    assert out.error.seq == 4


def test_fold_refuse_names_the_fold_match_and_keeps_the_errors_own_seq() -> None:
    """`_refuse` fills seq/type only where the error has none; the match id is always the fold's."""
    f = Fold("mine")
    err = ContractError("bad_field", "x", match_id="other", seq=9, type="bet")
    out = f._refuse(err, ev(2, mid="t1"))
    assert out.error is err and (err.seq, err.type, err.match_id) == (9, "bet", "mine")
    assert out.accepted is False and out.duplicate is False
    err2 = ContractError("bad_field", "y")
    f._refuse(err2, ev(2, mid="t1"))
    assert (err2.seq, err2.type, err2.match_id) == (2, "pass", "mine")


def test_fold_hash_chain_from_the_first_hashed_event() -> None:
    """The events before the first hashed one are linked when it comes; then every event is linked."""
    dicts = full_dicts(settled=[-1, 1])
    hs = chain_of(dicts)
    f = Fold("t1")
    for x in dicts[:3]:
        assert f.step(parse_event(x)) is APPLIED
    assert f.prev_hash == "" and f.link_chain is False and f.any_hash is False
    assert f.step(parse_event({**dicts[3], "hash": hs[3]})) is APPLIED
    assert f.link_chain is True and f.prev_hash == hs[3] and f.any_hash is True
    assert f.step(parse_event(dicts[4])) is APPLIED  # unhashed, still linked
    assert f.prev_hash == hs[4]
    bad = f.step(parse_event({**dicts[5], "hash": hs[4]}))
    assert bad.error is not None and bad.error.code == "bad_hash" and bad.error.seq == 5
    assert bad.error.message == "hash of seq 5 does not verify: the log was edited after it was written (events.md §5)"
    assert f.prev_hash == hs[4] and f.next_seq == 5  # refused: nothing changed
    for x in dicts[5:]:
        assert f.step(parse_event({**x, "hash": hs[x["seq"]]})) is APPLIED
    r = f.conclude()
    assert r.chain_ok is True and r.final_hash == hs[6]


def test_fold_link_chain_from_the_start_without_hashes() -> None:
    dicts = full_dicts()
    hs = chain_of(dicts)
    f = Fold("t1", link_chain=True)
    for x in dicts[:2]:
        f.step(parse_event(x))
    assert f.prev_hash == hs[1] and f.any_hash is False
    r = f.conclude()
    assert r.chain_ok is None and r.final_hash == hs[1] and r.status == "incomplete"


def test_fold_a_refused_rule_event_does_not_advance_the_chain() -> None:
    dicts = full_dicts()
    hs = chain_of(dicts)
    f = Fold("t1", link_chain=True)
    for x in dicts[:3]:
        f.step(parse_event(x))
    wrong = d(3, seat=0)  # seat 1 acts at seq 3 (seat 0 passed at seq 2)
    out = f.step(parse_event(wrong))
    assert out.error is not None and out.error.code == "not_your_turn"
    assert f.prev_hash == hs[2] and f.next_seq == 3


def test_fold_chain_broken_flag_drives_chain_ok() -> None:
    f = Fold("t1")
    f.any_hash, f.chain_broken = True, True
    assert f.conclude().chain_ok is False
    f.chain_broken = False
    assert f.conclude().chain_ok is True
    f.any_hash = False
    assert f.conclude().chain_ok is None


def test_conclude_keeps_invalid_and_compares_a_recorded_settlement() -> None:
    f = Fold("t1")
    for e in parsed(full_dicts(settled=[-1, 1])):
        f.step(e)
    f.result.status = "invalid"
    r = f.conclude()
    # §6: deltas null unless finished; settlement_matches whether recorded == deltas (None != [-1, 1])
    assert (r.status, r.deltas, r.winners, r.items) == ("invalid", None, [], [])
    assert r.settlement_matches is False


def test_conclude_settlement_matches_false_and_null() -> None:
    f = Fold("t1")
    for e in parsed(full_dicts(settled=[1, -1])):
        f.step(e)
    r = f.conclude()
    assert (r.recorded_deltas, r.deltas, r.settlement_matches) == ([1, -1], [-1, 1], False)
    g = Fold("t1")
    for e in parsed(full_dicts()):
        g.step(e)
    r = g.conclude()
    assert (r.status, r.recorded_deltas, r.settlement_matches) == ("finished", None, None)


def test_conclude_unfinished_is_incomplete() -> None:
    f = Fold("t1")
    for e in parsed(full_dicts()[:5]):
        f.step(e)
    r = f.conclude()
    assert (r.status, r.deltas, r.winners, r.items, r.error) == ("incomplete", None, [], [], None)


def test_conclude_items_are_copies() -> None:
    f = Fold("t1")
    for e in parsed(full_dicts()):
        f.step(e)
    r = f.conclude()
    r.items[0]["points"] = 99
    assert f.game is not None
    s = f.game.settle(f.state)
    assert s.items[0]["points"] == 1 and type(r.items[0]) is dict


# --- Fold._apply: the per-event rules (messages are the frozen wording) -----------------------------


def _after(n: int) -> Fold:
    f = Fold("t1")
    for e in parsed(full_dicts())[:n]:
        assert f.step(e) is APPLIED
    return f


def _err(f: Fold, e: Any) -> tuple[str, str]:
    out = f.step(e)
    assert out.error is not None and out.accepted is False
    return out.error.code, out.error.message


def test_apply_seq0_rules() -> None:
    assert _err(Fold("t1"), ev(0, "pass", seat=0)) == ("not_started", "seq 0 must be match_started, got pass")
    assert _err(Fold("t1"), ev(0, "match_started", game="anshun")) == ("bad_rules", "game 'anshun' is not available")
    assert _err(Fold("t1"), ev(0, "match_started", players=["a", "b", "c", "d"])) == (
        "bad_field", "ddz is played by 2 or 3 players, got 4")  # fmt: skip
    assert _err(Fold("t1"), ev(0, "match_started", dealer=2)) == (
        "bad_deal", "dealer 2 is not a seat of a 2-player match")  # fmt: skip (no deal_rule: no leading space)
    f = Fold("t1")
    assert f.step(ev(0, "match_started", players=["a", "b", "c"], dealer=2)) is APPLIED  # dealer 2 < 3 seats
    assert f.n == 3 and f.result.dealer == 2 and f.started is not None and f.started.seq == 0
    GAME["g"] = ToyRuled()
    assert _err(Fold("t1"), ev(0, "match_started", dealer=5)) == (
        "bad_deal", "TOY-R2 dealer 5 is not a seat of a 2-player match")  # fmt: skip


def test_apply_seq1_and_later_rules() -> None:
    assert _err(_after(1), ev(1, "pass", seat=0)) == ("wrong_phase", "seq 1 must be dealt, got pass")
    assert _err(_after(1), ev(1, "dealt", hands=[["3s"], ["4s"], ["5s"]])) == (
        "bad_deal", "dealt has 3 hands for 2 players")  # fmt: skip
    assert _err(_after(1), ev(1, "dealt", hands=[["3s"], ["1m"]])) == (
        "bad_deal", "hand 1 holds '1m', which is not a card of ddz")  # fmt: skip
    assert _err(_after(1), ev(1, "match_started")) == (
        "wrong_phase", "match_started at seq 1: only seq 0 starts a match")  # fmt: skip
    assert _err(_after(3), ev(3, "dealt")) == ("wrong_phase", "dealt at seq 3: the deal is seq 1")
    assert _err(_after(3), ev(3, "settled", deltas=[0, 0])) == (
        "wrong_phase", "settled before the match ended (events.md §2: settled follows the end)")  # fmt: skip
    assert _err(_after(3), ev(3, seat=2)) == ("bad_field", "seat 2 does not exist in a 2-player match")
    assert _err(_after(6), ev(6, "settled", deltas=[0, 0, 0])) == ("bad_field", "settled has 3 deltas for 2 seats")
    f = _after(6)
    assert f.step(ev(6, "settled", deltas=[-1, 1])) is APPLIED
    assert _err(f, ev(7, "settled", deltas=[-1, 1])) == ("after_end", "a second settled event")


def test_apply_mahjong_deal_kind_and_other_games() -> None:
    f = Fold("t1")
    f.step(ev(0, "match_started", game="hongzhong"))
    assert _err(f, ev(1, "dealt", hands=[["1m"], ["As"]])) == (
        "bad_deal", "hand 1 holds 'As', which is not a tile of hongzhong")  # fmt: skip
    assert f.step(ev(1, "dealt", hands=[["1m"], ["2m"]])) is APPLIED
    assert replay_mod._check_deal_kind("toy", parse_event(d(1, "dealt", hands=[["As"], ["1m"]]))) is None  # no kind: no check


def test_apply_after_end_and_continues_after_end() -> None:
    f = _after(6)
    assert f.finished
    assert _err(f, ev(6, seat=0)) == ("after_end", "pass after the match ended")
    assert f.step(ev(6, seat=1)) is APPLIED  # the hook accepts it (the game's own rule)
    assert f.finished is True and f.state.passes == 5
    assert _err(f, ev(7, seat=1)) == ("after_end", "pass after the match ended")  # the hook: only at 4 passes
    GAME["g"] = ToyNoHook()
    g = _after(6)
    assert _err(g, ev(6, seat=1)) == ("after_end", "pass after the match ended")


# --- the whole-log driver: merge, order, gap, conflict, chain verdict, result ------------------------


def test_order_entries_by_seq_keeping_seqless_in_place() -> None:
    a, b, c = ev(2), ev(0, "match_started"), ev(1, "dealt")
    x = ContractError("bad_json", "no seq")
    y = ContractError("bad_json", "no seq, first")
    assert order_entries([y, a, x, b, c]) == [y, b, c, a, x]
    big = ev(99_999)
    assert order_entries([big, a]) == [a, big]
    # equal seq: arrival order; an entry with a seq goes before a seq-less one after the same seq
    a2 = ev(2, seat=1)
    assert order_entries([a, x, a2]) == [a, a2, x]


def test_same_event_rule() -> None:
    """§5 / issue 17: same content, and a hash absent or the stored one."""
    x = d(2)
    h = sha("", x)
    stored = parse_event({**x, "hash": h})
    assert same_event(stored, parse_event(x)) is True
    assert same_event(stored, parse_event({**x, "hash": h})) is True
    assert same_event(stored, parse_event({**x, "hash": "0" * 64})) is False
    assert same_event(stored, parse_event(d(2, seat=1))) is False
    assert same_event(parse_event(x), parse_event({**x, "hash": h})) is False  # the stored one has none


def test_merge_entries_counts_and_refusals() -> None:
    es = parsed(full_dicts())
    m = merge_entries(es)
    assert m.entries == es and m.refused == [] and m.duplicates == 0
    m = merge_entries([es[0], es[1], es[2], ev(2), es[3]])
    assert m.entries == es[:4] and m.refused == [] and m.duplicates == 1
    m = merge_entries([es[0], ev(0, "match_started"), ev(0, "match_started"), es[1]])
    assert m.duplicates == 2 and m.entries == es[:2]
    m = merge_entries([es[0], es[1], es[2], ev(2, seat=1), es[3], ev(2, seat=1)])
    assert m.entries == es[:4] and m.duplicates == 0
    assert [(e.code, e.seq, e.type, e.match_id) for e in m.refused] == [("conflict", 2, "pass", "t1")] * 2
    assert m.refused[0].message == (
        "a different event is already at seq 2 (events.md §5: append-only); the first one received stands")


def test_merge_entries_unreadable_lines() -> None:
    es = parsed(full_dicts())
    u2 = ContractError("bad_json", "unreadable at 2", seq=2)
    u2b = ContractError("bad_json", "again at 2", seq=2)
    none = ContractError("bad_json", "no seq")
    at1 = ContractError("bad_json", "unreadable at 1", seq=1)
    late = ContractError("bad_json", "unreadable at 3, the event came later", seq=3)
    m = merge_entries([es[0], at1, es[1], none, u2, u2b, late, es[3]])
    # seq 1 held by an event (arrived after the unreadable line): the unreadable line is refused (late)
    assert m.entries == [es[0], es[1], u2, es[3]]
    assert m.refused == [at1, none, u2b, late]
    assert m.duplicates == 0


def test_merge_entries_fast_path_falls_back_on_a_duplicate() -> None:
    es = parsed(full_dicts())
    m = merge_entries([*es[:3], ev(1, "dealt"), *es[3:]])  # a re-sent copy (the same object twice is one)
    assert m.entries == es and m.duplicates == 1 and m.refused == []


def test_replay_counts_events_without_unreadable_lines_and_names_refusals() -> None:
    es = parsed(full_dicts(settled=[-1, 1]))
    conflict = ev(3, seat=0)
    bad = ContractError("bad_json", "no seq", match_id="zz")
    r = replay([*es, conflict, bad])
    # 7 events; the conflict and the seq-less line are refused, the match goes on (§5)
    assert (r.status, r.events, r.error, r.settlement_matches) == ("finished", 7, None, True)
    assert [e.code for e in r.refused] == ["conflict", "bad_json"] and all(e.match_id == "t1" for e in r.refused)
    u = ContractError("bad_json", "cannot read", seq=4)
    r = replay([*es[:4], u])
    assert r.events == 4 and r.status == "invalid"
    assert r.error == {"seq": 4, "type": None, "code": "bad_json", "message": "cannot read"}
    assert r.to_dict()["events"] == 4


def test_replay_gap_at_an_unreadable_line_and_the_chain_verdict() -> None:
    """The gap is the first fault, named by the seq after it; the unreadable line past it is not reached."""
    dicts = hashed(full_dicts())
    es = parsed(dicts)
    u = ContractError("bad_json", "cannot read", seq=4)
    r = replay([*es[:3], u])
    assert r.error is not None and (r.error["seq"], r.error["code"], r.error["type"]) == (4, "seq_gap", None)
    assert r.error["message"] == "seq 4 follows seq 2; seq 3 is missing"
    assert r.chain_ok is True  # seq 0-2 verify; the unreadable line breaks only hashed events after it: none
    r = replay([*es[:3], *es[4:]])
    assert (r.error["seq"], r.error["code"], r.error["type"]) == (4, "seq_gap", "pass")
    assert r.chain_ok is False and r.status == "invalid" and r.deltas is None


def test_replay_no_seq0() -> None:
    r = replay(parsed(full_dicts())[2:])
    assert r.error == {"seq": 2, "type": "pass", "code": "not_started",
                       "message": "the match has no seq 0 (match_started); its first line is seq 2"}  # fmt: skip
    assert r.match_id == "t1" and r.game is None and r.events == 4


def test_replay_final_hash_runs_through_the_refused_event() -> None:
    dicts = full_dicts()
    dicts[3] = d(3, seat=0)  # seat 1 acts at seq 3: not_your_turn
    hd = hashed(dicts)
    hs = chain_of(dicts)
    r = replay(parsed(hd))
    assert (r.status, r.error["seq"], r.error["code"]) == ("invalid", 3, "not_your_turn")
    assert r.final_hash == hs[3] and r.chain_ok is True
    # without hashes nothing is linked
    r = replay(parsed(dicts))
    assert r.final_hash is None and r.chain_ok is None


def test_replay_final_hash_of_a_whole_hashed_match() -> None:
    hd = hashed(full_dicts(settled=[-1, 1]))
    hs = chain_of(full_dicts(settled=[-1, 1]))
    r = replay(parsed(hd))
    assert (r.status, r.chain_ok, r.final_hash, r.settlement_matches) == ("finished", True, hs[6], True)
    # one hash only, on the last event: linked from seq 0 all the same
    plain = [parse_event(x) for x in full_dicts(settled=[-1, 1])[:6]] + [parse_event(hd[6])]
    r = replay(plain)
    assert (r.chain_ok, r.final_hash) == (True, hs[6])


def test_whole_chain_verdicts() -> None:
    dicts = full_dicts()
    hd = hashed(dicts)
    es = parsed(hd)
    assert replay_mod._whole_chain(es) == (True, False)
    assert replay_mod._whole_chain(parsed(dicts)) == (False, False)
    assert replay_mod._whole_chain([*es[:3], es[2], *es[3:]]) == (True, False)  # a seq linked once
    assert replay_mod._whole_chain([*es[:3], ContractError("bad_json", "x", seq=3), *es[4:]]) == (True, True)
    # an unreadable line before only unhashed events breaks nothing
    assert replay_mod._whole_chain([*parsed(dicts[:3]), ContractError("bad_json", "x", seq=3)]) == (False, False)
    edited = [*es[:4], parse_event({**hd[4], "seat": 1}), es[5]]
    assert replay_mod._whole_chain(edited) == (True, True)
    # only the first hashed event is wrong: still broken
    assert replay_mod._whole_chain([parse_event({**hd[0], "hash": "0" * 64}), *es[1:]]) == (True, True)


def test_strict_raises_the_first_error_and_lenient_does_not() -> None:
    es = parsed(full_dicts())
    bad = [*es[:3], ev(3, seat=0), *es[4:]]
    with pytest.raises(ContractError) as info:
        replay(bad, strict=True)
    assert (info.value.code, info.value.seq, info.value.match_id, info.value.type) == ("not_your_turn", 3, "t1", "pass")
    assert replay(bad).status == "invalid"
    assert replay(es, strict=True).status == "finished"


def test_steps_and_replay_final_and_with_steps() -> None:
    es = parsed(full_dicts())
    ss = list(steps(es))
    assert [s.seq for s in ss] == [0, 1, 2, 3, 4, 5] and all(s.error is None for s in ss)
    assert ss[0].state is None and ss[1].state == ToyState(0, 0) and ss[5].state == ToyState(0, 4)
    assert [s.event for s in ss] == es
    bad = [*es[:3], ev(3, seat=0), *es[4:]]
    ss = list(steps(bad))
    assert [s.seq for s in ss] == [0, 1, 2, 3]
    last = ss[-1]
    assert last.event == bad[3] and last.state == ToyState(1, 1) and last.error is not None
    assert last.error.code == "not_your_turn"
    r, state = replay_final(es)
    assert r.status == "finished" and state == ToyState(0, 4)
    r, state = replay_final(es[:1])
    assert r.status == "incomplete" and state is None
    out, r = replay_with_steps(bad)
    assert len(out) == 4 and r.status == "invalid" and r.error["seq"] == 3
    # steps at a gap: the event after the gap, the state before it
    ss = list(steps([*es[:3], *es[4:]]))
    assert (ss[-1].seq, ss[-1].event, ss[-1].state) == (4, es[4], ToyState(1, 1))
    assert ss[-1].error is not None and ss[-1].error.code == "seq_gap"
    # steps at an unreadable line: no event, the error is the line's own
    u = ContractError("bad_field", "unknown field", seq=3, type="pass")
    ss = list(steps([*es[:3], u]))
    assert (ss[-1].seq, ss[-1].event, ss[-1].error) == (3, None, u) and u.match_id == "t1"


def test_replay_result_defaults_and_json() -> None:
    r = ReplayResult("m")
    assert r.to_dict() == {
        "match_id": "m", "game": None, "status": "incomplete", "events": 0, "error": None, "winners": [],
        "deltas": None, "items": [], "recorded_deltas": None, "settlement_matches": None, "chain_ok": None,
    }  # fmt: skip
    assert (r.final_hash, r.players, r.rules, r.base, r.dealer, r.refused) == (None, None, None, None, None, [])
    r.game = "麻将"
    assert r.to_json() == (
        '{"match_id":"m","game":"麻将","status":"incomplete","events":0,"error":null,"winners":[],'
        '"deltas":null,"items":[],"recorded_deltas":null,"settlement_matches":null,"chain_ok":null}')


def test_match_id_is_the_first_named() -> None:
    es = parsed(full_dicts(mid="A"))
    assert replay([ContractError("bad_json", "x", seq=0), *es[1:]]).match_id == "A"
    assert replay_mod._match_id([ContractError("bad_json", "x")]) == ""
    assert replay([]).match_id == "" and replay([]).status == "incomplete"


# --- survivors of the first mutmut run (issue 17) ------------------------------------------------------


class ToyDoneAtDeal(ToyGame):
    """A match that ends at its deal (as a void redeal does): `settled` may follow at seq 2."""

    def start(self, started: Any, dealt: Any, rules: Any) -> ToyState:
        return ToyState(started.dealer, 4)


def test_a_match_finished_at_the_deal_takes_settled_at_seq_2() -> None:
    GAME["g"] = ToyDoneAtDeal()
    es = [*parsed(full_dicts()[:2]), ev(2, "settled", deltas=[-1, 1])]
    f = Fold("t1")
    assert [f.step(e) for e in es] == [APPLIED, APPLIED, APPLIED]
    assert f.finished is True
    r = replay(es)
    assert (r.status, r.deltas, r.settlement_matches) == ("finished", [-1, 1], True)


def test_merge_entries_fast_path_is_only_for_events() -> None:
    es = parsed(full_dicts())
    none = ContractError("bad_json", "no seq")
    m = merge_entries([es[0], none])
    assert m.entries == [es[0]] and m.refused == [none] and m.duplicates == 0


def test_final_hash_links_from_seq_0_when_only_a_later_event_is_hashed() -> None:
    """The whole log holds a hash (seq 5), so the driver links from seq 0: the final hash runs through
    the event refused at seq 3 (hash(3) of the formula) and the chain verifies."""
    dicts = full_dicts()
    dicts[3] = d(3, seat=0)  # seat 1 acts at seq 3: not_your_turn
    hs = chain_of(dicts)
    es = [*parsed(dicts[:5]), parse_event({**dicts[5], "hash": hs[5]})]
    r = replay(es)
    assert (r.error["seq"], r.error["code"]) == (3, "not_your_turn")
    assert (r.final_hash, r.chain_ok) == (hs[3], True)


def test_whole_chain_checks_past_a_repeated_seq() -> None:
    hd = hashed(full_dicts())
    es = parsed(hd)
    edited = parse_event({**hd[3], "seat": 0})
    assert replay_mod._whole_chain([*es[:3], es[2], edited, *es[4:]]) == (True, True)


def test_steps_at_an_unreadable_line_carry_the_state_before_it() -> None:
    es = parsed(full_dicts())
    u = ContractError("bad_field", "unknown field", seq=3, type="pass")
    ss = list(steps([*es[:3], u]))
    assert ss[-1].state == ToyState(1, 1)  # after seq 2: seat 1 to act, one pass


def test_replay_final_and_with_steps_name_the_match() -> None:
    es = parsed(full_dicts(mid="M7"))
    assert replay_final(es)[0].match_id == "M7"
    assert replay_with_steps(es)[1].match_id == "M7"


def test_group_lines_a_bad_line_naming_a_match_joins_it() -> None:
    from engine.replay import group_lines
    from events.codec import LineError, ParsedLine

    a0 = ev(0, "match_started", mid="A")
    bad = ContractError("bad_field", "x", match_id="A", seq=1)
    orphan = ContractError("bad_json", "not JSON")
    lines = [ParsedLine("f", 1, a0), LineError("f", 2, bad, b"{}"), LineError("f", 3, orphan, b"{")]
    g = group_lines(lines)
    assert g.matches == {"A": [a0, bad]}
    assert [ln.line for ln in g.line_errors] == [2, 3] and g.line_errors[0].error is bad
    assert [ln.line for ln in g.orphans] == [3]


def test_group_lines_a_bad_line_may_come_first() -> None:
    from engine.replay import group_lines
    from events.codec import LineError, ParsedLine

    bad = ContractError("bad_json", "x", match_id="B", seq=0)
    b1 = ev(1, "dealt", mid="B")
    g = group_lines([LineError("f", 1, bad, b"{"), ParsedLine("f", 2, b1)])
    assert g.matches == {"B": [bad, b1]} and g.orphans == []
