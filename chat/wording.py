"""The word list's arithmetic, in plain Python: folding a word to the one spelling the list keeps, and
masking the words of a text that the list holds.

Folding takes what people do to slip a word past a filter: capitals, diacritics (both the comma and
the cedilla forms of ș and ț), digits and signs for letters ("pr0st", "$mecher"), letters repeated
("proooost") and dots or dashes between letters ("p.r.o.s.t").
"""

import re
import unicodedata
from collections.abc import Iterable

LOOK_ALIKES = str.maketrans(
    {
        "0": "o",
        "1": "i",
        "3": "e",
        "4": "a",
        "5": "s",
        "7": "t",
        "8": "b",
        "@": "a",
        "$": "s",
        "!": "i",
        "|": "i",
    }
)
WORD = re.compile(r"[\w@$!|]+(?:[.\-_*][\w@$!|]+)*", re.UNICODE)
"""A word as typed, letters or their look-alikes, with single dots or dashes inside it."""
MASK = "*"


def fold(word: str) -> str:
    """``word`` as the list compares it: lower case, no diacritics, look-alikes read as letters,
    separators dropped and every run of one letter made one."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    plain = plain.translate(LOOK_ALIKES)
    letters = "".join(char for char in plain if char.isalnum())
    return re.sub(r"(.)\1+", r"\1", letters)


def list_entry(word: str) -> str:
    """A word as the list stores it: folded, keeping a trailing ``*`` (every word it begins)."""
    stem = word.strip()
    prefix = stem.endswith("*")
    folded = fold(stem.rstrip("*"))
    return f"{folded}*" if prefix and folded else folded


class Masker:
    """Masks, in a text, every word the list holds (whole words, or words that begin with an entry
    ending in ``*``), letter for letter, leaving everything else as typed."""

    def __init__(self, entries: Iterable[str]) -> None:
        self.words = {entry for entry in entries if entry and not entry.endswith("*")}
        self.stems = tuple(entry[:-1] for entry in entries if entry.endswith("*") and len(entry) > 1)

    def listed(self, word: str) -> bool:
        folded = fold(word)
        return bool(folded) and (folded in self.words or folded.startswith(self.stems or ("\0",)))

    def mask(self, text: str) -> str:
        if not self.words and not self.stems:
            return text
        return WORD.sub(lambda found: self._masked(found[0]), text)

    def _masked(self, word: str) -> str:
        if self.listed(word):
            return MASK * len(word)
        # "prost!": a "!" or "|" after the word is punctuation, not an "i" (the mark stays as typed).
        stem = word.rstrip("!|")
        if stem != word and self.listed(stem):
            return MASK * len(stem) + word[len(stem) :]
        return word
