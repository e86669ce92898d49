"""The /data/ page lists the files in both languages, the schema page says what a line holds, both
carry the CC0 notice, the footer links to them, and a file downloads as it is on disk."""

import pytest
from django.urls import reverse
from django.utils import translation

from opendata import services
from tests.opendata.helpers import rated_played
from tests.opendata.test_build import this_month

pytestmark = pytest.mark.django_db


@pytest.fixture
def built(ana, ion):
    rated_played("americana", [ana, ion])
    return services.build(game="americana", month=this_month())


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", ["Open data", "Matches", "Classic", "No file yet."]), ("ro", ['lang="ro"', "Partide"])],
)
def test_the_data_page_lists_each_file_with_its_size_and_checksum(client, built, language, words):
    with translation.override(language):
        page = client.get(reverse("opendata:index"), headers={"accept-language": language})
        link = reverse("opendata:file", args=[built.file_name])
    text = page.content.decode()
    assert page.status_code == 200
    assert f"{this_month():%Y-%m}" in text and built.sha256 in text and f'href="{link}"' in text
    assert f'href="{link}.sha256"' in text and 'data-testid="cc0"' in text and "CC0 1.0" in text
    assert all(word in text for word in words), [word for word in words if word not in text]


def test_the_page_is_open_to_anyone_and_the_footer_and_the_privacy_page_link_it(client):
    home = client.get("/").content.decode()
    assert f'href="{reverse("opendata:index")}"' in home
    page = client.get(reverse("opendata:index")).content.decode()
    assert "No file yet." in page
    privacy = client.get(reverse("privacy:policy")).content.decode()
    assert f'in the monthly <a href="{reverse("opendata:index")}">open data</a> files' in privacy


@pytest.mark.parametrize("language", ["en", "ro"])
def test_the_schema_page_names_every_field_of_a_line(client, built, language, open_data_root):
    with translation.override(language):
        page = client.get(reverse("opendata:schema"), headers={"accept-language": language}).content.decode()
    record = next(services.selectors.read_records(open_data_root / built.file_name))
    fields = set(record) | set(record["table"]) | set(record["seats"][0]) | set(record["moves"][0])
    fields |= set(record["rounds"][0]) | set(record["result"])
    assert [field for field in sorted(fields) if field not in page] == []
    assert "CC0 1.0" in page


def test_a_file_and_its_checksum_download_as_they_are(client, built, open_data_root):
    response = client.get(reverse("opendata:file", args=[built.file_name]))
    assert response.status_code == 200 and response["Content-Type"] == "application/zstd"
    assert b"".join(response.streaming_content) == (open_data_root / built.file_name).read_bytes()
    checksum = client.get(reverse("opendata:file", args=[f"{built.file_name}.sha256"]))
    assert checksum["Content-Type"].startswith("text/plain")
    assert b"".join(checksum.streaming_content).decode() == f"{built.sha256}  {built.file_name}\n"


def test_nothing_else_of_the_directory_is_served(client, built, open_data_root):
    (open_data_root / f".{built.file_name}.x.part").write_bytes(b"half")
    for name in [f".{built.file_name}.x.part", "septica-americana-2020-01.jsonl.zst", "..%2Fsettings.py"]:
        assert client.get(reverse("opendata:file", args=[name])).status_code == 404
