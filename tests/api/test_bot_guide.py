"""The API's guide tells how to write a bot: the section, the bot endpoints in the endpoint table, the
site's own stream limit, and a run command of the example bot that is in the repository."""

import re

import pytest
from django.urls import reverse

from tests.conftest import ROOT

pytestmark = pytest.mark.django_db

BOT_ENDPOINTS = (
    "GET /api/v1/bot/offers",
    "POST /api/v1/bot/offers/{table_id}/accept",
    "GET /api/v1/bot/games",
    "GET /api/v1/bot/games/{id}/stream",
    "POST /api/v1/bot/games/{id}/move",
)


def test_the_guide_has_a_section_on_writing_a_bot(client, settings):
    settings.API_STREAMS_PER_TOKEN = 7
    page = client.get(reverse("api:guide"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    section = page[page.index('<h2 id="bots">') :]
    assert "Write a bot" in section and 'data-testid="api-bot-loop"' in section
    assert reverse("accounts:profile") in section and reverse("api:tokens") in section
    assert "at most 7 streams open at once" in section and "409" in section and "deadline" in section
    endpoints = page[
        page.index('data-testid="api-endpoints"') : page.index("</table>", page.index("api-endpoints"))
    ]
    for endpoint in BOT_ENDPOINTS:
        assert f"<code>{endpoint}</code>" in endpoints, endpoint
    command = re.search(
        r"<pre><code>SEPTICA_URL=http://testserver SEPTICA_TOKEN=\S+ python3 (\S+)</code>", section
    )
    assert command and (ROOT / command.group(1)).is_file()


def test_the_section_is_there_in_romanian_too(client):
    page = client.get(reverse("api:guide"), HTTP_ACCEPT_LANGUAGE="ro")
    assert page.status_code == 200 and '<h2 id="bots">' in page.content.decode()
