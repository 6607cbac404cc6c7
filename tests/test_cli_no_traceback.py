"""No traceback, ever (docs/cli.md, issue 17): whatever the arguments and the files' contents, every
sub-command exits 0, 1 or 2, never lets an exception out, and a bad input is exit 2 with exactly
one line on stderr. Hypothesis drives `paiju.main([...])` in-process (fast); a few cases run the real
process (bare `paiju`, standard input, a closed pipe, bytes that are not UTF-8 in argv).

The expected behaviour comes from the contract (docs/cli.md: "2 bad usage or unreadable input,
with a one-line reason on stderr. No traceback ever reaches a user"), not from the code.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import paiju
from events.notation import GAME_IDS

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "data" / "golden"
GOLDEN_LINES = (GOLDEN / "ddz_e1_spring.jsonl").read_bytes().splitlines()
_count = itertools.count()
_LOCATED = re.compile(r"^\S+:\d+: [a-z_]+: ")

pytestmark = pytest.mark.xdist_group("cli_no_traceback")

# ------------------------------------------------------------------ file contents
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


def _deep(n: int, open_: str, close: str, inner: str = "") -> bytes:
    return (open_ * n + inner + close * n).encode()


_special = st.sampled_from(
    [
        b"\xff\xfe not utf-8 \xc3",
        _deep(5000, "[", "]"),
        b'{"cards":' + _deep(5000, "[", "]") + b"}",
        b'{"rob":' + _deep(3000, '{"a":', "}", "1") + b"}",
        b'{"cards": ["3s", 4]}',
        b'{"cards": 5, "rules": []}',
        b'{"cards": "3s", "rules": {"nope": 1}}',
        b'{"cards": "3s", "rules": {"preset": 7}}',
        b'{"preset": "zzz"}',
        b'{"x": NaN}',
        b'{"a": 1, "a": 2}',
        b"1" * 5000,
        b"[]",
        b'"just a string"',
        b"",
        b"\n\n",
        b"\x1f\x8b\x08\x00truncated gzip",
    ]
)


@st.composite
def _mutated_log(draw: st.DrawFn) -> bytes:
    """The golden log with a few lines replaced, cut, swapped or repeated."""
    lines = list(GOLDEN_LINES)
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["cut", "drop", "dup", "junk", "json"]))
        if how == "cut":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        elif how == "drop":
            del lines[i]
        elif how == "dup":
            lines.insert(i, lines[i])
        elif how == "junk":
            lines[i] = draw(_special)
        else:
            lines[i] = json.dumps(draw(_json_values)).encode()
        if not lines:
            break
    return b"\n".join(lines) + b"\n"


_contents = st.one_of(
    _special,
    st.binary(max_size=64),
    _json_values.map(lambda v: json.dumps(v).encode()),
    st.lists(_json_values.map(lambda v: json.dumps(v).encode()) | _special, max_size=4).map(b"\n".join),
    _mutated_log(),
)

# ------------------------------------------------------------------ arguments
_word = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12)
_game = st.sampled_from([*GAME_IDS, "nogame", "", "DDZ"])
_int_text = st.sampled_from(["0", "1", "2", "-1", "x", "1e3", "99999999999999999999"])


class Files:
    """Writes drawn contents to files in one folder (fresh names: examples do not share files)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def write(self, data: bytes, suffix: str = ".jsonl") -> str:
        p = self.folder / f"f{next(_count)}{suffix}"
        p.write_bytes(data)
        return str(p)


@st.composite
def _rules_arg(draw: st.DrawFn, files: Files) -> str:
    kind = draw(st.sampled_from(["json", "file", "word", "missing"]))
    if kind == "json":
        return json.dumps(draw(_json_values))
    if kind == "file":
        return "@" + files.write(draw(_contents), ".json")
    if kind == "missing":
        return "@/no/such/rules.json"
    return draw(_word)


def _opt(draw: st.DrawFn, flag: str, value: st.SearchStrategy[str]) -> list[str]:
    return [flag, draw(value)] if draw(st.booleans()) else []


@st.composite
def argv_for(draw: st.DrawFn, command: str, files: Files, lake: str) -> list[str]:
    log = st.builds(lambda b: files.write(b), _contents)
    if command == "simulate":
        out = str(files.folder / f"sim{next(_count)}.jsonl")
        args = ["simulate", "--game", draw(_game), "--out", draw(st.sampled_from([out, out + ".gz", "/no/such/dir/x.jsonl"]))]
        args += ["--matches", draw(st.sampled_from(["1", "2", "0", "-3", "x"]))]
        args += _opt(draw, "--seed", _int_text) + _opt(draw, "--workers", st.sampled_from(["1", "0", "x"]))
        args += _opt(draw, "--rules", _rules_arg(files)) + ["--quiet"]
    elif command == "replay":
        args = ["replay", *draw(st.lists(log, min_size=1, max_size=2))]
        args += _opt(draw, "--match", st.sampled_from(["golden-ddz-e1_spring", "nope"]))
        args += draw(st.lists(st.sampled_from(["--json", "--steps"]), max_size=2, unique=True))
    elif command == "ingest":
        args = ["ingest", draw(log), "--lake", str(files.folder / f"lake{next(_count)}"), "--workers", "1", "--json"]
    elif command == "stats":
        args = ["stats", "--lake", draw(st.sampled_from([lake, "/no/such/lake"])), "--json"]
        args += _opt(draw, "--game", _game) + _opt(draw, "--rules-id", _word)
        args += _opt(draw, "--query", st.sampled_from(["overview", "nope"]))
    elif command == "hand":
        game = draw(_game)
        if draw(st.booleans()):
            args = ["hand", game, "--batch", draw(log)]
        else:
            cards = draw(st.sampled_from(["3s 3h 3d 4c", "As Ks Qs", "11122233344455m", "1112223334445m", "3s", "Zz"]) | _word)
            args = ["hand", game, cards]
            args += _opt(draw, "--rules", _rules_arg(files)) + _opt(draw, "--laizi", _word)
            args += _opt(draw, "--melds", st.sampled_from(["peng:5p", "gang_an:9m", "x:1", "peng:"]) | _word)
            args += _opt(draw, "--win-tile", _word) + _opt(draw, "--void", st.sampled_from(["m", "p", "s", "z"]))
            args += _opt(draw, "--situation", _word) + draw(st.lists(st.sampled_from(["--zimo", "--json"]), max_size=2, unique=True))
    elif command == "dispute":
        mid = draw(st.sampled_from(["golden-ddz-e1_spring", "nope", ""]) | _word)
        args = ["dispute", mid, "--out", draw(st.sampled_from([str(files.folder / f"d{next(_count)}.html"), "/no/such/d.html"]))]
        args += ["--log", draw(log)] if draw(st.booleans()) else ["--lake", draw(st.sampled_from([lake, "/no/such/lake"]))]
        args += draw(st.lists(st.just("--json"), max_size=1))
    elif command == "lab":
        args = ["lab", "--game", draw(_game), "--a", draw(_rules_arg(files)), "--b", draw(_rules_arg(files))]
        args += ["--matches", draw(st.sampled_from(["2", "0", "-1", "x"])), "--json"]
    elif command == "rules":
        args = ["rules", draw(_game)] + _opt(draw, "--preset", st.sampled_from(["standard", "chengdu", "gold", "zz"]))
        args += draw(st.lists(st.just("--json"), max_size=1))
    elif command == "schema":
        args = ["schema"]
    else:  # pragma: no cover
        raise AssertionError(command)
    if draw(st.integers(0, 9)) == 0:  # now and then an argument argparse refuses
        args.insert(draw(st.integers(1, len(args))), draw(st.sampled_from(["--nope", "-z", "--json=1"])))
    return args


def check(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run `paiju argv` in-process; assert the contract's promises about exit status and stderr."""
    capsys.readouterr()
    os.environ.pop("PAIJU_DEBUG", None)
    rc = paiju.main(argv)
    out, err = capsys.readouterr()
    assert rc in (0, 1, 2), (argv, rc, err)
    assert "Traceback" not in err and "internal error" not in err, (argv, err)
    if rc == 2:  # one line saying why; before it only the located reports of bad log lines (PATH:LINE: code)
        *before, last = err.strip().splitlines() or [""]
        assert last.startswith("paiju"), (argv, err)
        assert all(_LOCATED.match(x) for x in before), (argv, err)
    return rc, out, err


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("lake")
    files = sorted(str(p) for p in GOLDEN.glob("ddz_*.jsonl"))[:3]
    assert paiju.main(["ingest", *files, "--lake", str(folder / "lake"), "--workers", "1", "--json"]) == 0
    return str(folder / "lake")


SPEED = {"simulate": 40, "replay": 60, "ingest": 12, "stats": 25, "hand": 80, "dispute": 25, "lab": 12, "rules": 30, "schema": 3}
"""Examples per sub-command: the whole file stays well under a minute on the shared 2-core machine."""


@pytest.mark.parametrize("command", list(SPEED))
def test_no_traceback_for_any_arguments_or_file(
    command: str, tmp_path: Path, lake: str, capsys: pytest.CaptureFixture[str]
) -> None:
    files = Files(tmp_path)

    @settings(
        max_examples=SPEED[command],
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(argv=argv_for(command, files, lake))
    def run(argv: list[str]) -> None:
        check(argv, capsys)

    run()


@pytest.mark.parametrize("command", sorted(paiju.COMMANDS))
def test_unknown_option_is_one_line_exit_2(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Every sub-command (also those added later): argparse's refusal is one line, exit 2."""
    rc, _, err = check([command, "--no-such-option"], capsys)
    assert rc == 2 and err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["simulate", "--game", "ddz", "--rules", "@BAD_UTF8", "--out", "OUT"], "not UTF-8"),
        (["simulate", "--game", "ddz", "--rules", "@DEEP", "--out", "OUT"], "nested too deeply"),
        (["lab", "--game", "ddz", "--a", "@DEEP", "--b", "standard"], "nested too deeply"),
        (["hand", "sichuan_xuezhan", "11122233344455m", "--rules", '{"nope": 1}'], "unknown option 'nope'"),
        (["hand", "hongzhong", "11122233344455m", "--rules", '{"preset": "zz"}'], "unknown preset"),
        (["hand", "anshun", "11122233344455m", "--rules", "[1]"], "must be a JSON object"),
        (["hand", "ddz", "Zz"], "'Zz'"),
        (["stats", "--game", "nogame"], "unknown game 'nogame'"),
        (["replay"], "required: PATH"),
        (["replay", "/no/such/file.jsonl"], "/no/such/file.jsonl"),
    ],
)
def test_named_bad_inputs(argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The cases issue 17 lists: exit 2 and one line that names what and where."""
    (tmp_path / "bad.json").write_bytes(b'{"rob": \xff}')
    (tmp_path / "deep.json").write_bytes(_deep(5000, "[", "]"))
    fill = {"@BAD_UTF8": f"@{tmp_path / 'bad.json'}", "@DEEP": f"@{tmp_path / 'deep.json'}", "OUT": str(tmp_path / "o.jsonl")}
    rc, _, err = check([fill.get(a, a) for a in argv], capsys)
    assert rc == 2 and says in err, err


def test_one_bad_batch_line_does_not_stop_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each input line gets its result line, in order; the bad ones say why; exit 2 names the first."""
    batch = tmp_path / "q.jsonl"
    batch.write_bytes(
        b'{"cards": "3s 3h 3d 4c"}\n'
        b'{"cards": ["3s", 4]}\n'
        b"\xff\xfe\n"
        b'{"cards":' + _deep(5000, "[", "]") + b"}\n"
        b'{"cards": "3s", "rules": {"nope": 1}}\n'
        b'{"cards": "4s 4h"}\n'
    )
    rc, out, err = check(["hand", "ddz", "--batch", str(batch)], capsys)
    results = [json.loads(x) for x in out.splitlines()]
    assert rc == 2 and len(results) == 6
    assert results[0] == {"valid": True, "type": "trio_solo", "rank": "3", "length": 1}  # docs/cli.md's example
    assert results[5]["valid"] is True and results[5]["type"] == "pair"
    assert [r["error"].split(":")[0] for r in results[1:5]] == ["line 2", "line 3", "line 4", "line 5"]
    assert "not UTF-8" in results[2]["error"] and "nested too deeply" in results[3]["error"]
    assert "unknown option 'nope'" in results[4]["error"]
    assert f"--batch {batch}: line 2:" in err and "3 more bad lines" in err


# ------------------------------------------------------------------ real processes
def _run(args: list[str | bytes], stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PAIJU_DEBUG", None)
    return subprocess.run([sys.executable, str(ROOT / "paiju.py"), *args], input=stdin, capture_output=True, timeout=120, env=env, cwd=ROOT)


def test_bare_paiju_prints_its_help_on_stderr_exit_2() -> None:
    r = _run([])
    assert r.returncode == 2 and r.stdout == b""
    assert b"usage: paiju" in r.stderr and b"replay" in r.stderr and b"Traceback" not in r.stderr


def test_argparse_error_is_one_line() -> None:
    r = _run(["simulate", "--game", "ddz"])
    assert r.returncode == 2 and r.stderr.decode().count("\n") == 1, r.stderr
    assert r.stderr.startswith(b"paiju simulate: the following arguments are required: --out")


def test_batch_on_standard_input_with_bytes_that_are_not_utf8() -> None:
    r = _run(["hand", "ddz", "--batch", "-"], stdin=b'\xff\n{"cards": "3s"}\n')
    assert r.returncode == 2 and b"Traceback" not in r.stderr
    assert [json.loads(x)["valid"] for x in r.stdout.splitlines()] == [False, True]
    assert r.stderr.decode().count("\n") == 1 and b"standard input: line 1" in r.stderr


def test_argv_that_is_not_utf8() -> None:
    r = _run(["hand", "ddz", b"3s \xff", "--json"])
    assert r.returncode == 2 and b"Traceback" not in r.stderr and r.stderr.count(b"\n") == 1
    r = _run(["rules", b"dd\xffz", "--json"])
    assert r.returncode == 2 and b"Traceback" not in r.stderr and r.stderr.count(b"\n") == 1


def test_a_closed_pipe_is_quiet() -> None:
    """`paiju replay --steps --json … | head -1`: exit 0, nothing on stderr."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    files = [str(p) for p in sorted(GOLDEN.glob("*.jsonl"))] * 5
    cmd = f"{sys.executable} {ROOT / 'paiju.py'} replay --steps --json {' '.join(files)} | head -c 100 >/dev/null"
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, timeout=120, env=env, cwd=ROOT)
    assert b"Traceback" not in r.stderr and r.stderr == b"", r.stderr
