"""Processes that must not outlive their owner, and long-running commands that stop cleanly.

Written once for every command that starts children: `paiju dashboard` (its Streamlit child),
the coming `paiju serve`, and the ingest's pool workers (issue 21 §3, §6).

- `die_with_parent()`: the calling process gets SIGKILL when its parent dies (Linux
  `PR_SET_PDEATHSIG`), so a worker cannot outlive an owner killed alone (an OOM kill) and keep
  what it holds.
- `worker_init()`: a pool initializer (leave Ctrl-C to the parent, die with it).
- `run_child(cmd)`: run a child in its own process group until it ends or this process gets
  SIGTERM, SIGINT or SIGHUP; then the whole group is stopped (SIGTERM, then SIGKILL after a
  grace period) and waited for, so no process of it remains and its port is free.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from types import FrameType

PR_SET_PDEATHSIG = 1
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
STOP_GRACE_S = 5.0
"""How long a child group has to stop after SIGTERM before it is killed."""


def die_with_parent() -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux; a no-op elsewhere)."""
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def worker_init() -> None:
    """Initializer of a process-pool worker: Ctrl-C is the parent's to handle (the whole group gets
    it; the parent shuts the pool down), and the worker dies with its parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


class Stopped(Exception):
    """Raised in the main thread by a stop signal while `run_child` waits."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    raise Stopped(signum)


def stop_group(proc: subprocess.Popen[bytes], grace: float = STOP_GRACE_S) -> None:
    """Stop a child started with `start_new_session=True` and everything in its group."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    # the leader is gone; make sure no straggler of its group is left
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def run_child(cmd: Sequence[str], env: dict[str, str] | None = None, grace: float = STOP_GRACE_S) -> int:
    """Run `cmd` in its own process group until it exits, or until this process is told to stop
    (SIGTERM, SIGINT, SIGHUP): then the child's group is stopped and waited for.

    Returns the child's exit status, or 0 after a stop signal (a requested stop is a clean end).
    Call from the main thread.
    """
    previous = {s: signal.signal(s, _raise_stop) for s in STOP_SIGNALS}
    proc: subprocess.Popen[bytes] | None = None
    try:
        proc = subprocess.Popen(list(cmd), env=env, start_new_session=True, preexec_fn=die_with_parent)
        return proc.wait()
    except (Stopped, KeyboardInterrupt):
        return 0
    finally:
        for s in STOP_SIGNALS:  # a second signal while stopping must not cut the clean-up short
            signal.signal(s, signal.SIG_IGN)
        if proc is not None:
            stop_group(proc, grace)
        for s, h in previous.items():
            signal.signal(s, h)
