"""Build hook (issue 22): compile the bots' hot paths with mypyc; the pure sources stay the fallback.

pyproject.toml holds the project's metadata; this file only adds `ext_modules`. Which modules, how
a build is matched to its sources and how the package picks the compiled or the pure path at run
time: engine/compiled.py. Without mypyc or a working C compiler, or with PAIJU_PURE=1 at
build time, the package installs as pure Python and one line says why. `make install-dev` (an
editable install) writes the extension modules next to their sources; a wheel carries them.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, ExecError, PlatformError

ROOT = Path(__file__).resolve().parent
_BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


def _say(msg: str) -> None:
    print(f"paiju setup: {msg}", file=sys.stderr)


def _compiled_spec() -> ModuleType:
    """engine/compiled.py, loaded by path (the package itself is not importable yet)."""
    spec = importlib.util.spec_from_file_location("_paiju_compiled", ROOT / "engine" / "compiled.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def ext_modules() -> list[Any]:
    """mypyc's extensions for the compiled modules, or [] (pure Python) with a one-line reason."""
    pure = "the bots' hot paths stay pure Python"
    if not _BUILDS.intersection(sys.argv[1:]):
        return []  # egg_info / dist_info (pip's metadata steps): nothing is compiled
    if os.environ.get("PAIJU_PURE", "") not in ("", "0"):
        _say(f"PAIJU_PURE is set: {pure}")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say(f"mypyc is not installed: {pure}")
        return []
    c = _compiled_spec()
    for old in c.old_libraries(ROOT):
        old.unlink()  # a library of older sources, left by an in-place build
    try:
        return mypycify(
            ["--follow-imports=silent", "--ignore-missing-imports", *(str(ROOT / rel) for rel in c.MODULES)],
            group_name=c.group_name(ROOT),
            opt_level="3",
        )
    except (Exception, SystemExit) as e:  # mypyc exits on a type error
        _say(f"mypyc could not compile ({type(e).__name__}: {e}): {pure}")
        return []


class OptionalBuildExt(build_ext):
    """`build_ext` that falls back to pure Python when the C build fails (no compiler, …)."""

    def run(self) -> None:
        try:
            super().run()
        except (CCompilerError, ExecError, PlatformError, OSError) as e:
            _say(f"no compiled hot paths ({type(e).__name__}: {e}): they stay pure Python")
            for ext in self.extensions:  # nothing half-built is left for the package to load
                for out in (self.get_ext_fullpath(ext.name), self._inplace_path(ext.name)):
                    Path(out).unlink(missing_ok=True)
            self.extensions = []

    def _inplace_path(self, name: str) -> str:
        inplace, self.inplace = self.inplace, True
        try:
            return self.get_ext_fullpath(name)
        finally:
            self.inplace = inplace


setup(ext_modules=ext_modules(), cmdclass={"build_ext": OptionalBuildExt})
