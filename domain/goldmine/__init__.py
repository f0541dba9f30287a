"""Gold Mine ("Шакал. Подземелье"): the decider is `domain.goldmine.game.GAME`."""
