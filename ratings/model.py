"""The rating model, without Django: OpenSkill's Weng-Lin Plackett-Luce, the number people see,
and who ranks where in a finished match. Pure functions of their inputs, so the live update,
``rebuild_ratings`` and the benchmark compute exactly the same numbers.

The number shown is ``round(1500 + 40 · (μ − 25))``: a newcomer (μ = 25, σ = 25/3) is 1500, and a
rating is provisional ("1500?") until it has ``ESTABLISHED_MATCHES`` matches and σ ≤
``ESTABLISHED_SIGMA``. It follows μ rather than the conservative μ − 3σ, which climbs by playing alone
(σ shrinks whatever the result): the uncertainty is told by the "?" and keeps a rating off the
leaderboard instead. Forty points per μ put established players on about Elo's scale: in a duel
(σ = 2 each) a 100-point gap makes a 65% favourite, where Elo says 64%.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
TAU = MU / 300
"""OpenSkill's defaults, written down: changing one changes every rating (``rebuild_ratings``)."""
MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)

SHOWN_AT_START = 1500
POINTS_PER_MU = 40
ESTABLISHED_MATCHES = 10
ESTABLISHED_SIGMA = 6.0


@dataclass(frozen=True)
class Skill:
    mu: float = MU
    sigma: float = SIGMA


def shown(mu: float) -> int:
    """The rating as people see it."""
    return round(SHOWN_AT_START + POINTS_PER_MU * (mu - MU))


def shown_exact(mu: float) -> float:
    return SHOWN_AT_START + POINTS_PER_MU * (mu - MU)


def provisional(*, matches: int, sigma: float) -> bool:
    return matches < ESTABLISHED_MATCHES or sigma > ESTABLISHED_SIGMA


def change_shown(before_mu: float, after_mu: float) -> int:
    """The change as people see it ("+12"): rounded once, so partners moved alike read alike."""
    return round(shown_exact(after_mu) - shown_exact(before_mu))


def places(scores: Sequence[float], *, lowest_first: bool, gone: Sequence[bool]) -> list[int]:
    """Each side's place (1 the best, equal scores share one); a side that left ranks below every
    side that stayed, the sides that left sharing the last place."""
    stayed = [score for score, left in zip(scores, gone, strict=True) if not left]
    ranks = []
    for score, left in zip(scores, gone, strict=True):
        if left:
            ranks.append(len(stayed) + 1)
        elif lowest_first:
            ranks.append(1 + sum(other < score for other in stayed))
        else:
            ranks.append(1 + sum(other > score for other in stayed))
    return ranks


def rate(sides: Sequence[Sequence[Skill]], ranks: Sequence[int]) -> list[list[Skill]]:
    """The skills after a match between ``sides`` (each a list of people) that ended in ``ranks``.
    Partners move alike: each member of a side gets the side's mean change of μ (the model splits it
    by each one's σ), and their own new σ."""
    teams = [[MODEL.rating(mu=skill.mu, sigma=skill.sigma) for skill in side] for side in sides]
    rated = MODEL.rate(teams, ranks=list(ranks))
    after = []
    for side, new in zip(sides, rated, strict=True):
        moved = sum(n.mu - s.mu for s, n in zip(side, new, strict=True)) / len(side)
        after.append([Skill(mu=s.mu + moved, sigma=n.sigma) for s, n in zip(side, new, strict=True)])
    return after


def win_chances(sides: Sequence[Sequence[Skill]]) -> list[float]:
    """Each side's chance of winning, as the model sees it (the benchmark's predictions)."""
    return MODEL.predict_win([[MODEL.rating(mu=s.mu, sigma=s.sigma) for s in side] for side in sides])
