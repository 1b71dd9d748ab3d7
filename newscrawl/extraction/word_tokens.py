"""Split block text into words, including scripts written without spaces between words."""

from __future__ import annotations

import re

# Scripts that write words without spaces (Han, kana, Thai, Lao, Khmer, Myanmar): `\w+` would
# read a whole sentence as one word. Hangul is spaced and is left to `\w+`.
_UNSPACED = (
    "\u0e00-\u0eff"  # Thai, Lao (their vowel signs are marks, not `\w`: the range keeps them)
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3005\u3006\u3007"  # iteration and closing marks, ideographic zero
    "\u3040-\u30ff"  # hiragana, katakana
    "\u31f0-\u31ff"  # katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # half-width katakana
    "\U00020000-\U0003134f"  # CJK extensions B to G
)
# A word in such a script averages about two characters, so a run counts as its character pairs;
# everything else is a `\w+` run, exactly as before.
_WORD = re.compile(rf"[{_UNSPACED}]{{1,2}}|[^\W{_UNSPACED}]+")
_PLAIN_WORD = re.compile(r"\w+")


def split_words(text: str) -> list[str]:
    """The words of a text: `\\w+` runs, with unspaced scripts cut into character pairs."""
    if text.isascii():
        # Most blocks: the plain pattern is faster and gives the same words.
        return _PLAIN_WORD.findall(text)
    return _WORD.findall(text)
