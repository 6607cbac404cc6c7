"""The one way Paiju starts a process pool (simulate, ingest, the lab)."""

from __future__ import annotations

import signal
from concurrent.futures import ProcessPoolExecutor


def _ignore_sigint() -> None:
    # Ctrl-C reaches the whole process group; the parent handles it and shuts the pool down, so a
    # worker must not die printing its own KeyboardInterrupt traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of `workers` processes whose workers leave Ctrl-C to the parent."""
    return ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint)
