#!/usr/bin/env bash
# Issue 20 item 4: `pip install .` (a real wheel, not editable) into a fresh venv outside the
# repository, then `paiju simulate`, `replay`, `ingest`, `stats`, `dispute` and `dashboard` work
# from a folder that holds none of the repository: every file they need is package data.
#
#   .ci/install_check.sh                  # full install from the package index (CI: .ci/run)
#   DEPS_FROM=/path/site-packages .ci/install_check.sh
#                                         # --no-deps; the dependencies are read from that folder
#                                         # (tests/test_install.py: fast, no network)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
PORT=${PORT:-8597}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/paiju-install-check.XXXXXX")
DASH=""
cleanup() { [ -n "$DASH" ] && kill "$DASH" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
unset PYTHONPATH PAIJU_LAKE PAIJU_DEBUG
say() { echo "install_check: $*"; }
fail() { echo "install_check: FAILED: $*" >&2; exit 1; }

# copy the repository's committed files (what a clone holds), so that no build output lands in it
git -C "$REPO" archive --format=tar HEAD | (mkdir -p "$WORK/src" && tar -x -C "$WORK/src")
"$PYTHON" -m venv "$WORK/venv"
VPY="$WORK/venv/bin/python"
if [ -n "${DEPS_FROM:-}" ]; then
  "$VPY" -m pip install -q --no-deps "$WORK/src"
  site=$("$VPY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  echo "$DEPS_FROM" > "$site/_paiju_install_check_deps.pth"
else
  "$VPY" -m pip install -q "$WORK/src"
fi
rm -rf "$WORK/src"
PJ="$WORK/venv/bin/paiju"
[ -x "$PJ" ] || fail "no paiju console script"

mkdir -p "$WORK/elsewhere/logs" && cd "$WORK/elsewhere"
"$VPY" - <<'PY' || fail "the packages are not the installed ones"
import engine, dashboard, sys
for m in (engine, dashboard):
    assert "site-packages" in m.__file__, m.__file__
print("install_check: modules from", engine.__file__.rsplit("/engine/", 1)[0])
PY
cp "$REPO"/tests/data/disputes/*.jsonl logs/
cp "$REPO"/tests/data/golden/ddz_e1_spring.jsonl logs/

"$PJ" schema > schema.json && [ -s schema.json ] || fail "paiju schema"
"$PJ" rules sichuan_xuezhan --preset chengdu --json > rules.json || fail "paiju rules"
"$PJ" simulate --game sichuan_xuezhan --matches 5 --seed 1 --out logs/sim.jsonl.gz --quiet || fail "paiju simulate"
"$PJ" simulate --game hongzhong --matches 5 --seed 1 --out logs/hz.jsonl.gz --quiet || fail "paiju simulate hongzhong"
"$PJ" hand sichuan_xuezhan 11122233344455m --json > hand.json || fail "paiju hand"
set +e
"$PJ" replay --json logs/*.jsonl logs/*.jsonl.gz > replay.jsonl; rc=$?
set -e
[ "$rc" = 1 ] || fail "paiju replay: exit $rc, expected 1 (the disputed logs hold an invalid match)"
[ "$(wc -l < replay.jsonl)" = 14 ] || fail "paiju replay: $(wc -l < replay.jsonl) results, expected 14"
"$PJ" ingest logs/* --lake lake --workers 1 --json > ingest.json || fail "paiju ingest"
"$PJ" stats --lake lake --json > stats.jsonl && [ -s stats.jsonl ] || fail "paiju stats"
set +e
"$PJ" dispute dispute-overcharged --lake lake --out dispute.html; rc=$?
set -e
[ "$rc" = 1 ] || fail "paiju dispute: exit $rc, expected 1 (the server overcharged)"
grep -q "dispute-overcharged" dispute.html || fail "paiju dispute wrote no report"

# the dashboard: a real server from the installed package, then every page run by AppTest
"$PJ" dashboard --lake lake --port "$PORT" > dash.log 2>&1 &
DASH=$!
ok=""
for _ in $(seq 1 60); do
  if "$VPY" -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://localhost:$PORT/_stcore/health', timeout=2).read() == b'ok' else 1)" 2>/dev/null; then ok=1; break; fi
  sleep 1
done
[ -n "$ok" ] || { cat dash.log >&2; fail "paiju dashboard did not answer on port $PORT"; }
"$VPY" -c "import urllib.request; html = urllib.request.urlopen('http://localhost:$PORT/', timeout=5).read(); assert b'<div id=\"root\">' in html" || fail "dashboard index page"
kill "$DASH"; wait "$DASH" 2>/dev/null || true; DASH=""
PAIJU_LAKE="$WORK/elsewhere/lake" "$VPY" - <<'PY' || fail "a dashboard page raised"
from pathlib import Path
import dashboard
from streamlit.testing.v1 import AppTest
app = Path(dashboard.__file__).parent / "app.py"
at = AppTest.from_file(str(app), default_timeout=120)
at.run()
pages = sorted(p.name for p in (app.parent / "views").glob("*.py") if p.name != "__init__.py")
for page in pages:
    at.switch_page(f"views/{page}")
    at.run()
    assert not at.exception, (page, [e.value for e in at.exception])
    bad = [e.value for e in at.error if "could not" in e.value]
    assert not bad, (page, bad)
print(f"install_check: dashboard pages ran: {', '.join(pages)}")
PY
say "ok: schema, rules, simulate, hand, replay, ingest, stats, dispute, dashboard from $WORK/elsewhere"
