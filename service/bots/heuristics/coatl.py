"""coatl heuristic (placeholder while built)."""


def scores(view, seat, commands):
    return [0.0] * len(commands)
