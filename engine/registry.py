"""Game id → game object, imported lazily so that no game is loaded before it is needed."""

from __future__ import annotations

import importlib
from functools import cache

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
assert set(GAME_MODULES) == set(GAME_IDS)


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
