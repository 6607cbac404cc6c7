"""The contract's error codes (events.md §6) and the one exception that carries them."""

from __future__ import annotations

from typing import Literal, get_args

ErrorCode = Literal[
    "bad_json",
    "bad_field",
    "unknown_type",
    "seq_gap",
    "conflict",
    "not_started",
    "bad_rules",
    "bad_deal",
    "bad_hash",
    "wrong_phase",
    "not_your_turn",
    "not_in_hand",
    "illegal_move",
    "does_not_beat",
    "must_play",
    "illegal_claim",
    "not_a_win",
    "wrong_draw",
    "illegal_bet",
    "after_end",
]

ERROR_CODES: frozenset[str] = frozenset(get_args(ErrorCode))


class ContractError(Exception):
    """An input refused under the contract: `code` is one of ERROR_CODES, `message` says why.

    `match_id` and `seq` are filled in when known so that every refusal names where it happened.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        match_id: str | None = None,
        seq: int | None = None,
        type: str | None = None,
    ) -> None:
        if code not in ERROR_CODES:  # pragma: no cover - programming error, not input
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(f"{code}: {message}")
        self.code: ErrorCode = code
        self.message = message
        self.match_id = match_id
        self.seq = seq
        self.type = type

    def as_dict(self) -> dict[str, object]:
        """The contract's `error` object: `{seq, type, code, message}`."""
        return {"seq": self.seq, "type": self.type, "code": self.code, "message": self.message}


class UsageError(Exception):
    """Bad usage or unreadable input (cli.md): the command exits 2 with this one-line message.

    It lives at the bottom layer so that every package's command-line module can raise it without
    importing the top-level `paiju` script.
    """
