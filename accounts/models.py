from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A player. Deactivating the account (``is_active`` off) is how moderators ban."""

    email = models.EmailField(_("email address"), blank=True)

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
            models.UniqueConstraint(
                Lower("email"), condition=~models.Q(email=""), name="accounts_user_email_ci_unique"
            ),
        ]

    def __str__(self) -> str:
        return self.username
