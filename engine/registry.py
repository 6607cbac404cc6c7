"""Game id → game object and its bot, imported lazily so that no game is loaded before it is needed.

The registry pairs a game with its bot: the game modules (pure reducers) do not import the bots,
the bots import the games (tests/test_layers.py checks the arrows).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from functools import cache, partial
from typing import Any

from engine.base import Game
from events.notation import GAME_IDS

GAME_MODULES: dict[str, tuple[str, str]] = {
    "ddz": ("engine.climbing.ddz", "DDZ"),
    "ddz_laizi": ("engine.climbing.ddz_laizi", "DDZ_LAIZI"),
    "paodekuai": ("engine.climbing.paodekuai", "PAODEKUAI"),
    "zhajinhua": ("engine.zhajinhua.game", "ZHAJINHUA"),
    "sichuan_xuezhan": ("engine.mahjong.sichuan", "XUEZHAN"),
    "sichuan_xueliu": ("engine.mahjong.sichuan", "XUELIU"),
    "hongzhong": ("engine.mahjong.hongzhong", "HONGZHONG"),
    "anshun": ("engine.mahjong.anshun", "ANSHUN"),
}
BOT_FUNCTIONS: dict[str, tuple[str, str]] = {
    "ddz": ("engine.climbing.bot", "ddz_bot_action"),
    "ddz_laizi": ("engine.climbing.bot", "ddz_bot_action"),
    "paodekuai": ("engine.climbing.paodekuai_bot", "choose"),
    "zhajinhua": ("engine.zhajinhua.bot", "bot_action"),
    "sichuan_xuezhan": ("engine.mahjong.bot", "sichuan_action"),
    "sichuan_xueliu": ("engine.mahjong.bot", "sichuan_action"),
    "hongzhong": ("engine.mahjong.bot", "claimflow_action"),
    "anshun": ("engine.mahjong.bot", "claimflow_action"),
}
"""Game id → (module, function `(game, state, rng) -> event payload`) of the bot that plays it."""
assert set(GAME_MODULES) == set(GAME_IDS) == set(BOT_FUNCTIONS)

Bot = Callable[[Any, random.Random], dict[str, Any]]
"""`bot(state, rng)`: the next event a decent player (or the system: `laizi`, `exchange_direction`)
logs, `{"type": …, fields…}` without `match_id`/`seq`; only called while the match is not finished."""


class GameNotAvailable(LookupError):
    """The game id is unknown, or its engine is not installed in this build."""


@cache
def get_game(game_id: str) -> Game:
    """The game object for a contract game id."""
    try:
        module_name, attr = GAME_MODULES[game_id]
    except KeyError:
        raise GameNotAvailable(f"unknown game {game_id!r}; games: {', '.join(GAME_IDS)}") from None
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name and module_name.startswith(e.name):
            raise GameNotAvailable(f"the engine for {game_id!r} is not available in this build") from None
        raise
    return getattr(module, attr)  # type: ignore[no-any-return]


def available_games() -> list[str]:
    """Game ids whose engine can be loaded, in contract order."""
    out = []
    for g in GAME_IDS:
        try:
            get_game(g)
        except GameNotAvailable:
            continue
        out.append(g)
    return out


@cache
def get_bot(game_id: str) -> Bot:
    """The bot of a contract game id, bound to its game object."""
    game = get_game(game_id)
    module_name, attr = BOT_FUNCTIONS[game_id]
    return partial(getattr(importlib.import_module(module_name), attr), game)


def bot_action(game: Game, state: Any, rng: random.Random) -> dict[str, Any]:
    """The next event `game`'s bot logs in `state` (the game object's registered bot)."""
    return get_bot(game.id)(state, rng)


def turn_phase(game: Game, state: Any) -> tuple[int | None, str]:
    """Whose turn it is and the phase: the `turn` and `phase` of `game.view(state)`.

    Each game's `turn_phase(state)` hook reads the two straight from its state (the view builds
    the whole table, as dear as an event's `apply`); a game without the hook pays for its view.
    tests/test_referee_live.py checks hook and view agree at every step of simulated matches.
    """
    hook = getattr(game, "turn_phase", None)
    if hook is not None:
        return hook(state)  # type: ignore[no-any-return]
    v = game.view(state)
    turn = v.get("turn")
    return (turn if isinstance(turn, int) else None), str(v.get("phase"))
