"""The word list's arithmetic: one folded spelling per word, and masking that touches listed words only."""

import pytest

from chat.wording import Masker, fold, list_entry


@pytest.mark.parametrize(
    "typed",
    [
        "prost",
        "Prost",
        "PROST",
        "pr0st",
        "PR0ST",
        "próst",
        "proooost",
        "pprroosstt",
        "p.r.o.s.t",
        "p-r-o-s-t",
        "p_r_o_s_t",
    ],
)
def test_every_spelling_of_a_word_folds_to_one(typed):
    assert fold(typed) == "prost"


def test_romanian_diacritics_fold_in_both_their_comma_and_cedilla_forms():
    comma, cedilla = "\u0219\u021b", "\u015f\u0163"  # ș ț (comma below) and ş ţ (cedilla)
    assert fold(f"{comma}") == fold(f"{cedilla}") == "st"
    assert fold("ȘMECHER") == fold("ŞMECHER") == fold("$mecher") == "smecher"
    assert fold("proastă") == fold("proasta") == "proasta"
    assert fold("înșelătorie") == "inselatorie"


def test_look_alike_digits_and_signs_read_as_letters():
    assert fold("5m3ch3r") == "smecher"
    assert fold("1d10t") == "idiot"
    assert fold("@n4") == "ana"
    assert fold("h0ț!") == "hoti"
    assert fold("7ig4n") == "tigan"
    assert fold("8ou") == "bou"


def test_a_list_entry_keeps_a_trailing_star_and_nothing_folds_to_a_bare_star():
    assert list_entry("  PR0ŞT  ") == "prost"
    assert list_entry("Prost*") == "prost*"
    assert list_entry("*") == ""
    assert list_entry("...") == ""


def test_listed_words_are_masked_letter_for_letter_and_the_rest_is_left_as_typed():
    masker = Masker(["prost"])
    assert masker.mask("Ești prost, frate.") == "Ești *****, frate."
    assert masker.mask("Ești PR0ŞT") == "Ești *****"
    assert masker.mask("ești p.r.o.s.t azi") == "ești ********* azi"
    assert masker.mask("proooost") == "********"
    # words that contain the listed word, or that it begins, are other words
    assert masker.mask("prostovan, proști, apropo") == "prostovan, proști, apropo"
    # nothing listed in the text: it comes back exactly, spaces and diacritics included
    assert masker.mask("Bună  seara, țară!") == "Bună  seara, țară!"


def test_an_exclamation_mark_after_a_listed_word_is_kept_and_the_word_masked():
    masker = Masker(["prost"])
    assert masker.mask("Ești prost!") == "Ești *****!"
    assert masker.mask("prost!!!") == "*****!!!"
    assert masker.mask("pr!st") == "pr!st"  # an "i" inside is a letter: "prist" is not listed


def test_an_entry_ending_in_a_star_masks_every_word_it_begins():
    masker = Masker(["prost*"])
    assert masker.mask("prostule, prostovanule, PR0STII") == "********, ************, *******"
    assert masker.mask("ești prost") == "ești *****"
    assert masker.mask("apropo, proștii") == "apropo, *******"
    # the stem must begin the word
    assert masker.mask("neprost") == "neprost"


def test_several_entries_mask_together():
    masker = Masker(["prost", "bou", "idiot*"])
    assert masker.mask("bou prost idiotule, ce faci?") == "*** ***** ********, ce faci?"


def test_html_like_text_is_untouched_apart_from_the_masking():
    masker = Masker(["prost"])
    assert masker.mask("<b>prost</b> & <script>alert(1)</script>") == (
        "<b>*****</b> & <script>alert(1)</script>"
    )
    assert masker.mask('<a href="x">salut</a>') == '<a href="x">salut</a>'


def test_an_empty_list_masks_nothing():
    assert Masker([]).mask("prost") == "prost"
    assert Masker(["", "*"]).mask("prost * ceva") == "prost * ceva"
