"""`referee.service.calm_gc` in a fresh interpreter (it changes the process's garbage collector):
after it the automatic collector is off, the pacer collects every `every` ticks, a full
collection is observed and its survivors frozen, so the next one scans only what came since; a
reference cycle that dies unfrozen is still collected."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHECK = """
import gc, weakref
from prometheus_client import CollectorRegistry, Histogram
from referee.service import calm_gc
h = Histogram("p", "p", registry=CollectorRegistry())
pacer = calm_gc(h, every=3)
frozen0 = gc.get_freeze_count()
assert frozen0 > 0 and gc.callbacks and not gc.isenabled()
def pauses():
    return [s.value for s in h.collect()[0].samples if s.name == "p_count"][0]
n0 = pauses()
pacer.tick(2)
assert pauses() == n0
pacer.tick()
assert pauses() == n0 + 1 and pacer.pending == 0
keep = [[i] for i in range(5000)]
gc.collect()
assert gc.get_freeze_count() >= frozen0 + 5000, (gc.get_freeze_count(), frozen0)
assert [s.value for s in h.collect()[0].samples if s.name == "p_count"][0] >= 1
class Node: pass
a, b = Node(), Node()
a.b, b.a = b, a
dead = weakref.ref(a)
del a, b
gc.collect()
assert dead() is None
print("ok")
"""


def test_calm_gc_freezes_survivors_and_still_collects_new_cycles() -> None:
    r = subprocess.run([sys.executable, "-c", CHECK], cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})  # fmt: skip
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
