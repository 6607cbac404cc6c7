"""The seat-shuffle Monte Carlo (ingest.integrity_tables._behaviour) against independent figures.

- The plain run: the in-place, flat-gather draws (issue 22) must count exactly the exceedances of
  the formula the module used before: per chunk of draws, `idx = (rng.random((k, m)) *
  sizes).astype(int64)`, `T = grid[arange(m), idx].sum(axis=1)`, from the pair's own seeded
  generator. The reference below is that formula, written out here; pairs are random, of 3-seat
  and 4-seat matches, small and large.
- The far tail (fewer than 10 of 1,000 plain draws reach T): the tilted importance sampling of
  `_tilted_tail` against the exact tail by enumerating every seat assignment of small pairs (up to
  3·10⁶ of them), against the exact product at T's maximum, and against a plain run of 400,000
  draws on a pair of 200 matches.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ingest import integrity_tables as it


def _reference_p(pd_: it._PairData, names: tuple[str, ...]) -> float | None:
    """The Monte Carlo p-value by the plain formula (what the module computed before issue 22), None
    when fewer than 10 of 1,000 draws reach T (the far tail, decided by the tilted draws)."""
    mu_c_var = np.array([a.var(axis=0) for a in pd_.alts])
    obs = np.array(pd_.obs)
    sd_c = np.sqrt(mu_c_var.sum(axis=0))
    weight = np.array([it.WEIGHTS.get(c, 1.0) for c in names])
    w = np.where(sd_c > 0, weight / np.where(sd_c > 0, sd_c, 1.0), 0.0)
    ys = [a @ w for a in pd_.alts]
    t_obs = float((obs @ w).sum())
    if math.sqrt(float(np.array([y.var() for y in ys]).sum())) == 0:
        return 1.0
    width = max(len(y) for y in ys)
    grid = np.full((len(ys), width), np.nan)
    sizes = np.array([len(y) for y in ys])
    for r, y in enumerate(ys):
        grid[r, : len(y)] = y
    rng = np.random.default_rng(it._seed(pd_.game, pd_.a, pd_.b))
    eps = 1e-9 * max(1.0, abs(t_obs))

    def exceed(draws: int) -> int:
        hits = 0
        for start in range(0, draws, 20_000):
            k = min(20_000, draws - start)
            idx = (rng.random((k, len(ys))) * sizes).astype(np.int64)
            hits += int((grid[np.arange(len(ys)), idx].sum(axis=1) >= t_obs - eps).sum())
        return hits

    hits = exceed(1000)
    return (1 + hits) / 1001 if hits >= 10 else None


def _pair(seed: int, matches: int, push: float) -> it._PairData:
    """A Zha Jin Hua pair over `matches` matches of 3 or 4 seats; the pair's observed vector is
    the seat pair with the largest first component plus `push` (large push: a tiny p-value)."""
    rs = np.random.default_rng(seed)
    pd_ = it._PairData("zhajinhua", f"a{seed}", f"b{seed}")
    for m in range(matches):
        n_pairs = 3 if rs.random() < 0.5 else 6
        comps = rs.normal(size=(n_pairs, 4)).round(3)
        k = int(comps[:, 0].argmax()) if push else int(rs.integers(n_pairs))
        comps[k] += push
        pd_.obs.append(comps[k])
        pd_.alts.append(comps)
        pd_.mids.append(f"m{m}")
        pd_.seqs.append([])
    return pd_


@pytest.mark.parametrize(("seed", "matches", "push"), [(1, 12, 0.0), (2, 40, 0.0), (4, 60, 0.0), (5, 300, 0.0)])
def test_mc_p_value_equals_the_plain_formula(seed: int, matches: int, push: float) -> None:
    pd_ = _pair(seed, matches, push)
    names = it.COMPONENTS["zhajinhua"]
    _z, p, _comp, _contrib = it._behaviour(pd_, names)
    assert p == _reference_p(pd_, names)


def _exact_tail(rows: list[np.ndarray], t: float) -> float:
    """P(Σ Y_m ≥ t), each Y_m uniform over its row: every assignment enumerated."""
    sums = np.zeros(1)
    for r in rows:
        sums = (sums[:, None] + r[None, :]).ravel()
    return float((sums >= t).mean())


def _grid(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    grid = np.full((len(rows), max(len(r) for r in rows)), np.nan)
    for i, r in enumerate(rows):
        grid[i, : len(r)] = r
    return grid, np.array([len(r) for r in rows], dtype=float)


def _small_rows(rs: np.random.Generator) -> list[np.ndarray]:
    """8 to 12 matches of 3 or 6 seat pairs (at most 3·10⁶ assignments), values on a 0.01 grid."""
    rows = [rs.normal(size=3 if rs.random() < 0.6 else 6).round(2) for _ in range(int(rs.integers(8, 13)))]
    while np.prod([len(r) for r in rows]) > 3e6:
        rows.pop()
    return rows


@pytest.mark.parametrize("case", range(24))
def test_tilted_tail_matches_exact_enumeration(case: int) -> None:
    """Tails from 0.06 down to 10⁻⁵: within 10 % of the exact value (a plain run of 200,000 draws
    has a relative error of 22 % at p = 10⁻⁴ and cannot go below 5·10⁻⁶)."""
    rs = np.random.default_rng(100 + case)
    rows = _small_rows(rs)
    top, mean = sum(r.max() for r in rows), sum(r.mean() for r in rows)
    t = mean + rs.uniform(0.5, 0.95) * (top - mean)
    exact = _exact_tail(rows, t)
    grid, sizes = _grid(rows)
    est = it._tilted_tail(grid, sizes, t, np.random.default_rng(case))
    assert exact > 0 and abs(est - exact) <= 0.10 * exact, (exact, est)


def test_tilted_tail_at_the_maximum_is_the_exact_product() -> None:
    """T at its largest value: every match at its row's maximum (rows with ties count each)."""
    rows = [np.array([1.0, 2.0, 2.0]), np.array([0.5, -1.0, 0.0, 0.5, 0.1, 0.2]), np.array([3.0, 1.0, 2.0])]
    grid, sizes = _grid(rows)
    t = 2.0 + 0.5 + 3.0
    assert it._tilted_tail(grid, sizes, t, np.random.default_rng(0)) == pytest.approx((2 / 3) * (2 / 6) * (1 / 3))
    assert _exact_tail(rows, t) == pytest.approx((2 / 3) * (2 / 6) * (1 / 3))


def test_tilted_tail_agrees_with_a_long_plain_run_on_a_large_pair() -> None:
    """200 matches (no enumeration possible): 400,000 plain draws in chunks against the tilted
    estimate, at a tail near 10⁻³ where the plain run's standard error is 5 %."""
    rs = np.random.default_rng(7)
    rows = [rs.normal(size=3 if rs.random() < 0.5 else 6) for _ in range(200)]
    grid, sizes = _grid(rows)
    sd = math.sqrt(sum(float(r.var()) for r in rows))
    t = sum(float(r.mean()) for r in rows) + 3.1 * sd
    rng = np.random.default_rng(1)
    hits, draws = 0, 400_000
    for _ in range(draws // 20_000):
        idx = (rng.random((20_000, len(rows))) * sizes).astype(np.int64)
        hits += int((grid[np.arange(len(rows)), idx].sum(axis=1) >= t).sum())
    plain = hits / draws
    est = it._tilted_tail(grid, sizes, t, np.random.default_rng(2))
    se = math.sqrt(plain * (1 - plain) / draws)
    assert 3e-4 < plain < 3e-3 and abs(est - plain) <= 4 * se, (plain, est, se)


@pytest.mark.parametrize(("seed", "matches", "push"), [(3, 10, 0.8), (6, 9, 2.0), (8, 11, 1.2)])
def test_far_tail_of_a_pair_is_the_tilted_estimate_of_the_exact_tail(seed: int, matches: int, push: float) -> None:
    """Through `_behaviour`: a pair whose T fewer than 10 plain draws reach gets a p-value within
    10 % of the exact tail of its own T (every seat assignment of its matches enumerated)."""
    pd_ = _pair(seed, matches, push)
    names = it.COMPONENTS["zhajinhua"]
    assert _reference_p(pd_, names) is None  # the far tail: the tilted draws decide
    _z, p, _comp, _contrib = it._behaviour(pd_, names)
    sd_c = np.sqrt(np.array([a.var(axis=0) for a in pd_.alts]).sum(axis=0))
    w = np.array([it.WEIGHTS.get(c, 1.0) for c in names]) / sd_c
    rows = [a @ w for a in pd_.alts]
    t_obs = float((np.array(pd_.obs) @ w).sum())
    exact = _exact_tail(rows, t_obs - 1e-9 * max(1.0, abs(t_obs)))
    assert abs(p - exact) <= 0.10 * exact, (p, exact)


@pytest.mark.parametrize("case", range(6))
def test_alias_tables_give_each_cell_its_chance(case: int) -> None:
    """Walker's tables: a cell's chance is (its keep + the give of every cell aliased to it) / n,
    which must be the chance asked for, on rows of 1 to 15 cells with chances from 0 to near 1."""
    rs = np.random.default_rng(case)
    sizes = rs.integers(1, 16, size=40)
    width = int(sizes.max())
    valid = np.arange(width)[None, :] < sizes[:, None]
    q = np.where(valid, rs.exponential(size=(40, width)) ** (1 + 3 * case), 0.0)
    q[0, 0] = 0.0 if sizes[0] > 1 else q[0, 0]  # a cell of no chance
    q /= q.sum(axis=1, keepdims=True)
    keep, alias = it._alias_tables(q * sizes[:, None], valid)
    for r in range(40):
        n = int(sizes[r])
        got = np.zeros(width)
        for k in range(n):
            got[k] += keep[r, k] / n
            got[alias[r, k]] += (1 - keep[r, k]) / n
        assert np.allclose(got, q[r], atol=1e-12), (r, got, q[r])
        assert (alias[r, :n] < n).all()


def test_a_tail_beyond_a_doubles_range_is_the_floor_not_zero() -> None:
    """3,000 matches at their maximum but one: the tail is far below 10⁻³⁰⁰ (0 in a double)."""
    rows = [np.array([0.0, 1.0, 2.0])] * 3000
    grid, sizes = _grid(rows)
    p = it._tilted_tail(grid, sizes, 2.0 * 3000 - 1.0, np.random.default_rng(0))
    assert p == it.P_FLOOR
    assert it._tilted_tail(grid, sizes, 2.0 * 3000, np.random.default_rng(0)) == it.P_FLOOR


def test_tilted_draws_do_not_depend_on_the_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pair of many matches draws fewer rows at a time (bounded memory) from the same stream
    of uniforms: the estimate is the same as in chunks of `TILTED_CHUNK`."""
    rs = np.random.default_rng(3)
    rows = [rs.normal(size=3) for _ in range(3000)]
    grid, sizes = _grid(rows)
    t = sum(float(r.mean()) for r in rows) + 4 * math.sqrt(sum(float(r.var()) for r in rows))
    small = it._tilted_tail(grid, sizes, t, np.random.default_rng(0))  # 1,333 rows a chunk
    monkeypatch.setattr(it, "TILTED_CELLS", 10**9)
    whole = it._tilted_tail(grid, sizes, t, np.random.default_rng(0))  # 2,000 rows a chunk
    assert small == pytest.approx(whole, rel=1e-12)
