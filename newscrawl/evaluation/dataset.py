"""Read an evaluation dataset: `index.jsonl` plus `html/<id>.html` and `gold/<id>.txt`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from newscrawl.evaluation.errors import DatasetError


@dataclass(frozen=True)
class DatasetPage:
    """One page of a dataset and the paths of its HTML and gold text."""

    dataset: str
    id: str
    site: str
    cluster: str
    url: str | None
    title_hint: str | None
    html_path: Path
    gold_path: Path

    def read_html(self) -> bytes:
        """Return the page's raw bytes: the extractor decodes them as a crawler would."""
        try:
            return self.html_path.read_bytes()
        except OSError as exc:
            raise DatasetError(f"{self.dataset}/{self.id}: cannot read the page: {exc}") from exc

    def read_gold(self) -> str:
        """Return the gold article text."""
        try:
            return self.gold_path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise DatasetError(f"{self.dataset}/{self.id}: cannot read the gold: {exc}") from exc


@dataclass(frozen=True)
class Dataset:
    """A named dataset: its pages in index order."""

    name: str
    path: Path
    pages: list[DatasetPage]

    def clusters(self) -> dict[str, list[DatasetPage]]:
        """Group the pages by cluster, keeping index order inside each cluster."""
        groups: dict[str, list[DatasetPage]] = {}
        for page in self.pages:
            groups.setdefault(page.cluster, []).append(page)
        return groups

    def groups_of_pages(self, by: str = "cluster") -> dict[str, list[DatasetPage]]:
        """Each page id with its group: its cluster, or (by="site") the pages of its site.

        dragnet and l3s-gn1 give the dataset's name as the site of a page without an address:
        such a page is alone.
        """
        groups: dict[str, list[DatasetPage]] = {}
        for page in self.pages:
            if by == "cluster":
                key = page.cluster
            elif by == "site":
                key = f"page:{page.id}" if page.site in {self.name, "unknown"} else page.site
            else:
                raise ValueError(f"cannot group pages by {by!r}")
            groups.setdefault(key, []).append(page)
        return {page.id: group for group in groups.values() for page in group}


def read_dataset(path: Path | str) -> Dataset:
    """Read a dataset folder; raise DatasetError naming the file when the layout is wrong."""
    folder = Path(path)
    index = folder / "index.jsonl"
    if not index.is_file():
        raise DatasetError(f"{folder}: no index.jsonl (see the datasets README for the layout)")
    name = folder.resolve().name
    pages: list[DatasetPage] = []
    for number, line in enumerate(index.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            page_id = str(entry["id"])
            page = DatasetPage(
                dataset=name,
                id=page_id,
                site=str(entry.get("site") or "unknown"),
                cluster=str(entry.get("cluster") or page_id),
                url=entry.get("url") or None,
                title_hint=entry.get("title_hint") or None,
                html_path=folder / entry.get("html_path", f"html/{page_id}.html"),
                gold_path=folder / entry.get("gold_path", f"gold/{page_id}.txt"),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise DatasetError(f"{index}:{number}: bad index entry ({exc})") from exc
        pages.append(page)
    return Dataset(name=name, path=folder, pages=pages)
