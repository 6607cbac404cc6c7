"""One open match, checked event by event (events.md §5–6), with its reducer state in memory.

`LiveMatch.offer(event)` is one step of the replay driver's own fold (`engine.replay.Fold.step`,
the step `replay()` takes per event): identical re-send (a no-op), `conflict`, `not_started`,
`seq_gap`, `bad_hash`, then the per-event rules (seq 0 and 1, `settled`, `after_end`, seat
ranges, the game's `apply`). A refused event changes nothing, so the game server can send a
corrected one at the same seq. The accepted events are exactly the match's log: `replay()` of
them gives the result `result()` reports (tests/test_referee_live.py checks it).
"""

from __future__ import annotations

from typing import Any

from engine.replay import Fold, Outcome

__all__ = ["LiveMatch", "Outcome"]


class LiveMatch:
    """A match's accepted events and the reducer state after the last of them (an `engine.replay.Fold`)."""

    __slots__ = ("fold", "match_id", "owner")

    def __init__(self, match_id: str, owner: str) -> None:
        self.match_id = match_id
        self.owner = owner
        self.fold = Fold(match_id)

    def offer(self, ev: Any) -> Outcome:
        """Apply `ev` if the contract and the rules allow it; never raises for bad input."""
        return self.fold.step(ev)

    # ------------------------------------------------------------------ what the match is now

    @property
    def events(self) -> list[Any]:
        return self.fold.events

    @property
    def started(self) -> bool:
        return bool(self.fold.events)

    @property
    def finished(self) -> bool:
        return self.fold.finished

    @property
    def next_seq(self) -> int:
        return len(self.fold.events)

    def status(self) -> str:
        """`finished` or `incomplete` (an accepted log is never `invalid`)."""
        return "finished" if self.fold.finished else "incomplete"

    def view(self) -> dict[str, Any] | None:
        """The game's picture of the table (None before the deal)."""
        f = self.fold
        if f.state is None or f.game is None:
            return None
        return f.game.view(f.state)

    def turn_phase(self) -> tuple[int | None, str]:
        """Whose turn it is and the phase, as the game's `view` says (`dealing` before the deal)."""
        return self.fold.turn_phase()

    def legal(self) -> list[dict[str, Any]]:
        """The actions the rules allow now (the game's `legal_actions`; [] before the deal and at the end)."""
        f = self.fold
        if f.state is None or f.game is None or f.finished:
            return []
        return f.game.legal_actions(f.state)

    def result(self) -> dict[str, Any]:
        """The §6 replay result of the accepted events."""
        f = self.fold
        if not f.events:
            return {"match_id": self.match_id, "game": None, "status": "incomplete", "events": 0, "error": None,
                    "winners": [], "deltas": None, "items": [], "recorded_deltas": None,
                    "settlement_matches": None, "chain_ok": None}  # fmt: skip
        r = f.conclude()
        r.events = len(f.events)
        return r.to_dict()
