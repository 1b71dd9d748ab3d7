"""Single-page against neighbour-mode F1 on the demo network's article pages.

    python -m bench.demo_neighbour_gain [--peers trafilatura]

Each article page of `build_network()` is extracted alone, then with a template learned from up
to NEWSCRAWL_NEIGHBOURS other pages of its site and category, when there are at least
NEWSCRAWL_MIN_NEIGHBOURS (the crawl's groups; never the page itself),
and scored against its generated gold text (bag-of-words F1, macro over pages).
"""

from __future__ import annotations

import argparse

from newscrawl.demo.content import build_network
from newscrawl.demo.layouts import render_article_page
from newscrawl.evaluation.metric import score_bag_of_words
from newscrawl.evaluation.peers import load_peers
from newscrawl.extraction import extract, learn_static_noise
from newscrawl.settings import NEWSCRAWL_MIN_NEIGHBOURS, NEWSCRAWL_NEIGHBOURS

BASE_URL = "http://127.0.0.1:8000"


def measure(peer_names: list[str]) -> dict[str, list[float]]:
    """Per extractor (newscrawl's two modes, then the peers), each page's F1."""
    peers = load_peers(peer_names)
    scores: dict[str, list[float]] = {"single": [], "neighbours": []}
    scores.update({peer.name: [] for peer in peers})
    for site in build_network():
        pages = {a.path: render_article_page(site, a, BASE_URL) for a in site.articles}
        for category in site.categories:
            group = [a for a in site.articles if a.category == category]
            for article in group:
                html = pages[article.path]
                others = [pages[o.path] for o in group if o.path != article.path]
                others = others[:NEWSCRAWL_NEIGHBOURS]
                # As in a crawl: no template from fewer pages than the crawl learns one from.
                enough = len(others) >= NEWSCRAWL_MIN_NEIGHBOURS
                template = learn_static_noise(others) if enough else None
                url = BASE_URL + article.path
                gold = article.gold_text
                for mode, used in (("single", None), ("neighbours", template)):
                    text = extract(html, url=url, title=article.title, template=used).text
                    scores[mode].append(score_bag_of_words(text, gold).f1)
                for peer in peers:
                    text = peer.extract_text(html.encode("utf-8"), url, article.title)
                    scores[peer.name].append(score_bag_of_words(text, gold).f1)
    return scores


def main() -> None:
    """Print each extractor's page count and mean F1."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", default="", help="comma-separated peers, e.g. trafilatura")
    args = parser.parse_args()
    names = [name for name in args.peers.split(",") if name.strip()]
    for label, values in measure(names).items():
        mean = sum(values) / len(values) if values else 0.0
        print(f"{label:<12} {len(values):>4} pages  F1 {mean:.4f}")


if __name__ == "__main__":
    main()
