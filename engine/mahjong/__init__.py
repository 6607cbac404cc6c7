"""The mahjong games. Importing the package first decides whether the mypyc-compiled bots' hot path
or its pure Python sources run (engine/mahjong/compiled.py; PAIJU_PURE=1 forces the sources)."""

from engine.mahjong.compiled import install as _install

_install()
