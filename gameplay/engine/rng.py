"""A seeded random number generator whose whole state is one integer.

Every random choice in a match (the deal, a reshuffle, round 1's dealer) comes
from the generator stored in the match state, so a match replays exactly from
(options, seed, actions) and its state serialises to JSON without loss. The
algorithm is SplitMix64: tiny, fast in pure Python, and identical under Pyodide.
"""

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


class Rng:
    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & _MASK

    def next64(self) -> int:
        self.state = z = (self.state + _GAMMA) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A number in ``range(n)``; the modulo bias is below 2**-58 for any deck size."""
        return self.next64() % n

    def shuffle(self, items: list) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.next64() % (i + 1)
            items[i], items[j] = items[j], items[i]
