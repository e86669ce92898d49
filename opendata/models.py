from django.db import models
from django.utils.translation import gettext_lazy as _

from tables.models import Game


class Dump(models.Model):
    """One open data file: a game's public rated matches that finished in one month (UTC), and how it
    was last built. The row exists from the first build's start; ``built_at`` is empty until a file
    is there. ``building_since`` is the one build running (two never write the same file), and
    ``wanted_again`` a rebuild asked for meanwhile (a closed account's name still in it): the
    running build goes round once more before it lets go."""

    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    month = models.DateField(_("month"), help_text=_("Its first day."))
    file_name = models.CharField(_("file name"), max_length=100, blank=True)
    matches = models.PositiveIntegerField(_("matches"), default=0)
    size = models.PositiveBigIntegerField(_("bytes"), default=0)
    sha256 = models.CharField(_("SHA-256"), max_length=64, blank=True)
    built_at = models.DateTimeField(_("built"), null=True, blank=True)
    build_seconds = models.FloatField(_("build time (s)"), default=0)
    building_since = models.DateTimeField(_("building since"), null=True, blank=True, editable=False)
    wanted_again = models.BooleanField(_("wanted again"), default=False, editable=False)

    class Meta:
        ordering = ["-month", "game"]
        verbose_name = _("open data file")
        verbose_name_plural = _("open data files")
        permissions = [("build_dump", _("Can build an open data file again"))]
        constraints = [models.UniqueConstraint(fields=["game", "month"], name="opendata_dump_one_per_month")]

    def __str__(self) -> str:
        return f"{self.game} {self.month:%Y-%m}"
