"""The mypyc-compiled mahjong hot path (engine/compiled.py, setup.py) against its pure sources.

Each check runs two fresh interpreters, one with PAIJU_PURE=1 (the .py sources) and one without
(the extension modules when built): the core's scans and the bots' choices on generated hands, and
the sha256 of simulated logs of every mahjong game, must be equal. When the modules are built they
must really be loaded (and need nothing outside the standard library at run time); a build older
than its sources fails here with the command that rebuilds it, and runs the sources (for either
compiled package: the stale-build test covers engine/compiled.py's machinery, tests/test_compiled_climbing.py
reuses this file's helpers). Without a build (no compiler, or
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
    from engine import compiled
    from engine.mahjong import bot, core, wild
    from engine.sim.simulate import simulate_lines

    out: dict[str, Any] = {"state": compiled.state(), "loaded": compiled.loaded(compiled.MAHJONG)}
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


def child_env(pure: bool) -> dict[str, str]:
    """This environment for a fresh interpreter on this tree: PAIJU_PURE=1 when `pure`, else unset."""
    env = {k: v for k, v in os.environ.items() if k != "PAIJU_PURE"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    if pure:
        env["PAIJU_PURE"] = "1"
    return env


def run_results(script: str, pure: bool) -> dict[str, Any]:
    """The JSON a test file run as a script prints (its `results()`), from a fresh interpreter."""
    r = subprocess.run(
        [sys.executable, script], capture_output=True, text=True, env=child_env(pure), cwd=ROOT, timeout=900
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def check_loaded(modules: str, n_modules: int) -> None:
    """With a build of today's sources, importing `modules` (`from engine.x import a, b`) loads the
    extension modules, and they import no build-time package (mypy, mypyc, …)."""
    from engine import compiled

    state = compiled.state()
    if state == "pure: not built":
        pytest.skip("the hot paths are not compiled here (setup.py: no mypyc or C compiler)")
    assert state != "pure: stale build", (
        "the compiled modules are older than their sources (engine/compiled.py SOURCES): "
        "rebuild with `make install-dev` or `pip install -e .`"
    )
    assert state == "compiled"
    code = (
        f"import sys; {modules}; from engine import compiled; "
        "print(compiled.loaded(), sorted(m for m in sys.modules if m.split('.')[0] in ('mypy', 'mypyc', 'mypy_extensions', 'librt')))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=child_env(False), cwd=ROOT, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.count(": True") == n_modules and ": False" not in r.stdout, r.stdout
    assert r.stdout.rstrip().endswith("[]"), f"the compiled modules import a build-time package: {r.stdout}"


@cache
def _run(pure: bool) -> dict[str, Any]:
    return run_results(__file__, pure)


def test_pure_path_is_forced_by_the_environment() -> None:
    got = _run(pure=True)
    assert got["state"] == "pure: PAIJU_PURE=1"
    assert got["loaded"] == {"engine.mahjong.core": False, "engine.mahjong.bot": False, "engine.mahjong.wild": False}


def test_compiled_modules_are_loaded_when_built() -> None:
    assert _run(pure=False)["state"] in ("compiled", "pure: not built")
    check_loaded("from engine.mahjong import bot, core, wild", 3)


def test_scans_and_bot_choices_are_equal_on_generated_hands() -> None:
    compiled_run, pure_run = _run(pure=False), _run(pure=True)
    assert compiled_run["hands_sample"] == pure_run["hands_sample"]
    assert compiled_run["hands"] == pure_run["hands"]


def test_simulated_logs_are_byte_identical() -> None:
    assert _run(pure=False)["logs"] == _run(pure=True)["logs"]


@pytest.mark.parametrize("module", ["engine.mahjong.core", "engine.climbing.bot"])
def test_stale_build_falls_back_to_the_sources(tmp_path: Path, module: str) -> None:
    """With extension modules whose shared library carries another digest, the sources are imported
    (and stderr says so), whichever compiled package is imported first; the digest covers every
    file in SOURCES."""
    from engine import compiled

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
    for rel in (
        "engine/__init__.py",
        "engine/compiled.py",
        "engine/mahjong/__init__.py",
        "engine/climbing/__init__.py",
    ):
        (tmp_path / rel).write_bytes((ROOT / rel).read_bytes())
    suffix = EXTENSION_SUFFIXES[0]
    for rel in compiled.MODULES:  # an old build: never loaded
        (tmp_path / rel).with_name(Path(rel).stem + suffix).write_bytes(b"")
    (tmp_path / compiled.PACKAGE / f"{compiled.LIB_PREFIX}0000000000000000__mypyc{suffix}").write_bytes(b"")
    assert len(compiled.old_libraries(tmp_path)) == 1
    code = (
        f"import importlib.util, {module}; from engine import compiled; "
        "print(compiled.state(), *(importlib.util.find_spec(m).origin for m in compiled.loaded()))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PAIJU_PURE", "PYTHONPATH")}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    state, origins = r.stdout.split()[:3], r.stdout.split()[3:]
    assert state == ["pure:", "stale", "build"], r.stdout + r.stderr
    assert origins and str(tmp_path / module.replace(".", "/")) + ".py" in origins, r.stdout
    assert all(o.endswith(".py") and o.startswith(str(tmp_path)) for o in origins), r.stdout
    assert "built from other sources" in r.stderr and "make install-dev" in r.stderr


if __name__ == "__main__":
    print(json.dumps(results()))
