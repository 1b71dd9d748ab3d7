"""Block models that never saw the evaluated page's dataset or site, for out-of-sample figures.

For a dataset under evaluation, its family is left out of the training sets (Big9's three
eras are one family: they share sites), and its sites are split into folds: the model for a
fold is trained on the remaining training pages minus every page of that fold's sites, in
any set (bbc is in big9, chaos, fundus-dev, dragnet and cleanportaleval). Evaluation-only
sets are never trained on, so only their sites are left out.

The training pages are featurised once per run; a fold only selects rows and fits. Folds
that leave out the same training pages share one fitted model. A fit takes about 25 s of CPU
on the dev machine, so the default is one fold: per dataset, one model without any of its
sites (stricter than the page's own site alone, and a sixth of the time of five folds).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from newscrawl.evaluation.dataset import Dataset
from newscrawl.evaluation.runner import DEFAULT_FOLDS
from newscrawl.extraction.block_scorer import BlockModel
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.training.dev_datasets import TRAINING_DATASETS, dataset_family
from newscrawl.training.samples import PageSample, build_samples
from newscrawl.training.sites import site_key
from newscrawl.training.tree_fitting import train_block_model

logger = logging.getLogger(__name__)


def assign_site_folds(sites: Sequence[str], folds: int) -> dict[str, int]:
    """Deterministic fold of each site: a seeded shuffle dealt round-robin."""
    ordered = sorted(set(sites))
    order = np.random.default_rng(0).permutation(len(ordered))
    return {ordered[i]: k % folds for k, i in enumerate(order)}


class OutOfSampleModels:
    """Per evaluated page, a block model trained without its dataset family and its site."""

    def __init__(self, samples: Sequence[PageSample], folds: int = DEFAULT_FOLDS) -> None:
        if folds < 1:
            raise ValueError("folds must be at least 1")
        self.samples = list(samples)
        self.folds = folds
        self._families = [s.family for s in self.samples]
        self._sites = [s.site for s in self.samples]
        self._fitted: dict[tuple[int, ...], BlockModel] = {}
        self.fit_seconds = 0.0
        self.featurise_seconds = 0.0

    @classmethod
    def from_training_sets(
        cls, datasets_dir: Path, config: ExtractionConfig, folds: int = DEFAULT_FOLDS
    ) -> OutOfSampleModels:
        """Featurise the licence-allowed training sets found under `datasets_dir`."""
        started = time.perf_counter()
        samples = build_samples(datasets_dir, config, TRAINING_DATASETS)
        models = cls(samples, folds)
        models.featurise_seconds = time.perf_counter() - started
        return models

    @property
    def fitted_models(self) -> int:
        """How many distinct models were fitted so far."""
        return len(self._fitted)

    def training_indices(self, family: str, left_out_sites: set[str]) -> tuple[int, ...]:
        """The training samples outside the family and outside the given sites."""
        return tuple(
            i
            for i, (sample_family, site) in enumerate(zip(self._families, self._sites, strict=True))
            if sample_family != family and site not in left_out_sites
        )

    def training_indices_for(self, dataset: Dataset) -> dict[str, tuple[int, ...]]:
        """Each page id of the dataset with the training samples of its site's fold."""
        family = dataset_family(dataset.name)
        page_sites = {
            page.id: site_key(dataset.name, page.id, page.site, page.url) for page in dataset.pages
        }
        fold_of = assign_site_folds(list(page_sites.values()), self.folds)
        by_fold: dict[int, tuple[int, ...]] = {}
        for fold in sorted(set(fold_of.values())):
            left_out = {site for site, f in fold_of.items() if f == fold}
            by_fold[fold] = self.training_indices(family, left_out)
        return {page_id: by_fold[fold_of[site]] for page_id, site in page_sites.items()}

    def models_for(self, dataset: Dataset) -> dict[str, BlockModel]:
        """Each page id of the dataset with the model of its site's fold."""
        return {
            page_id: self._model(indices)
            for page_id, indices in self.training_indices_for(dataset).items()
        }

    def _model(self, indices: tuple[int, ...]) -> BlockModel:
        if not indices:
            raise ValueError("no training pages left for an out-of-sample model")
        if indices not in self._fitted:
            started = time.perf_counter()
            self._fitted[indices] = train_block_model([self.samples[i] for i in indices])
            self.fit_seconds += time.perf_counter() - started
            logger.info("fitted an out-of-sample model on %d samples", len(indices))
        return self._fitted[indices]
