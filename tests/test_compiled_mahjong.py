"""The mypyc-compiled mahjong hot path (engine/mahjong/compiled.py, setup.py) against its pure sources.

Each check runs two fresh interpreters, one with PAIJU_PURE=1 (the .py sources) and one without
(the extension modules when built): the core's scans and the bots' choices on generated hands, and
the sha256 of simulated logs of every mahjong game, must be equal. When the modules are built they
must really be loaded (and need nothing outside the standard library at run time); a build older
than its sources fails here with the command that rebuilds it. Without a build (no compiler, or
PAIJU_PURE=1 at install) the comparisons still run (pure against pure) and the load check skips.

Run as a script (`python tests/test_compiled_mahjong.py`) it prints the results of this interpreter.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from functools import cache
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.xdist_group("compiled_mahjong")  # one worker runs the two interpreters once

ROOT = Path(__file__).resolve().parent.parent
GAMES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("sichuan_xuezhan", {}),
    ("sichuan_xuezhan", {"preset": "chengdu"}),
    ("sichuan_xueliu", {}),
    ("hongzhong", {}),
    ("hongzhong", {"qi_dui": True, "zhama": 2}),
    ("anshun", {}),
)
MATCHES, SEED = 6, 3
N_HANDS = 4000


def _hands(n: int, seed: int) -> list[tuple[list[int], int]]:
    """(counts over 28 kinds, n_melds): 14 − 3·melds tiles, some from one or two suits (ready and
    complete hands come often), some holding red dragons (the generic path of the scans)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        n_melds = rng.choice((0, 0, 0, 1, 1, 2, 3, 4))
        suits = rng.sample(range(3), 1 + i % 3)
        pool = [k for s in suits for k in range(9 * s, 9 * s + 9) for _ in range(4)]
        if i % 7 == 0:
            pool += [27] * 4
        c = [0] * 28
        for k in rng.sample(pool, 14 - 3 * n_melds):
            c[k] += 1
        out.append((c, n_melds))
    return out


def results() -> dict[str, Any]:
    """Everything compared, from this interpreter (JSON-able)."""
    from engine.mahjong import bot, compiled, core, wild
    from engine.sim.simulate import simulate_lines

    out: dict[str, Any] = {"state": compiled.state(), "loaded": compiled.loaded()}
    rows = []
    for i, (c, m) in enumerate(_hands(N_HANDS, 22)):
        as_input: Any = (tuple(c), list(c), bytes(c))[i % 3]  # every input type the callers pass
        void = i % 4 - 1  # −1 = no void suit (Hongzhong, Anshun)
        c13 = list(c)
        c13[next(k for k in range(28) if c[k])] -= 1
        unseen = [max(0, 4 - x - (k * 7 + i) % 3) for k, x in enumerate(c)]
        row: list[Any] = [
            core.shanten(as_input, m),
            core.shanten(as_input, m, False),
            core.discard_gains(as_input, m),
            core.min_discard_gains(as_input, m),
            core.min_discard_shanten(as_input, m),
            core.discard_shanten(as_input, m, i % 2 == 0),
            core.draw_gains(c13, m),
            core.win_tiles(c13, m),
            core.waits(c13, m),
            core.is_win(as_input, m),
            core.is_seven_pairs(as_input),
            [list(s) for s in core.decompose(as_input, m)],
            bot.choose_void(c[:27]),
            bot.choose_exchange(c[:27]) if sum(c[:27]) >= 13 else None,
            bot.choose_discard(as_input, m, void, unseen),
            bot.choose_discard_plain(as_input, m, void, unseen),
            bot.best_after_discard(as_input, m, void),
        ]
        pair = next((k for k in range(27) if c13[k] >= 2), None)
        if m < 4 and pair is not None:
            row.append(bot.want_peng(c13, m, pair, void))
        if m < 4 and max(c13) == 4:
            k4 = c13.index(4)
            after = list(c13)
            after[k4] = 0
            row.append(bot.want_gang(c13, after, m, void, False))
        row += [
            wild.min_wilds(c),
            wild.is_win_any(c13, i % 3, i % 2 == 0, m),
            wild.waits(c13, i % 3, qi_dui=i % 2 == 0, melds=m),
        ]
        rows.append(row)
    out["hands"] = hashlib.sha256(json.dumps(rows).encode()).hexdigest()
    out["hands_sample"] = rows[:3]
    out["logs"] = {
        f"{g} {json.dumps(r, sort_keys=True)}": hashlib.sha256(
            "".join(simulate_lines(g, r, MATCHES, SEED)).encode()
        ).hexdigest()
        for g, r in GAMES
    }
    return out


@cache
def _run(pure: bool) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "PAIJU_PURE"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    if pure:
        env["PAIJU_PURE"] = "1"
    r = subprocess.run([sys.executable, __file__], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


def test_pure_path_is_forced_by_the_environment() -> None:
    got = _run(pure=True)
    assert got["state"] == "pure: PAIJU_PURE=1"
    assert got["loaded"] == {"engine.mahjong.core": False, "engine.mahjong.bot": False, "engine.mahjong.wild": False}


def test_compiled_modules_are_loaded_when_built() -> None:
    state = _run(pure=False)["state"]
    if state == "pure: not built":
        pytest.skip("the mahjong hot path is not compiled here (setup.py: no mypyc or C compiler)")
    assert state != "pure: stale build", (
        "the compiled mahjong modules are older than their sources (engine/mahjong/compiled.py SOURCES): "
        "rebuild with `make install-dev` or `pip install -e .`"
    )
    assert state == "compiled"
    code = (
        "import sys; from engine.mahjong import bot, core, compiled, wild; "
        "print(core.__file__, bot.__file__, compiled.loaded(), sorted(m for m in sys.modules if m.split('.')[0] in ('mypy', 'mypyc', 'mypy_extensions', 'librt')))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PAIJU_PURE"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    core_file, bot_file, *rest = r.stdout.split(" ", 2)
    assert not core_file.endswith(".py") and not bot_file.endswith(".py"), r.stdout
    assert rest[0].count(": True") == 3, r.stdout
    assert rest[0].rstrip().endswith("[]"), f"the compiled modules import a build-time package: {r.stdout}"


def test_scans_and_bot_choices_are_equal_on_generated_hands() -> None:
    compiled_run, pure_run = _run(pure=False), _run(pure=True)
    assert compiled_run["hands_sample"] == pure_run["hands_sample"]
    assert compiled_run["hands"] == pure_run["hands"]


def test_simulated_logs_are_byte_identical() -> None:
    assert _run(pure=False)["logs"] == _run(pure=True)["logs"]


def test_stale_build_falls_back_to_the_sources(tmp_path: Path) -> None:
    """With extension modules whose shared library carries another digest, the sources are imported
    (and stderr says so); the digest covers every file in SOURCES."""
    from engine.mahjong import compiled

    for rel in compiled.SOURCES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes((ROOT / rel).read_bytes())
    before = compiled.digest(tmp_path)
    assert before == compiled.digest(ROOT)
    for rel in compiled.SOURCES:
        p = tmp_path / rel
        p.write_bytes(p.read_bytes() + b"\n")
        assert compiled.digest(tmp_path) != before, rel
        p.write_bytes(p.read_bytes()[:-1])
    for rel in ("engine/__init__.py", "engine/mahjong/__init__.py", "engine/mahjong/compiled.py"):
        (tmp_path / rel).write_bytes((ROOT / rel).read_bytes())
    folder = tmp_path / "engine" / "mahjong"
    suffix = EXTENSION_SUFFIXES[0]
    (folder / f"core{suffix}").write_bytes(b"")  # an old build: never loaded
    (folder / f"{compiled.LIB_PREFIX}0000000000000000__mypyc{suffix}").write_bytes(b"")
    code = (
        "import importlib.util; from engine.mahjong import compiled; "
        "print(compiled.state(), importlib.util.find_spec('engine.mahjong.core').origin)"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PAIJU_PURE", "PYTHONPATH")}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["pure:", "stale", "build", str(folder / "core.py")], r.stdout + r.stderr
    assert "built from other sources" in r.stderr and "make install-dev" in r.stderr


if __name__ == "__main__":
    print(json.dumps(results()))
