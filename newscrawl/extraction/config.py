"""Every threshold of the extraction engine, in one frozen configuration."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from newscrawl.extraction.block_scorer import BlockModel


@dataclass(frozen=True)
class ExtractionConfig:
    """Thresholds and stage switches; `ExtractionConfig()` is the best default."""

    name: str = "default"
    # Bumped when the same page and template give another article: stored templates of another
    # revision are re-learned (2: markup spacing in the walk, decoding, block selection; 3: prose
    # is never dynamic noise, the best guess also when the sure prose is a line or two; 4:
    # figure captions and teasers of other stories are furniture, a sure paragraph's long
    # prose neighbours are kept; 5: with a template, the page's own prose in its body's container
    # is kept; 6: a quote or list beside a kept paragraph is kept as a unit, a body doubted
    # paragraph by paragraph outweighs the short prose the scorer was sure of, and noembed and
    # noframes are skipped; 7: text in Unicode's composed form, and the element a page names
    # its body is kept when the scorer kept its prose elsewhere; 8: the block that repeats the
    # page's description is kept as the lede, a kept line that is all one link is another
    # story's headline, and the element a page names its body is never dynamic noise when its
    # text reads as prose. Another branch may also bump to 8: the merge takes the next free
    # number).
    revision: int = 8

    # Stage switches (for ablation).
    use_static_noise: bool = True
    use_dynamic_noise: bool = True
    use_title_relevance: bool = True
    # Combine every signal with the block scorer; off means the stages' decisions are applied as-is.
    use_block_scorer: bool = True

    # Static noise (StaDyNoT stage 1).
    static_support: float = 0.8  # a key is static when found on >= this fraction of neighbours
    static_min_pages: int = 2  # fewer neighbours than this give no static signal
    normalise_attributes: bool = True  # collapse digit runs and drop volatile attributes
    static_remove_subtree: bool = False  # the paper removes a matched node with its subtree

    # Dynamic noise (StaDyNoT stage 2).
    dynamic_alpha: int = 50  # non-link characters below this mark a candidate as noise
    dynamic_beta: float = 0.2  # link fraction above this marks a candidate as noise
    dynamic_bottom_up: bool = True  # judge larger candidates only on text left by smaller ones
    # A candidate holding a prose block (this many characters outside links, and at most this
    # share of its text in links) is not judged: its paragraphs are never link noise. 0: the
    # paper, which judges every candidate.
    dynamic_prose_chars: int = 150
    dynamic_prose_links: float = 0.5
    # The element the page names its body (`container_fill.named_body`), when at most
    # `dynamic_prose_links` of its text is in links, is never link noise, nor its text through
    # a wrapper: wrappers are judged on their text outside it (bottom-up judging only).
    dynamic_named_body: bool = True
    # The paper's post-processing drops <form> and <caption> with their content; some sites wrap
    # the whole article in a <form>, so by default only the form controls go.
    keep_form_children: bool = True

    # Title relevance (Han and Tokuda).
    title_similarity: float = 0.6
    paragraph_possibility: float = 100.0
    cap_key_number: bool = True  # cap KeyNumber at the number of title keywords
    longest_title_segment: bool = True  # use the longest segment of "<site> | <headline>"

    # Block scorer.
    block_threshold: float = 0.5
    # When no prose block (no heading, few links) reaches the threshold, the prose blocks at least
    # this share as likely as the likeliest one are kept too (0 adds nothing).
    best_block_share: float = 0.7
    # ... and so are they when the prose blocks at the threshold hold fewer words than this: a
    # two-word line the model is sure of is not the article.
    best_block_words: int = 20
    # The block model to score with; None means the packaged one. Evaluation passes models that
    # never saw the page's dataset or site. Not part of equality: it is not a threshold.
    block_model: BlockModel | None = field(default=None, compare=False, repr=False)
    # A block whose text all repeats across the site's pages is never article text, whatever
    # the model says.
    drop_static_blocks: bool = True
    static_block_fraction: float = 0.999  # share of a block's text that makes it static
    # A headline or paragraph repeated verbatim (print/screen copies, slide titles) is kept once.
    drop_duplicate_blocks: bool = True
    # Container-level decision (`container_fill`): the scorer's kept paragraphs show how this
    # page marks up its body; their twins and the blocks between them are kept too.
    fill_containers: bool = True
    fill_paragraph_words: int = 8  # a kept block with this many words is a body paragraph
    fill_twin_words: int = 4  # a twin of the body's shape needs this many words
    fill_min_probability: float = 0.1  # a doubted twin this likely bounds the container
    fill_min_mean: float = 0.1  # words-weighted mean probability that makes a shape article
    fill_link_fraction: float = 0.3  # blocks with more link text are never added
    fill_max_gap: int = 40  # blocks between two paragraphs that a gap may span
    # A doubted block next to a paragraph the scorer kept (at `block_threshold`), in the same
    # element or a sibling, with this many words and at least this probability, is the body's
    # continuation (see `container_fill.add_prose_neighbours`; 0 words: off).
    fill_neighbour_words: int = 30
    fill_neighbour_probability: float = 0.3
    # When the scorer kept more prose outside the element the page names its body
    # (`entry-content`, `post-body`, `itemprop="articleBody"`) than in it, and that element
    # holds this many words of clean text, its clean blocks are kept too (see
    # `container_fill.add_named_body`; 0: off).
    named_body_words: int = 8
    # With a site template applied, a block inside the element holding the body's sure
    # paragraphs, whose text occurs on no neighbour, with this many words and at least this
    # probability, is the page's own prose (see `template_fill`; 0 words: off). Single-page
    # extraction never uses it.
    template_fill_words: int = 15
    template_fill_probability: float = 0.05
    # When the page's scripts hold the article body (JSON-LD `articleBody`, app page state) and
    # the kept blocks show far less of it, complete them from it (see `article_body`).
    use_structured_body: bool = True
    # When no kept block holds the page's description (og:description, description meta) of at
    # least this many words, the first block before the body's end that repeats it (this share
    # of the words of each in the other) is the lede and is kept (see `stated_lede`; 0: off).
    lede_min_words: int = 8
    lede_word_share: float = 0.8
    # Drop kept blocks in recognised page furniture: dialogs, consent and subscription prompts,
    # readers' comment threads, related links and teasers, tag lists, profile boxes, figure
    # captions, copyright lines (see `prompt_noise`).
    drop_prompt_noise: bool = True
    # Put the article region's figures back among the kept blocks as `<figure><img>
    # <figcaption>` with absolute http(s) sources (see `figures`): only the HTML changes.
    keep_figures: bool = True

    # Metadata. When no structured source, date line or URL gives the publish date, ask
    # htmldate's page-wide heuristics: more dates on old pages, but slower than the rest of the
    # extraction together and less precise (see `metadata`). Crawls fill the date from the
    # feed or sitemap entry instead.
    htmldate_fallback: bool = False

    @property
    def version(self) -> str:
        """Short stable id of this configuration, stored with each article."""
        return f"{self.name}-{self.revision}"

    @classmethod
    def paper(cls) -> ExtractionConfig:
        """The two seed papers as written: support = N, alpha=50, beta=0.2, 0.6 and 100."""
        return cls(
            name="paper",
            revision=2,
            use_block_scorer=False,
            static_support=1.0,
            static_min_pages=1,
            normalise_attributes=False,
            static_remove_subtree=True,
            dynamic_alpha=50,
            dynamic_beta=0.2,
            dynamic_bottom_up=False,
            dynamic_prose_chars=0,
            dynamic_named_body=False,
            keep_form_children=False,
            title_similarity=0.6,
            paragraph_possibility=100.0,
            cap_key_number=False,
            longest_title_segment=False,
            use_structured_body=False,
            template_fill_words=0,
            named_body_words=0,
            lede_min_words=0,
            drop_prompt_noise=False,
            keep_figures=False,
        )
