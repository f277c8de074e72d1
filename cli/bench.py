"""placeholder"""


def register(sub) -> None:
    return None
