"""The house-rules lab's statistics (analytics/lab.py) and `paiju lab` end to end."""

from __future__ import annotations

import json
import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analytics import lab
from analytics.lab import Outcome, compare, holm, summarize, two_proportion_p, welch_p, wilson


def test_wilson_known_values() -> None:
    # 10 of 100 -> the textbook Wilson interval 0.0552..0.1744
    lo, hi = wilson(10, 100)
    assert lo == pytest.approx(0.05523, abs=1e-4)
    assert hi == pytest.approx(0.17437, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(0, 20)
    assert lo == 0.0 and 0 < hi < 0.2


@given(st.integers(0, 500), st.integers(1, 500))
def test_wilson_contains_the_estimate(k: int, n: int) -> None:
    k = min(k, n)
    lo, hi = wilson(k, n)
    assert 0.0 <= lo <= k / n + 1e-12 and k / n - 1e-12 <= hi <= 1.0


def test_two_proportion_p() -> None:
    # 60/100 vs 40/100: z = 2.828 -> p = 0.00468
    assert two_proportion_p(60, 100, 40, 100) == pytest.approx(0.004678, abs=1e-5)
    assert two_proportion_p(5, 10, 5, 10) == pytest.approx(1.0)
    assert two_proportion_p(0, 10, 0, 10) == 1.0  # no variance: undefined, never significant
    assert two_proportion_p(1, 0, 1, 1) == 1.0


def test_welch_p() -> None:
    # means 1 vs 0, sd 1, n 100 each: z = 1/sqrt(0.02) = 7.07
    assert welch_p(1.0, 1.0, 100, 0.0, 1.0, 100) < 1e-10
    assert welch_p(0.0, 1.0, 100, 0.0, 1.0, 100) == pytest.approx(1.0)
    assert welch_p(3.0, 0.0, 5, 3.0, 0.0, 5) == 1.0


def test_holm_step_down() -> None:
    # m=4, alpha .05: thresholds .0125, .0167, .025, .05
    assert holm([0.01, 0.04, 0.03, 0.005]) == [True, False, False, True]
    assert holm([0.001, 0.012, 0.02, 0.04]) == [True, True, True, True]
    assert holm([]) == []


def _outcomes(rng: random.Random, n: int, p_dealer: float, scale: int) -> list[Outcome]:
    out = []
    for _ in range(n):
        dealer = rng.randrange(3)
        won = rng.random() < p_dealer
        u = scale * rng.choice([1, 1, 2, 4])
        deltas = [-u, -u, -u]
        deltas[dealer] = 2 * u if won else -2 * u
        if not won:
            deltas = [u, u, u]
            deltas[dealer] = -2 * u
        winners = (dealer,) if won else tuple(s for s in range(3) if s != dealer)
        fans = ("qing_yi_se",) if rng.random() < 0.2 else ()
        out.append(Outcome("finished", tuple(deltas), winners, dealer, landlord=dealer, fans=fans))
    return out


def test_summary_counts_and_money() -> None:
    outs = [
        Outcome("finished", (2, -1, -1), (0,), 0, landlord=0, fans=("gen",), max_fan=2),
        Outcome("finished", (-4, 2, 2), (1, 2), 0, landlord=0),
        Outcome("finished", (0, 0, 0), (), 1),
        Outcome("invalid", (), (), 0, error="illegal_move: x"),
    ]
    s = summarize(outs, "A", {"preset": "standard"})
    assert (s.matches, s.finished, s.failed, s.first_error) == (4, 3, 1, "illegal_move: x")
    assert s.rates["draw_rate"] == (1, 3)
    assert s.rates["dealer_win_rate"] == (1, 3)
    assert s.rates["landlord_win_rate"] == (1, 2)
    assert s.rates["seat_win_rate[1]"] == (1, 3)
    assert s.rates["fan[gen]"] == (1, 3)
    m, _sd, n = s.means["money_mean"]
    assert (m, n) == (pytest.approx(2.0), 3)  # 2, 4, 0 points changed hands
    assert s.means["dealer_delta_mean"][0] == pytest.approx((2 - 4 + 0) / 3)
    assert s.means["mean_max_fan"][:1] == (2.0,)
    assert s.money_counts == {0: 1, 2: 1, 4: 1}


def test_compare_finds_a_real_difference_and_not_a_fake_one() -> None:
    rng = random.Random(7)
    a = summarize(_outcomes(rng, 800, 0.35, 1), "A")
    b = summarize(_outcomes(rng, 800, 0.55, 1), "B")
    same = summarize(_outcomes(rng, 800, 0.35, 1), "A2")
    rows = {r.metric: r for r in compare(a, b).rows}
    assert rows["dealer_win_rate"].significant
    assert rows["dealer_win_rate"].diff == pytest.approx(rows["dealer_win_rate"].b - rows["dealer_win_rate"].a)
    assert rows["dealer_win_rate"].a_lo < rows["dealer_win_rate"].a < rows["dealer_win_rate"].a_hi
    null = compare(a, same)
    assert not any(r.significant for r in null.rows), [r for r in null.rows if r.significant]
    doubled = compare(a, summarize(_outcomes(random.Random(8), 800, 0.35, 2), "x2"))
    assert {r.metric: r for r in doubled.rows}["money_mean"].significant
    assert {r.metric: r for r in doubled.rows}["money_spread"].significant


def test_fan_seen_on_one_side_only_is_zero_on_the_other() -> None:
    a = summarize([Outcome("finished", (1, -1), (0,), 0, fans=("gen",))] * 50, "A")
    b = summarize([Outcome("finished", (1, -1), (0,), 0)] * 50, "B")
    row = {r.metric: r for r in compare(a, b).rows}["fan[gen]"]
    assert (row.a, row.b) == (1.0, 0.0) and row.significant
    d = compare(a, b).to_dict()
    json.dumps(d, allow_nan=False)  # NaN never reaches JSON


def test_outcome_from_result_dict() -> None:
    r = {
        "status": "finished",
        "deltas": [8, -8, 0, 0],
        "winners": [0],
        "dealer": 2,
        "error": None,
        "items": [
            {"kind": "hu_dianpao", "seat": 0, "from": 1, "points": 8, "fans": {"qing_yi_se": 2, "gen": 1}, "fan": 3},
            {"kind": "gang_zhi", "seat": 0, "from": 1, "points": 0},
        ],
    }
    o = lab.outcome_from_result(r)
    assert o.fans == ("gen", "qing_yi_se") and o.max_fan == 3 and o.money == 8 and o.dealer == 2


def test_validate_rules_refuses_unknown_option_and_game() -> None:
    with pytest.raises(ValueError, match="unknown game"):
        lab.validate_rules("no_such_game", {})
    games = _games()
    if not games:
        pytest.skip("no game engine is available in this build yet")
    with pytest.raises(ValueError, match="bad_rules"):
        lab.validate_rules(games[0], {"no_such_option": 1})


def _games() -> list[str]:
    from engine.registry import available_games

    return available_games()


def _a_game() -> str:
    games = _games()
    if not games:
        pytest.skip("no game engine is available in this build yet")
    return "ddz" if "ddz" in games else games[0]


def test_run_lab_small_real_simulation() -> None:
    g = _a_game()
    seen: list[float] = []
    cmp = lab.run_lab(g, {}, {}, 6, 3, progress=seen.append)
    assert cmp.a.matches == cmp.b.matches == 6
    assert cmp.a.failed == 0, cmp.a.first_error
    assert seen[-1] == pytest.approx(1.0) and seen == sorted(seen)
    # same rules + same seed = the same matches: no difference at all
    assert all(r.diff == 0 or math.isnan(r.diff) for r in cmp.rows)
    assert not cmp.significant()


def test_paiju_lab_cli_json_and_bad_rules(capsys: pytest.CaptureFixture[str]) -> None:
    import paiju

    g = _a_game()
    assert (
        paiju.main(["lab", "--game", g, "--a", "standard", "--b", "{}", "--matches", "4", "--seed", "1", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["a"]["matches"] == 4 and out["a"]["rules"] == {"preset": "standard"}
    assert {r["metric"] for r in out["rows"]} >= {"draw_rate", "money_mean", "dealer_delta_mean"}
    assert paiju.main(["lab", "--game", g, "--a", '{"bogus": 1}', "--b", "{}", "--matches", "2"]) == 2
    err = capsys.readouterr().err
    assert "bogus" in err and "Traceback" not in err
    assert paiju.main(["lab", "--game", g, "--a", "{not json", "--b", "{}"]) == 2


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 8), st.booleans()), min_size=2, max_size=60))
def test_a_rule_set_never_differs_from_itself(rows: list[tuple[int, int, bool]]) -> None:
    outs = []
    for dealer, unit, dealer_wins in rows:
        deltas = [-unit] * 3
        deltas[dealer] = 2 * unit
        if not dealer_wins:
            deltas = [unit] * 3
            deltas[dealer] = -2 * unit
        winners = (dealer,) if dealer_wins else tuple(s for s in range(3) if s != dealer)
        outs.append(Outcome("finished", tuple(deltas), winners, dealer))
    cmp = compare(summarize(outs, "A"), summarize(list(outs), "B"))
    assert not cmp.significant()
    for r in cmp.rows:
        assert r.diff == 0 and r.p == pytest.approx(1.0)
        assert r.a_lo <= r.a <= r.a_hi or r.kind == "mean"
    assert sum(o.deltas[0] + o.deltas[1] + o.deltas[2] for o in outs) == 0  # zero-sum inputs stay zero-sum


def test_the_lab_outcome_is_the_logged_match_replayed() -> None:
    """The lab simulates without a hash chain and replays without steps (issue 22: 1.2–2.3× a
    match); its outcome must be what a replay of the same match's chained log, as `paiju simulate`
    writes it and read back line by line, gives."""
    from analytics.lab import outcome_from_result, simulate_one
    from engine.registry import available_games, get_game
    from engine.replay import replay_with_steps
    from engine.sim.simulate import simulate_match
    from events.codec import event_to_json, parse_line

    for game in available_games():
        for index in range(3):
            lines = [event_to_json(e) for e in simulate_match(game, {}, 11, index)]
            assert all('"hash"' in ln for ln in lines)
            steps, result = replay_with_steps([parse_line(ln.encode()) for ln in lines])
            state = steps[-1].state
            view = get_game(game).view(state) if state is not None else {}
            landlord = view.get("landlord") if isinstance(view, dict) else None
            want = outcome_from_result(result, landlord if isinstance(landlord, int) else None)
            assert result.status == "finished" and simulate_one(game, {}, 11, index) == want, (game, index)
