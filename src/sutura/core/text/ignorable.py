"""Default_Ignorable_Code_Point, as ranges: the half of the escape set ``unicodedata`` lacks.

Generated; do not edit by hand. Source: the ``regex`` package 2026.11.19
(Unicode 18.0.0), property ``\\p{Default_Ignorable_Code_Point}`` tested on every code point
from U+0000 to U+10FFFF. ``tests/core/text/test_escape.py`` regenerates the table the same way and
fails, printing the new table, when it differs.

>>> (0x200B, 0x200F) in IGNORABLE_RANGES
True
"""

IGNORABLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
