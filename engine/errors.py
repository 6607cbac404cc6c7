"""The one exception a game's reducer raises."""

from __future__ import annotations

from events.errors import ContractError, ErrorCode


class Illegal(ContractError):
    """An event the rules refuse: `Illegal("does_not_beat", "DDZ-C3 pair 55 cannot beat pair 77")`.

    The message names the rule id; the replay driver adds the match id, seq and type.
    """

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(code, message)
