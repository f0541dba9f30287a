"""Gold Mine ("Шакал. Подземелье") with its mud, five-tile and alliance variants, as a pure decider."""
