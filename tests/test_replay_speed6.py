"""`paiju replay`'s block path (issue 22) against the per-line paths it bypasses.

- `events.codec.raw_blocks` (and `raw_lines` on top of it) against the per-line block reader it
  replaced, written out below as it stood before (`_reference_raw_lines`);
- `events.codec.iter_blocks` (the fast path tried on each line as read, from `map`) against
  `iter_lines` (each line stripped, then `parse_line`): the same events (class, fields, fields
  set) and the same refusals (line, code, message, match, seq, bytes), on logs with blank lines,
  JSON and other whitespace around lines, bad lines, duplicate keys, over-long lines;
- `engine.replay.group_blocks` against `group_lines`;
- `engine.replay._Run._plain` (replay without steps: the game's events in one loop, the game's
  `reducers()` table called straight) against the fold stepped event by event (`want_steps`),
  on simulated matches of every game, whole and mutated (seats, orders, gaps, repeats, events
  after the end, cards changed);
- the CLI's `--json` output against the output of the per-line path.
"""

from __future__ import annotations

import io
import json
import random
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

import engine.cli_replay as cli_replay
from engine.registry import get_game
from engine.replay import _match_id, _Run, group_blocks, group_lines, replay_final
from engine.sim.simulate import simulate_match
from events import codec
from events.codec import LineError, LongLine, ParsedLine, ReadFailure, event_to_json, iter_blocks, iter_lines

MAX = 300
HEAD = 40


def _reference_raw_lines(stream: Any) -> Iterator[tuple[int, Any]]:
    """`events.codec.raw_lines` as it stood before `raw_blocks` (commit 16da2a0), verbatim."""
    read = getattr(stream, "read1", stream.read)
    lineno = 0
    tail = b""
    long_head: bytes | None = None
    long_size = 0
    while True:
        try:
            block = read(codec.READ_BLOCK)
        except (OSError, EOFError, zlib.error) as e:
            if long_head is not None:
                yield lineno + 1, LongLine(long_head, long_size, str(e))
            else:
                yield lineno + 1, ReadFailure(str(e))
            return
        if not block:
            break
        if long_head is not None:
            cut = block.find(b"\n")
            if cut < 0:
                long_size += len(block)
                continue
            lineno += 1
            yield lineno, LongLine(long_head, long_size + cut + 1)
            long_head = None
            block = block[cut + 1 :]
        pieces = block.split(b"\n")
        if tail:
            pieces[0] = tail + pieces[0]
        tail = pieces.pop()
        for piece in pieces:
            lineno += 1
            if len(piece) > codec.MAX_LINE_BYTES:
                yield lineno, LongLine(piece[: codec.HEAD_BYTES], len(piece) + 1)
            else:
                yield lineno, piece
        if len(tail) > codec.MAX_LINE_BYTES:
            long_head, long_size, tail = tail[: codec.HEAD_BYTES], len(tail), b""
    if long_head is not None:
        lineno += 1
        yield lineno, LongLine(long_head, long_size)
    elif tail:
        lineno += 1
        yield lineno, tail
    failure = codec.read_failure(stream)
    if failure is not None:
        yield lineno + 1, ReadFailure(failure)


class _Failing(io.RawIOBase):
    """A stream whose reads fail once `after` bytes have been read."""

    def __init__(self, data: bytes, after: int) -> None:
        super().__init__()
        self.data, self.after, self.pos = data, after, 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self.pos >= self.after:
            raise OSError("disk gone")
        n = min(len(b), self.after - self.pos, len(self.data) - self.pos)
        b[:n] = self.data[self.pos : self.pos + n]
        self.pos += n
        return n


def _sim_lines(game: str, n: int, seed: int) -> list[bytes]:
    out = []
    for i in range(n):
        out += [event_to_json(e).encode() for e in simulate_match(game, None, seed, i, chain=False)]
    return out


_DDZ = _sim_lines("ddz", 6, 11)


def _messy_log(rng: random.Random) -> bytes:
    """Lines of simulated ddz matches, some dressed in whitespace or spoiled."""
    out = []
    for line in _DDZ:
        r = rng.random()
        if r < 0.05:
            line = b" \t" + line + b"\r"  # JSON whitespace: still the fast path's line
        elif r < 0.08:
            line = b"\x0c" + line + b"\x0b"  # not JSON whitespace: stripped by iter_lines
        elif r < 0.10:
            line = line[: rng.randrange(len(line))]  # cut: bad JSON
        elif r < 0.12:
            line = line[:-1] + b',"seq":7}'  # a duplicate key
        elif r < 0.13:
            line = line[:-1] + b',"pad":"' + b"x" * MAX + b'"}'  # over-long
        elif r < 0.15:
            out.append(rng.choice([b"", b"   ", b"\r"]))  # blank lines
        out.append(line)
    return b"\n".join(out) + rng.choice([b"", b"\n", b"\r\n"])


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codec, "MAX_LINE_BYTES", MAX)
    monkeypatch.setattr(codec, "HEAD_BYTES", HEAD)


def _streams(rng: random.Random, data: bytes) -> list[Any]:
    cut = rng.randrange(len(data))
    gz = zlib.compressobj(9, zlib.DEFLATED, 31)
    gzdata = gz.compress(data) + gz.flush()
    return [
        lambda: io.BytesIO(data),
        lambda: io.BufferedReader(_Failing(data, cut)),
        lambda: io.BufferedReader(codec.Gunzip(io.BytesIO(gzdata))),
        lambda: io.BufferedReader(codec.Gunzip(io.BytesIO(gzdata[: len(gzdata) * 2 // 3]))),
    ]


@pytest.mark.parametrize("seed", range(12))
def test_raw_blocks_are_the_reference_lines(small: None, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rng = random.Random(seed)
    data = _messy_log(rng)
    monkeypatch.setattr(codec, "READ_BLOCK", rng.choice([7, 64, 333, 1 << 12]))
    for make in _streams(rng, data):
        want = list(_reference_raw_lines(make()))
        assert list(codec.raw_lines(make())) == want
        flat = []
        for first, items, plain in codec.raw_blocks(make()):
            assert items, "a block is never empty"
            assert plain == all(x.__class__ is bytes for x in items)
            flat += list(enumerate(items, first))
        assert flat == want


def _key(x: Any) -> tuple[Any, ...]:
    if isinstance(x, LineError):
        e = x.error
        return ("error", x.path, x.line, e.code, e.message, e.match_id, e.seq, e.type, x.raw)
    ev = x.event if isinstance(x, ParsedLine) else x
    return ("event", ev.__class__, ev.__dict__, ev.__pydantic_fields_set__, ev.__pydantic_extra__)


def _flat_blocks(blocks: Any) -> list[tuple[Any, ...]]:
    out = []
    for clean, items in blocks:
        if clean:
            assert all(not isinstance(x, (LineError, ParsedLine)) for x in items)
        out += [_key(x) for x in items]
    return out


@pytest.mark.parametrize("seed", range(12))
def test_iter_blocks_is_iter_lines(small: None, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rng = random.Random(100 + seed)
    data = _messy_log(rng)
    monkeypatch.setattr(codec, "READ_BLOCK", rng.choice([64, 999, 1 << 16]))
    for make in _streams(rng, data):
        want = [_key(x) for x in iter_lines(make(), "p.jsonl")]
        assert _flat_blocks(iter_blocks(make(), "p.jsonl")) == want
        got = group_blocks(iter_blocks(make(), "p.jsonl"))
        ref = group_lines(iter_lines(make(), "p.jsonl"))
        assert list(got.matches) == list(ref.matches)
        for mid, entries in ref.matches.items():
            assert [
                _key(x) if not isinstance(x, Exception) else (x.code, x.message, x.seq) for x in got.matches[mid]
            ] == [_key(x) if not isinstance(x, Exception) else (x.code, x.message, x.seq) for x in entries]
        assert [_key(x) for x in got.orphans] == [_key(x) for x in ref.orphans]
        assert [_key(x) for x in got.line_errors] == [_key(x) for x in ref.line_errors]


def test_a_clean_log_is_clean_blocks() -> None:
    """Hand-made: every line of a clean log comes in blocks of events only, in file order."""
    data = b"\n".join(_DDZ) + b"\n"
    blocks = list(iter_blocks(io.BytesIO(data), "p"))
    assert all(clean for clean, _ in blocks)
    assert sum(len(items) for _, items in blocks) == len(_DDZ)
    assert [e.seq for _, items in blocks for e in items][:3] == [0, 1, 2]


def test_the_json_whitespace_the_fast_path_keeps() -> None:
    """Hand-made: a line in spaces, tabs and CR is the event of the bare line; form feed is not
    JSON whitespace, so that line goes to `iter_lines`' own code (and is still an event there)."""
    line = b'{"match_id":"m","seq":4,"type":"pass","seat":1}'
    blocks = list(iter_blocks(io.BytesIO(b" \t" + line + b"\r\n\x0c" + line + b"\n"), "p"))
    assert [clean for clean, _ in blocks] == [False]
    items = blocks[0][1]
    assert [x.line for x in items] == [1, 2]
    assert {x.event.__dict__["seat"] for x in items} == {1}
    ((clean, (ev,)),) = list(iter_blocks(io.BytesIO(b" \t" + line + b"\r\n"), "p"))
    assert clean and ev.__dict__ == codec.parse_line(line).__dict__


def _mutants(events: list[Any], rng: random.Random) -> list[list[Any]]:
    n = len(events)
    out = [list(events)]
    for _ in range(6):
        m = list(events)
        k = rng.randrange(2, n)
        kind = rng.randrange(6)
        if kind == 0:  # another seat (in range or not)
            seat = m[k].__dict__.get("seat")
            if seat is not None:
                m[k] = m[k].model_copy(update={"seat": rng.choice([(seat + 1) % 3, 5])})
        elif kind == 1:  # a gap
            del m[k]
        elif kind == 2:  # swapped (two events at each other's seq)
            j = rng.randrange(2, n)
            m[k], m[j] = m[j].model_copy(update={"seq": m[k].seq}), m[k].model_copy(update={"seq": m[j].seq})
        elif kind == 3:  # a repeat at the end: after the end / a second settled
            m.append(m[k].model_copy(update={"seq": n}))
        elif kind == 4 and m[k].type == "play":  # other cards
            m[k] = m[k].model_copy(update={"cards": list(reversed(m[k].cards))[:1]})
        else:  # an exact re-send
            m.insert(rng.randrange(k, n + 1), m[k])
        out.append(m)
    return out


def _stepped(entries: list[Any]) -> tuple[dict[str, Any], Any, list[Any]]:
    run = _Run(_match_id(entries), entries)  # want_steps: every event through Fold.step
    for _ in run.run():
        pass
    r = run.result
    return {**r.to_dict(), "refused": [(e.code, e.message, e.seq) for e in r.refused]}, run.state, run.fold.events


@pytest.mark.parametrize("game", ["ddz", "ddz_laizi", "paodekuai", "zhajinhua", "sichuan_xuezhan", "hongzhong"])
def test_the_plain_loop_is_the_stepped_fold(game: str) -> None:
    rng = random.Random(game)
    for i in range(4):
        for entries in _mutants(simulate_match(game, None, 5, i, chain=False), rng):
            run = _Run(_match_id(entries), entries)
            run.want_steps = False
            for _ in run.run():
                pass
            r = run.result
            got = {**r.to_dict(), "refused": [(e.code, e.message, e.seq) for e in r.refused]}
            want, state, events = _stepped(entries)
            assert got == want
            assert run.state == state
            assert run.fold.events == events
            assert replay_final(entries)[0].to_dict() == r.to_dict()


def test_ddz_reducers_are_what_apply_calls() -> None:
    """Every event of simulated matches: `reducers()[class](state, ev)` is `apply(state, ev)`."""
    game = get_game("ddz")
    table = game.reducers()
    for i in range(5):
        events = simulate_match("ddz", None, 9, i, chain=False)
        st = game.start(events[0], events[1], game.parse_rules(events[0].rules))
        for ev in events[2:]:
            if game.is_finished(st):
                break
            nxt = game.apply(st, ev)
            assert table[ev.__class__](st, ev) == nxt
            st = nxt


def test_cli_json_is_the_per_line_paths(
    tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(7)
    lines = _DDZ + _sim_lines("paodekuai", 2, 3)
    rng.shuffle(lines[40:80])
    lines.insert(30, b'{"match_id":"sim-000001","seq":9,"type":"pass","seat":1,"seat":2}')
    lines.insert(5, b"not json")
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    args = cli_replay.argparse.Namespace(paths=[str(path)], match=None, json=True, steps=False)
    code = cli_replay.run(args)
    fast = capsys.readouterr()
    monkeypatch.setattr(cli_replay, "_blocks", lambda paths: ((False, list(codec.read_log(p))) for p in paths))
    monkeypatch.setattr(cli_replay, "replay_final", lambda entries: _final_stepped(entries))
    assert cli_replay.run(args) == code
    slow = capsys.readouterr()
    assert fast.out == slow.out and fast.err == slow.err
    assert len(fast.out.splitlines()) >= 8 and json.loads(fast.out.splitlines()[0])["match_id"]


def _final_stepped(entries: Any) -> tuple[Any, Any]:
    run = _Run(_match_id(entries), entries)
    for _ in run.run():
        pass
    return run.result, run.state


def _ddz_deal(hands: list[list[str]], bottom: list[str]) -> list[Any]:
    return [
        codec.parse_event(
            {"match_id": "d", "seq": 0, "type": "match_started", "game": "ddz", "rules": {}, "players": ["a", "b", "c"],
             "dealer": 0, "base": 1}
        ),
        codec.parse_event({"match_id": "d", "seq": 1, "type": "dealt", "hands": hands, "bottom": bottom}),
    ]  # fmt: skip


def test_the_deal_checks_name_the_first_fault() -> None:
    """Hand-made deals: the message names the first card that is not one (seat order, then the
    bottom), or a card that appears twice; the driver names a tile in a card game by its hand."""
    from engine.cards import CARD_NAME
    from engine.errors import Illegal

    names = [CARD_NAME[i] for i in range(54)]
    hands, bottom = [names[0:17], names[17:34], names[34:51]], names[51:54]
    game = get_game("ddz")
    rules = game.parse_rules({})
    started, dealt = _ddz_deal(hands, bottom)
    assert game.start(started, dealt, rules).hands == ((1 << 17) - 1, ((1 << 17) - 1) << 17, ((1 << 17) - 1) << 34)
    bad = [list(h) for h in hands]
    bad[1][3], bad[2][0] = "1m", "2p"
    with pytest.raises(Illegal, match=r"^bad_deal: DDZ-R2 '1m' is not a card of the 54-card deck$"):
        game.start(*_ddz_deal(bad, bottom), rules)
    r = replay_final(_ddz_deal(bad, bottom))[0]
    assert (r.status, r.error["code"], r.error["message"]) == (
        "invalid",
        "bad_deal",
        "hand 1 holds '1m', which is not a card of ddz",
    )
    bad = [list(h) for h in hands]
    bad[2][5] = names[0]
    with pytest.raises(Illegal, match=f"^bad_deal: DDZ-R2 the deal is not the 54-card deck: {names[0]} appears twice$"):
        game.start(*_ddz_deal(bad, bottom), rules)
    with pytest.raises(Illegal, match=f"^bad_deal: DDZ-R2 the deal is not the 54-card deck: {names[1]} appears twice$"):
        game.start(*_ddz_deal(hands, [names[1], names[52], names[53]]), rules)


def test_the_result_line_is_json_dumps() -> None:
    """`ReplayResult.to_json` (one encoder built once) against `json.dumps` with the options."""
    r = replay_final(_ddz_deal([["3s"] * 17] * 3, ["4s"] * 3))[0]
    r.items = [{"kind": "x", "note": "é ✓", "n": 10**30, "f": 1.5}]
    assert r.to_json() == json.dumps(r.to_dict(), ensure_ascii=False, separators=(",", ":"))
