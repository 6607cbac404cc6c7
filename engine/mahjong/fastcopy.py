"""Fast `dataclasses.replace` for the big frozen slotted state dataclasses of the mahjong reducers.

The pure reducers (claimflow `Table`, sichuan `State`) copy their ~30-field state several times
per event; `dataclasses.replace` goes through `__init__` and is the largest single cost of a
playout. `state_replacer(cls)` returns a `replace(obj, **changes)` that, for an instance of exactly
`cls`, runs one generated copier per set of changed field names (each slot written through its own
member descriptor's `__set__`, about twice as fast as `object.__setattr__`, which looks the name up
first; no `__init__`, so `cls` must have no `__post_init__` and only init fields); anything else
falls back to `dataclasses.replace`. The result equals `dataclasses.replace`'s.
`replace.positional(*names)` gives a copier taking those fields' new values by position.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from types import MemberDescriptorType
from typing import Any


def state_replacer(cls: type) -> Callable[..., Any]:
    """`replace(obj, **changes)` for the frozen dataclass `cls` (copiers generated lazily)."""
    flds = dataclasses.fields(cls)
    if hasattr(cls, "__post_init__") or not all(f.init for f in flds):
        raise TypeError(f"{cls.__name__}: fast copies need init fields and no __post_init__")
    names = tuple(f.name for f in flds)
    known = frozenset(names)
    copiers: dict[tuple[str, ...], Callable[[Any, dict[str, Any]], Any]] = {}
    # a slotted class: each field is a member descriptor of the class; a plain one: object.__setattr__
    descs = [cls.__dict__.get(n) for n in names]
    setters = {
        f"_s{i}": d.__set__ if isinstance(d, MemberDescriptorType) else _setter(n)
        for i, (n, d) in enumerate(zip(names, descs, strict=True))
    }

    def make(changed: tuple[str, ...]) -> Callable[[Any, dict[str, Any]], Any]:
        unknown = sorted(set(changed) - known)
        if unknown:
            raise TypeError(f"{cls.__name__} has no field {unknown}")
        body = [f"    _s{i}(new, kw[{n!r}])" if n in changed else f"    _s{i}(new, obj.{n})" for i, n in enumerate(names)]
        src = "def copy(obj, kw):\n    new = _new(C)\n" + "\n".join(body) + "\n    return new\n"
        ns: dict[str, Any] = {"_new": object.__new__, "C": cls, **setters}
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

    def positional(*changed: str) -> Callable[..., Any]:
        """A copier `copy(obj, v0, v1, …)` = `replace(obj, changed[0]=v0, …)` for an instance of
        exactly `cls` (no keyword dict: the hottest copies of a reducer)."""
        unknown = sorted(set(changed) - known)
        if unknown or len(set(changed)) != len(changed):
            raise TypeError(f"{cls.__name__}: bad field list {changed}")
        pos = {n: i for i, n in enumerate(changed)}
        body = [f"    _s{i}(new, v{pos[n]})" if n in pos else f"    _s{i}(new, obj.{n})" for i, n in enumerate(names)]
        args = "".join(f", v{i}" for i in range(len(changed)))
        src = f"def copy(obj{args}):\n    new = _new(C)\n" + "\n".join(body) + "\n    return new\n"
        ns: dict[str, Any] = {"_new": object.__new__, "C": cls, **setters}
        exec(src, ns)  # generated from the dataclass's own field names
        return ns["copy"]  # type: ignore[no-any-return]

    replace.__doc__ = f"`dataclasses.replace`, fast for {cls.__name__} (one generated copier per set of changed fields)."
    replace.positional = positional  # type: ignore[attr-defined]
    return replace


def _setter(name: str) -> Callable[[Any, Any], None]:
    def set_(obj: Any, value: Any) -> None:
        object.__setattr__(obj, name, value)

    return set_
