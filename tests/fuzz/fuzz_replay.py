"""Long coverage-guided fuzz run (atheris / libFuzzer) of the codec and the replay driver. Not CI.

Every input is treated as a log file: split into lines, parsed (`events.codec.iter_lines`), grouped
by match and replayed with the real engines. The only allowed outcomes are contract results;
any other exception is a crash that libFuzzer saves as `crash-*` for a regression test.

    .venv/bin/pip install atheris            # optional, not a project dependency
    .venv/bin/python tests/fuzz/fuzz_replay.py --seed-corpus /tmp/paiju-corpus    # writes the seeds
    .venv/bin/python tests/fuzz/fuzz_replay.py /tmp/paiju-corpus -max_total_time=600 -rss_limit_mb=2048

The seed corpus holds real simulated matches of every available game, with and without hashes (so
that mutations reach the rules, not only the chain check). The figures of the last long run are
in docs/reliability.md.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from engine.replay import group_lines, replay
    from events.codec import iter_lines
    from events.errors import ERROR_CODES

GAMES: list[str] = []


def _load_games() -> None:
    from engine.registry import get_game
    from events.notation import GAME_IDS

    for g in GAME_IDS:
        try:
            get_game(g)
        except Exception:
            continue
        GAMES.append(g)


def write_seeds(folder: Path) -> int:
    """Real matches of every game as seed files (hashed and unhashed)."""
    from engine.sim.simulate import simulate_match
    from events.codec import event_to_json

    folder.mkdir(parents=True, exist_ok=True)
    n = 0
    for g in GAMES:
        for i in range(3):
            for chain in (True, False):
                ev = simulate_match(g, {}, seed=99, index=i, chain=chain)
                (folder / f"{g}-{i}-{'h' if chain else 'n'}.jsonl").write_text("".join(event_to_json(e) + "\n" for e in ev))
                n += 1
    return n


def TestOneInput(data: bytes) -> None:
    grouped = group_lines(iter_lines(io.BytesIO(data), "fuzz"))
    for ln in grouped.line_errors:
        if ln.error.code not in ERROR_CODES:
            raise AssertionError(f"line error with a non-contract code {ln.error.code!r}")
    for entries in grouped.matches.values():
        r = replay(entries)
        if r.status not in ("finished", "incomplete", "invalid"):
            raise AssertionError(f"status {r.status!r}")
        if r.status == "invalid" and (r.error is None or r.error["code"] not in ERROR_CODES):
            raise AssertionError(f"invalid without a contract error: {r.error}")
        if r.deltas is not None and sum(r.deltas) != 0:
            raise AssertionError(f"deltas not zero-sum: {r.deltas}")
        json.dumps(r.to_dict())


def main() -> None:
    _load_games()
    if len(sys.argv) == 3 and sys.argv[1] == "--seed-corpus":
        print(f"wrote {write_seeds(Path(sys.argv[2]))} seed logs to {sys.argv[2]} ({', '.join(GAMES)})")
        return
    atheris.instrument_all()
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
