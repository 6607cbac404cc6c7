"""Cross-check against an independent implementation: rlcard's Dou Dizhu (its own legal moves)."""

from __future__ import annotations

import pytest

from engine.climbing.rlcard_xcheck import paiju_log, rlcard_game
from engine.replay import replay
from events.codec import parse_event

pytest.importorskip("rlcard")

GAMES = 300


def test_rlcard_random_games_replay_finished_with_the_same_winner() -> None:
    kinds: set[str] = set()
    for seed in range(GAMES):
        deal, moves, winner = rlcard_game(seed)
        events = [parse_event(e) for e in paiju_log(f"rlcard-{seed}", deal, moves)]
        r = replay(events)
        assert r.status == "finished", (seed, r.error)
        assert r.winners == ([0] if winner == 0 else [1, 2]), seed
        assert sum(r.deltas) == 0
        kinds.update(i["type"] for it in r.items for i in it["bombs"])
    assert "bomb" in kinds or "rocket" in kinds  # the sample exercises bombs


RANKS = "3456789TJQKA2BR"


def _rank_str(counts: tuple[int, ...]) -> str:
    return "".join(RANKS[r] * n for r, n in enumerate(counts))


def test_legal_move_sets_equal_rlcards_at_every_step() -> None:
    """At every decision of 25 random games, Paiju's generator offers exactly rlcard's legal moves."""
    from rlcard.games.doudizhu.game import DoudizhuGame

    from engine.climbing.ddz import DDZ

    for seed in range(1000, 1025):
        g = DoudizhuGame()
        g.np_random.seed(seed)
        state, _ = g.init_game()
        deal, moves, _ = rlcard_game(seed)
        events = [parse_event(e) for e in paiju_log(f"x-{seed}", deal, moves)]
        st = DDZ.start(events[0], events[1], DDZ.parse_rules({}))
        st = DDZ.apply(st, events[2])
        for ev, a in zip(events[3:], moves, strict=True):
            ours = {_rank_str(rd.move.counts) for rd in DDZ.moves_for(st, st.turn, st.top)}
            if st.top is not None:
                ours.add("pass")
            assert ours == set(state["actions"]), (seed, ev.seq)
            st = DDZ.apply(st, ev)
            state, _ = g.step(a)


def test_a_reply_outside_rlcards_legal_set_is_refused() -> None:
    """Replace a reply to a pair with a solo the seat holds: does_not_beat at that seq."""
    from engine.climbing.ddz import DDZ, ids_of
    from engine.replay import replay_with_steps

    for seed in range(50):
        deal, moves, _ = rlcard_game(seed)
        events = paiju_log(f"rl-{seed}", deal, moves)
        for i in range(3, len(events) - 1):
            a, b = events[i], events[i + 1]
            if a["type"] == "play" and len(a["cards"]) == 2 and a["cards"][0][0] == a["cards"][1][0]:
                steps, _ = replay_with_steps([parse_event(e) for e in events[: i + 1]])
                st = steps[-1].state
                card = DDZ.view(st)["hands"][b["seat"]][0]
                assert ids_of(st.hands[b["seat"]])
                bad = {**b, "type": "play", "cards": [card]}
                bad.pop("as", None)
                r = replay([parse_event(e) for e in events[: i + 1]] + [parse_event(bad)])
                assert (r.status, r.error["seq"], r.error["code"]) == ("invalid", i + 1, "does_not_beat")
                return
    pytest.fail("no pair found in 50 games")
