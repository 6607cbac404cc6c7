"""Colluding bots: a pair of seats that share what they see and play for the pair (ground truth for
`paiju integrity`, docs/integrity.md). A wrapper around the game's own bot: the bot proposes, the
pair's policy overrides the proposal where the pair gains, and every override is a legal event.

- Zha Jin Hua: the weaker hand of the pair folds to the stronger (with only the pair left, or
  whenever the partner is still in), except that the weaker partner of a strong hand (share > 0.85)
  raises to squeeze the third players; the stronger never compares against or opens on the partner
  (another target, else the cheapest bet). Chip dumping (`dumps`, `--colluders A>B`): while B is
  in, A never folds or opens (it calls, to reach the two alone); with only the two left, A makes
  the largest bet it may until it has made `DUMP_BETS` bets in the hand, whatever the cards, then
  folds; B only calls and never folds, compares or opens against A, so B takes what A put in.
- Mahjong (Hongzhong, Anshun): discard a suited tile (never the wild 红中) the partner can win on
  (where a discard may be won on) or peng, before the bot's own choice; never peng or kong away a
  discard the partner could win on.
- Sichuan (血战 sichuan_xuezhan, 血流 sichuan_xueliu): discard a tile the partner (still active,
  SC-R20) can win on (no tile of its void suit in the hand after it, SC-H1) or peng, before
  the bot's own choice, wherever the discard is legal (the void suit goes first, SC-R5).
- Dou Dizhu, Pao De Kuai: never beat the partner's play (pass where passing is legal: the partner
  runs out, bombs are held back).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from engine.mahjong.bot import claimflow_candidates
from engine.tiles import N_SUITED, tile_name

Bot = Callable[[Any, random.Random], dict[str, Any]]
DUMP_BETS = 5
"""Bets a chip dumper makes into a pot it shares with its receiver alone before it folds."""
SUPPORTED = ("zhajinhua", "hongzhong", "anshun", "sichuan_xuezhan", "sichuan_xueliu", "ddz", "ddz_laizi", "paodekuai")


def colluding_bot(game: Any, bot: Bot, pairs: Iterable[tuple[int, int]],
                  dumps: Iterable[tuple[int, int]] = ()) -> Bot:  # fmt: skip
    """`bot` with the seats of each pair playing for the pair; `dumps`: seats (a, b) of pairs
    where a dumps chips to b (Zha Jin Hua only)."""
    partner: dict[int, int] = {}
    for a, b in pairs:
        partner[a], partner[b] = b, a
    dumping = frozenset(dumps)
    if dumping and game.id != "zhajinhua":
        raise ValueError(f"chip dumping is written for zhajinhua only, not {game.id}")
    if game.id == "zhajinhua":
        return _zjh(game, bot, partner, dumping)
    if game.id in ("hongzhong", "anshun"):
        return _claimflow(game, bot, partner)
    if game.id in ("sichuan_xuezhan", "sichuan_xueliu"):
        return _sichuan(game, bot, partner)
    if game.id in ("ddz", "ddz_laizi", "paodekuai"):
        return _climbing(game, bot, partner)
    raise ValueError(f"colluding bots are not written for {game.id}; games: {', '.join(SUPPORTED)}")


def _legal(game: Any, state: Any, seat: int, payload: dict[str, Any]) -> bool:
    return payload in game.legal_actions(state) and payload.get("seat") == seat


def _zjh(game: Any, bot: Bot, partner: dict[int, int], dumping: frozenset[tuple[int, int]] = frozenset()) -> Bot:
    from engine.zhajinhua.bot import strength
    from engine.zhajinhua.hands import Evaluator

    def act(state: Any, rng: random.Random) -> dict[str, Any]:
        payload = bot(state, rng)
        a = state.actor
        if a is None or a not in partner or state.allin is not None:
            return payload
        b = partner[a]
        if not state.active[b] or payload.get("seat") != a or payload["type"] in ("look", "timeout", "forfeit"):
            return payload
        mine = [x for x in game.legal_actions(state) if x.get("seat") == a]
        bets = [x for x in mine if x["type"] == "bet"]
        fold = {"type": "fold", "seat": a}
        r = state.rules
        ev = Evaluator(r.a23 == "second", r.suit_tiebreak, r.special_235)
        weaker = ev.beats(state.hands[b], state.hands[a])
        alone = len(state.active_seats()) == 2
        if alone and (a, b) in dumping:  # a dumps chips to b
            made = sum(1 for c in state.chips if c[0] == a and c[1] == "bet")
            return bets[-1] if bets and made < DUMP_BETS else fold
        if alone and (b, a) in dumping:  # a receives: it only calls
            return bets[0] if bets else fold
        if (a, b) in dumping:  # stay in to reach the two alone: never fold, open or compare on b
            if payload["type"] == "compare" and payload["target"] != b:
                return payload
            return bets[0] if bets else payload
        if alone:  # only the pair: the weaker folds, the stronger waits
            if weaker:
                return fold
            return bets[0] if bets else fold
        if weaker:  # the partner's hand takes the pot: squeeze the others with a strong one, else fold
            return bets[1] if strength(state, b) > 0.85 and len(bets) > 1 else fold
        if payload["type"] == "compare" and payload["target"] == b:
            others = [x for x in mine if x["type"] == "compare" and x["target"] != b]
            return others[0] if others else bets[0] if bets else fold
        if payload["type"] == "open":
            return bets[0] if bets else payload
        return payload

    return act


def _claimflow(game: Any, bot: Bot, partner: dict[int, int]) -> Bot:
    def blocks_partner(s: Any, payload: dict[str, Any]) -> bool:
        """A peng or kong of a discard the partner could win on (the claim would take it away)."""
        j = payload.get("seat")
        if s.phase != "claim" or payload["type"] not in ("peng", "gang") or j not in partner or s.tile is None:
            return False
        b = partner[j]
        return b != s.turn and bool(game.bot_may_hu(s, b, _add(s.hands[b], s.tile), "dianpao"))

    def act(s: Any, rng: random.Random) -> dict[str, Any]:
        payload = bot(s, rng)
        if blocks_partner(s, payload):
            for c in claimflow_candidates(game, s, rng):
                if not blocks_partner(s, c) and game.try_apply(s, c) is not None:
                    return c  # type: ignore[no-any-return]
            rest = [c for c in game.legal_actions(s) if not blocks_partner(s, c)]
            return rest[0] if rest else payload
        a = s.turn
        if s.phase != "act" or payload["type"] != "discard" or a not in partner:
            return payload
        b = partner[a]
        hand, theirs = s.hands[a], s.hands[b]
        wins = [k for k in range(N_SUITED) if hand[k] and game.bot_may_hu(s, b, _add(theirs, k), "dianpao")]
        pengs = [k for k in range(N_SUITED) if hand[k] and theirs[k] >= 2]
        for k in wins + pengs:
            c = {"type": "discard", "seat": a, "tile": tile_name(k)}
            if game.try_apply(s, c) is not None:
                return c
        return payload

    return act


def _sichuan(game: Any, bot: Bot, partner: dict[int, int]) -> Bot:
    from types import SimpleNamespace

    from engine.errors import Illegal
    from engine.mahjong import sichuan as sc

    def legal(s: Any, c: dict[str, Any]) -> bool:
        try:
            game.apply(s, SimpleNamespace(seq=s.seq + 1, **c))
        except Illegal:
            return False
        return True

    def act(s: Any, rng: random.Random) -> dict[str, Any]:
        payload = bot(s, rng)
        a = s.turn
        if s.phase != "play" or s.stage != "act" or payload["type"] != "discard" or a not in partner:
            return payload
        b = partner[a]
        claims = [(k, sc.claim_on(s, b, k)) for k in range(N_SUITED) if s.hands[a][k]]
        for k in [k for k, what in claims if what == "hu"] + [k for k, what in claims if what == "peng"]:
            c = {"type": "discard", "seat": a, "tile": tile_name(k)}
            if legal(s, c):
                return c
        return payload

    return act


def _add(c: tuple[int, ...], k: int) -> tuple[int, ...]:
    return c[:k] + (c[k] + 1,) + c[k + 1 :]


def _climbing(game: Any, bot: Bot, partner: dict[int, int]) -> Bot:
    def act(state: Any, rng: random.Random) -> dict[str, Any]:
        payload = bot(state, rng)
        a = payload.get("seat")
        if payload["type"] != "play" or a not in partner:
            return payload
        top = state.top
        top_seat = getattr(state, "top_seat", None) if game.id != "paodekuai" else (top.seat if top else None)
        if top is None or top_seat != partner[a]:
            return payload
        p = {"type": "pass", "seat": a}
        return p if _legal(game, state, a, p) else payload

    return act
