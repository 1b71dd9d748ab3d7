"""Which scored blocks are kept: the threshold, and the best guess when none reaches it."""

from __future__ import annotations

import numpy as np

from newscrawl.extraction import ExtractionConfig, extract
from newscrawl.extraction.block_features import FEATURE_NAMES
from newscrawl.extraction.block_scorer import MODEL_FORMAT, MODEL_FORMAT_VERSION, BlockModel
from newscrawl.extraction.builder import pick_likely_blocks

ALL_PROSE = np.ones(5, dtype=bool)


def _model_trusting(first: str, second: str) -> BlockModel:
    """A two-split model: blocks with either feature set score 0.95, the others 0.18."""
    a, b = FEATURE_NAMES.index(first), FEATURE_NAMES.index(second)
    tree = {
        "feature": [a, b, -1, -1, -1],
        "threshold": [0.5, 0.5, 0.0, 0.0, 0.0],
        "left": [1, 3, 2, 3, 4],
        "right": [2, 4, 2, 3, 4],
        "value": [0.0, 0.0, 3.0, -1.5, 3.0],
    }
    return BlockModel.from_dict(
        {
            "format": MODEL_FORMAT,
            "format_version": MODEL_FORMAT_VERSION,
            "feature_names": list(FEATURE_NAMES),
            "base_score": 0.0,
            "learning_rate": 1.0,
            "trees": [tree],
        }
    )


def test_blocks_at_the_threshold_are_kept_and_no_others() -> None:
    probabilities = np.array([0.9, 0.6, 0.45, 0.0, 0.3])
    kept = pick_likely_blocks(probabilities, 0.5, 0.7, ALL_PROSE)
    assert kept.tolist() == [True, True, False, False, False]


def test_a_page_with_no_likely_block_keeps_its_likeliest_ones() -> None:
    # A short post: the paragraph scores 0.3, a second one 0.25, the sidebar less.
    probabilities = np.array([0.0, 0.25, 0.3, 0.1, 0.05])
    kept = pick_likely_blocks(probabilities, 0.5, 0.7, ALL_PROSE)
    assert kept.tolist() == [False, True, True, False, False]


def test_a_kept_headline_alone_does_not_count_as_the_article() -> None:
    # Only the headline (block 0) passes: the body's likeliest blocks join it.
    probabilities = np.array([0.95, 0.4, 0.35, 0.1, 0.0])
    prose = np.array([False, True, True, True, True])
    kept = pick_likely_blocks(probabilities, 0.5, 0.7, prose)
    assert kept.tolist() == [True, True, True, False, False]
    # A paragraph at the threshold is an article: nothing is added then.
    probabilities[1] = 0.6
    kept = pick_likely_blocks(probabilities, 0.5, 0.7, prose)
    assert kept.tolist() == [True, True, False, False, False]


def test_only_prose_is_a_best_guess() -> None:
    probabilities = np.array([0.0, 0.25, 0.3, 0.1, 0.05])
    prose = np.array([True, True, False, True, True])  # block 2: a link list or a heading
    kept = pick_likely_blocks(probabilities, 0.5, 0.7, prose)
    assert kept.tolist() == [False, True, False, False, False]


def test_the_best_guess_can_be_switched_off() -> None:
    probabilities = np.array([0.25, 0.3])
    assert not pick_likely_blocks(probabilities, 0.5, 0.0, np.ones(2, dtype=bool)).any()


def test_a_page_without_scored_blocks_keeps_nothing() -> None:
    assert not pick_likely_blocks(np.zeros(3), 0.5, 0.7, np.ones(3, dtype=bool)).any()
    assert not pick_likely_blocks(np.zeros(0), 0.5, 0.7, np.ones(0, dtype=bool)).any()


def test_extract_on_a_page_of_links_gives_no_text_from_the_fallback() -> None:
    # Every block is a link: none is prose, so the best guess adds nothing.
    links = "".join(f"<li><a href='/p{k}'>Story number {k}</a></li>" for k in range(20))
    assert "Story number" not in extract(f"<html><body><ul>{links}</ul></body></html>").text


def test_extract_on_a_body_of_symbols_gives_no_text_from_the_fallback() -> None:
    # A binary body served as HTML: no block scores, and symbols are no best guess.
    noise = "".join(chr(c) for c in range(33, 127) if not chr(c).isalpha() and c not in (38, 60))
    page = f"<html><body><p>{noise * 3}</p><p>{noise[::-1] * 2} ab</p></body></html>"
    assert extract(page).text == ""
    words = "<p>Ferry timetable changes tonight for the harbour line riders</p>"
    assert "Ferry timetable" in extract(page.replace("</body>", words + "</body>")).text


def test_a_sure_line_or_two_is_no_article_and_the_best_guess_joins_it() -> None:
    # "Please advise." (2 words, sure) and the memo's 76-word paragraph the model doubts.
    probabilities = np.array([0.9, 0.47, 0.75, 0.1, 0.2])
    prose = np.array([False, True, True, True, True])
    words = np.array([5.0, 76.0, 2.0, 10.0, 3.0])
    kept = pick_likely_blocks(probabilities, 0.5, 0.7, prose, words=words, min_words=20)
    assert kept.tolist() == [True, True, True, False, False]
    # Enough sure prose: nothing is added.
    words[2] = 40.0
    kept = pick_likely_blocks(probabilities, 0.5, 0.7, prose, words=words, min_words=20)
    assert kept.tolist() == [True, False, True, False, False]


def test_the_best_guess_is_the_block_with_the_most_expected_words() -> None:
    # A one-word label at 0.49 does not set the bar for a 120-word paragraph at 0.16.
    probabilities = np.array([0.49, 0.16, 0.05])
    words = np.array([1.0, 120.0, 30.0])
    kept = pick_likely_blocks(
        probabilities, 0.5, 0.7, np.ones(3, dtype=bool), words=words, min_words=20
    )
    assert kept.tolist() == [True, True, False]


def test_when_furniture_held_the_sure_prose_the_body_is_chosen_again() -> None:
    story = (
        "Say that you are leaving a job, either on your own volition or because they decided "
        "it was time for you to pursue other opportunities, and the department wants a chat."
    )
    comment = "I told them everything and it was the best afternoon of my working life, honestly."
    thread = "".join(f"<li><p>{comment} Reader {k} agrees.</p></li>" for k in range(12))
    page = (
        "<html><head><title>Exit interviews are pointless</title></head><body>"
        "<h1>Exit interviews are pointless</h1>"
        f"<div class=intro>{story}</div>"
        f"<ol class=commentlist>{thread}</ol></body></html>"
    )
    # A model that trusts list items and headlines and doubts the rest, as on a comment-heavy
    # page: the thread is sure prose, the story a doubted one.
    model = _model_trusting("tag_li", "tag_h1")
    text = extract(
        page, title="Exit interviews are pointless", config=ExtractionConfig(block_model=model)
    ).text
    assert "Reader 3 agrees" not in text
    assert "Say that you are leaving" in text
    off = ExtractionConfig(block_model=model, best_block_share=0.0)
    assert "Say that you are leaving" not in extract(
        page, title="Exit interviews are pointless", config=off
    ).text
