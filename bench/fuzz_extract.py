"""Coverage-guided fuzzing of the extraction core with atheris (libFuzzer).

Run from the repository root (atheris is in the `bench` extra):
    python -m bench.fuzz_extract -atheris_runs=20000 [-max_len=65536] [CORPUS_DIR]
Any libFuzzer flag works. Each input is fed to extract() as bytes, and as text with the
same bytes decoded, and must satisfy the invariants of tests/extraction/test_properties.py:
no exception, no text that is not on the page, and sanitised, well-formed HTML.
A failing input is written to crash-<sha1> by libFuzzer; replay it with
    python -m bench.fuzz_extract crash-<sha1>
"""

from __future__ import annotations

import re
import sys

import atheris

with atheris.instrument_imports():
    import lxml.etree

    from newscrawl.extraction import extract, parse_document

from tests.hostile.html_safety import assert_structurally_safe

_TOKEN = re.compile(r"\w+")
_INVISIBLE = ("script", "style", "template", "noscript", "title")


def read_page_text(html: str | bytes) -> str:
    """Everything a page could legitimately contribute to an article's text, lower-cased."""
    tree = parse_document(html).tree
    chunks = [tree.text_content()]
    chunks += [
        value for node in tree.iter() if isinstance(node.tag, str) for value in node.attrib.values()
    ]
    lxml.etree.strip_elements(tree, *_INVISIBLE, with_tail=False)
    chunks.append(tree.text_content())
    return " ".join(chunks).lower()


def check_extraction(html: str | bytes) -> None:
    """Extract one input and assert the core's invariants on the result."""
    article = extract(html, url="https://fuzz.example/news/a")
    if article.text:
        page = read_page_text(html)
        for token in _TOKEN.findall(article.text.lower()):
            assert token in page, f"{token!r} is not on the page"
    assert_structurally_safe(article.html)


def fuzz_one_input(data: bytes) -> None:
    """The libFuzzer entry point."""
    check_extraction(data)
    check_extraction(data.decode("utf-8", errors="replace"))


def main() -> None:
    """Hand the command line to atheris and fuzz until told to stop."""
    atheris.Setup(sys.argv, fuzz_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
