"""The mahjong names of engine/compiled.py, kept for their users (issue 22): which build of the bots'
hot paths runs (mypyc-compiled or the pure Python sources) is decided there, for every compiled
package at once; `MODULES` here are the mahjong ones and `loaded()` reports those."""

from __future__ import annotations

from engine.compiled import ENV_PURE, LIB_PREFIX, ROOT, SOURCES, digest, group_name, install, state
from engine.compiled import MAHJONG as MODULES
from engine.compiled import loaded as _loaded

__all__ = ["ENV_PURE", "LIB_PREFIX", "MODULES", "ROOT", "SOURCES", "digest", "group_name", "install", "loaded", "state"]


def loaded() -> dict[str, bool]:
    """Per compiled mahjong module already imported: whether it is the extension module (not the source)."""
    return _loaded(MODULES)
