"""The closed escape set and the one escaper: membership, rendering, and its exact inverse."""

import string

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from sutura.core.text import escape
from sutura.core.text.escape import (
    EMPTY_TOKEN,
    NULL_TOKEN,
    escape_cell,
    escape_text,
    has_lone_surrogate,
    is_escaped,
    is_plain,
    is_plain_but_backslashes,
    unescape_cell,
    unescape_text,
)
from sutura.core.text.ignorable import IGNORABLE_RANGES

SURROGATES = range(0xD800, 0xE000)


def _ignorable_ranges_from_regex() -> tuple[tuple[int, int], ...]:
    prop = regex.compile(r"\p{Default_Ignorable_Code_Point}")
    ranges: list[tuple[int, int]] = []
    for point in range(0x110000):
        if prop.match(chr(point)) is None:
            continue
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1] = (ranges[-1][0], point)
        else:
            ranges.append((point, point))
    return tuple(ranges)


def test_the_ignorable_table_matches_the_regex_property_on_every_code_point() -> None:
    expected = _ignorable_ranges_from_regex()
    table = ",\n".join(f"    (0x{a:04X}, 0x{b:04X})" for a, b in expected)
    assert expected == IGNORABLE_RANGES, f"regenerate unicode_ignorable.py:\n{table}"


def test_every_code_point_renders_visibly_and_decodes_back() -> None:
    points = [p for p in range(0x110000) if p not in SURROGATES]
    for start in range(0, len(points), 4096):
        chunk = "".join(map(chr, points[start : start + 4096]))
        rendered = escape_text(chunk)
        assert is_plain(rendered.replace("\\", ""))
        assert unescape_text(rendered).unwrap() == chunk


def test_an_escaped_character_renders_as_an_ascii_escape_sequence() -> None:
    for ch in ("\t", "\x00", "\u200b", "\U000e0041", "\u034f", "\U0010ffff"):
        assert is_escaped(ch)
        rendered = escape_text(ch)
        assert rendered.startswith("\\") and rendered.isascii() and len(rendered) in (2, 6, 10)


def test_the_escape_set_is_the_non_printable_the_ignorable_and_the_backslash() -> None:
    ignorable = {p for a, b in IGNORABLE_RANGES for p in range(a, b + 1)}
    for point in range(0x110000):
        ch = chr(point)
        assert is_escaped(ch) == (not ch.isprintable() or point in ignorable or ch == "\\")


def test_every_character_python_breaks_lines_or_splits_words_on_is_escaped_except_space() -> None:
    breakers = {ch for p in range(0x110000) if len(f"a{(ch := chr(p))}b".splitlines()) > 1}
    splitters = {ch for p in range(0x110000) if len(f"a{(ch := chr(p))}b".split()) > 1}
    assert breakers >= set("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
    assert all(is_escaped(ch) for ch in breakers | (splitters - {" "}))


def test_null_empty_and_their_literal_spellings_render_four_distinct_ways() -> None:
    renderings = [escape_cell(v) for v in (None, "", "\\N", "\\e")]
    assert renderings == [NULL_TOKEN, EMPTY_TOKEN, "\\\\N", "\\\\e"]
    assert [unescape_cell(r).unwrap() for r in renderings] == [None, "", "\\N", "\\e"]


def test_only_a_leading_quote_is_escaped_in_a_cell_and_never_in_text() -> None:
    assert escape_cell('"a"') == '\\u0022a"'
    assert escape_cell('a"') == 'a"'
    assert escape_text('"a"') == '"a"'
    assert unescape_cell('\\u0022a"').unwrap() == '"a"'


def test_a_lone_surrogate_is_detected_and_escaped_visibly_never_replaced() -> None:
    assert has_lone_surrogate("a\udfffb") and not has_lone_surrogate("a\U0001f600")
    assert escape_text("a\ud800") == "a\\ud800"
    assert "\ufffd" not in escape_cell("\udc80")
    assert unescape_text("a\\ud800").failure().offset == 1


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a\\", "a backslash ends the text"),
        ("a\\q", "unknown escape sequence"),
        ("\\u12", "\\u takes four and \\U eight lowercase hex digits"),
        ("\\u00AD", "\\u takes four and \\U eight lowercase hex digits"),
        ("\\u0041", "escape of a character outside the escape set, or not in canonical form"),
        ("\\u0009", "escape of a character outside the escape set, or not in canonical form"),
        ("\\ud800", "escape of a character outside the escape set, or not in canonical form"),
        ("\\U0000200b", "escape of a character outside the escape set, or not in canonical form"),
        ("\\U00110000", "escape of a character outside the escape set, or not in canonical form"),
        ("a\\Nb", "\\N and \\e stand only for a whole cell"),
        ("a\tb", "a character of the escape set appears unescaped"),
        ("a\u200bb", "a character of the escape set appears unescaped"),
    ],
)
def test_unescape_accepts_only_what_the_escaper_writes(text: str, problem: str) -> None:
    assert unescape_text(text).failure().problem == problem


@pytest.mark.parametrize(("token", "offset"), [("", 0), ('"a', 0), ("\\u0022\\q", 6), ("ab\\", 2)])
def test_unescape_cell_names_where_a_non_canonical_cell_goes_wrong(token: str, offset: int) -> None:
    assert unescape_cell(token).failure().offset == offset


@given(st.text())
def test_the_plain_guard_agrees_with_the_character_definition(text: str) -> None:
    assert is_plain(text) == (not any(map(is_escaped, text)))


def test_the_guard_besides_backslashes_agrees_with_the_character_definition_everywhere() -> None:
    for point in range(0x110000):
        ch = chr(point)
        for text in (ch, f"a{ch}", f"\\{ch}é"):
            expected = not any(is_escaped(c) and c != "\\" for c in text)
            assert is_plain_but_backslashes(text) == expected, hex(point)


@given(
    st.text(
        st.characters(exclude_categories=["Cs"]) | st.sampled_from(string.printable + "\\\u200b")
    )
)
def test_escaping_then_unescaping_gives_back_the_text(text: str) -> None:
    assert unescape_text(escape_text(text)).unwrap() == text
    assert unescape_cell(escape_cell(text)).unwrap() == text


def test_text_full_of_distinct_characters_keeps_the_escaper_memory_bounded() -> None:
    text = "".join(map(chr, range(0x20000, 0x20000 + 3 * 65536)))
    assert unescape_text(escape_text(text + "\u200b")).unwrap() == text + "\u200b"
    assert len(escape._RENDERING) <= escape._MEMO_LIMIT + 1
