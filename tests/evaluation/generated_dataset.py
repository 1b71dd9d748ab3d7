"""A tiny dataset in the shared layout, generated in tmp_path: two sites of neighbour pages."""

from __future__ import annotations

import json
from pathlib import Path

STORIES = {
    "harbour": (
        "Harbour reopens after storm",
        ["The harbour reopened on Monday after the storm damaged three piers.",
         "Fishermen said the repairs were finished faster than anyone expected this year."],
    ),
    "library": (
        "Library opens a new reading room",
        ["The city library opened a reading room with two hundred new seats for students.",
         "Volunteers moved eleven thousand books over the weekend to make the space ready."],
    ),
    "market": (
        "Farmers market moves to the square",
        ["The weekly farmers market moved to the central square on Saturday morning.",
         "Traders reported more visitors than at the old car park on the edge of town."],
    ),
}


def render_page(site: str, title: str, paragraphs: list[str]) -> str:
    """A news page with a fixed site frame (navigation, footer) around one story."""
    menu = "".join(f'<li><a href="/{s}">{s.title()} section</a></li>' for s in STORIES)
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<html><head><title>{title} | {site}</title></head><body>"
        f'<div class="nav"><ul>{menu}</ul></div>'
        f'<div class="banner">Welcome to {site}, the voice of the valley since 1901</div>'
        f'<div class="story"><h1>{title}</h1>{body}</div>'
        f'<div class="footer">Copyright {site}. All rights reserved. Contact the newsroom.</div>'
        "</body></html>"
    )


def write_dataset(root: Path, name: str = "tiny") -> Path:
    """Write index.jsonl, html/ and gold/ for two sites x three pages; return the folder."""
    folder = root / name
    (folder / "html").mkdir(parents=True)
    (folder / "gold").mkdir()
    lines = []
    for site in ("valley-times", "river-post"):
        for slug, (title, paragraphs) in STORIES.items():
            page_id = f"{site}-{slug}"
            (folder / "html" / f"{page_id}.html").write_text(
                render_page(site, title, paragraphs), encoding="utf-8"
            )
            (folder / "gold" / f"{page_id}.txt").write_text(
                "\n".join([title, *paragraphs]) + "\n", encoding="utf-8"
            )
            lines.append(
                json.dumps(
                    {
                        "id": page_id, "site": site, "cluster": site,
                        "url": f"https://{site}.example/{slug}", "title_hint": title,
                        "html_path": f"html/{page_id}.html", "gold_path": f"gold/{page_id}.txt",
                    }
                )
            )
    (folder / "index.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder
