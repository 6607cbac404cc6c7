"""The mahjong games. Importing the package first decides whether the mypyc-compiled bots' hot paths
or their pure Python sources run (engine/compiled.py; PAIJU_PURE=1 forces the sources)."""

from engine.compiled import install as _install

_install()
