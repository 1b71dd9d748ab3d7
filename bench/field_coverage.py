"""How often newscrawl finds each article field: the share of a dataset's pages that have it.

Run from the repository root:  python -m bench.field_coverage ../shared/datasets/fundus-dev
Each page is extracted alone (single mode, no feed title). A field counts as found when it is
not empty; `figure` counts pages whose cleaned HTML holds a `<figure>` with an image, and
`figcaption` those whose figure has a caption. Presence only: the values are not scored.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from newscrawl.evaluation.dataset import read_dataset
from newscrawl.extraction import Article
from newscrawl.extraction.engine import extract

FIELDS: dict[str, Callable[[Article], Any]] = {
    "published": lambda a: a.published,
    "published with offset": lambda a: a.published and a.published.tzinfo,
    "modified": lambda a: a.modified,
    "description": lambda a: a.description,
    "site_name": lambda a: a.site_name,
    "tags": lambda a: a.tags,
    "image_url": lambda a: a.image_url,
    "figure": lambda a: "<figure><img" in a.html,
    "figcaption": lambda a: "<figcaption>" in a.html,
}


def measure_coverage(path: str) -> tuple[int, dict[str, int]]:
    """(pages, pages where each field was found) for one dataset."""
    dataset = read_dataset(path)
    found = dict.fromkeys(FIELDS, 0)
    for page in dataset.pages:
        article = extract(page.html_path.read_bytes(), url=page.url)
        for name, read in FIELDS.items():
            found[name] += bool(read(article))
    return len(dataset.pages), found


def main(argv: list[str] | None = None) -> int:
    """Print each field's coverage on each dataset given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+")
    args = parser.parse_args(argv)
    for path in args.datasets:
        pages, found = measure_coverage(path)
        print(f"{path}: {pages} pages")
        for name, count in found.items():
            print(f"  {name:<22} {count:>5} {100 * count / max(pages, 1):6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
