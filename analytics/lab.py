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


def rate_diff_ci(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float, float]:
    """Normal (Wald, unpooled) 95 % interval of p2 − p1; (nan, nan) without data."""
    if n1 <= 0 or n2 <= 0:
        return (math.nan, math.nan)
    p1, p2 = k1 / n1, k2 / n2
    half = z * math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    return (p2 - p1 - half, p2 - p1 + half)


def mean_diff_ci(m1: float, s1: float, n1: int, m2: float, s2: float, n2: int, z: float = Z95) -> tuple[float, float]:
    """Normal (Welch) 95 % interval of m2 − m1; (nan, nan) with fewer than two values a side."""
    if n1 <= 1 or n2 <= 1:
        return (math.nan, math.nan)
    half = z * math.sqrt(s1 * s1 / n1 + s2 * s2 / n2)
    return (m2 - m1 - half, m2 - m1 + half)


def cohens_h(p1: float, p2: float) -> float:
    """Cohen's h of two proportions: 2·asin(√p2) − 2·asin(√p1)."""
    if math.isnan(p1) or math.isnan(p2):
        return math.nan
    return 2 * math.asin(math.sqrt(p2)) - 2 * math.asin(math.sqrt(p1))


def cohens_d(m1: float, s1: float, n1: int, m2: float, s2: float, n2: int) -> float:
    """Cohen's d: (m2 − m1) over the pooled standard deviation; 0 when both sides are constant and equal."""
    if n1 + n2 <= 2:
        return math.nan
    pooled = math.sqrt(((n1 - 1) * s1 * s1 + (n2 - 1) * s2 * s2) / (n1 + n2 - 2))
    if pooled == 0:
        return 0.0 if m1 == m2 else math.copysign(math.inf, m2 - m1)
    return (m2 - m1) / pooled


def format_p(p: float) -> str:
    """A p-value for people: `< 0.001`, else three decimals (`0.012`, `0.450`, `1.000`)."""
    if math.isnan(p):
        return "–"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def format_value(x: float | None, kind: str) -> str:
    """A rate as `45.0%`, a mean with two decimals (`1,234.50`); `–` for no value."""
    if x is None or math.isnan(x):
        return "–"
    return f"{x:.1%}" if kind == "rate" else f"{x:,.2f}"


def format_diff(x: float | None, kind: str) -> str:
    """B − A: a rate difference in percentage points (`+3.2 pp`), a mean difference signed (`-1.25`)."""
    if x is None or math.isnan(x):
        return "–"
    return f"{x * 100:+.1f} pp" if kind == "rate" else f"{x:+,.2f}"


def format_interval(lo: float | None, hi: float | None, kind: str, *, diff: bool = False) -> str:
    """`40.1%–50.0%`, `+1.2–+4.0 pp` or `-0.50–1.75`."""
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "–"
    if diff and kind == "rate":
        return f"{lo * 100:+.1f}–{hi * 100:+.1f} pp"
    if diff:
        return f"{lo:+,.2f}–{hi:+,.2f}"
    return f"{format_value(lo, kind)}–{format_value(hi, kind)}"


# ---------------------------------------------------------------- what each metric means

_METRICS: dict[str, tuple[str, str, str]] = {
    "draw_rate": ("draws", "% of matches", "finished matches nobody won (流局, a void redeal)"),
    "dealer_win_rate": ("dealer wins", "% of matches", "the dealer (庄家) is among the winners"),
    "landlord_win_rate": ("landlord wins", "% of matches", "Dou Dizhu: the landlord (地主) side wins"),
    "money_mean": ("points changing hands", "points per match", "sum of the winners' gains in one match"),
    "money_spread": (
        "spread of points changing hands",
        "points",
        "mean distance from the median of points changing hands (Brown–Forsythe): how swingy a match is",
    ),
    "dealer_delta_mean": ("dealer's result", "points per match", "the dealer's mean gain; above 0 favours the dealer"),
    "mean_max_fan": ("largest fan of a win", "fan", "mean over matches with a win of the highest fan total"),
}


def metric_info(metric: str) -> tuple[str, str, str]:
    """(plain name, unit, one line on what it means) of a compared metric id."""
    if metric in _METRICS:
        return _METRICS[metric]
    if metric.startswith("seat_win_rate[") and metric.endswith("]"):
        seat = metric[len("seat_win_rate[") : -1]
        return (f"seat {seat} wins", "% of matches", f"seat {seat} is among the winners")
    if metric.startswith("fan[") and metric.endswith("]"):
        fan = metric[4:-1]
        return (f"matches with {fan}", "% of matches", f"some win of the match scored the fan {fan}")
    return (metric, "", "")


def metric_name(metric: str) -> str:
    """`plain name (unit)`, e.g. `points changing hands (points per match)`."""
    name, unit, _ = metric_info(metric)
    return f"{name} ({unit})" if unit else name


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
    diff_lo: float = math.nan
    diff_hi: float = math.nan
    """95 % interval of B − A (normal approximation, unpooled)."""
    effect: float = math.nan
    """Standardised effect size: Cohen's h for a rate, Cohen's d for a mean (B − A)."""

    @property
    def effect_name(self) -> str:
        return "h" if self.kind == "rate" else "d"

    @property
    def effect_label(self) -> str:
        """Cohen's conventional reading of |h| or |d|: negligible < 0.2 ≤ small < 0.5 ≤ medium < 0.8 ≤ large."""
        e = abs(self.effect)
        if math.isnan(e):
            return "–"
        return "negligible" if e < 0.2 else "small" if e < 0.5 else "medium" if e < 0.8 else "large"


@dataclass
class Comparison:
    a: Summary
    b: Summary
    rows: list[Row]
    alpha: float
    same_rules: bool = False
    """A and B normalise to the same options (`standard` vs `{}`): every difference is noise."""
    game: str = ""

    def to_dict(self) -> dict[str, Any]:
        def side(s: Summary) -> dict[str, Any]:
            return {
                "label": s.label,
                "rules": s.rules,
                "matches": s.matches,
                "finished": s.finished,
                "failed": s.failed,
                "first_error": s.first_error,
                "name": rules_name(self.game, s.rules) if self.game else None,
                "money_counts": {str(k): v for k, v in s.money_counts.items()},
            }

        def clean(r: Row) -> dict[str, Any]:
            d = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(r).items()}
            name, unit, meaning = metric_info(r.metric)
            return {**d, "name": name, "unit": unit, "meaning": meaning, "effect_name": r.effect_name,
                    "effect_label": r.effect_label, "p_text": format_p(r.p)}  # fmt: skip

        return {
            "a": side(self.a),
            "b": side(self.b),
            "game": self.game,
            "alpha": self.alpha,
            "same_rules": self.same_rules,
            "rows": [clean(r) for r in self.rows],
        }

    def significant(self) -> list[Row]:
        return [r for r in self.rows if r.significant]


def _fan_metric_zero(s: Summary, metric: str) -> None:
    """A fan seen under one rule set only is a 0-share metric under the other."""
    if metric not in s.rates and metric.startswith(("fan[", "seat_win_rate[")):
        s.rates[metric] = (0, s.finished)


def compare(a: Summary, b: Summary, alpha: float = 0.05, *, same_rules: bool = False, game: str = "") -> Comparison:
    """Side-by-side metrics with intervals, p-values and Holm-corrected significance."""
    rate_metrics = list(dict.fromkeys([*a.rates, *b.rates]))
    for m in rate_metrics:
        _fan_metric_zero(a, m)
        _fan_metric_zero(b, m)
    raw: list[tuple[str, str, tuple[float, float, float], tuple[float, float, float], float, tuple[float, ...]]] = []
    for m in rate_metrics:
        if m not in a.rates or m not in b.rates:
            continue
        (ka, na), (kb, nb) = a.rates[m], b.rates[m]
        extra = (*rate_diff_ci(ka, na, kb, nb), cohens_h(ka / na if na else math.nan, kb / nb if nb else math.nan))
        raw.append((m, "rate", a.rate(m), b.rate(m), two_proportion_p(ka, na, kb, nb), extra))
    for m in dict.fromkeys([*a.means, *b.means]):
        if m not in a.means or m not in b.means:
            continue
        (ma, sa, na), (mb, sb, nb) = a.means[m], b.means[m]
        extra = (*mean_diff_ci(ma, sa, na, mb, sb, nb), cohens_d(ma, sa, na, mb, sb, nb))
        raw.append((m, "mean", a.mean(m), b.mean(m), welch_p(ma, sa, na, mb, sb, nb), extra))
    sig = holm([r[4] for r in raw], alpha)
    rows = [
        Row(m, kind, va[0], va[1], va[2], vb[0], vb[1], vb[2], vb[0] - va[0], p, s, *extra)
        for (m, kind, va, vb, p, extra), s in zip(raw, sig, strict=True)
    ]
    return Comparison(a, b, rows, alpha, same_rules=same_rules, game=game)


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
    from engine.replay import replay_final

    result, state = replay_final(list(events))  # no step objects: the lab reads the end only
    landlord = None
    if result.game and state is not None:
        landlord = _landlord(get_game(result.game), state)
    return outcome_from_result(result, landlord)


def simulate_one(game_id: str, rules: Mapping[str, Any], seed: int, index: int) -> Outcome:
    """Simulate match `index` of a seeded run and replay it (a process-pool friendly function)."""
    from engine.sim.simulate import simulate_match

    try:
        # no hash chain: the lab compares outcomes, and a chain would cost its linking twice
        # (the simulator's `fill_chain`, then the replay's check), about a sixth of a match
        events = _as_events(simulate_match(game_id, dict(rules), seed, index, chain=False))
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


def normalized_rules(game_id: str, rules: Mapping[str, Any]) -> dict[str, Any]:
    """Every option with the value the game gives it (`standard` and `{}` normalise alike)."""
    from engine.registry import get_game

    validate_rules(game_id, rules)
    return dict(get_game(game_id).parse_rules(dict(rules)).options())


def _value_text(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, list | tuple | set | frozenset):
        return "/".join(str(x) for x in v)
    return str(v)


def rules_name(game_id: str, rules: Mapping[str, Any]) -> str:
    """A rule set named by how it differs from its preset: `standard + bomb_factor 3, rob on`.

    `rules` may be a partial rules object or every option (the lake's `rules.options`); a rule set
    the game refuses is named by its preset and `(not valid here)`."""
    from engine.registry import get_game

    preset = str(rules.get("preset", "standard"))
    try:
        opts = normalized_rules(game_id, rules)
        base = dict(get_game(game_id).parse_rules({"preset": opts.get("preset", preset)}).options())
    except Exception:  # an engine missing in this build, or rules it no longer accepts: still a name
        return f"{preset} (not valid here)"
    diffs = [f"{k} {_value_text(v)}" for k, v in opts.items() if k != "preset" and base.get(k) != v]
    return str(opts.get("preset", preset)) + (" + " + ", ".join(diffs) if diffs else "")


@dataclass
class LabRun:
    """A comparison run in chunks (the dashboard keeps it between reruns, so Stop keeps what is done).

    Each `step()` simulates the next `chunk` match indices under A and then under B, so a stopped
    run still compares the same seeded deals on both sides."""

    game_id: str
    rules_a: dict[str, Any]
    rules_b: dict[str, Any]
    matches: int
    seed: int
    alpha: float = 0.05
    out_a: list[Outcome] = field(default_factory=list)
    out_b: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0
    """Time spent simulating so far (for the estimate)."""
    stopped: bool = False

    @property
    def done(self) -> int:
        return min(len(self.out_a), len(self.out_b))

    @property
    def finished(self) -> bool:
        return self.done >= self.matches

    def eta(self) -> float | None:
        """Seconds left at the pace so far; None before the first chunk."""
        if self.done == 0:
            return None
        return self.seconds / self.done * (self.matches - self.done)

    def step(self, chunk: int = 10) -> None:
        import time

        t0 = time.perf_counter()
        lo, hi = self.done, min(self.matches, self.done + max(1, chunk))
        for i in range(lo, hi):
            self.out_a.append(simulate_one(self.game_id, self.rules_a, self.seed, i))
            self.out_b.append(simulate_one(self.game_id, self.rules_b, self.seed, i))
        self.seconds += time.perf_counter() - t0

    def comparison(self) -> Comparison:
        n = self.done
        same = normalized_rules(self.game_id, self.rules_a) == normalized_rules(self.game_id, self.rules_b)
        return compare(
            summarize(self.out_a[:n], "A", self.rules_a), summarize(self.out_b[:n], "B", self.rules_b), self.alpha,
            same_rules=same, game=self.game_id,
        )  # fmt: skip


def start_lab(
    game_id: str, rules_a: Mapping[str, Any], rules_b: Mapping[str, Any], matches: int, seed: int, alpha: float = 0.05
) -> LabRun:
    """Validate both rule sets and return a run to `step()` through (ValueError with the game's reason)."""
    if matches < 1:
        raise ValueError("the number of matches must be at least 1")
    return LabRun(game_id, validate_rules(game_id, rules_a), validate_rules(game_id, rules_b), matches, seed, alpha)


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
    same = normalized_rules(game_id, a) == normalized_rules(game_id, b)
    return compare(summarize(out_a, "A", a), summarize(out_b, "B", b), alpha, same_rules=same, game=game_id)
