"""Gold Mine ("Шакал. Подземелье"): the decider is `domain.goldmine.game.GAME`.

`setup` is imported first: it defines the Options struct that the events and the
state embed before it imports them, so every entry point into the package works.
"""

from domain.goldmine import setup as _setup  # noqa: F401
