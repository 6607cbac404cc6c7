"""Regenerate engine/mahjong/suit_ids.py: `python -m engine.mahjong.suit_ids_gen`.

Reads every one-suit key with core's reference procedure (`_key_id_computed`) and rewrites the data
below the mark of suit_ids.py (deterministic). Kept apart from suit_ids.py so that the table, which
core reads, imports nothing of the engine (no import cycle, tests/test_layers.py).
"""

from __future__ import annotations

import base64
import itertools

from engine.mahjong import core, suit_ids
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


def write(path: str) -> None:
    """Rewrite the generated part of the file at `path` (suit_ids.py)."""
    import lzma

    sets, cells = generate()
    text = base64.b85encode(lzma.compress(cells, preset=9 | lzma.PRESET_EXTREME)).decode()
    with open(path, encoding="utf-8") as f:
        head = f.read().split(suit_ids._MARK)[0]
    lines = [head + suit_ids._MARK, "SETS: tuple[tuple[tuple[int, int, int], ...], ...] = ("]
    lines += [f"    {s!r}," for s in sets]
    lines += [")", "DATA: tuple[str, ...] = ("]
    lines += [f'    "{text[i : i + 100]}",' for i in range(0, len(text), 100)]
    lines += [")", ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    write(suit_ids.__file__)
