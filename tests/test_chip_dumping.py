"""Chip dumping in the simulator (issue 18, Build 1: Zha Jin Hua colluders "dump chips") and the
money flow that finds it.

Ground truth is the simulator's own seating and the bot's rule, checked on the events by the
referee's fold (not by the integrity code): whenever the dumper and its receiver are the last two
in a hand, the dumper bets, then folds, and the receiver wins; the dumper never folds while the
receiver is in. The money flow (`flow_ab`, computed from the lake's settlement lines) must then
point from the dumper to the receiver, far beyond the seat-shuffle null, where the same pair
without dumping does not.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from engine.replay import Fold
from engine.sim.cli import parse_world
from engine.sim.collusion import DUMP_BETS
from engine.sim.simulate import World, simulate_lines
from engine.zhajinhua.game import ZhaJinHua
from events.codec import parse_line
from events.errors import UsageError
from ingest.pipeline import ingest

DUMPING = World(pool=8, colluders=(("p01", "p02"),), dumpers=(("p01", "p02"),))
PAIR = World(pool=8, colluders=(("p01", "p02"),))


def _args(colluders: str) -> argparse.Namespace:
    return argparse.Namespace(players=8, colluders=colluders, rig_deals=None, seek=0.0)


def test_cli_reads_a_dumping_pair() -> None:
    w = parse_world(_args("p01>p02;p03,p04"), ZhaJinHua())
    assert w is not None
    assert w.colluders == (("p01", "p02"), ("p03", "p04")) and w.dumpers == (("p01", "p02"),)


def test_cli_refuses_dumping_outside_zhajinhua() -> None:
    from engine.registry import get_game

    with pytest.raises(UsageError, match="zhajinhua only"):
        parse_world(_args("p01>p02"), get_game("ddz"))
    with pytest.raises(UsageError, match="A>B: A also dumps chips to B"):
        parse_world(_args("p01>p01"), ZhaJinHua())


def _matches(world: World, n: int, seed: int) -> list[list[Any]]:
    by: dict[str, list[Any]] = {}
    for text in simulate_lines("zhajinhua", None, n, seed, world=world):
        for line in text.splitlines():
            ev = parse_line(line.encode())
            by.setdefault(ev.match_id, []).append(ev)
    return list(by.values())


def test_the_dumper_bets_then_folds_to_its_receiver() -> None:
    """Every hand where p01 and p02 are the last two: p01's events there (a `look` aside) are bets
    (until DUMP_BETS in the hand) and then its fold; p02 wins. While p02 is in, p01 never folds."""
    heads_up = 0
    for events in _matches(DUMPING, 300, 11):
        players = events[0].players
        if "p01" not in players or "p02" not in players:
            continue
        a, b = players.index("p01"), players.index("p02")
        fold = Fold(events[0].match_id)
        alone = False
        for ev in events:
            st = fold.state
            if st is not None and ev.type not in ("settled", "look") and getattr(ev, "seat", None) == a and st.active[b]:
                assert ev.type != "fold" or sum(st.active) == 2, (ev.match_id, ev.seq)
                if sum(st.active) == 2 and st.active[a]:
                    alone = True
                    made = sum(1 for c in st.chips if c[0] == a and c[1] == "bet")
                    assert ev.type == ("bet" if made < DUMP_BETS else "fold"), (ev.match_id, ev.seq, ev.type, made)
            assert fold.step(ev).accepted, (ev.match_id, ev.seq)
        if alone:
            heads_up += 1
            assert fold.conclude().winners == [b], events[0].match_id
    assert heads_up >= 10


def _flow(world: World, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    import paiju

    tmp_path.mkdir()
    log = tmp_path / "z.jsonl"
    log.write_text("".join(simulate_lines("zhajinhua", None, 600, 5, world=world)), encoding="utf-8")
    ingest([str(log)], tmp_path / "lake", workers=0)
    assert paiju.main(["integrity", "--lake", str(tmp_path / "lake"), "--game", "zhajinhua", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    (pair,) = [p for p in rep["pairs"] if p["players"] == ["p01", "p02"] and p["game"] == "zhajinhua"]
    return pair["signals"]  # type: ignore[no-any-return]


def test_money_flow_points_from_the_dumper(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """600 matches, 8 players: the dumping pair's flow p01 → p02 is positive and beyond 4 SD of
    the seat-shuffle null; the same pair, same seed, without dumping stays within 3 SD."""
    dumping = _flow(DUMPING, tmp_path / "d", capsys)
    plain = _flow(PAIR, tmp_path / "p", capsys)
    assert dumping["flow_ab"] > 0 and dumping["flow_z"] > 4, dumping
    assert abs(plain["flow_z"]) < 3, plain
