"""`paiju hand` for Hongzhong and Anshun (issue 17): a 14-tile hand plus `--win-tile` is read as the
Sichuan calculator reads it (the tile names which of the 14 completed the hand), and more than four
copies of a tile, concealed and in melds together, is refused (HZ-C1 / AS-C1: four of each tile).
Expected answers: HZ-E1 (zi_mo, r = 1) and AS-E1 (ping_hu 1) of the rule files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.mahjong.anshun import ANSHUN
from engine.mahjong.hongzhong import HONGZHONG
from engine.mahjong.sichuan import XUEZHAN

HZ_E1 = "2m3m4m 5p6p 7z 1s1s1s 8s8s 9p9p"  # + 7p: 234m 567p 999p(9p9p+7z) 111s 88s
AS_E1 = "2m3m4m 5m6m7m 6p7p8p 9p9p 2s3s"  # + 1s: 234m 567m 678p 123s 99p


@pytest.mark.parametrize(
    ("game", "hand", "tile", "want"),
    [
        (HONGZHONG, HZ_E1, "7p", {"win": True, "fans": {}, "fan": 0, "kind": "zi_mo", "r": 1, "birds": 4}),
        (ANSHUN, AS_E1, "1s", {"win": True, "fans": {"ping_hu": 1}, "fan": 1}),
    ],
    ids=["hongzhong", "anshun"],
)
def test_fourteen_tiles_with_the_win_tile(game: Any, hand: str, tile: str, want: dict[str, Any]) -> None:
    assert game.hand({"cards": hand, "win_tile": tile}) == want  # 13 + the winning tile
    assert game.hand({"cards": f"{hand} {tile}", "win_tile": tile}) == want  # the 14 already hold it


def test_sichuan_reads_fourteen_tiles_with_the_win_tile_the_same_way() -> None:
    q = {"cards": "1m2m3m 4m5m6m 7m8m9m 1p2p3p 5p", "win_tile": "5p"}
    assert XUEZHAN.hand({**q, "cards": q["cards"] + " 5p"}) == XUEZHAN.hand(q)


@pytest.mark.parametrize(
    ("game", "q"),
    [
        (ANSHUN, {"cards": "1m1m 2m3m4m 5p5p5p", "melds": "peng:1m,peng:1m"}),  # 8 × 1m
        (ANSHUN, {"cards": "1m 2m3m4m 5p5p5p 6p6p", "melds": "gang_an:1m"}),  # 5 × 1m
        (HONGZHONG, {"cards": "1m1m1m1m1m 2m3m4m 5p5p 6p6p6p"}),  # 5 concealed
        (HONGZHONG, {"cards": "1m1m 2m3m4m 5p5p5p 9s9s9s", "melds": "gang_an:1m"}),  # 6 × 1m
        (HONGZHONG, {"cards": "5s5s 2m3m4m 5p5p5p 9s9s", "melds": "peng:5s", "win_tile": "5s"}),  # 6 × 5s
    ],
)
def test_more_than_four_copies_are_refused(game: Any, q: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"C1 .*more than 4"):
        game.hand(q)


def test_the_command_line_answers() -> None:
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, str(root / "paiju.py"), "hand", "anshun", AS_E1 + " 1s", "--win-tile", "1s", "--json"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert out.returncode == 0 and json.loads(out.stdout) == {"win": True, "fans": {"ping_hu": 1}, "fan": 1}
    out = subprocess.run(
        [sys.executable, str(root / "paiju.py"), "hand", "hongzhong", "1m1m1m1m1m 2m3m4m 5p5p 6p6p6p", "--json"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    # docs/cli.md: without --batch, cards the game refuses are exit 2 with one line naming why
    assert out.returncode == 2 and out.stdout == "" and "HZ-C1" in out.stderr and len(out.stderr.splitlines()) == 1
