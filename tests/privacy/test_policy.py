"""The privacy page's "Who sees what" is held to what moderators are granted: it lists exactly the
group's rights (read from the database, as the migrations left them), and whatever it says moderators
never see, they cannot open."""

import html
import re

import pytest
from django.apps import apps
from django.contrib.auth.models import Group
from django.urls import NoReverseMatch, reverse
from django.utils import translation

from accounts import moderators
from api import services as api_services
from gameplay import services as gameplay_services
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def listed(page: str, testid: str) -> list[str]:
    block = re.search(rf'data-testid="{testid}">(.*?)</ul>', page, re.S)
    assert block is not None, testid
    return [html.unescape(item) for item in re.findall(r"<li>(.*?)</li>", block[1], re.S)]


def granted() -> list[tuple[str, str]]:
    rights = Group.objects.get(name=moderators.GROUP).permissions
    return list(rights.values_list("content_type__app_label", "codename"))


@pytest.mark.parametrize("language", ["en", "ro"])
def test_the_page_lists_exactly_what_the_group_is_granted(client, language):
    page = client.get("/privacy/", headers={"accept-language": language}).text
    with translation.override(language):
        reads = {
            str(apps.get_model(app_label, codename.removeprefix("view_"))._meta.verbose_name_plural)
            for app_label, codename in granted()
            if codename.startswith("view_")
        }
        duties = {str(moderators.DUTIES[right]) for right in granted() if not right[1].startswith("view_")}
        never = {str(name) for name in moderators.NEVER_SHOWN.values()}
    assert set(listed(page, "moderators-read")) == reads
    assert set(listed(page, "moderators-do")) == duties
    assert set(listed(page, "moderators-never")) == never
    assert len(reads) >= 10 and "friendships" not in reads | {"prietenii"}


def admin_pages(model, obj) -> list[str]:
    opts = model._meta
    pages = [reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")]
    if obj is not None:
        pages.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]))
    return pages


def test_what_the_page_says_moderators_never_see_they_cannot_open(mod_client):
    ana = make_user("ana")
    gameplay_services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=45, is_private=True
    )
    api_services.token_create(owner=ana, holder_id=ana.pk, name="a program", scopes=["read"], days=30)
    rights = granted()
    for hidden in moderators.NEVER_SHOWN:
        app_label, model_name, *field = hidden.split(".")
        model = apps.get_model(app_label, model_name)
        if not field:
            assert not [right for right in rights if right[1].endswith(f"_{model._meta.model_name}")], hidden
            try:
                changelist = admin_pages(model, None)[0]
            except NoReverseMatch:
                continue  # not in the admin at all
            assert mod_client.get(changelist).status_code == 403, hidden
            continue
        obj = model.objects.exclude(**{field[0]: ""}).first()
        value = str(getattr(obj, field[0]))
        for path in admin_pages(model, obj):
            response = mod_client.get(path)
            assert response.status_code == 200 and value not in response.text, (hidden, path)
        found = mod_client.get(admin_pages(model, None)[0], {"q": value}).text
        changed = reverse(f"admin:{app_label}_{model._meta.model_name}_change", args=[obj.pk])
        assert changed not in found, f"{hidden}: a search by it finds the row"
