"""Cross-check bridge to the `rlcard` package's Dou Dizhu (a dev dependency, imported lazily).

rlcard deals with a seeded numpy generator, always makes player 0 the landlord (it takes the last
three cards of the deck) and offers its own legal moves as rank strings (`"33344"`, `"BR"`,
`"pass"`). `rlcard_game(seed)` plays one game with uniformly random legal moves and returns the
deal, the moves and rlcard's winner; `paiju_log(...)` writes the same game as a Paiju `ddz` log
(`first` = 0, `bid {0, 1}`, then the plays with concrete cards); `rlcard_restep(seed, moves)`
steps rlcard through the same game again (for the benchmark).
"""

from __future__ import annotations

from typing import Any

_SUIT = {"S": "s", "H": "h", "D": "d", "C": "c"}
_RL_RANK = {"B": "BJ", "R": "RJ"}


def _card(c: Any) -> str:
    if c.suit in ("BJ", "RJ"):
        return str(c.suit)
    return f"{c.rank}{_SUIT[c.suit]}"


def rlcard_game(seed: int) -> tuple[dict[str, Any], list[str], int]:
    """(dealt fields, rlcard moves in order, rlcard winner id) of one random-move game."""
    from rlcard.games.doudizhu.game import DoudizhuGame

    g = DoudizhuGame()
    g.np_random.seed(seed)
    state, _ = g.init_game()
    deck = g.round.dealer.deck
    bottom = [_card(c) for c in deck[-3:]]
    hands = [[_card(c) for c in deck[17 * i : 17 * i + 17]] for i in range(3)]
    rng = g.np_random
    moves: list[str] = []
    while not g.is_over():
        acts = state["actions"]
        a = acts[rng.randint(len(acts))]
        moves.append(a)
        state, _ = g.step(a)
    return {"hands": hands, "bottom": bottom}, moves, int(g.winner_id)


def rlcard_restep(seed: int, moves: list[str]) -> int:
    """Step rlcard's game through the same deal and moves; returns its winner."""
    from rlcard.games.doudizhu.game import DoudizhuGame

    g = DoudizhuGame()
    g.np_random.seed(seed)
    g.init_game()
    for a in moves:
        g.step(a)
    return int(g.winner_id)


def paiju_log(match_id: str, deal: dict[str, Any], moves: list[str]) -> list[dict[str, Any]]:
    """The game as Paiju `ddz` event dicts (no `settled`)."""
    hands = [list(h) for h in deal["hands"]]
    hands[0] = hands[0] + list(deal["bottom"])
    ev: list[dict[str, Any]] = [
        {"match_id": match_id, "seq": 0, "type": "match_started", "game": "ddz", "rules": {"preset": "standard"},
         "players": ["rl0", "rl1", "rl2"], "dealer": 0, "base": 1},
        {"match_id": match_id, "seq": 1, "type": "dealt", "hands": deal["hands"], "bottom": deal["bottom"]},
        {"match_id": match_id, "seq": 2, "type": "bid", "seat": 0, "value": 1},
    ]  # fmt: skip
    seat = 0
    for a in moves:
        if a == "pass":
            ev.append({"match_id": match_id, "seq": len(ev), "type": "pass", "seat": seat})
        else:
            cards = []
            for ch in a:
                want = _RL_RANK.get(ch, ch)
                pick = next(c for c in hands[seat] if c == want or (len(want) == 1 and c[0] == want and c not in ("BJ", "RJ")))
                hands[seat].remove(pick)
                cards.append(pick)
            ev.append({"match_id": match_id, "seq": len(ev), "type": "play", "seat": seat, "cards": cards})
        seat = (seat + 1) % 3
    return ev


def rlcard_env_restep(env: Any, seed: int, moves: list[str]) -> int:
    """The same game stepped through rlcard's environment (`env.step`, state encoding included)."""
    env.game.np_random.seed(seed)
    env.reset()
    for a in moves:
        env.step(a, raw_action=True)
    return int(env.game.winner_id)


def rlcard_env() -> Any:
    import rlcard

    return rlcard.make("doudizhu", config={"seed": 0})
