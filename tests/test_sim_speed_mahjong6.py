"""Issue 22 (mjsim6): the bots' cheap checks before a trial apply, against the reducer's answer.

- Anshun `bot_claim_refused` (AS-R6 checked before the trial apply) == the reducer refusing the
  winning claim, on the claim windows of simulated matches;
- the Sichuan bot's SC-R19 check of a locked seat's an gang (`bot._locked_gang_ok`) == the reducer
  accepting the gang, and where it refuses, the old fallback (first legal hu/draw/discard of
  `legal_actions`) is the discard of the drawn tile the bot now logs at once;
- the claimflow bot's live counts in one pass (`bot._held_or_seen`) == `unseen_counts(hand,
  game.visible(s))`, on every state and seat of simulated Hongzhong and Anshun matches.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from engine.errors import Illegal
from engine.mahjong import bot
from engine.mahjong.bot import _LIVE, unseen_counts
from engine.registry import get_game
from engine.sim.simulate import simulate_match
from engine.tiles import N_SUITED, TILE_NAME


def _states(game_id: str, matches: int, seed: int) -> Iterator[Any]:
    """Every state of simulated matches, replayed by the reducer."""
    game = get_game(game_id)
    for i in range(matches):
        events = simulate_match(game_id, None, seed=seed, index=i, chain=False)
        s = game.start(events[0], events[1], game.parse_rules({}))
        for ev in events[2:-1]:
            yield s
            s = game.apply(s, ev)


def _applies(game: Any, s: Any, payload: dict[str, Any]) -> bool:
    try:
        game.apply(s, SimpleNamespace(seq=s.seq + 1, **payload))
    except Illegal:
        return False
    return True


def test_anshun_claim_refusal_is_the_reducers() -> None:
    game = get_game("anshun")
    refused = accepted = 0
    for s in _states("anshun", 60, 5):
        if s.phase != "claim" or s.tile is None or s.wins or s.done:
            continue
        for j in range(4):
            if j == s.turn or not game.bot_may_hu_on(s, j, s.tile, "dianpao"):
                continue
            ok = _applies(game, s, {"type": "hu", "seat": j, "tile": TILE_NAME[s.tile]})
            assert game.bot_claim_refused(s, j, "dianpao") == (not ok), (s.seq, j)
            refused += not ok
            accepted += ok
    assert refused and accepted


def test_sichuan_locked_an_gang_check_is_the_reducers() -> None:
    game = get_game("sichuan_xueliu")
    sc = bot._sichuan_module()
    refused = accepted = 0
    for st in _states("sichuan_xueliu", 80, 1):
        if st.phase != "play" or st.stage != "act" or st.after_peng or st.wall.remaining <= 0:
            continue
        s = st.turn
        if not sc._locked(st, s) or st.drawn < 0:
            continue
        for k in range(N_SUITED):
            if st.hands[s][k] != 4 or k // 9 == st.void[s]:
                continue
            ok = _applies(game, st, {"type": "gang", "seat": s, "tile": TILE_NAME[k], "kind": "an"})
            assert bot._locked_gang_ok(st, s, k) == ok
            if not ok:
                legal = game.legal_actions(st)
                pref = [a for a in legal if a["type"] in ("hu", "draw", "discard")] or legal
                assert pref[0] == {"type": "discard", "seat": s, "tile": TILE_NAME[st.drawn]}
            refused += not ok
            accepted += ok
    assert refused


@pytest.mark.parametrize("game_id", ["hongzhong", "anshun"])
def test_claimflow_live_counts_are_unseen_counts(game_id: str) -> None:
    game = get_game(game_id)
    n = 0
    for s in _states(game_id, 15, 7):
        for j in range(4):
            h = s.hands[j]
            assert list(bot._held_or_seen(h, s.melds, s.discards).translate(_LIVE)) == unseen_counts(h, game.visible(s))
            n += 1
    assert n > 1000
