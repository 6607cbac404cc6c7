"""Climbing card games (Dou Dizhu, wild-card Dou Dizhu, Pao De Kuai) on one move engine (`moves`).

Importing the package first decides whether the mypyc-compiled move engine and bots or their pure
Python sources run (engine/compiled.py; PAIJU_PURE=1 forces the sources)."""

from engine.compiled import install as _install

_install()
