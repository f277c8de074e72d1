"""A small module with holes for `remask fill` to complete."""


def mean(values):
    """Return the arithmetic mean of a non-empty list."""
    total = 0
    for v in values:
        total += v
    return ???


def clamp(x, low, high):
    """Clamp x to the closed interval [low, high]."""
    if x < low:
        return low
    if x > high:
        ???
    return x
