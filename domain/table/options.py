"""The platform's options check: a kind's options decoded for a seat count, and stored options upgraded."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.kernel import Game, Rng, RuleViolation


class OptionsRules:
    """Decode a kind's options for a seat count; the `Table` part that reads options."""

    game: Game
    options_type: type

    def parse_options(self, raw: dict[str, Any] | None, seats: int) -> Any:
        """Decode and check options for `seats` players; RuleViolation when they do not fit."""
        game = self.game
        if not game.min_players <= seats <= game.max_players:
            raise RuleViolation(
                "table.bad_seat_count",
                f"{game.kind} is for {game.min_players}-{game.max_players} players, not {seats}",
            )
        try:
            options = msgspec.convert(raw or {}, self.options_type)
        except msgspec.ValidationError as exc:
            raise RuleViolation("table.bad_options", f"invalid options: {exc}") from exc
        # setup validates options against the seat count; its events are discarded here
        game.setup(options, seats, Rng(b"options-check", 0))
        return options

    def _stored_options(self, raw: dict[str, Any], seats: int) -> Any:
        """The options of a stored `table.GameCreated`, upgraded if an earlier version wrote them."""
        try:
            return msgspec.convert(raw, self.options_type)
        except msgspec.ValidationError:
            if self.game.upgrade_options is None:
                raise
            return msgspec.convert(self.game.upgrade_options(dict(raw), seats), self.options_type)
