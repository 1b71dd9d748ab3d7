"""Extraction quality benchmark: datasets, the bag-of-words metric, the runner and its report."""

from newscrawl.evaluation.dataset import Dataset, DatasetPage, read_dataset
from newscrawl.evaluation.metric import Score, average_scores, score_bag_of_words, tokenize
from newscrawl.evaluation.runner import EvaluationResult, EvaluationRunner

__all__ = [
    "Dataset",
    "DatasetPage",
    "EvaluationResult",
    "EvaluationRunner",
    "Score",
    "average_scores",
    "read_dataset",
    "score_bag_of_words",
    "tokenize",
]
