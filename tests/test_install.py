"""`pip install .` into a fresh venv outside the repository works from any folder (issue 20 item 4).

Runs .ci/install_check.sh with `DEPS_FROM` (the dependencies are read from this interpreter's
site-packages, the package itself is built and installed as a wheel), so no network is needed
beyond pip's build backend. .ci/run calls the script in full (the dependencies from the index).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs the git checkout")
def test_installed_package_runs_every_command_from_another_folder(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PAIJU_LAKE")}
    env.update(DEPS_FROM=sysconfig.get_paths()["purelib"], PYTHON=sys.executable, TMPDIR=str(tmp_path), PORT="8598")
    r = subprocess.run([str(ROOT / ".ci" / "install_check.sh")], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "install_check: ok:" in r.stdout
    assert "dashboard pages ran: " in r.stdout and "overview.py" in r.stdout
