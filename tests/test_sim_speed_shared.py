"""The simulator's shared fast paths (issue 22) against the definitions they replace.

- `_event` (the model's validator, the data dict built once): on thousands of payloads, valid and
  broken (wrong types, subclasses, bools for ints, out-of-range seats, bad cards or tiles, wrong
  lengths, missing and unknown keys, envelope keys, aliases, None), the result is the model's own:
  the same class, field dict (order, values, value types), fields set, extra and private, or the
  same exception with the same message; and every event of simulated matches of every game is the
  model's validation of its payload.
- `_chained_text` (orjson) is `event_to_json` over `fill_chain`, also for strings that need
  escaping and integers beyond 64 bits (the json fallback).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.sim import simulate as sim
from engine.sim.simulate import _event, _ts, simulate_match
from events.chain import fill_chain
from events.codec import event_to_json
from events.models import EVENT_TYPES, AnyEvent

MATCH_ID = "sim-x-3-000007"

VALID: list[dict[str, Any]] = [
    {"type": "pass", "seat": 1},
    {"type": "look", "seat": 0},
    {"type": "open", "seat": 5},
    {"type": "fold", "seat": 2},
    {"type": "allin", "seat": 3},
    {"type": "timeout", "seat": 4},
    {"type": "ting", "seat": 1},
    {"type": "forfeit", "seat": 2},
    {"type": "forfeit", "seat": 2, "reason": "left"},
    {"type": "settled", "deltas": [3, -1, -2]},
    {"type": "bid", "seat": 0, "value": 3},
    {"type": "rob", "seat": 1, "value": True},
    {"type": "bet", "seat": 2, "amount": 4},
    {"type": "compare", "seat": 2, "target": 0},
    {"type": "play", "seat": 1, "cards": ["3h", "3s", "BJ"]},
    {"type": "play", "seat": 1, "cards": ["3h", "4s"], "as": ["3h", "3s"]},
    {"type": "draw", "seat": 1, "tile": "5m"},
    {"type": "discard", "seat": 0, "tile": "9s"},
    {"type": "peng", "seat": 3, "tile": "1p"},
    {"type": "hu", "seat": 1, "tile": "7z"},
    {"type": "gang", "seat": 2, "tile": "7z", "kind": "bu"},
    {"type": "exchange", "seat": 0, "tiles": ["1m", "2m", "3m"]},
    {"type": "dingque", "seat": 3, "suit": "p"},
    {"type": "exchange_direction", "direction": "opposite"},
    {"type": "dealt", "hands": [["As", "Kd", "3c"], ["2h", "5s", "9d"]]},
    {"type": "dealt", "hands": [["1m", "2m"], ["3p"], ["7z"]], "wall": ["4s", "5s"]},
    {"type": "dealt", "hands": [["3s"], ["4s"], ["5s"]], "bottom": ["6s", "RJ", "BJ"]},
    {"type": "dealt", "hands": [["As", "Kd", "3c"], ["2h", "5s", "9d"]], "stacks": [10, 0]},
    {"type": "dealt", "hands": [["As"], ["Kd"]], "bottom": None, "wall": None, "stacks": None},
]


class _Str(str):
    pass


class _Int(int):
    pass


ODD: list[Any] = [
    True, False, -1, 0, 5, 6, 2**70, 3.0, "x", "5m", "3s", None, [], ["3s"], ["5m"], ("3s",), [1, 2],
    [[]], [["3s"]] * 7, _Str("3s"), _Int(2), {"a": 1}, ["3s"] * 55, ["1m"] * 15, [-1, 2], [True, 1],
    "zhi", "opposite", "m", [_Str("3s"), "4s"], [["3s", _Str("4s")], ["5s"]], ["3s", None],
]  # fmt: skip


EXTRA_KEYS = [
    "reason",
    "as",
    "as_",
    "bottom",
    "wall",
    "stacks",
    "seat",
    "tile",
    "hash",
    "extra",
    "seq",
    "ts",
    "match_id",
]


def _mutations(rng: random.Random, n: int) -> list[dict[str, Any]]:
    """Valid payloads with a value replaced, a key dropped, added or renamed."""
    out = []
    for _ in range(n):
        p = dict(rng.choice(VALID))
        how = rng.random()
        keys = [k for k in p if k != "type"]
        if how < 0.6 and keys:
            p[rng.choice(keys)] = rng.choice(ODD)
        elif how < 0.7 and keys:
            del p[rng.choice(keys)]
        elif how < 0.8:
            p[rng.choice(EXTRA_KEYS)] = rng.choice(ODD)
        elif how < 0.9 and "as" in p:
            p["as_"] = p.pop("as")
        else:
            p["type"] = rng.choice([*EVENT_TYPES, _Str("bet")])
        out.append(p)
    return out


def _shape(v: Any) -> Any:
    """A value with the exact type of every part (== alone lets 1 == True and str == subclass)."""
    if isinstance(v, list):
        return (list, [_shape(x) for x in v])
    if isinstance(v, dict):
        return (dict, [(_shape(k), _shape(x)) for k, x in v.items()])
    return (type(v), v)


def _outcome(f: Any) -> Any:
    try:
        ev = f()
    except Exception as e:  # the refusal: its class and message
        return ("error", type(e), str(e))
    return (
        "event",
        type(ev),
        _shape(ev.__dict__),
        ev.__pydantic_fields_set__,
        ev.__pydantic_extra__,
        ev.__pydantic_private__,
    )


def _by_model(match_id: str, seq: int, index: int, payload: dict[str, Any]) -> AnyEvent:
    """The plain definition: the model's own validator on the same data."""
    t = payload["type"]
    if "match_id" in payload or "seq" in payload or "ts" in payload:
        return EVENT_TYPES[t](match_id=match_id, seq=seq, ts=_ts(index, seq), **payload)
    return EVENT_TYPES[t].__pydantic_validator__.validate_python(
        {"match_id": match_id, "seq": seq, "ts": _ts(index, seq), **payload}
    )  # type: ignore[no-any-return]


def test_valid_payloads_equal_the_model() -> None:
    for p in VALID:
        got = _outcome(lambda p=p: _event(MATCH_ID, 12, 7, p))
        assert got[0] == "event" and got == _outcome(lambda p=p: _by_model(MATCH_ID, 12, 7, p))


def test_broken_payloads_get_the_models_answer() -> None:
    rng = random.Random(22)
    refused = trusted = 0
    for p in _mutations(rng, 6000):
        got = _outcome(lambda p=p: _event(MATCH_ID, 12, 7, p))
        want = _outcome(lambda p=p: _by_model(MATCH_ID, 12, 7, p))
        assert got == want, p
        refused += got[0] == "error"
        trusted += got[0] == "event"
    assert refused > 2000 and trusted > 500


def test_the_lists_are_copies() -> None:
    cards = ["3h", "3s"]
    ev = _event(MATCH_ID, 3, 1, {"type": "play", "seat": 1, "cards": cards})
    cards.append("4s")
    assert ev.cards == ["3h", "3s"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("match_id", ["bad id", "x" * 129, "ok\n", "", "sim-ok-1"])
def test_match_id_and_seq_are_checked(match_id: str) -> None:
    for seq in (0, 4, -1):
        p = {"type": "bet", "seat": 1, "amount": 2}
        got = _outcome(lambda seq=seq, p=p: _event(match_id, seq, 2, p))
        assert got == _outcome(lambda seq=seq, p=p: _by_model(match_id, seq, 2, p))


GAMES = ["ddz", "ddz_laizi", "paodekuai", "zhajinhua", "sichuan_xuezhan", "sichuan_xueliu", "hongzhong", "anshun"]


@pytest.mark.parametrize("game_id", GAMES)
def test_simulated_events_are_the_models(game_id: str) -> None:
    for i in range(3):
        for ev in simulate_match(game_id, None, 4, i, chain=False)[1:]:
            payload = {k: v for k, v in ev.canonical_dict().items() if k not in ("match_id", "seq", "ts")}
            want = _by_model(ev.match_id, ev.seq, i, payload)
            assert _outcome(lambda ev=ev: ev) == _outcome(lambda want=want: want)


@pytest.mark.parametrize("game_id", GAMES)
def test_chained_text_is_event_to_json_of_fill_chain(game_id: str) -> None:
    for i in range(2):
        events = simulate_match(game_id, {}, 6, i, chain=False)
        assert sim._chained_text(events) == "".join(event_to_json(e) + "\n" for e in fill_chain(events))


def test_chained_text_escapes_and_big_integers() -> None:
    odd = ['a"b\\c', "tab\tnl\nnul\x00del\x7f", "é中\u2028\U0001f600"]
    events = simulate_match("zhajinhua", {}, 1, 0, chain=False)
    events[0] = events[0].model_copy(update={"players": odd + ["p"], "rules": {"z": 1.5, "a": [2**70, None, True]}})
    events[-1] = _event(events[-1].match_id, events[-1].seq, 0, {"type": "settled", "deltas": [2**70, -(2**70)]})
    events.insert(-1, _event(events[-1].match_id, events[-1].seq, 0, {"type": "forfeit", "seat": 0, "reason": odd[1]}))
    assert sim._chained_text(events) == "".join(event_to_json(e) + "\n" for e in fill_chain(events))
