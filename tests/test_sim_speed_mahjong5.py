"""Issue 22 (simulator speed, part 5): the simulator's clock, written once (`_stamps`).

- `_stamps(index, seq)` yields the `ts` of seq, seq + 1, … = the plain datetime computation
  (EPOCH + 600 s per match index + 3 s per seq, `%Y-%m-%dT%H:%M:%SZ`), across midnight and over
  many days, for generated (index, seq);
- `_ts(index, seq)` is its first value;
- every event of simulated mahjong matches that cross midnight carries that `ts`.
"""

from __future__ import annotations

from datetime import timedelta
from itertools import islice

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.sim.simulate import EPOCH, _stamps, _ts, simulate_match


def _plain(index: int, seq: int) -> str:
    return (EPOCH + timedelta(seconds=index * 600 + seq * 3)).strftime("%Y-%m-%dT%H:%M:%SZ")


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 200_000), st.integers(0, 5000), st.integers(1, 400))
def test_stamps_are_the_plain_times(index: int, seq: int, n: int) -> None:
    got = list(islice(_stamps(index, seq), n))
    assert got == [_plain(index, seq + i) for i in range(n)]
    assert _ts(index, seq) == got[0]


def test_stamps_cross_many_midnights() -> None:
    """One generator run over 100,000 events (about 3.5 days): every day change on time."""
    got = list(islice(_stamps(143, 0), 100_000))
    assert got[::997] == [_plain(143, s) for s in range(0, 100_000, 997)]
    for s in range(200, 100_000, 28_800):  # each midnight: 600 s after the start, then every 86,400 s / 3 s
        assert got[s - 3 : s + 3] == [_plain(143, x) for x in range(s - 3, s + 3)]
        assert got[s - 1][:10] != got[s][:10]


@pytest.mark.parametrize("game_id", ["sichuan_xuezhan", "sichuan_xueliu", "hongzhong", "anshun"])
def test_match_events_carry_the_plain_ts(game_id: str) -> None:
    """Match 143 starts 600 s before midnight: its events cross it."""
    for index in (0, 143, 287):
        for e in simulate_match(game_id, None, seed=1, index=index, chain=False):
            assert e.ts == _plain(index, e.seq)
