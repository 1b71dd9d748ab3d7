"""Turn dev pages into labelled block rows, the way `extract` runs the stages."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from newscrawl.extraction.block_features import compute_block_features
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import Document, parse_document
from newscrawl.extraction.dynamic_noise import remove_dynamic_noise
from newscrawl.extraction.relevance import select_relevant_paragraphs, select_title_keywords
from newscrawl.extraction.static_noise import learn_static_noise, remove_static_noise
from newscrawl.training.block_labels import label_blocks, tokenize
from newscrawl.training.dev_datasets import (
    TRAINING_DATASETS,
    DevPage,
    dataset_family,
    read_dataset,
)
from newscrawl.training.sites import site_key


@dataclass
class PageSample:
    """Features, labels and block texts of one page in one mode."""

    page: DevPage
    mode: str
    features: np.ndarray
    labels: np.ndarray
    weights: np.ndarray
    block_texts: list[str]

    @property
    def key(self) -> str:
        return f"{self.page.dataset}/{self.mode}"

    @property
    def family(self) -> str:
        """The dataset family left out together (`dataset_family`)."""
        return dataset_family(self.page.dataset)

    @property
    def site(self) -> str:
        """The page's site across datasets (`sites.site_key`)."""
        page = self.page
        return site_key(page.dataset, page.page_id, page.site, page.url)


def featurise_page(
    page: DevPage, neighbours: list[Document] | None, config: ExtractionConfig
) -> PageSample:
    """Run the stages the way `extract` does and turn the page into labelled block rows."""
    document = parse_document(page.html, url=page.url)
    if neighbours:
        remove_static_noise(document, learn_static_noise(neighbours, config), config)
    remove_dynamic_noise(document, config)
    select_relevant_paragraphs(document, page.title_hint, config)
    keywords = set(select_title_keywords(page.title_hint, config)) if page.title_hint else set()
    features = compute_block_features(document, keywords, config)
    labels = np.asarray(label_blocks(document, page.gold), dtype=np.int64)
    sizes = np.asarray([len(tokenize(s.text)) for s in document.segments], dtype=np.float64)
    # Each page weighs the same; within a page a block weighs by its words, as the metric does.
    weights = sizes / sizes.sum() if sizes.sum() else sizes
    return PageSample(
        page=page,
        mode="neighbours" if neighbours else "single",
        features=features,
        labels=labels,
        weights=weights,
        block_texts=[s.text for s in document.segments],
    )


def featurise_dataset(directory: Path, config: ExtractionConfig) -> list[PageSample]:
    """Every page alone, and with the other pages of its cluster where it has any."""
    pages = list(read_dataset(directory))
    clusters: dict[str, list[tuple[DevPage, Document]]] = {}
    for page in pages:
        clusters.setdefault(page.cluster, []).append((page, parse_document(page.html)))
    samples: list[PageSample] = []
    for page in pages:
        # Leave-one-out, as neighbour mode runs: a page is never its own neighbour.
        neighbours = [doc for other, doc in clusters[page.cluster] if other is not page]
        if neighbours:
            samples.append(featurise_page(page, neighbours, config))
        samples.append(featurise_page(page, None, config))
    return samples


def build_samples(
    datasets_dir: Path, config: ExtractionConfig, names: Sequence[str] = TRAINING_DATASETS
) -> list[PageSample]:
    """Featurise the training sets: single-page mode, plus neighbour mode where clusters allow."""
    refused = sorted(set(names) - set(TRAINING_DATASETS))
    if refused:
        raise ValueError(f"licence does not allow training on: {', '.join(refused)}")
    samples: list[PageSample] = []
    for name in names:
        directory = datasets_dir / name
        if not (directory / "index.jsonl").is_file():
            print(f"skipping missing dataset {directory}", file=sys.stderr)
            continue
        dataset_samples = featurise_dataset(directory, config)
        samples.extend(dataset_samples)
        pages = sum(1 for s in dataset_samples if s.mode == "single")
        print(f"featurised {name}: {pages} pages, {len(dataset_samples)} samples", file=sys.stderr)
    return samples
