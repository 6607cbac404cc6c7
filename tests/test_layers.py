"""The layers point one way (issue 20, README "How it is built": events <- engine <- ingest <-
analytics <- dashboard <- paiju.py), the game modules do not import their bots, and engine/ has no
import cycle.

The imports are read with `ast` from every module's source (top-level, inside functions, under
`TYPE_CHECKING`, and `importlib.import_module("literal")`), so a lazy import is an arrow too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RANK: dict[str, int] = {
    "events": 0,
    "engine": 1,
    "ingest": 2,
    "analytics": 3,
    "referee": 3,  # the live referee (paiju serve): events, engine, ingest; beside analytics
    "dashboard": 4,
    "paiju": 5,
}
"""Bottom to top: a module may import its own package and the packages of a lower rank."""
NOT_SHIPPED = frozenset({"tests", "bench"})


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(path: Path, name: str | None = None) -> list[tuple[str, int, bool]]:
    """(imported module, line, only for type checking) for every import in the file (module `name`)."""
    name = name or _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for sub in node.body:
                typing_only.update(id(n) for n in ast.walk(sub))
    out: list[tuple[str, int, bool]] = []
    for node in ast.walk(tree):
        tc = id(node) in typing_only
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno, tc) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            out.append((mod, node.lineno, tc))
            # `from engine.mahjong import bot` imports the sub-module engine.mahjong.bot
            out += [(f"{mod}.{a.name}", node.lineno, tc) for a in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out.append((node.args[0].value, node.lineno, tc))
    return out


def _packages() -> list[str]:
    return sorted(p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name not in NOT_SHIPPED)


def _files() -> list[Path]:
    files = [ROOT / "paiju.py"]
    for package in _packages():
        files += sorted((ROOT / package).rglob("*.py"))
    return files


MODULES: dict[str, Path] = {_module_name(p): p for p in _files()}


def _resolve(target: str) -> str | None:
    """The project module `target` names (a `from pkg import name` of a non-module resolves to pkg)."""
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target or None


def _graph(*, with_typing: bool) -> dict[str, set[tuple[str, int]]]:
    g: dict[str, set[tuple[str, int]]] = {}
    for name, path in MODULES.items():
        edges = g.setdefault(name, set())
        for target, line, tc in imports_of(path):
            if tc and not with_typing:
                continue
            dst = _resolve(target)
            if dst is not None and dst != name:
                edges.add((dst, line))
    return g


def _allowed(src: str, dst: str) -> bool:
    a, b = src.split(".")[0], dst.split(".")[0]
    return a == b or RANK[b] < RANK[a]


def test_every_package_has_a_layer() -> None:
    missing = [p for p in _packages() if p not in RANK]
    assert not missing, f"give {missing} a rank in RANK (tests/test_layers.py)"


def _is_bot(module: str) -> bool:
    last = module.rpartition(".")[2]
    return last == "bot" or last.endswith("_bot")


def test_the_walk_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The walker itself, on a file written for it (expected arrows by hand)."""
    src = (
        "from __future__ import annotations\n"
        "import importlib\n"
        "from typing import TYPE_CHECKING\n"
        "from . import bot\n"
        "from ...events import models\n"
        "if TYPE_CHECKING:\n"
        "    from ingest.cli import run\n"
        "def f():\n"
        "    import paiju\n"
        "    return importlib.import_module('dashboard.cli')\n"
    )
    probe = tmp_path / "probe.py"
    probe.write_text(src, encoding="utf-8")
    got = {(m, tc) for m, _, tc in imports_of(probe, "engine.climbing.probe")}
    assert ("engine.climbing.bot", False) in got
    assert ("events.models", False) in got
    assert ("ingest.cli", True) in got
    assert ("paiju", False) in got
    assert ("dashboard.cli", False) in got


def test_no_module_imports_a_layer_above_it() -> None:
    bad = [
        f"{src} ({MODULES[src].relative_to(ROOT)}:{line}) imports {dst}"
        for src, edges in _graph(with_typing=True).items()
        for dst, line in sorted(edges)
        if not _allowed(src, dst)
    ]
    assert not bad, "forbidden arrows:\n" + "\n".join(bad)


def test_nothing_below_the_command_line_imports_paiju() -> None:
    bad = [
        f"{src}:{line}"
        for src, edges in _graph(with_typing=True).items()
        for dst, line in edges
        if dst == "paiju" and src != "paiju"
    ]
    assert not bad


def test_game_modules_do_not_import_bots() -> None:
    """Only bots, the registry (which pairs a game with its bot) and the simulator may import a bot."""
    allowed = {"engine.registry"}
    bad = [
        f"{src}:{line} imports {dst}"
        for src, edges in _graph(with_typing=True).items()
        for dst, line in sorted(edges)
        if _is_bot(dst) and not _is_bot(src) and src not in allowed and not src.startswith("engine.sim")
    ]
    assert not bad, "\n".join(bad)


def _cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_cycle_finder_on_a_hand_made_graph() -> None:
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}, "e2": set()}
    assert _cycles(g) == [["a", "b", "c"]]


def test_no_import_cycle_in_engine() -> None:
    """Run-time imports (not `TYPE_CHECKING`) between engine/ modules form no cycle."""
    g = {
        src: {dst for dst, _ in edges if dst.startswith("engine.")}
        for src, edges in _graph(with_typing=False).items()
        if src == "engine" or src.startswith("engine.")
    }
    assert _cycles(g) == []
