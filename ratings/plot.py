"""A rating's history drawn as an SVG line, on the server: no chart library, and it reads on a 375 px
phone (the drawing scales to its box; the labels are few and large)."""

from dataclasses import dataclass

WIDTH, HEIGHT = 340, 160
LEFT, RIGHT, TOP, BOTTOM = 48, 8, 10, 24
"""The drawing's size in its own units and the margins kept for the labels."""


@dataclass(frozen=True)
class Plot:
    points: str
    """The polyline's points, "x,y x,y …"."""
    last: tuple[float, float]
    peak: tuple[float, float]
    low: int
    high: int
    ticks: list[tuple[float, int]]
    """(y, rating) of the horizontal guide lines."""
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right_edge: int = WIDTH - RIGHT
    baseline: int = HEIGHT - BOTTOM


def _nice_step(span: int) -> int:
    for step in (10, 20, 25, 50, 100, 200, 250, 500):
        if span / step <= 4:
            return step
    return 1000


def plot(ratings: list[int], start: int) -> Plot | None:
    """The line through ``ratings`` (oldest first), starting from ``start`` (the rating before the
    first change); None with nothing to draw."""
    if not ratings:
        return None
    values = [start, *ratings]
    step = _nice_step(max(values) - min(values) or 1)
    low = (min(values) // step) * step
    high = -(-max(values) // step) * step
    if high == low:
        high = low + step
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def at(index: int, value: int) -> tuple[float, float]:
        x = LEFT + inner_w * index / (len(values) - 1)
        y = TOP + inner_h * (high - value) / (high - low)
        return round(x, 1), round(y, 1)

    coordinates = [at(index, value) for index, value in enumerate(values)]
    peak_index = max(range(len(values)), key=lambda index: (values[index], index))
    ticks = [(at(0, value)[1], value) for value in range(low, high + 1, step)]
    return Plot(
        points=" ".join(f"{x},{y}" for x, y in coordinates),
        last=coordinates[-1],
        peak=coordinates[peak_index],
        low=low,
        high=high,
        ticks=ticks,
    )
