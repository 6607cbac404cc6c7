"""Publish a referee's journal into the lake: accepted events through `paiju ingest`'s own code path.

One cycle (`publish_once`) takes the journal's records after the last published offset:
- the accepted events' lines, exactly as received, become a segment file
  `events-<start>-<end>.jsonl` that `ingest.pipeline.ingest` stores, replays and tabulates like any
  log (finished matches and open ones alike: an open match's tables are rebuilt as it grows);
- the refused events become `refused-<start>-<end>.jsonl` (their raw lines) and one `rejects` row
  each with the referee's code and reason, in the lake's own schema, published atomically with
  `ingest.store` (the file's bytes go to raw/ and a `files` row, as ingest keeps a received file).
The cycle first records the segment's end (`published.json` `pending`), so a cycle killed at any
point redoes the same segment: ingest skips a file whose SHA-256 it holds, the rejects likewise.

`python -m referee.publish --journal DIR --lake DIR [--every S] [--parent PID]` runs cycles until
SIGTERM (then one last cycle) or until its parent is gone (the referee's child, `referee.cli`).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

from referee.journal import JOURNAL, complete_length, read_records

STATE = "published.json"
SEGMENTS = "segments"
LOCK = ".publish.lock"


def _read_state(folder: Path) -> dict[str, int]:
    try:
        d = json.loads((folder / STATE).read_text(encoding="utf-8"))
        return {k: int(v) for k, v in d.items()}
    except (FileNotFoundError, ValueError):
        return {"offset": 0}


def _write_state(folder: Path, state: dict[str, int]) -> None:
    tmp = folder / f".{STATE}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, folder / STATE)


def publish_once(folder: str | Path, lake: str | Path) -> dict[str, Any]:
    """Publish the journal's records after the last published offset (see the module docstring)."""
    from ingest import store

    folder, lake = Path(folder), Path(lake)
    journal = folder / JOURNAL
    state = _read_state(folder)
    start = state["offset"]
    end = state.get("pending")
    if end is None:
        store.fsync_path(journal)  # the server's writes: publish only what is durable
        end = complete_length(journal)
        if end <= start:
            return {"events": 0, "refused": 0}
        _write_state(folder, {"offset": start, "pending": end})
    seg = folder / SEGMENTS
    seg.mkdir(exist_ok=True)
    accepted: list[bytes] = []
    refused: list[dict[str, Any]] = []
    for _, rec in read_records(journal, start, end):
        if rec.accepted:
            accepted.append(rec.line)
        else:
            refused.append(rec.refusal())
    out: dict[str, Any] = {"events": len(accepted), "refused": len(refused)}
    if accepted:
        from ingest.pipeline import ingest

        path = seg / f"events-{start}-{end}.jsonl"
        path.write_bytes(b"".join(x + b"\n" for x in accepted))
        s = ingest([str(path)], lake, workers=0)
        out["ingest"] = s.as_dict()
        path.unlink()
    if refused:
        path = seg / f"refused-{start}-{end}.jsonl"
        path.write_bytes(b"".join(r["raw"].replace("\n", " ").encode("utf-8") + b"\n" for r in refused))
        _publish_refusals(lake, path, refused)
        path.unlink()
    _write_state(folder, {"offset": end})
    return out


def _publish_refusals(lake: Path, path: Path, refused: list[dict[str, Any]]) -> None:
    """The refusals as `rejects` rows (and the file as raw/ + a `files` row), published atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ingest import store
    from ingest.parse import RAW_PREVIEW
    from ingest.schema import schemas

    data = path.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    with store.locked(lake):
        store.recover(lake)
        manifest = store.read_manifest(lake)
        if sha in manifest.raw:
            return
        stage = store.new_staging(lake)
        try:
            rows = {
                "file_sha": [sha] * len(refused), "file_name": [path.name] * len(refused),
                "line": list(range(1, len(refused) + 1)),
                "match_id": [r["match_id"] for r in refused], "seq": [r["seq"] for r in refused],
                "code": [r["code"] for r in refused], "message": [r["message"] for r in refused],
                "raw": [r["raw"].encode("utf-8")[:RAW_PREVIEW].decode("utf-8", errors="ignore") for r in refused],
            }  # fmt: skip
            rej = stage / "rejects.parquet"
            pq.write_table(pa.Table.from_pydict(rows, schema=schemas()["rejects"]), rej, compression="zstd")
            files = stage / "files.parquet"
            pq.write_table(pa.Table.from_pydict({"file_sha": [sha], "file_name": [path.name], "bytes": [len(data)],
                                                 "lines": [len(refused)], "events": [0], "rejected": [len(refused)]},
                                                schema=schemas()["files"]), files)  # fmt: skip
            raw_copy = stage / "raw"
            shutil.copyfile(path, raw_copy)
            name = f"part-referee-{sha[:16]}.parquet"
            new = store.publish(lake, manifest, {"rejects": [(rej, f"rejects/{name}")], "files": [(files, f"files/{name}")]},
                                {}, {sha: (raw_copy, path.name)})  # fmt: skip
            with contextlib.suppress(Exception):  # the catalog is a convenience; the manifest is the truth
                store.write_catalog(lake, new)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
            with contextlib.suppress(OSError):
                (lake / store.STAGING).rmdir()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m referee.publish")
    p.add_argument("--journal", required=True)
    p.add_argument("--lake", required=True)
    p.add_argument("--every", type=float, default=2.0)
    p.add_argument("--parent", type=int, default=None)
    args = p.parse_args(argv)
    folder = Path(args.journal)
    folder.mkdir(parents=True, exist_ok=True)
    stop = False

    def _stop(signum: int, frame: Any) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    fd = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)  # one publisher per journal: a new one waits for an orphan's last cycle
    while True:
        try:
            publish_once(folder, args.lake)
        except Exception as e:  # keep publishing later; the journal keeps everything meanwhile
            print(f"paiju serve: publishing to {args.lake} failed: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        if stop or (args.parent is not None and os.getppid() != args.parent):
            if not stop:
                with contextlib.suppress(Exception):
                    publish_once(folder, args.lake)
            return 0
        t_end = time.monotonic() + args.every
        while time.monotonic() < t_end and not stop:
            time.sleep(min(0.1, args.every))
            if args.parent is not None and os.getppid() != args.parent:
                break


if __name__ == "__main__":
    raise SystemExit(main())
