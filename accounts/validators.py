"""Django's password rules in the site's own words: its help and refusals, said the way a player
reads them (and, in Romanian, written with diacritics)."""

from django.contrib.auth import password_validation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext


class MinimumLengthValidator(password_validation.MinimumLengthValidator):
    def get_error_message(self) -> str:
        return (
            ngettext(
                "This password is too short. It needs at least %d character.",
                "This password is too short. It needs at least %d characters.",
                self.min_length,
            )
            % self.min_length
        )

    def get_help_text(self) -> str:
        return ngettext(
            "At least %(min_length)d character.", "At least %(min_length)d characters.", self.min_length
        ) % {"min_length": self.min_length}


class UserAttributeSimilarityValidator(password_validation.UserAttributeSimilarityValidator):
    def get_error_message(self) -> str:
        return _("This password is too close to your %(verbose_name)s.")

    def get_help_text(self) -> str:
        return _("Not too close to your username or email.")


class CommonPasswordValidator(password_validation.CommonPasswordValidator):
    def get_error_message(self) -> str:
        return _("This password is too common: choose another.")

    def get_help_text(self) -> str:
        return _("Not one of the most used passwords.")


class NumericPasswordValidator(password_validation.NumericPasswordValidator):
    def get_error_message(self) -> str:
        return _("This password is entirely numeric: add a letter or a sign.")

    def get_help_text(self) -> str:
        return _("Not made of digits only.")
