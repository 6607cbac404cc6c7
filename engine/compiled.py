"""Which build of the bots' hot paths runs: mypyc-compiled or the pure Python sources (issue 22).

setup.py compiles `MODULES` with mypyc when the package is installed (`make install-dev`, `pip
install -e .`, a wheel), all in one group:
- mahjong (engine/mahjong/core.py, bot.py, wild.py, sichuan_core.py): the table-driven shanten, gain
  and win scans, Hongzhong's wild-tile needs, the bot policy that calls them and the Sichuan
  reducer's plain discard / draw and memo key (sichuan.py keeps its pydantic rules and `State`);
- the climbing games (engine/climbing/…): the move generator and classifier (moves.py), the laizi
  readings (laizi.py), the Dou Dizhu splitter and bot (bot.py), the Pao De Kuai bot (paodekuai_bot.py).
It writes, next to each source, an extension module of the same name
(`core.cpython-311-x86_64-linux-gnu.so`) and one library they all share, `engine/_mypyc_<digest>__mypyc.*.so`,
whose name carries `digest()`: the sha256 of the files in `SOURCES` (the compiled modules and those
whose types they were compiled against) at build time. The pure sources stay the reference and the
fallback. CPython imports an extension module before a source of the same name, so `install()`
(each compiled package's `__init__`, engine/mahjong/__init__.py and engine/climbing/__init__.py, runs
it before any submodule is imported; the first decides for the process) puts a finder first on
`sys.meta_path` that imports the pure sources of every module of `MODULES` instead when
- `PAIJU_PURE=1` is set in the environment (the reference path, e.g. to compare or to profile
  the bots with cProfile, which does not see into compiled functions), or
- extension modules are there but no shared library carries the digest of today's sources (a
  source edited since the build): an old binary never runs; one line on stderr says how to rebuild
  (`make install-dev` rebuilds when a source is newer; tests/test_compiled_*.py fail).
Compiled or pure, it is all of `MODULES` or none (compiled code calls its group's functions natively).
`state()` says which path this process takes. Rebuild in place without pip: `python setup.py
build_ext --inplace` with an interpreter that has mypy. This module imports nothing but the
standard library (setup.py loads it by path, before the package is importable).

What stays pure on purpose: classes that are copied by their `__slots__`, pickled to the process
pool's workers or subclassed by interpreted code (the games' states and reducers: Pao De Kuai's
`_Draft` copies `State.__slots__`, `DouDizhuLaizi` subclasses `DouDizhu`; mahjong's `Wall`/`Meld` in
engine/mahjong/wall.py), so the climbing reducers (ddz.py, ddz_laizi.py, paodekuai.py: under a tenth
of a simulation's time) and pdk_moves.py (cached look-ups: 2% of a Pao De Kuai simulation's
instructions when compiled) stay pure. Compiled code keeps a value typed as a plain `tuple[...]`
unboxed and boxes it back as a plain tuple: a `Move` or `Reading` must be typed as one to stay one.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

MAHJONG: tuple[str, ...] = (
    "engine/mahjong/core.py",
    "engine/mahjong/bot.py",
    "engine/mahjong/wild.py",
    "engine/mahjong/sichuan_core.py",
)
CLIMBING: tuple[str, ...] = (
    "engine/climbing/moves.py",
    "engine/climbing/laizi.py",
    "engine/climbing/bot.py",
    "engine/climbing/paodekuai_bot.py",
)
MODULES: tuple[str, ...] = (*MAHJONG, *CLIMBING)
"""The compiled modules, as paths from the repository root (= the install root)."""
SOURCES: tuple[str, ...] = (
    *MODULES,
    "engine/mahjong/wall.py",
    "engine/mahjong/suit_needs.py",
    "engine/mahjong/suit_ids.py",
    "engine/mahjong/sichuan.py",
    "engine/mahjong/claimflow.py",
    "engine/climbing/pdk_moves.py",
    "engine/climbing/ddz.py",
    "engine/climbing/ddz_laizi.py",
    "engine/climbing/paodekuai.py",
    "engine/tiles.py",
    "engine/cards.py",
    "engine/errors.py",
)
"""What the compiled code depends on: the compiled modules and every module whose names they import
(also under TYPE_CHECKING: the bots read the games' `State`/`Table` fields). mypyc checks a value
against its annotation where compiled code reads it, so a changed annotation there could make an
old build raise where the sources would not."""
ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "engine"
"""The package that holds the group's shared library."""
ENV_PURE = "PAIJU_PURE"
LIB_PREFIX = "_mypyc_"


def digest(root: Path = ROOT) -> str:
    """sha256 (hex, 16 digits) of the bytes of every file in `SOURCES`, each with its path."""
    h = hashlib.sha256()
    for rel in SOURCES:
        h.update(rel.encode() + b"\0" + (root / rel).read_bytes() + b"\0")
    return h.hexdigest()[:16]


def group_name(root: Path = ROOT) -> str:
    """mypyc's group name for these sources: the shared library is `<group>__mypyc` in PACKAGE."""
    return f"{PACKAGE}.{LIB_PREFIX}{digest(root)}"


def old_libraries(root: Path = ROOT) -> list[Path]:
    """Shared libraries of other sources (or of an older layout) that an in-place build left."""
    keep = f"{LIB_PREFIX}{digest(root)}__mypyc."
    folders = {root / PACKAGE, *((root / rel).parent for rel in MODULES)}
    return [p for f in sorted(folders) for p in f.glob(f"{LIB_PREFIX}*__mypyc.*") if not p.name.startswith(keep)]


def _module_name(rel: str) -> str:
    return rel.removesuffix(".py").replace("/", ".")


def _extensions(stem: str, folder: Path) -> list[Path]:
    return [
        folder / f"{stem}{suffix}"
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
        if (folder / f"{stem}{suffix}").is_file()
    ]


def _decide() -> str:
    """'compiled', 'pure: PAIJU_PURE=1', 'pure: not built' or 'pure: stale build'."""
    if os.environ.get(ENV_PURE, "") not in ("", "0"):
        return f"pure: {ENV_PURE}={os.environ[ENV_PURE]}"
    built = [p for rel in MODULES for p in _extensions(Path(rel).stem, ROOT / Path(rel).parent)]
    if not built:
        return "pure: not built"
    if not _extensions(f"{LIB_PREFIX}{digest()}__mypyc", ROOT / PACKAGE):
        return "pure: stale build"
    return "compiled"


class _SourceFinder:
    """A meta path finder that imports `MODULES` from their .py sources (ahead of the extensions)."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        rel = _PURE_SOURCES.get(name)
        return None if rel is None else importlib.util.spec_from_file_location(name, ROOT / rel)


_PURE_SOURCES: dict[str, str] = {}
_STATE: list[str] = []


def install() -> str:
    """Decide once per process which path runs (see the module docstring); returns `state()`."""
    if _STATE:
        return _STATE[0]
    st = _decide()
    _STATE.append(st)
    if st != "compiled":
        _PURE_SOURCES.update({_module_name(rel): rel for rel in MODULES})
        sys.meta_path.insert(0, _SourceFinder)  # type: ignore[arg-type]
    if st == "pure: stale build":
        print(
            f"paiju: the compiled modules ({', '.join(MODULES)}) were built from other sources; "
            "running the pure Python ones (rebuild: make install-dev, or pip install -e .)",
            file=sys.stderr,
        )
    return st


def state() -> str:
    """Which path this process takes: 'compiled' or 'pure: <why>'."""
    return install()


def loaded(modules: tuple[str, ...] = MODULES) -> dict[str, bool]:
    """Per compiled module (of `modules`) already imported: whether it is the extension module (not the source)."""
    out = {}
    for rel in modules:
        mod = sys.modules.get(_module_name(rel))
        if mod is not None:
            out[_module_name(rel)] = not str(getattr(mod, "__file__", "")).endswith(".py")
    return out


if __name__ == "__main__":  # `python engine/compiled.py`: what a build depends on (the Makefile)
    print(*SOURCES)
