"""The settlement invariant every game's tests check (engine/base.py `Settlement.from_items`)."""

from __future__ import annotations

from engine.replay import ReplayResult


def assert_items_net_to_deltas(result: ReplayResult, min_points: int | None = None) -> None:
    """The deltas are zero-sum and the net of the itemised transfers (`seat` receives `points`
    from `from`); with `min_points`, every item moves at least that many points between two
    different seats."""
    assert result.deltas is not None and sum(result.deltas) == 0
    net = [0] * len(result.deltas)
    for it in result.items:
        assert set(it) >= {"kind", "seat", "from", "points"}, it
        if min_points is not None:
            assert it["points"] >= min_points and it["seat"] != it["from"], it
        net[it["seat"]] += it["points"]
        net[it["from"]] -= it["points"]
    assert net == result.deltas, "deltas must be the net of the itemised transfers"
