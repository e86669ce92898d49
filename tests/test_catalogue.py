"""The Romanian catalogue is whole: every string the site marks has a translation, none left fuzzy."""

from pathlib import Path

import polib

CATALOGUE = Path(__file__).resolve().parent.parent / "config/locale/ro/LC_MESSAGES/django.po"


def test_every_romanian_entry_is_translated_and_none_is_fuzzy():
    catalogue = polib.pofile(str(CATALOGUE))
    assert [entry.msgid for entry in catalogue.untranslated_entries()] == []
    assert [entry.msgid for entry in catalogue.fuzzy_entries()] == []
