"""Read the dev dataset layout (`<dataset>/index.jsonl`, `html/`, `gold/`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DEFAULT_DATASETS_DIR = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets"
# The only sets whose licences allow training the shipped model (../shared/datasets/README.md):
# dragnet (AGPL-3.0), l3s-gn1 (research use only) and cleanportaleval (no licence) evaluate only.
TRAINING_DATASETS = ("big9-2005", "big9-2009", "big9-2013", "chaos", "fundus-dev")


def dataset_family(name: str) -> str:
    """Sets that share sites are left out together: Big9's three eras are one family."""
    return "big9" if name.startswith("big9-") else name


@dataclass(frozen=True)
class DevPage:
    """One page of a dev dataset with its gold text."""

    dataset: str
    page_id: str
    site: str
    cluster: str
    url: str | None
    title_hint: str | None
    html: bytes
    gold: str


def read_dataset(directory: Path) -> Iterator[DevPage]:
    """Yield every page listed in a dataset's `index.jsonl`."""
    with (directory / "index.jsonl").open(encoding="utf-8") as index:
        for line in index:
            if not line.strip():
                continue
            row = json.loads(line)
            yield DevPage(
                dataset=directory.name,
                page_id=row["id"],
                site=row["site"],
                cluster=row["cluster"],
                url=row.get("url"),
                title_hint=row.get("title_hint"),
                html=(directory / row["html_path"]).read_bytes(),
                gold=(directory / row["gold_path"]).read_text(encoding="utf-8"),
            )
