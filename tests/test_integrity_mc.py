"""The seat-shuffle Monte Carlo (ingest.integrity_tables._behaviour) against the plain formula.

The in-place, flat-gather draws (issue 22) must count exactly the exceedances of the formula the
module used before: per chunk of draws, `idx = (rng.random((k, m)) * sizes).astype(int64)`,
`T = grid[arange(m), idx].sum(axis=1)`, from the pair's own seeded generator. The reference
below is that formula, written out here; pairs are random, of 3-seat and 4-seat matches, small
(the fine run of 200,000 draws) and large, with observed statistics placed so that both the
coarse and the fine run decide.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ingest import integrity_tables as it


def _reference_p(pd_: it._PairData, names: tuple[str, ...]) -> float:
    """The Monte Carlo p-value by the plain formula (what the module computed before issue 22)."""
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

    hits, draws = exceed(1000), 1000
    if hits < 10:
        hits, draws = hits + exceed(200_000 - 1000), 200_000
    return (1 + hits) / (1 + draws)


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


@pytest.mark.parametrize(("seed", "matches", "push"), [(1, 12, 0.0), (2, 40, 0.0), (3, 25, 0.8), (4, 60, 0.3),
                                                      (5, 300, 0.0), (6, 15, 2.0)])  # fmt: skip
def test_mc_p_value_equals_the_plain_formula(seed: int, matches: int, push: float) -> None:
    pd_ = _pair(seed, matches, push)
    names = it.COMPONENTS["zhajinhua"]
    _z, p, _comp, _contrib = it._behaviour(pd_, names)
    assert p == _reference_p(pd_, names)


def test_both_runs_are_exercised() -> None:
    """The cases above include a p-value decided by the coarse run and one by the fine run."""
    names = it.COMPONENTS["zhajinhua"]
    coarse = _reference_p(_pair(1, 12, 0.0), names)
    fine = _reference_p(_pair(6, 15, 2.0), names)
    assert coarse > 10 / 1001
    assert fine < 10 / 1001 and fine * 200_001 == round(fine * 200_001)
