"""The bots' shortcuts (issue 22) against the engine's own definitions, on every state of simulated
matches: the Zha Jin Hua bot's `own_actions` is exactly the actor's entries of the engine's
`legal_actions` (its look, its turn actions; not its timeout or forfeit), in the same order."""

from __future__ import annotations

from typing import Any

import pytest

from engine.registry import get_game
from engine.sim.simulate import simulate_match
from engine.zhajinhua.bot import own_actions


def _states(game_id: str, rules: dict[str, Any], players: int | None, matches: int) -> list[Any]:
    game = get_game(game_id)
    out = []
    for i in range(matches):
        events = simulate_match(game_id, rules, 3, i, players=players, chain=False)
        state = game.start(events[0], events[1], game.parse_rules(rules))
        for ev in events[2:-1]:
            out.append(state)
            state = game.apply(state, ev)
    return out


@pytest.mark.parametrize(
    ("rules", "players"),
    [({}, None), ({}, 2), ({"mode": "gold", "look_min_round": 2}, 4), ({"turn_seconds": 0, "compare_min_round": 3}, 6)],
)
def test_zhajinhua_own_actions_are_the_actors_legal_actions(rules: dict[str, Any], players: int | None) -> None:
    game = get_game("zhajinhua")
    seen = 0
    for state in _states("zhajinhua", rules, players, 60):
        a = state.actor
        if a is None or game.is_finished(state):
            continue
        want = [x for x in game.legal_actions(state) if x.get("seat") == a and x["type"] not in ("timeout", "forfeit")]
        assert own_actions(state, a) == want
        seen += 1
    assert seen > 200
