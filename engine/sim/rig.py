"""Hand strength at the deal, its fair reference, and a dealer that favours one player.

The strength of a seat's dealt hand (higher = better), one measure per game family:
- Zha Jin Hua: the hand's mid-rank among all 22,100 three-card hands under the standard ranking
  (the share it beats plus half the share it ties), exact: under a fair shuffle each seat's hand
  is uniform over the 22,100 hands, so the reference mean and SD are computed over all of them.
- Dou Dizhu and Pao De Kuai: 2s + 1.5 × jokers + 2 × bombs (four of a rank) + 3 × rocket, on the
  17 / 16 dealt cards (the bottom is not part of a seat's deal).
- Mahjong: −(starting shanten) + 0.1 × pairs (engine/mahjong/core.py shanten, seven pairs
  allowed), on the dealt 13 (the dealer's 14).
The fair reference of the card and tile games comes from `REF_DEALS` deals of the game's own
shuffle with a fixed seed, per seat position relative to the dealer, positions the shuffle treats
alike pooled (every Dou Dizhu seat; the mahjong dealer, who holds 14, apart from the others).
Those 20,000 deals cost 1–5 s of CPU a game (the mahjong shanten), paid by every ingest: the
references are frozen as data in `rig_reference.json` (`freeze_reference` writes it;
tests/test_rig_reference.py recomputes every entry and compares), and computed only for a
(game, seat count) the file does not hold.

`rigged_deal`: with chance `fraction` the deal is re-drawn (from the match's generator, at most
`MAX_REDRAWS` times) until the favoured seat's strength is above the fair mean of its position.
"""

from __future__ import annotations

import bisect
import inspect
import json
import random
from collections.abc import Mapping, Sequence
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from engine.cards import CARD_ID, rank_of
from engine.tiles import N_KINDS, tile_id

REF_DEALS = 20000
"""Fair deals behind the simulated reference of the card and tile games."""
REF_SEED = 20261201
MAX_REDRAWS = 50

CLIMBING = ("ddz", "ddz_laizi", "paodekuai")
MAHJONG = ("sichuan_xuezhan", "sichuan_xueliu", "hongzhong", "anshun")


@cache
def _zjh_keys() -> tuple[list[tuple[int, ...]], dict[tuple[int, int, int], float]]:
    from engine.zhajinhua.hands import evaluate

    hands = list(combinations(range(52), 3))
    evs = [evaluate(h) for h in hands]  # once each: the table is built in every process that measures
    keys = sorted(evs)
    n = len(keys)
    mid = {h: (bisect.bisect_left(keys, k) + bisect.bisect_right(keys, k)) / 2 / n for h, k in zip(hands, evs, strict=True)}
    return keys, mid


def zjh_strength(cards: Sequence[str]) -> float:
    """Mid-rank of a Zha Jin Hua hand among all 22,100 hands (standard ranking)."""
    ids = tuple(sorted(CARD_ID[c] for c in cards))
    return _zjh_keys()[1][ids]  # type: ignore[index]


def climbing_strength(cards: Sequence[str]) -> float:
    """2s + 1.5 × jokers + 2 × bombs + 3 × rocket."""
    counts = [0] * 15
    for c in cards:
        counts[rank_of(CARD_ID[c])] += 1
    jokers = counts[13] + counts[14]
    bombs = sum(1 for r in range(13) if counts[r] == 4)
    rocket = 1 if counts[13] and counts[14] else 0
    return counts[12] + 1.5 * jokers + 2 * bombs + 3 * rocket


def mahjong_strength(tiles: Sequence[str]) -> float:
    """−(shanten) + 0.1 × pairs of the dealt tiles."""
    from engine.mahjong.core import shanten

    counts = [0] * N_KINDS
    for t in tiles:
        counts[tile_id(t)] += 1
    pairs = sum(1 for c in counts if c >= 2)
    return -shanten(counts) + 0.1 * pairs


def family(game_id: str) -> str:
    """`zhajinhua`, `climbing` or `mahjong`."""
    if game_id == "zhajinhua":
        return "zhajinhua"
    return "climbing" if game_id in CLIMBING else "mahjong"


def strengths(game_id: str, hands: Sequence[Sequence[str]]) -> list[float]:
    """The strength of every seat's dealt hand."""
    f = family(game_id)
    measure = zjh_strength if f == "zhajinhua" else climbing_strength if f == "climbing" else mahjong_strength
    return [measure(h) for h in hands]


FROZEN_REFERENCE = Path(__file__).with_name("rig_reference.json")


@cache
def _frozen() -> dict[str, list[list[float]]]:
    """`game/n` → the frozen reference (empty when the file is missing or unreadable)."""
    try:
        data = json.loads(FROZEN_REFERENCE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@cache
def reference(game_id: str, n: int) -> tuple[tuple[float, float], ...]:
    """(mean, SD) of a fair deal's strength per seat position relative to the dealer
    (index (seat − dealer) mod n): the frozen value, else `compute_reference`."""
    frozen = _frozen().get(f"{game_id}/{n}")
    if frozen is not None:
        return tuple((float(m), float(sd)) for m, sd in frozen)
    return compute_reference(game_id, n)


def freeze_reference() -> None:
    """Write `rig_reference.json`: the reference of every game at every seat count it is played with."""
    from engine.registry import GAME_MODULES, get_game

    data = {f"{g}/{n}": [list(x) for x in compute_reference(g, n)] for g in GAME_MODULES for n in get_game(g).seats}
    rows = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in data.items())
    FROZEN_REFERENCE.write_text("{\n" + rows + "\n}\n", encoding="utf-8")


def compute_reference(game_id: str, n: int) -> tuple[tuple[float, float], ...]:
    """The reference from `REF_DEALS` seeded deals of the game's own shuffle (exact for Zha Jin Hua)."""
    if family(game_id) == "zhajinhua":
        vals = np.fromiter(_zjh_keys()[1].values(), dtype=float)
        return tuple((float(vals.mean()), float(vals.std())) for _ in range(n))
    from engine.registry import get_game

    game = get_game(game_id)
    rules = game.parse_rules({})
    rng = random.Random(REF_SEED)
    kw = {"dealer": 0} if "dealer" in inspect.signature(game.deal).parameters else {}
    rows = []
    for _ in range(REF_DEALS):
        rows.append(strengths(game_id, game.deal(rules, n, rng, **kw)["hands"]))
    a = np.asarray(rows)
    # positions the shuffle treats alike share one reference: every Dou Dizhu seat, every mahjong
    # seat but the dealer's (14 tiles); Pao De Kuai's dealer holds 3s: each position its own
    if game_id in ("ddz", "ddz_laizi"):
        groups = [list(range(n))] * n
    elif game_id in MAHJONG:
        groups = [[0]] + [list(range(1, n))] * (n - 1)
    else:
        groups = [[k] for k in range(n)]
    out = [(float(a[:, g].mean()), float(a[:, g].std())) for g in groups]
    if game_id in ("ddz", "ddz_laizi"):  # the mean is exact (hypergeometric), the SD simulated
        out = [(ddz_mean(), sd) for _, sd in out]
    return tuple(out)


def ddz_mean(hand: int = 17, deck: int = 54) -> float:
    """Exact mean of `climbing_strength` for `hand` cards of the 54-card deck: 4·h/D 2s,
    1.5 × 2·h/D jokers, 2 × 13 × C(D−4, h−4)/C(D, h) bombs, 3 × C(D−2, h−2)/C(D, h) rocket."""
    from math import comb

    return (
        4 * hand / deck + 1.5 * 2 * hand / deck + 2 * 13 * comb(deck - 4, hand - 4) / comb(deck, hand)
        + 3 * comb(deck - 2, hand - 2) / comb(deck, hand)
    )  # fmt: skip


def rigged_deal(
    game: Any, rules: Any, n: int, rng: random.Random, deal_kw: Mapping[str, Any], seat: int, fraction: float, dealer: int
) -> dict[str, Any]:
    """The `dealt` fields, re-drawn with chance `fraction` until `seat` is above its fair mean."""
    fields: dict[str, Any] = game.deal(rules, n, rng, **deal_kw)
    if rng.random() >= fraction:
        return fields
    mean = reference(game.id, n)[(seat - dealer) % n][0]
    for _ in range(MAX_REDRAWS):
        if strengths(game.id, fields["hands"])[seat] > mean:
            break
        fields = game.deal(rules, n, rng, **deal_kw)
    return fields
