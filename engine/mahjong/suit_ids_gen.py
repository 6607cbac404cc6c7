"""Regenerate engine/mahjong/suit_ids.py and suit_needs.py: `python -m engine.mahjong.suit_ids_gen`.

Reads every one-suit key with core's reference procedures (`_key_id_computed`; `_need`, HZ-H2) and
rewrites the data below the mark of each file (deterministic). Kept apart from the data modules so
that the tables, which core and wild.py read, import nothing of the engine (no import cycle,
tests/test_layers.py).
"""

from __future__ import annotations

import base64
import itertools

from engine.mahjong import core, suit_ids, suit_needs
from engine.mahjong.suit_ids import MAX_TILES, MISSING, N_CELLS


def generate() -> tuple[list[tuple[tuple[int, int, int], ...]], bytes]:
    """(SETS, table) from core's reference procedure, every key in base-5 order."""
    sets: list[tuple[tuple[int, int, int], ...]] = []
    local: dict[tuple[tuple[int, int, int], ...], int] = {}
    cells = bytearray([MISSING]) * N_CELLS
    for idx, key in enumerate(itertools.product(range(5), repeat=9)):
        if sum(key) > MAX_TILES:
            continue
        opts = core._SETS[core._key_id_computed(bytes(key))]
        j = local.get(opts)
        if j is None:
            j = local[opts] = len(sets)
            sets.append(opts)
        cells[idx] = j
    if len(sets) >= MISSING:
        raise ValueError(f"{len(sets)} distinct sets do not fit in one byte")
    return sets, bytes(cells)


def generate_needs() -> bytes:
    """The wild-need table: per key (base-5 order) 8 × `_need(key, False)` + `_need(key, True)`."""
    cells = bytearray([MISSING]) * N_CELLS
    for idx, key in enumerate(itertools.product(range(5), repeat=9)):
        if sum(key) <= MAX_TILES:
            b = bytes(key)
            n0, n1 = core._need(b, False), core._need(b, True)
            if n0 > 8 or n1 > 7:
                raise ValueError(f"need {n0}, {n1} of {key} does not fit the cell")
            cells[idx] = 8 * n0 + n1
    return bytes(cells)


def _rewrite(path: str, mark: str, head_lines: list[str], cells: bytes) -> None:
    """Rewrite the part of the file at `path` below `mark`: `head_lines`, then DATA (cells, lzma, base 85)."""
    import lzma

    text = base64.b85encode(lzma.compress(cells, preset=9 | lzma.PRESET_EXTREME)).decode()
    with open(path, encoding="utf-8") as f:
        head = f.read().split(mark)[0]
    lines = [head + mark, *head_lines, "DATA: tuple[str, ...] = ("]
    lines += [f'    "{text[i : i + 100]}",' for i in range(0, len(text), 100)]
    lines += [")", ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def write(path: str) -> None:
    """Rewrite the generated part of the file at `path` (suit_ids.py)."""
    sets, cells = generate()
    head = ["SETS: tuple[tuple[tuple[int, int, int], ...], ...] = (", *(f"    {s!r}," for s in sets), ")"]
    _rewrite(path, suit_ids._MARK, head, cells)


def write_needs(path: str) -> None:
    """Rewrite the generated part of the file at `path` (suit_needs.py)."""
    _rewrite(path, suit_needs._MARK, [], generate_needs())


if __name__ == "__main__":
    write(suit_ids.__file__)
    write_needs(suit_needs.__file__)
