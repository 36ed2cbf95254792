"""Benchmark reports: results.json with stable keys, and a Markdown summary."""

from __future__ import annotations

import json
import platform
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from rich.table import Table


def versions(*packages: str) -> dict[str, str]:
    out = {"python": platform.python_version()}
    for p in ("voxmem", *packages):
        try:
            out[p] = version(p)
        except PackageNotFoundError:
            out[p] = "not installed"
    return out


@dataclass
class Report:
    """Rows of figures for one benchmark run."""

    benchmark: str
    edition: str
    columns: list[str]
    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    #: retrieval benchmarks: ``results[retriever][split][metric]``
    results: dict[str, Any] = field(default_factory=dict)
    #: the papers' figures, on their real data: ``published[split][method][metric]``
    published: dict[str, Any] = field(default_factory=dict)
    #: PNG files written next to the report
    plots: list[str] = field(default_factory=list)
    created: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%S%z"))

    def as_dict(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "edition": self.edition,
            "created": self.created,
            "columns": self.columns,
            "rows": self.rows,
            "timings": self.timings,
            "notes": self.notes,
            "meta": self.meta,
            "results": self.results,
            "published": self.published,
            "plots": self.plots,
        }

    def table(self) -> Table:
        table = Table(title=f"{self.benchmark} ({self.edition})")
        for c in self.columns:
            table.add_column(c)
        for row in self.rows:
            table.add_row(*(_fmt(row.get(c)) for c in self.columns))
        return table

    def markdown(self) -> str:
        lines = [
            f"# {self.benchmark} ({self.edition})",
            "",
            "| " + " | ".join(self.columns) + " |",
            "|" + "---|" * len(self.columns),
        ]
        lines += ["| " + " | ".join(_fmt(r.get(c)) for c in self.columns) + " |" for r in self.rows]
        if self.notes:
            lines += ["", *[f"- {n}" for n in self.notes]]
        if self.timings:
            lines += [
                "",
                "Timings (s): " + ", ".join(f"{k} {v:.1f}" for k, v in self.timings.items()),
            ]
        lines += ["", *[f"![{p}]({p})" for p in self.plots]]
        return "\n".join(lines) + "\n"

    def write(self, folder: Path) -> list[Path]:
        folder.mkdir(parents=True, exist_ok=True)
        results, summary = folder / "results.json", folder / "summary.md"
        results.write_text(json.dumps(self.as_dict(), indent=2, default=str) + "\n")
        summary.write_text(self.markdown())
        return [results, summary]


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "" if value is None else str(value)
