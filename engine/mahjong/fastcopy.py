"""Fast `dataclasses.replace` for the big frozen slotted state dataclasses of the mahjong reducers.

The pure reducers (claimflow `Table`, sichuan `State`) copy their ~30-field state several times
per event; `dataclasses.replace` goes through `__init__` and is the largest single cost of a
playout. `state_replacer(cls)` returns a `replace(obj, **changes)` that, for an instance of exactly
`cls`, runs one generated copier per set of changed field names (each slot written through its own
member descriptor's `__set__`, about twice as fast as `object.__setattr__`, which looks the name up
first; no `__init__`, so `cls` must have no `__post_init__` and only init fields); anything else
falls back to `dataclasses.replace`. The result equals `dataclasses.replace`'s.
`replace.positional(*names)` gives a copier taking those fields' new values by position.

A slotted class whose only base is `object` is copied faster still through a *draft* twin: a plain
class with the same `__slots__` (so the same memory layout), whose instances take plain attribute
stores (the interpreter's specialised slot store, about three times faster than calling each
descriptor's `__set__`); the finished copy then becomes an instance of `cls` by `__class__`
assignment (which CPython allows only between layout-compatible classes). The twin is checked once
when it is made (every field written through it reads back through `cls`); on any doubt the
descriptor copier is used.
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

    draft = _draft_twin(cls, names)

    def make(changed: tuple[str, ...]) -> Callable[[Any, dict[str, Any]], Any]:
        unknown = sorted(set(changed) - known)
        if unknown:
            raise TypeError(f"{cls.__name__} has no field {unknown}")
        if draft is not None:
            body = [f"    new.{n} = kw[{n!r}]" if n in changed else f"    new.{n} = obj.{n}" for n in names]
            src = "def copy(obj, kw):\n    new = _new(D)\n" + "\n".join(body) + "\n    new.__class__ = C\n    return new\n"
        else:
            body = [f"    _s{i}(new, kw[{n!r}])" if n in changed else f"    _s{i}(new, obj.{n})" for i, n in enumerate(names)]
            src = "def copy(obj, kw):\n    new = _new(C)\n" + "\n".join(body) + "\n    return new\n"
        ns: dict[str, Any] = {"_new": object.__new__, "C": cls, "D": draft, **setters}
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
        args = "".join(f", v{i}" for i in range(len(changed)))
        if draft is not None:
            body = [f"    new.{n} = v{pos[n]}" if n in pos else f"    new.{n} = obj.{n}" for n in names]
            src = f"def copy(obj{args}):\n    new = _new(D)\n" + "\n".join(body) + "\n    new.__class__ = C\n    return new\n"
        else:
            body = [f"    _s{i}(new, v{pos[n]})" if n in pos else f"    _s{i}(new, obj.{n})" for i, n in enumerate(names)]
            src = f"def copy(obj{args}):\n    new = _new(C)\n" + "\n".join(body) + "\n    return new\n"
        ns: dict[str, Any] = {"_new": object.__new__, "C": cls, "D": draft, **setters}
        exec(src, ns)  # generated from the dataclass's own field names
        return ns["copy"]  # type: ignore[no-any-return]

    replace.__doc__ = f"`dataclasses.replace`, fast for {cls.__name__} (one generated copier per set of changed fields)."
    replace.positional = positional  # type: ignore[attr-defined]
    return replace


def _draft_twin(cls: type, names: tuple[str, ...]) -> type | None:
    """A plain class with the slots of `cls` (same layout), or None when `cls` is not a slotted class
    of those fields directly on `object`, or the twin does not read back through `cls`."""
    if cls.__bases__ != (object,) or tuple(cls.__dict__.get("__slots__", ())) != names:
        return None
    twin = type(f"_{cls.__name__}Draft", (), {"__slots__": names, "__module__": cls.__module__})
    if twin.__basicsize__ != cls.__basicsize__:  # type: ignore[attr-defined]
        return None
    probe = object.__new__(twin)
    marks = [object() for _ in names]
    for n, m in zip(names, marks, strict=True):
        setattr(probe, n, m)
    try:
        probe.__class__ = cls
    except TypeError:
        return None
    if not all(getattr(probe, n) is m for n, m in zip(names, marks, strict=True)):
        return None
    return twin


def _setter(name: str) -> Callable[[Any, Any], None]:
    def set_(obj: Any, value: Any) -> None:
        object.__setattr__(obj, name, value)

    return set_
