"""`paiju dashboard [--lake DIR] [--port P] [--host H]`: start the Streamlit app on a lake.

Runs `python -m streamlit run dashboard/app.py` with the lake passed in the `PAIJU_LAKE`
environment variable (the app reads nothing else), headless, without usage statistics.

Streamlit runs in its own process group; on SIGTERM (what systemd or a container runtime sends),
SIGINT (Ctrl-C) or SIGHUP the whole group is stopped and waited for, so no process of it keeps
the port (`engine.procs.run_child`; issue 21 §6). If this process is killed outright, Streamlit
is killed with it (`die_with_parent`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from dashboard import LAKE_ENV
from engine.procs import run_child
from events.errors import UsageError

APP = Path(__file__).resolve().parent / "app.py"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lake", default="lake", metavar="DIR", help="the lake directory (default ./lake)")
    p.add_argument("--port", type=int, default=8501, metavar="P", help="port to serve on (default 8501)")
    p.add_argument("--host", default="localhost", metavar="H", help="address to bind (default localhost)")


def command(port: int, host: str = "localhost") -> list[str]:
    """The `streamlit run` command line."""
    return [
        sys.executable, "-m", "streamlit", "run", str(APP),
        "--server.port", str(port), "--server.address", host, "--server.headless", "true",
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
    ]  # fmt: skip


def environment(lake: str) -> dict[str, str]:
    env = dict(os.environ)
    env[LAKE_ENV] = str(Path(lake).resolve())
    root = str(APP.parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


def run(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port} is not a TCP port")
    if not Path(args.lake).is_dir():
        print(f"paiju dashboard: note: no lake at {args.lake} yet; the pages will say so", file=sys.stderr)
    print(f"paiju dashboard: http://{args.host}:{args.port}  (lake {Path(args.lake).resolve()}; Ctrl-C stops)")
    return run_child(command(args.port, args.host), env=environment(args.lake))
