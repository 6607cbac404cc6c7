"""One open match, checked event by event (events.md §5–6), with its reducer state in memory.

`LiveMatch.offer(event)` applies one event to the state the previous events left, with the same
checks, in the same order, as the replay driver's fold (engine/replay.py): identical re-send
(a no-op), `conflict`, `seq_gap`, `bad_hash`, then the driver's own per-event step (seq 0 and 1,
`settled`, `after_end`, seat ranges, the game's `apply`). A refused event changes nothing, so the
game server can send a corrected one at the same seq. The accepted events are exactly the match's
log: `replay()` of them gives the result `result()` reports (tests/test_referee.py checks it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import Illegal
from engine.replay import _Run
from events.chain import link
from events.errors import ContractError
from events.models import AnyEvent


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one offered event: accepted (new or an identical re-send), or refused."""

    accepted: bool
    duplicate: bool = False
    error: ContractError | None = None


def _climbing(s: Any) -> tuple[int | None, str]:  # ddz.py view: "phase", "turn"
    return s.turn, s.phase


def _paodekuai(s: Any) -> tuple[int | None, str]:  # paodekuai.py view
    return (None if s.finished else s.turn), ("finished" if s.finished else ("lead" if s.top is None else "follow"))


def _zhajinhua(s: Any) -> tuple[int | None, str]:  # zhajinhua/game.py view
    return s.actor, ("finished" if s.finished else ("allin_call" if s.allin else "betting"))


def _sichuan(s: Any) -> tuple[int | None, str]:  # mahjong/sichuan.py view
    return (s.turn if s.phase == "play" else None), (s.phase if s.phase != "play" else f"play:{s.stage}")


def _claimflow(s: Any) -> tuple[int | None, str]:  # mahjong/claimflow.py view (hongzhong, anshun)
    return (None if s.done else s.turn), ("end" if s.done else s.phase)


TURN_PHASE: dict[str, Any] = {
    "ddz": _climbing, "ddz_laizi": _climbing, "paodekuai": _paodekuai, "zhajinhua": _zhajinhua,
    "sichuan_xuezhan": _sichuan, "sichuan_xueliu": _sichuan, "hongzhong": _claimflow, "anshun": _claimflow,
}  # fmt: skip
"""Game id → `state -> (turn, phase)`, the two fields of the game's `view` the answers carry."""

ACCEPTED = Outcome(True)
DUPLICATE = Outcome(True, duplicate=True)


class LiveMatch:
    """A match's accepted events and the reducer state after the last of them.

    The fold is the replay driver's (`engine.replay._Run`, one step per event through its
    `_apply`), so the referee and `paiju replay` cannot disagree on what an event means.
    """

    __slots__ = ("any_hash", "events", "linking", "match_id", "owner", "prev_hash", "run")

    def __init__(self, match_id: str, owner: str) -> None:
        self.match_id = match_id
        self.owner = owner
        self.events: list[AnyEvent] = []
        self.run: _Run | None = None
        self.prev_hash = ""
        self.linking = False
        self.any_hash = False

    # ------------------------------------------------------------------ the fold, one event at a time

    def offer(self, ev: AnyEvent) -> Outcome:
        """Apply `ev` if the contract and the rules allow it; never raises for bad input."""
        n = len(self.events)
        seq = ev.seq
        if seq < n:
            if self.events[seq].canonical_fields() == ev.canonical_fields():
                return DUPLICATE  # an identical re-send is a no-op (events.md §5)
            return self._refuse(Illegal("conflict", f"a different event is already at seq {seq} (events.md §5: append-only)"), ev)
        if seq != n:
            return self._refuse(Illegal("seq_gap", f"seq {seq} follows seq {n - 1}; seq {n} is missing"), ev)
        h = ""
        if ev.hash is not None and not self.linking:
            # the first hashed event: link the events before it once, then every event after it
            prev = ""
            for e in self.events:
                prev = link(prev, e)
            self.prev_hash, self.linking = prev, True
        if self.linking:
            h = link(self.prev_hash, ev)
            if ev.hash is not None and ev.hash != h:
                return self._refuse(Illegal("bad_hash", f"hash of seq {seq} does not verify: the log was edited after it was written (events.md §5)"), ev)
        run = self.run
        if run is None:
            run = _Run(self.match_id, [])
        try:
            run._apply(ev)
        except ContractError as err:
            return self._refuse(err, ev)
        self.run = run
        self.events.append(ev)
        if self.linking:
            self.prev_hash = h
            if ev.hash is not None:
                self.any_hash = True
        return ACCEPTED

    def _refuse(self, err: ContractError, ev: AnyEvent) -> Outcome:
        err.match_id, err.seq, err.type = self.match_id, ev.seq, ev.type
        return Outcome(False, error=err)

    # ------------------------------------------------------------------ what the match is now

    @property
    def started(self) -> bool:
        return self.run is not None

    @property
    def finished(self) -> bool:
        return self.run is not None and self.run.finished

    @property
    def next_seq(self) -> int:
        return len(self.events)

    def status(self) -> str:
        """`finished` or `incomplete` (an accepted log is never `invalid`)."""
        return "finished" if self.finished else "incomplete"

    def view(self) -> dict[str, Any] | None:
        """The game's picture of the table (None before the deal)."""
        run = self.run
        if run is None or run.state is None or run.game is None:
            return None
        return run.game.view(run.state)

    def turn_phase(self) -> tuple[int | None, str]:
        """Whose turn it is and the phase, as the game's `view` says (`dealing` before the deal).

        Read straight from the state where `TURN_PHASE` knows the game (the view builds the whole
        table: as dear as the event's `apply`); tests/test_referee_live.py checks both agree at
        every step of simulated matches of every game.
        """
        run = self.run
        if run is None or run.state is None or run.game is None:
            return None, "dealing"
        fast = TURN_PHASE.get(run.game.id)
        if fast is not None:
            return fast(run.state)
        v = run.game.view(run.state)
        turn = v.get("turn")
        return (turn if isinstance(turn, int) else None), str(v.get("phase"))

    def legal(self) -> list[dict[str, Any]]:
        """The actions the rules allow now (the game's `legal_actions`; [] before the deal and at the end)."""
        run = self.run
        if run is None or run.state is None or run.game is None or run.finished:
            return []
        return run.game.legal_actions(run.state)

    def result(self) -> dict[str, Any]:
        """The §6 replay result of the accepted events."""
        run = self.run
        if run is None:
            return {"match_id": self.match_id, "game": None, "status": "incomplete", "events": 0, "error": None,
                    "winners": [], "deltas": None, "items": [], "recorded_deltas": None,
                    "settlement_matches": None, "chain_ok": None}  # fmt: skip
        run.result.events = len(self.events)
        run.any_hash = self.any_hash
        run.chain_broken = False
        run.prev_hash = self.prev_hash
        run._conclude()
        return run.result.to_dict()
