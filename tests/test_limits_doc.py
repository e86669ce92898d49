"""Every limit is declared once, in ``config.settings.limits``, and docs/limits.md says what it says."""

import re

from django.conf import settings

import config.settings
from config.management.commands.limitsdoc import DOC, limits_markdown
from config.settings.limits import LIMITS, Limit

NOT_LIMITS = {"POOL_WINDOW_PER_SECOND"}
"""Named like a budget, but how fast the pool's rating window widens."""


def test_docs_limits_md_is_what_the_limits_say() -> None:
    assert DOC.read_text() == limits_markdown(), "docs/limits.md is stale: run `manage.py limitsdoc`"


def test_every_budget_setting_is_declared_among_the_limits() -> None:
    budget_like = re.compile(r"_PER_|_BURST$|_DAILY$|^RATED_|_ATTEMPTS_")
    named = {name for name in vars(config.settings) if budget_like.search(name)} - NOT_LIMITS
    assert named <= {limit.name for limit in LIMITS}


def test_each_limit_is_a_setting_of_its_name_once() -> None:
    names = [limit.name for limit in LIMITS]
    assert len(names) == len(set(names))
    assert all(getattr(settings, limit.name) == limit.value for limit in LIMITS)


def test_the_environment_sets_a_limit_in_the_defaults_type(monkeypatch) -> None:
    area = LIMITS[0].area
    monkeypatch.setenv("SOME_BUDGET_PER_HOUR", "7")
    assert Limit("SOME_BUDGET_PER_HOUR", 3.0, "", area).value == 7.0
    assert isinstance(Limit("SOME_BUDGET_PER_HOUR", 3, "", area).value, int)
    assert Limit("SOME_BUDGET_PER_HOUR", 3, "", area, fixed=True).value == 3
