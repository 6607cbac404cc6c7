"""Sanity statistics of the bots (issue 7), with wide tolerances: they catch broken bots, not tune them."""

from __future__ import annotations

from collections import Counter

from engine.replay import replay
from engine.sim.simulate import simulate_match


def _results(game: str, n: int, rules: dict | None = None) -> list:
    out = []
    for i in range(n):
        r = replay(simulate_match(game, rules, seed=2024, index=i, chain=False))
        assert r.status == "finished", r.error
        out.append(r)
    return out


def test_ddz_landlord_wins_between_30_and_70_percent() -> None:
    rs = _results("ddz", 200)
    landlord_wins = sum(1 for r in rs if len(r.winners) == 1)
    assert 0.30 <= landlord_wins / len(rs) <= 0.70, landlord_wins
    # bombs happen but not in every match; springs are rare
    bombs = sum(1 for r in rs if any(it.get("bombs") for it in r.items))
    assert 0 < bombs < len(rs)


def test_sichuan_draws_below_half_and_multi_fan_wins_occur() -> None:
    for game in ("sichuan_xuezhan", "sichuan_xueliu"):
        rs = _results(game, 60)
        draws = sum(1 for r in rs if not r.winners)
        assert draws / len(rs) < 0.5, (game, draws)
        fans = [it["fans"] for r in rs for it in r.items if "fans" in it]
        assert any(len([v for v in f.values() if v]) >= 2 or len(f) >= 2 for f in fans), game


def test_other_mahjong_games_have_winners() -> None:
    for game in ("hongzhong", "anshun"):
        rs = _results(game, 40)
        assert sum(1 for r in rs if r.winners) / len(rs) > 0.5, game
        kinds = Counter(it["kind"] for r in rs for it in r.items)
        assert len(kinds) >= 2, (game, kinds)


def test_card_games_spread_wins_over_seats() -> None:
    for game in ("paodekuai", "zhajinhua", "ddz_laizi"):
        rs = _results(game, 80)
        seats = Counter(w for r in rs for w in r.winners)
        assert len(seats) >= 3, (game, seats)
        assert max(seats.values()) < 0.8 * sum(seats.values()), (game, seats)
