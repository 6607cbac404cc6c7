"""Fast `dataclasses.replace` for the big frozen slotted state dataclasses of the mahjong reducers.

The pure reducers (claimflow `Table`, sichuan `State`) copy their ~30-field state several times
per event; `dataclasses.replace` goes through `__init__` and is the largest single cost of a
playout. `state_replacer(cls)` returns a `replace(obj, **changes)` that, for an instance of exactly
`cls`, runs one generated copier per set of changed field names (slot copies with
`object.__setattr__`, no `__init__`, so `cls` must have no `__post_init__` and only init fields);
anything else falls back to `dataclasses.replace`. The result equals `dataclasses.replace`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any


def state_replacer(cls: type) -> Callable[..., Any]:
    """`replace(obj, **changes)` for the frozen dataclass `cls` (copiers generated lazily)."""
    flds = dataclasses.fields(cls)
    if hasattr(cls, "__post_init__") or not all(f.init for f in flds):
        raise TypeError(f"{cls.__name__}: fast copies need init fields and no __post_init__")
    names = tuple(f.name for f in flds)
    known = frozenset(names)
    copiers: dict[tuple[str, ...], Callable[[Any, dict[str, Any]], Any]] = {}

    def make(changed: tuple[str, ...]) -> Callable[[Any, dict[str, Any]], Any]:
        unknown = sorted(set(changed) - known)
        if unknown:
            raise TypeError(f"{cls.__name__} has no field {unknown}")
        body = [f"    _set(new, {n!r}, kw[{n!r}])" if n in changed else f"    _set(new, {n!r}, obj.{n})" for n in names]
        src = "def copy(obj, kw):\n    new = _new(C)\n" + "\n".join(body) + "\n    return new\n"
        ns: dict[str, Any] = {"_new": object.__new__, "_set": object.__setattr__, "C": cls}
        exec(src, ns)  # generated from the dataclass's own field names
        copiers[changed] = ns["copy"]
        return ns["copy"]

    def replace(obj: Any, **changes: Any) -> Any:
        if type(obj) is not cls:
            return dataclasses.replace(obj, **changes)
        key = tuple(changes)
        copy = copiers.get(key)
        if copy is None:
            copy = make(key)
        return copy(obj, changes)

    replace.__doc__ = f"`dataclasses.replace`, fast for {cls.__name__} (one generated copier per set of changed fields)."
    return replace
