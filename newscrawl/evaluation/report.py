"""Render an evaluation result as text tables and as the `--json` document."""

from __future__ import annotations

from typing import Any

from newscrawl.evaluation.runner import LOW_RECALL, MAIN_LABEL, EvaluationResult, summarise_times

_ABLATION_PREFIX = "ablation:"


def _peer_labels(result: EvaluationResult) -> list[str]:
    return [
        label
        for label in result.labels()
        if label != MAIN_LABEL and not label.startswith(_ABLATION_PREFIX)
    ]


def _ablation_labels(result: EvaluationResult) -> list[str]:
    return [label for label in result.labels() if label.startswith(_ABLATION_PREFIX)]


def _scores_document(result: EvaluationResult, label: str) -> dict[str, Any]:
    datasets: dict[str, Any] = {}
    sites = result.by_site(label)
    low_recall = result.low_recall_share(label)
    for name, score in result.by_dataset(label).items():
        datasets[name] = {
            **score.to_dict(),
            "low_recall_share": round(low_recall[name], 4),
            "sites": {site: s.to_dict() for (ds, site), s in sites.items() if ds == name},
        }
    return {
        "overall": result.overall(label).to_dict(),
        "datasets": datasets,
        "timing_ms": result.timing(label),
        "errors": result.errors(label),
    }


def build_json_report(result: EvaluationResult) -> dict[str, Any]:
    """Return {"overall", "datasets", ...} for our extractor, with peers and ablation beside."""
    document = _scores_document(result, MAIN_LABEL)
    document["page_scores"] = [
        {
            "dataset": r.page.dataset, "id": r.page.id, "site": r.page.site,
            "f1": round(r.score.f1, 4), "precision": round(r.score.precision, 4),
            "recall": round(r.score.recall, 4), "ms": round(r.milliseconds, 2),
            **({"error": r.error} if r.error else {}),
        }
        for r in result.results.get(MAIN_LABEL, [])
    ]
    document["mode"] = result.mode
    document["models"] = result.models
    document["low_recall_threshold"] = LOW_RECALL
    document["config_version"] = result.config_version
    document["template_learning_ms"] = _learning_times(result)
    document["lxml_parse_ms"] = summarise_times(result.parse_milliseconds)
    document["peers"] = {
        label: {**_scores_document(result, label), "version": result.peer_versions.get(label, "")}
        for label in _peer_labels(result)
    }
    ablation = {"default": _scores_document(result, MAIN_LABEL)} if _ablation_labels(result) else {}
    for label in _ablation_labels(result):
        ablation[label.removeprefix(_ABLATION_PREFIX)] = _scores_document(result, label)
    document["ablation"] = ablation
    return document


def _learning_times(result: EvaluationResult) -> dict[str, float]:
    return summarise_times(result.learn_milliseconds)


def _row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(
        cell.ljust(width) if number < 2 else cell.rjust(width)
        for number, (cell, width) in enumerate(zip(cells, widths, strict=True))
    ).rstrip()


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [_row(header, widths), _row(["-" * w for w in widths], widths)]
    lines.extend(_row(row, widths) for row in rows)
    return "\n".join(lines)


def format_text_report(result: EvaluationResult) -> str:
    """Per-site, per-dataset and overall P/R/F1, peers' F1 beside ours, timings, ablation."""
    peers = _peer_labels(result)
    header = ["dataset", "site", "pages", "P", "R", "F1", *(f"F1 {peer}" for peer in peers)]
    rows: list[list[str]] = []
    peer_sites = {peer: result.by_site(peer) for peer in peers}
    peer_datasets = {peer: result.by_dataset(peer) for peer in peers}
    sites = result.by_site(MAIN_LABEL)
    for dataset, dataset_score in result.by_dataset(MAIN_LABEL).items():
        for (ds, site), score in sites.items():
            if ds != dataset:
                continue
            rows.append(
                [ds, site, str(score.pages), f"{score.precision:.3f}", f"{score.recall:.3f}",
                 f"{score.f1:.3f}", *(f"{peer_sites[p][(ds, site)].f1:.3f}" for p in peers)]
            )
        rows.append(
            [dataset, "(all)", str(dataset_score.pages), f"{dataset_score.precision:.3f}",
             f"{dataset_score.recall:.3f}", f"{dataset_score.f1:.3f}",
             *(f"{peer_datasets[p][dataset].f1:.3f}" for p in peers)]
        )
    overall = result.overall(MAIN_LABEL)
    rows.append(
        ["overall", "", str(overall.pages), f"{overall.precision:.3f}", f"{overall.recall:.3f}",
         f"{overall.f1:.3f}", *(f"{result.overall(p).f1:.3f}" for p in peers)]
    )
    versions = ", ".join(f"{peer} {result.peer_versions.get(peer, '')}".strip() for peer in peers)
    parts = [
        f"mode: {result.mode}   config: {result.config_version}   models: {result.models}"
        + (f"   peers: {versions}" if peers else ""),
        _table(header, rows),
        "",
        _format_low_recall(result, [MAIN_LABEL, *peers]),
        "",
        _format_timing(result, [MAIN_LABEL, *peers]),
    ]
    if _ablation_labels(result):
        parts += ["", _format_ablation(result)]
    return "\n".join(parts) + "\n"


def _format_low_recall(result: EvaluationResult, labels: list[str]) -> str:
    datasets = list(result.by_dataset(MAIN_LABEL))
    shares = {label: result.low_recall_share(label) for label in labels}
    rows = [
        [dataset, "", *(f"{shares[label][dataset]:.3f}" for label in labels)]
        for dataset in datasets
    ]
    return _table([f"pages with R < {LOW_RECALL}", "", *labels], rows)


def _format_timing(result: EvaluationResult, labels: list[str]) -> str:
    rows = []
    for label in labels:
        timing = result.timing(label)
        rows.append([label, "", f"{timing['median']:.2f}", f"{timing['p95']:.2f}",
                     str(result.errors(label))])
    parsing = summarise_times(result.parse_milliseconds)
    if parsing["count"]:
        rows.append(["lxml parse alone", "", f"{parsing['median']:.2f}",
                     f"{parsing['p95']:.2f}", "-"])
    learning = _learning_times(result)
    if learning["count"]:
        rows.append(["template learning", "", f"{learning['median']:.2f}",
                     f"{learning['p95']:.2f}", "-"])
    return _table(["extractor", "", "median ms/page", "p95 ms/page", "errors"], rows)


def _format_ablation(result: EvaluationResult) -> str:
    datasets = list(result.by_dataset(MAIN_LABEL))
    rows = []
    for label in [MAIN_LABEL, *_ablation_labels(result)]:
        overall = result.overall(label)
        by_dataset = result.by_dataset(label)
        name = "default" if label == MAIN_LABEL else label.removeprefix(_ABLATION_PREFIX)
        rows.append(
            [name, "", f"{overall.precision:.3f}", f"{overall.recall:.3f}", f"{overall.f1:.3f}",
             *(f"{by_dataset[d].f1:.3f}" if d in by_dataset else "-" for d in datasets)]
        )
    header = ["ablation", "", "P", "R", "F1", *(f"F1 {d}" for d in datasets)]
    return _table(header, rows)
