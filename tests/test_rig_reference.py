"""The frozen fair references of engine/sim/rig_reference.json (issue 22: ingest no longer deals
20,000 hands a game to rebuild them) are exactly what `compute_reference` gives, for every game
at every seat count it is played with, and `reference` serves them."""

from __future__ import annotations

import json

from engine.registry import GAME_MODULES, get_game
from engine.sim import rig


def test_every_game_and_seat_count_is_frozen_and_recomputes_exactly() -> None:
    frozen = json.loads(rig.FROZEN_REFERENCE.read_text(encoding="utf-8"))
    wanted = {f"{g}/{n}" for g in GAME_MODULES for n in get_game(g).seats}
    assert set(frozen) == wanted
    for key, value in frozen.items():
        game, n = key.split("/")
        assert [list(x) for x in rig.compute_reference(game, int(n))] == value, key
        assert rig.reference(game, int(n)) == tuple(tuple(x) for x in value)


def test_ddz_mean_is_the_exact_hypergeometric_mean() -> None:
    """2s 4·17/54 = 1.259259…, jokers 1.5·2·17/54 = 0.944444…, bombs 2·13·C(50,13)/C(54,17)
    = 0.195667…, rocket 3·C(52,15)/C(54,17) = 0.285115…: 2.684486… (the frozen ddz mean)."""
    from math import comb

    exact = 4 * 17 / 54 + 3 * 17 / 54 + 26 * comb(50, 13) / comb(54, 17) + 3 * comb(52, 15) / comb(54, 17)
    assert json.loads(rig.FROZEN_REFERENCE.read_text(encoding="utf-8"))["ddz/3"][0][0] == exact
