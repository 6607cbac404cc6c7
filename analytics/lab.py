"""The house-rules lab: simulate one game under two rule sets and compare the distributions.

Pure logic, no Streamlit and no DuckDB: `paiju lab` (analytics/lab_cli.py) and the dashboard's lab
page both call `run_lab` (or `simulate_outcomes` + `compare`).

What is compared (each metric is a *rate* — a share of matches — or a *mean* over matches):
- `draw_rate`: finished matches nobody won (`winners == []`: a void redeal, an exhaustive draw).
- `dealer_win_rate`: the dealer seat (`match_started.dealer`) is among the winners.
- `landlord_win_rate`: Dou Dizhu only (the view's `landlord`), the landlord is among the winners.
- `seat_win_rate[s]`: seat s is among the winners.
- `money_mean`: points changing hands per match = the sum of the positive deltas.
- `money_spread`: the spread of that amount, compared by the Brown–Forsythe test (Welch's test
  on absolute deviations from the median), which is robust to the heavy tails of doubling games.
- `dealer_delta_mean`: the dealer's mean delta per match (dealer advantage; > 0 favours the dealer).
- `fan[f]`: the share of matches in which some win scored fan `f` (items carrying `fans`). A match
  share, not a per-win share, because one win can produce several payment lines.
- `mean_max_fan`: mean over matches with a win of the largest `fan` total of any win line.

Intervals are 95 %: Wilson score for rates, normal (mean ± 1.96·sd/√n) for means. A difference is
*significant* when its two-sided p-value (two-proportion z test, Welch z test: n is large enough
for the normal approximation) survives the Holm–Bonferroni correction over every compared metric
at `alpha` (0.05), so a table of many fans does not cry wolf. Both rule sets are simulated with the
same seed and match indices (common random numbers: the same shuffles where the deal does not
depend on the rules); the tests still treat the samples as independent, which is conservative.
Matches that did not finish (a bot error: `invalid`) are counted and reported, never compared.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

Z95 = 1.959963984540054


# ---------------------------------------------------------------- statistics (pure)


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n (0..1); (0, 1) when n == 0."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k == 0 else max(0.0, centre - half)  # exact ends (no 5e-17 from rounding)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return (lo, hi)


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for fewer than two values)."""
    if not values:
        return (0.0, 0.0)
    m = statistics.fmean(values)
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return (m, sd)


def mean_ci(m: float, sd: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Normal interval of a mean."""
    if n <= 0:
        return (math.nan, math.nan)
    half = z * sd / math.sqrt(n)
    return (m - half, m + half)


def _normal_p(zscore: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(zscore) / math.sqrt(2))


def two_proportion_p(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided p of the pooled two-proportion z test; 1.0 when undefined (no data, no variance)."""
    if n1 <= 0 or n2 <= 0:
        return 1.0
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    return _normal_p((k1 / n1 - k2 / n2) / se)


def welch_p(m1: float, s1: float, n1: int, m2: float, s2: float, n2: int) -> float:
    """Two-sided p of Welch's test with the normal approximation; 1.0 when undefined."""
    if n1 <= 1 or n2 <= 1:
        return 1.0
    se = math.sqrt(s1 * s1 / n1 + s2 * s2 / n2)
    if se == 0:
        return 1.0 if m1 == m2 else 0.0
    return _normal_p((m1 - m2) / se)


def holm(pvalues: Sequence[float], alpha: float = 0.05) -> list[bool]:
    """Holm–Bonferroni step-down: which hypotheses are rejected at family-wise level alpha."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    out = [False] * len(pvalues)
    m = len(pvalues)
    for rank, i in enumerate(order):
        if pvalues[i] > alpha / (m - rank):
            break
        out[i] = True
    return out


# ---------------------------------------------------------------- one match


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the lab needs from one replayed match."""

    status: str
    deltas: tuple[int, ...]
    winners: tuple[int, ...]
    dealer: int
    landlord: int | None = None
    fans: tuple[str, ...] = ()
    """Fan ids scored by any win of the match (each once)."""
    max_fan: int | None = None
    """The largest `fan` total of any win line, None without a fan total."""
    error: str | None = None

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    @property
    def money(self) -> int:
        """Points changing hands: the sum of the positive deltas."""
        return sum(d for d in self.deltas if d > 0)


def outcome_from_result(result: Any, landlord: int | None = None) -> Outcome:
    """An `Outcome` from an `engine.replay.ReplayResult` (or its `to_dict()` plus `dealer`)."""
    r = result if isinstance(result, Mapping) else {**result.to_dict(), "dealer": result.dealer}
    fans: set[str] = set()
    max_fan: int | None = None
    for it in r.get("items") or []:
        f = it.get("fans")
        if isinstance(f, Mapping):
            fans.update(f)
        total = it.get("fan")
        if isinstance(total, int) and not isinstance(total, bool):
            max_fan = total if max_fan is None else max(max_fan, total)
    err = r.get("error")
    return Outcome(
        status=r["status"],
        deltas=tuple(r.get("deltas") or ()),
        winners=tuple(r.get("winners") or ()),
        dealer=int(r.get("dealer") or 0),
        landlord=landlord,
        fans=tuple(sorted(fans)),
        max_fan=max_fan,
        error=f"{err['code']}: {err['message']}" if err else None,
    )


# ---------------------------------------------------------------- one rule set


@dataclass
class Summary:
    """The distribution of one rule set's simulated matches."""

    label: str
    rules: dict[str, Any]
    matches: int
    finished: int
    failed: int
    first_error: str | None
    rates: dict[str, tuple[int, int]] = field(default_factory=dict)
    """metric → (count, denominator)"""
    means: dict[str, tuple[float, float, int]] = field(default_factory=dict)
    """metric → (mean, sd, n)"""
    money_abs_dev: list[float] = field(default_factory=list)
    """|money − median| per finished match (for the spread test)."""
    money_counts: dict[int, int] = field(default_factory=dict)
    """points changing hands → number of finished matches (the distribution, for charts)."""

    def rate(self, metric: str) -> tuple[float, float, float]:
        k, n = self.rates[metric]
        lo, hi = wilson(k, n)
        return (k / n if n else math.nan, lo, hi)

    def mean(self, metric: str) -> tuple[float, float, float]:
        m, sd, n = self.means[metric]
        lo, hi = mean_ci(m, sd, n)
        return (m, lo, hi)


def summarize(outcomes: Iterable[Outcome], label: str = "", rules: Mapping[str, Any] | None = None) -> Summary:
    """Counts and moments of one rule set's outcomes (only finished matches are measured)."""
    all_ = list(outcomes)
    done = [o for o in all_ if o.finished]
    failed = [o for o in all_ if not o.finished]
    n = len(done)
    s = Summary(
        label=label,
        rules=dict(rules or {}),
        matches=len(all_),
        finished=n,
        failed=len(failed),
        first_error=next((o.error for o in failed if o.error), None),
    )
    s.rates["draw_rate"] = (sum(1 for o in done if not o.winners), n)
    s.rates["dealer_win_rate"] = (sum(1 for o in done if o.dealer in o.winners), n)
    with_landlord = [o for o in done if o.landlord is not None]
    if with_landlord:
        s.rates["landlord_win_rate"] = (sum(1 for o in with_landlord if o.landlord in o.winners), len(with_landlord))
    seats = max((len(o.deltas) for o in done), default=0)
    for seat in range(seats):
        s.rates[f"seat_win_rate[{seat}]"] = (sum(1 for o in done if seat in o.winners), n)
    money = [float(o.money) for o in done]
    s.money_counts = dict(sorted(Counter(o.money for o in done).items()))
    m, sd = mean_sd(money)
    s.means["money_mean"] = (m, sd, n)
    med = statistics.median(money) if money else 0.0
    s.money_abs_dev = [abs(x - med) for x in money]
    dm, dsd = mean_sd(s.money_abs_dev)
    s.means["money_spread"] = (dm, dsd, n)
    dealer = [float(o.deltas[o.dealer]) for o in done if o.dealer < len(o.deltas)]
    m, sd = mean_sd(dealer)
    s.means["dealer_delta_mean"] = (m, sd, len(dealer))
    fan_counts: Counter[str] = Counter(f for o in done for f in o.fans)
    for f, k in sorted(fan_counts.items()):
        s.rates[f"fan[{f}]"] = (k, n)
    maxima = [float(o.max_fan) for o in done if o.max_fan is not None]
    if maxima:
        m, sd = mean_sd(maxima)
        s.means["mean_max_fan"] = (m, sd, len(maxima))
    return s


# ---------------------------------------------------------------- two rule sets


@dataclass(frozen=True, slots=True)
class Row:
    """One compared metric."""

    metric: str
    kind: str  # "rate" | "mean"
    a: float
    a_lo: float
    a_hi: float
    b: float
    b_lo: float
    b_hi: float
    diff: float
    p: float
    significant: bool


@dataclass
class Comparison:
    a: Summary
    b: Summary
    rows: list[Row]
    alpha: float

    def to_dict(self) -> dict[str, Any]:
        def side(s: Summary) -> dict[str, Any]:
            return {
                "label": s.label,
                "rules": s.rules,
                "matches": s.matches,
                "finished": s.finished,
                "failed": s.failed,
                "first_error": s.first_error,
                "money_counts": {str(k): v for k, v in s.money_counts.items()},
            }

        def clean(r: Row) -> dict[str, Any]:
            return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(r).items()}

        return {"a": side(self.a), "b": side(self.b), "alpha": self.alpha, "rows": [clean(r) for r in self.rows]}

    def significant(self) -> list[Row]:
        return [r for r in self.rows if r.significant]


def _fan_metric_zero(s: Summary, metric: str) -> None:
    """A fan seen under one rule set only is a 0-share metric under the other."""
    if metric not in s.rates and metric.startswith(("fan[", "seat_win_rate[")):
        s.rates[metric] = (0, s.finished)


def compare(a: Summary, b: Summary, alpha: float = 0.05) -> Comparison:
    """Side-by-side metrics with intervals, p-values and Holm-corrected significance."""
    rate_metrics = list(dict.fromkeys([*a.rates, *b.rates]))
    for m in rate_metrics:
        _fan_metric_zero(a, m)
        _fan_metric_zero(b, m)
    raw: list[tuple[str, str, tuple[float, float, float], tuple[float, float, float], float]] = []
    for m in rate_metrics:
        if m not in a.rates or m not in b.rates:
            continue
        (ka, na), (kb, nb) = a.rates[m], b.rates[m]
        raw.append((m, "rate", a.rate(m), b.rate(m), two_proportion_p(ka, na, kb, nb)))
    for m in dict.fromkeys([*a.means, *b.means]):
        if m not in a.means or m not in b.means:
            continue
        (ma, sa, na), (mb, sb, nb) = a.means[m], b.means[m]
        raw.append((m, "mean", a.mean(m), b.mean(m), welch_p(ma, sa, na, mb, sb, nb)))
    sig = holm([r[4] for r in raw], alpha)
    rows = [
        Row(m, kind, va[0], va[1], va[2], vb[0], vb[1], vb[2], vb[0] - va[0], p, s)
        for (m, kind, va, vb, p), s in zip(raw, sig, strict=True)
    ]
    return Comparison(a, b, rows, alpha)


# ---------------------------------------------------------------- simulation


def _landlord(game: Any, state: Any) -> int | None:
    try:
        v = game.view(state)
    except Exception:  # a view is a picture; the lab must not fail on it
        return None
    ll = v.get("landlord") if isinstance(v, Mapping) else None
    return ll if isinstance(ll, int) and not isinstance(ll, bool) else None


def _as_events(raw: Any) -> list[Any]:
    """The simulator's output for one match as contract events (models, dicts or JSON lines)."""
    from events.codec import parse_event, parse_line

    if isinstance(raw, str):
        raw = [ln for ln in raw.splitlines() if ln.strip()]
    if isinstance(raw, Mapping) and "events" in raw:
        raw = raw["events"]
    out = []
    for e in raw:
        if isinstance(e, str | bytes):
            out.append(parse_line(e))
        elif isinstance(e, Mapping):
            out.append(parse_event(dict(e)))
        else:
            out.append(e)
    return out


def replay_outcome(events: Sequence[Any]) -> Outcome:
    """Replay one match's events and reduce the result to an `Outcome`."""
    from engine.registry import get_game
    from engine.replay import replay_with_steps

    steps, result = replay_with_steps(list(events))
    landlord = None
    if result.game and steps and steps[-1].state is not None:
        landlord = _landlord(get_game(result.game), steps[-1].state)
    return outcome_from_result(result, landlord)


def simulate_one(game_id: str, rules: Mapping[str, Any], seed: int, index: int) -> Outcome:
    """Simulate match `index` of a seeded run and replay it (a process-pool friendly function)."""
    from engine.sim.simulate import simulate_match

    try:
        events = _as_events(simulate_match(game_id, dict(rules), seed, index))
    except Exception as e:  # a bot that breaks is a finding of the lab, reported, not a crash
        return Outcome("invalid", (), (), 0, error=f"simulator: {type(e).__name__}: {e}")
    return replay_outcome(events)


def _one(args: tuple[str, dict[str, Any], int, int]) -> Outcome:
    return simulate_one(*args)


def simulate_outcomes(
    game_id: str,
    rules: Mapping[str, Any],
    matches: int,
    seed: int,
    *,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> list[Outcome]:
    """`matches` simulated outcomes, in index order; `progress(done)` after each one."""
    jobs = [(game_id, dict(rules), seed, i) for i in range(matches)]
    out: list[Outcome] = []
    if workers > 1 and matches > 1:
        from engine.workers import process_pool

        with process_pool(workers) as pool:
            for o in pool.map(_one, jobs, chunksize=max(1, matches // (workers * 8))):
                out.append(o)
                if progress:
                    progress(len(out))
        return out
    for job in jobs:
        out.append(_one(job))
        if progress:
            progress(len(out))
    return out


def validate_rules(game_id: str, rules: Mapping[str, Any]) -> dict[str, Any]:
    """The rules object as the game accepts it; ValueError with the game's reason otherwise."""
    from engine.errors import Illegal
    from engine.registry import GameNotAvailable, get_game

    try:
        game = get_game(game_id)
    except GameNotAvailable as e:
        raise ValueError(str(e)) from None
    try:
        game.parse_rules(dict(rules))
    except Illegal as e:
        raise ValueError(str(e)) from None
    return dict(rules)


def run_lab(
    game_id: str,
    rules_a: Mapping[str, Any],
    rules_b: Mapping[str, Any],
    matches: int,
    seed: int,
    *,
    workers: int = 1,
    alpha: float = 0.05,
    progress: Callable[[float], None] | None = None,
) -> Comparison:
    """Validate both rule sets, simulate `matches` of each and compare (progress in 0..1)."""
    if matches < 1:
        raise ValueError("the number of matches must be at least 1")
    a = validate_rules(game_id, rules_a)
    b = validate_rules(game_id, rules_b)

    def tick(offset: int) -> Callable[[int], None] | None:
        if progress is None:
            return None
        return lambda done: progress((offset + done) / (2 * matches))

    out_a = simulate_outcomes(game_id, a, matches, seed, workers=workers, progress=tick(0))
    out_b = simulate_outcomes(game_id, b, matches, seed, workers=workers, progress=tick(matches))
    return compare(summarize(out_a, "A", a), summarize(out_b, "B", b), alpha)
