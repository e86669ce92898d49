from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReviewsConfig(AppConfig):
    """A finished match's decisions reviewed for the person who made them: what each choice cost
    against the best one, judged from what they knew then (``bots.review``), computed once on a
    worker of its own queue and read many times."""

    name = "reviews"
    verbose_name = _("Reviews")
