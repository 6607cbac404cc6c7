"""Issue 22 (mjsim7): the Sichuan reducer's compiled helpers (engine/mahjong/sichuan_core.py) and the
Sichuan bot's native checks (engine/mahjong/bot.py `_sichuan_*`) against the plain computations.

- simulated logs byte-identical to the baseline: sha256 of `simulate_lines` (seed 1) frozen from
  the issue's baseline checkout 7dde44b (/tmp/base7), not from this code;
- `fast_apply` (a plain discard, a window-closing draw) == the reducer's `_apply` on every state
  and event of simulated matches where it answers, with the claim memo as the bot left it;
- the bot's claim scan, self-draw shape check and expected draw == the reducer's methods;
- `event_key`, `set_at`, `add_at`, `has_void` == their definitions;
- the pure path (PAIJU_PURE=1) writes the same logs as this interpreter's path.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from engine.mahjong import bot
from engine.mahjong.sichuan import _EVENT_FIELDS, _discard_copy, _draw_copy, is_sichuan_win
from engine.mahjong.sichuan_core import add_at, event_key, fast_apply, has_void, set_at
from engine.registry import get_bot, get_game
from engine.sim.simulate import simulate_lines, simulate_match

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("sichuan_xuezhan", "sichuan_xueliu")
BASELINE_SHA = {
    # sha256 of "".join(simulate_lines(game, None, n, 1)) computed with the baseline checkout 7dde44b
    ("sichuan_xuezhan", 12): "5f700f341d4e6ed8e399de92c348145a9f8a8bca72b5990f2c970a5318e5a5d0",
    ("sichuan_xueliu", 12): "d47c6f2bf5f071dad89c81fad88d68df268c86d88bf483e03db728cd15b1fc49",
    ("sichuan_xuezhan", 100): "599edf0dd67dc0c63f34e86738777c2feeeddf65a0db44526b9c3d124dbe8fd8",
    ("sichuan_xueliu", 100): "98bd6afeba8d6e6514d9c2b77286000dd85ed12927856d0f8c4d18ec3ed768bb",
}


def _sha(game_id: str, n: int) -> str:
    return hashlib.sha256("".join(simulate_lines(game_id, None, n, 1)).encode()).hexdigest()


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("n", [12, 100])
def test_logs_are_the_baselines_bytes(game_id: str, n: int) -> None:
    assert _sha(game_id, n) == BASELINE_SHA[(game_id, n)]


def test_pure_path_writes_the_same_logs() -> None:
    code = (
        "import hashlib; from engine.sim.simulate import simulate_lines; from engine.compiled import state; "
        "print(state(), *[hashlib.sha256(''.join(simulate_lines(g, None, 12, 1)).encode()).hexdigest() "
        "for g in ('sichuan_xuezhan', 'sichuan_xueliu')])"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PAIJU_PURE": "1"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    got = r.stdout.split()
    assert got[:2] == ["pure:", "PAIJU_PURE=1"]
    assert got[2:] == [BASELINE_SHA[(g, 12)] for g in GAMES]


def _steps(game_id: str, matches: int, seed: int) -> Iterator[tuple[Any, Any, Any]]:
    """(state, event, the claim memo the bot left for it) of simulated matches, replayed as the
    simulator plays them (the bot's choice, then the event)."""
    game = get_game(game_id)
    act = get_bot(game_id)
    import random

    for i in range(matches):
        events = simulate_match(game_id, None, seed=seed, index=i, chain=False)
        s = game.start(events[0], events[1], game.parse_rules({}))
        rng = random.Random(i)
        for ev in events[2:-1]:
            game._claims = (None, [])
            if s.phase == "play":
                act(s, rng)  # fills the claim memo as in a simulation (its choice is not used)
            yield s, ev, game._claims
            game._last = ()
            s = game._apply(s, ev)


@pytest.mark.parametrize("game_id", GAMES)
def test_fast_apply_equals_the_reducer(game_id: str) -> None:
    game = get_game(game_id)
    answered = 0
    for s, ev, memo in _steps(game_id, 15, 5):
        game._claims = memo
        fast = fast_apply(game, s, ev.__dict__, _discard_copy, _draw_copy)
        if fast is None:
            continue
        answered += 1
        game._claims = memo
        assert fast == game._apply(s, ev), (ev.type, s.stage)
    assert answered > 500


@pytest.mark.parametrize("game_id", GAMES)
def test_bot_checks_equal_the_reducer(game_id: str) -> None:
    game = get_game(game_id)
    n_window = n_win = 0
    for s, _ev, _memo in _steps(game_id, 12, 9):
        if s.phase != "play":
            continue
        for j in range(4):
            assert bot._sichuan_win(s.hands[j], s.melds[j], s.void[j]) == is_sichuan_win(
                s.hands[j], s.melds[j], s.void[j]
            )
            n_win += 1
        if s.stage in ("window", "rob"):
            for seats in ((1, 2, 3), (2, 3), (3,), ((s.turn + 1) % 4, (s.turn + 2) % 4, (s.turn + 3) % 4)):
                game._claims = (None, [])
                want = game._first_claimer(s, seats)
                game._claims = (None, [])
                assert bot._sichuan_first_claimer(game, s, seats) == want
                n_window += 1
        if s.wall.remaining == 0:
            continue  # no tile to peek: both raise
        drawer = game._expected_drawer(s)
        got = bot._sichuan_expected_draw(s)
        if drawer is None:
            assert got == (-1, -1)
        else:
            assert got == (drawer, game._expected_tile(s))
    assert n_window > 100 and n_win > 1000


def test_small_helpers_equal_their_definitions() -> None:
    import random

    rng = random.Random(7)
    for _ in range(2000):
        t = tuple(rng.randrange(5) for _ in range(27))
        i = rng.randrange(27)
        assert set_at(t, i, 9) == (*t[:i], 9, *t[i + 1 :])
        assert add_at(t, i, -1) == (*t[:i], t[i] - 1, *t[i + 1 :])
        assert add_at(t, i) == (*t[:i], t[i] + 1, *t[i + 1 :])
        v = rng.randrange(-1, 3)
        assert has_void(t, v) == (v >= 0 and any(t[9 * v : 9 * v + 9]))
    for d in (
        {"seq": 3, "type": "discard", "seat": 1, "tile": "5m"},
        {"seq": 4, "type": "gang", "seat": 2, "tile": "1p", "kind": "an"},
        {"seq": 5, "type": "exchange", "seat": 0, "tiles": ["1m", "2m", "3m"]},
        {"type": "dingque", "suit": "s", "match_id": "x", "ts": "t"},
        {},
    ):
        assert event_key(d) == tuple(map(d.get, _EVENT_FIELDS))
        assert event_key(SimpleNamespace(**d).__dict__) == tuple(map(d.get, _EVENT_FIELDS))
