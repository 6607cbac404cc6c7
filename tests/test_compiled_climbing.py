"""The mypyc-compiled climbing games' move engine and bots (engine/compiled.py CLIMBING) against their
pure sources.

As tests/test_compiled_mahjong.py (whose helpers run the two fresh interpreters, one with
PAIJU_PURE=1): on generated hands and tops, the move generator and classifier (Dou Dizhu with its
kicker options, Pao De Kuai), the laizi readings, the Dou Dizhu splitter and the Pao De Kuai bot's
move count, the Dou Dizhu bot's choices in generated positions (both games), and the sha256 of
simulated logs of every climbing game for several seeds and rules must be equal; so must the
classes of what they return (compiled code boxes a value typed as a plain tuple as a plain tuple:
a `Move` or `Reading` must stay one). When built, the modules must really be loaded.

Run as a script (`python tests/test_compiled_climbing.py`) it prints the results of this interpreter.
"""

from __future__ import annotations

import copy
import hashlib
import json
import pickle
import random
from functools import cache
from typing import Any

import pytest

from tests.test_compiled_mahjong import check_loaded, run_results

pytestmark = pytest.mark.xdist_group("compiled_climbing")  # one worker runs the two interpreters once

GAMES: tuple[tuple[str, dict[str, Any] | None], ...] = (
    ("ddz", None),
    ("ddz", {"rob": True, "kicker_rocket": True}),
    ("ddz", {"four_two_solo_pair": False, "all_pass": "redeal"}),
    ("ddz_laizi", None),
    ("paodekuai", None),
    ("paodekuai", {"bomb_pay": "if_unbeaten"}),
)
SEEDS, MATCHES = (1, 7, 22), 8
N_HANDS = 1500
HAND = (1, 2, 3, 4, 1, 1, 1, 1, 2, 2, 2, 0, 1, 1, 1)
_DDZ_DECK = [r for r in range(13) for _ in range(4)] + [13, 14]
_PDK_DECK = [r for r in range(11) for _ in range(4)] + [11, 11, 11, 12]


def _counts(rng: random.Random, deck: list[int], lo: int, hi: int) -> tuple[int, ...]:
    c = [0] * 15
    for r in rng.sample(deck, rng.randint(lo, hi)):
        c[r] += 1
    return tuple(c)


def _kinds(xs: Any) -> list[str]:
    """The class names of the values returned (a Move must stay a Move, not become a tuple)."""
    return sorted({type(x).__name__ for x in xs})


def _ddz_positions(n: int, seed: int) -> list[tuple[Any, Any]]:
    """(game, state) of the play phase: a random deal (laizi rank in ddz_laizi), turn, landlord, and
    half the time a top move (one the seat on top could have played) with a trick's history."""
    from engine.climbing.ddz import DDZ, DDZState
    from engine.climbing.ddz_laizi import DDZ_LAIZI
    from engine.climbing.moves import generate

    rng = random.Random(seed)
    out = []
    for i in range(n):
        game = (DDZ, DDZ_LAIZI)[i % 2]
        rules = game.parse_rules({})
        ids = rng.sample(range(54), 54)
        sizes = [rng.randint(1, 20), rng.randint(1, 17), rng.randint(1, 17)]
        hands = []
        pos = 0
        for k in sizes:
            hands.append(sum(1 << c for c in ids[pos : pos + k]))
            pos += k
        landlord, turn = rng.randrange(3), rng.randrange(3)
        laizi = rng.randrange(13) if game is DDZ_LAIZI else None
        top = top_seat = None
        if i % 4 >= 2:
            top_seat = rng.choice([s for s in range(3) if s != turn])
            c = [0] * 15
            for x in ids[54 - 20 :]:
                c[x >> 2 if x < 52 else x - 39] += 1
            tops = generate(tuple(c), game.move_rules(rules))
            top = rng.choice(tops)
        st = DDZState(
            game=game.id, rules=rules, base=1, first=0, phase="play", turn=turn, hands=tuple(hands), bottom=(),
            landlord=landlord, top=top, top_seat=top_seat, laizi=laizi, mr=game.move_rules(rules),
        )  # fmt: skip
        out.append((game, st))
    return out


def results() -> dict[str, Any]:
    """Everything compared, from this interpreter (JSON-able)."""
    from engine import compiled
    from engine.climbing import bot, laizi, moves, paodekuai_bot
    from engine.climbing.pdk_moves import pdk_move_rules
    from engine.sim.simulate import simulate_lines

    out: dict[str, Any] = {"state": compiled.state(), "loaded": compiled.loaded(compiled.CLIMBING)}
    rules = (moves.ddz_move_rules(), moves.ddz_move_rules(True, False), pdk_move_rules())
    rng = random.Random(22)
    rows: list[Any] = []
    kinds: set[str] = set()
    for i in range(N_HANDS):
        mr = rules[i % 3]
        deck = _PDK_DECK if i % 3 == 2 else _DDZ_DECK
        hand = _counts(rng, deck, 1, 20)
        leads = moves.generate(hand, mr)
        other = moves.generate(_counts(rng, deck, 1, 20), mr)
        top = rng.choice(other)
        follows = moves.generate(hand, mr, top)
        play = rng.choice(leads).counts
        kinds.update(_kinds(leads + follows))
        row: list[Any] = [
            [list(m) for m in leads],
            [list(m) for m in follows],
            list(moves.classify(play, mr) or ()),
            [list(m) for m in moves.classify_all(play, mr)],
            [moves.beats(m, top) for m in leads[:40]],
            [list(m) for m in moves.generate(hand[:13] + (0, 0), mr, None, wild=i % 3)] if i % 5 == 0 else [],
            bot.n_groups(hand),
            list(bot._best_split(hand)),
            [list(m) for m in bot.split(hand, mr)],
            bot.strength(hand, i % 3),
            paodekuai_bot.moves_left(hand),
        ]
        if i % 3 != 2:
            m, lr = i % 4 + 1, rng.randrange(13)
            n_plain = hand[:13] + (0, 0) if i % 2 else hand
            lm = laizi.laizi_moves(n_plain, m, lr, mr, top if i % 6 < 3 else None)
            rds = laizi.readings(play, m % 3, lr, mr, top if i % 2 else None)
            row += [
                [[list(rd.move), list(rd.as_)] for rd in lm],
                [[list(rd.move), list(rd.as_)] for rd in rds],
                list(laizi.best_reading(rds, lr) or ()),
            ]
            kinds.update(_kinds(lm + rds) + _kinds(rd.move for rd in lm + rds))
        rows.append(row)
    out["hands"] = hashlib.sha256(json.dumps(rows, default=list).encode()).hexdigest()
    out["hands_sample"] = json.loads(json.dumps(rows[:3], default=list))
    out["kinds"] = sorted(kinds)
    choices = []
    positions = _ddz_positions(N_HANDS, 5)
    for game, st in positions:
        ev = bot.ddz_bot_action(game, st, random.Random(st.hands[0]))
        choices.append(ev)
    kept = [positions[2][1], positions[3][1], *rules, *rules[2].types]
    out["pickled"] = [
        [y == x, hash(y) == hash(x), type(y) is type(x), moves.generate(HAND, y) == moves.generate(HAND, x)]
        if isinstance(x, moves.MoveRules)
        else [y == x, type(y) is type(x)]
        for x in kept
        for y in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x))
    ]
    out["ddz_choices"] = hashlib.sha256(json.dumps(choices).encode()).hexdigest()
    out["ddz_choices_sample"] = choices[:5]
    out["logs"] = {
        f"{g} {json.dumps(r, sort_keys=True)} seed {seed}": hashlib.sha256(
            "".join(simulate_lines(g, r, MATCHES, seed)).encode()
        ).hexdigest()
        for g, r in GAMES
        for seed in SEEDS
    }
    return out


@cache
def _run(pure: bool) -> dict[str, Any]:
    return run_results(__file__, pure)


def test_pure_path_is_forced_by_the_environment() -> None:
    got = _run(pure=True)
    assert got["state"] == "pure: PAIJU_PURE=1"
    assert got["loaded"] == {m.removesuffix(".py").replace("/", "."): False for m in _climbing()}


def _climbing() -> tuple[str, ...]:
    from engine import compiled

    return compiled.CLIMBING


def test_compiled_modules_are_loaded_when_built() -> None:
    assert _run(pure=False)["state"] in ("compiled", "pure: not built")
    check_loaded("from engine.climbing import bot, laizi, moves, paodekuai_bot", len(_climbing()))


def test_moves_readings_and_splits_are_equal_on_generated_hands() -> None:
    compiled_run, pure_run = _run(pure=False), _run(pure=True)
    assert compiled_run["hands_sample"] == pure_run["hands_sample"]
    assert compiled_run["hands"] == pure_run["hands"]


def test_ddz_bot_choices_are_equal_in_generated_positions() -> None:
    compiled_run, pure_run = _run(pure=False), _run(pure=True)
    assert compiled_run["ddz_choices_sample"] == pure_run["ddz_choices_sample"]
    assert compiled_run["ddz_choices"] == pure_run["ddz_choices"]


def test_simulated_logs_are_byte_identical() -> None:
    assert _run(pure=False)["logs"] == _run(pure=True)["logs"]


def test_moves_and_readings_keep_their_classes() -> None:
    """Compiled modules return `Move`s and `Reading`s, not tuples (the classes of every move and
    reading returned above)."""
    assert _run(pure=False)["kinds"] == _run(pure=True)["kinds"] == ["Move", "Reading"]


def test_states_rules_and_moves_pickle_and_copy() -> None:
    """A Dou Dizhu state (its top `Move`, its `MoveRules`), every game's move rules and type specs
    survive pickle (the process pools) and deepcopy alike, compiled or not."""
    for run in (_run(pure=False), _run(pure=True)):
        assert run["pickled"] and all(all(row) for row in run["pickled"]), run["pickled"]


if __name__ == "__main__":
    print(json.dumps(results()))
