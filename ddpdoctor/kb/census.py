"""The message census and how much of it the knowledge base covers.

`knowledge/census/<ecosystem>.yaml` lists the failure messages users paste in public threads, as
templates with a verbatim example and a thread count (the format is in that folder's README).
:func:`load_census` validates the files; :func:`measure_coverage` matches every example against
the knowledge base and returns a :class:`CoverageReport`: the covered share of the census
weighted by thread count, per ecosystem and overall, and the most frequent uncovered templates.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ddpdoctor.errors import KnowledgeError
from ddpdoctor.findings import Evidence, Finding, Report, Severity
from ddpdoctor.kb import KnowledgeBase
from ddpdoctor.kb.loader import BUNDLED_LABEL, CENSUS_FOLDER, bundled_root, read_yaml
from ddpdoctor.kb.schema import CODE_REF_RE, URL_RE
from ddpdoctor.records import field

COVERAGE_SCHEMA = "ddpdoctor.kb-coverage/1"
# How many uncovered templates the report lists.
UNCOVERED_SHOWN = 15


@dataclass(frozen=True)
class CensusTemplate:
    """One normalised message, a verbatim example of it and how many threads show it."""

    ecosystem: str
    template: str
    example: str
    threads: int
    urls: tuple[str, ...]


@dataclass(frozen=True)
class RaiseSite:
    """Where a message is raised in source (no thread count)."""

    ecosystem: str
    code: str
    template: str
    example: str | None


@dataclass(frozen=True)
class Census:
    """Every census file: templates and raise sites, with the ecosystems in file order."""

    ecosystems: tuple[str, ...]
    templates: tuple[CensusTemplate, ...]
    raise_sites: tuple[RaiseSite, ...]


def _fail(path: str, key: str | None, problem: str, fix: str) -> KnowledgeError:
    return KnowledgeError(path, key, problem, fix=fix)


def _string(path: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(path, key, "must be a non-empty string", f"write `{key.rsplit('.', 1)[-1]}:` as text")
    return value.strip()


def _items(path: str, key: str, value: Any, allowed: set[str], required: set[str]) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise _fail(path, key, "must be a list", f"write `{key}:` as a list of mappings")
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise _fail(
                path, f"{key}[{i}]", "must be a mapping", f"use the keys {', '.join(sorted(allowed))}"
            )
        unknown = set(item) - allowed
        missing = required - set(item)
        if unknown or missing:
            problem = (
                f"unknown key {sorted(unknown)[0]!r}" if unknown else f"is missing {sorted(missing)[0]!r}"
            )
            raise _fail(path, f"{key}[{i}]", problem, f"use the keys {', '.join(sorted(allowed))}")
    return value


def parse_census_file(doc: Any, path: str, stem: str) -> tuple[list[CensusTemplate], list[RaiseSite]]:
    """Validate one census file; raise KnowledgeError naming the file, the key and the fix."""
    if not isinstance(doc, dict) or doc.get("ecosystem") != stem:
        raise _fail(
            path, "ecosystem", f"must be {stem!r} (the file name)", f"start the file with `ecosystem: {stem}`"
        )
    unknown = set(doc) - {"ecosystem", "templates", "raise_sites"}
    if unknown:
        raise _fail(path, sorted(unknown)[0], "unknown key", "use ecosystem, templates and raise_sites")
    templates = []
    raw = _items(
        path,
        "templates",
        doc.get("templates", []),
        {"template", "example", "threads", "urls"},
        {"template", "example", "threads", "urls"},
    )
    for i, item in enumerate(raw):
        where = f"templates[{i}]"
        threads = item["threads"]
        if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
            raise _fail(
                path, f"{where}.threads", "must be a positive integer", "count the threads that show it"
            )
        urls = item["urls"]
        if (
            not isinstance(urls, list)
            or not 1 <= len(urls) <= 3
            or not all(isinstance(u, str) and URL_RE.match(u) for u in urls)
        ):
            raise _fail(
                path, f"{where}.urls", "must list one to three https:// addresses", "cite the threads"
            )
        templates.append(
            CensusTemplate(
                ecosystem=stem,
                template=_string(path, f"{where}.template", item["template"]),
                example=_string(path, f"{where}.example", item["example"]),
                threads=threads,
                urls=tuple(urls),
            )
        )
    sites = []
    raw = _items(
        path, "raise_sites", doc.get("raise_sites", []), {"code", "template", "example"}, {"code", "template"}
    )
    for i, item in enumerate(raw):
        where = f"raise_sites[{i}]"
        code = _string(path, f"{where}.code", item["code"])
        if not CODE_REF_RE.match(code):
            raise _fail(
                path,
                f"{where}.code",
                f"{code!r} is not repo@commit:path:line",
                "write owner/repo@commit:path:line",
            )
        example = item.get("example")
        sites.append(
            RaiseSite(
                ecosystem=stem,
                code=code,
                template=_string(path, f"{where}.template", item["template"]),
                example=_string(path, f"{where}.example", example) if example is not None else None,
            )
        )
    return templates, sites


def load_census(folder: Path | None = None) -> Census:
    """Read every `<ecosystem>.yaml` of a census folder (the bundled one by default)."""
    root = bundled_root().joinpath(CENSUS_FOLDER) if folder is None else folder
    label = f"{BUNDLED_LABEL}/{CENSUS_FOLDER}" if folder is None else str(folder)
    if not root.is_dir():
        raise _fail(label, None, "is not a folder", "pass a folder of <ecosystem>.yaml census files")
    ecosystems: list[str] = []
    templates: list[CensusTemplate] = []
    sites: list[RaiseSite] = []
    for node in sorted(root.iterdir(), key=lambda n: n.name):
        if not node.name.endswith(".yaml"):
            continue
        stem = node.name[: -len(".yaml")]
        path = f"{label}/{node.name}"
        found, raised = parse_census_file(
            read_yaml(node.read_text(encoding="utf-8"), path, bundled=True), path, stem
        )
        ecosystems.append(stem)
        templates += found
        sites += raised
    return Census(tuple(ecosystems), tuple(templates), tuple(sites))


@dataclass(frozen=True)
class EcosystemCoverage:
    """Covered and total thread weight of one ecosystem's templates."""

    ecosystem: str
    templates: int
    covered_templates: int
    weight: int
    covered_weight: int

    @property
    def share(self) -> float:
        """Covered weight over total weight (0 when the ecosystem has no templates)."""
        return self.covered_weight / self.weight if self.weight else 0.0


class CoverageReport(Report):
    """Coverage per ecosystem and overall; one finding per uncovered template, most threads first."""

    ecosystems: list[EcosystemCoverage] = field(default_factory=list)
    raise_sites: int = 0
    covered_raise_sites: int = 0

    @property
    def weight(self) -> int:
        """Total thread weight of the census."""
        return sum(e.weight for e in self.ecosystems)

    @property
    def share(self) -> float:
        """Covered share of the whole census, weighted by thread count."""
        return sum(e.covered_weight for e in self.ecosystems) / self.weight if self.weight else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON form: overall and per-ecosystem shares, raise sites, and the uncovered templates."""
        return {
            **super().to_dict(),
            "share": round(self.share, 4),
            "weight": self.weight,
            "ecosystems": [
                {
                    "ecosystem": e.ecosystem,
                    "share": round(e.share, 4),
                    "weight": e.weight,
                    "covered_weight": e.covered_weight,
                    "templates": e.templates,
                    "covered_templates": e.covered_templates,
                }
                for e in self.ecosystems
            ],
            "raise_sites": {"total": self.raise_sites, "covered": self.covered_raise_sites},
        }


def _covered(kb: KnowledgeBase, text: str) -> bool:
    return bool(kb.matcher.match_text(text))


def measure_coverage(kb: KnowledgeBase, census: Census) -> CoverageReport:
    """Match every census example against the knowledge base and total the thread weights."""
    per: dict[str, list[int]] = {eco: [0, 0, 0, 0] for eco in census.ecosystems}
    uncovered: list[CensusTemplate] = []
    for t in census.templates:
        counts = per[t.ecosystem]
        counts[0] += 1
        counts[2] += t.threads
        if _covered(kb, t.example):
            counts[1] += 1
            counts[3] += t.threads
        else:
            uncovered.append(t)
    uncovered.sort(key=lambda t: (-t.threads, t.ecosystem, t.template))
    findings = [
        Finding(
            id="kb.census-uncovered",
            severity=Severity.WARNING,
            category="other",
            title=t.template,
            message=f"{t.threads} thread(s) in {t.ecosystem}; no entry matches the example",
            evidence=(Evidence(text=t.example),),
            data={"ecosystem": t.ecosystem, "threads": t.threads, "urls": list(t.urls)},
        )
        for t in uncovered
    ]
    return CoverageReport(
        schema=COVERAGE_SCHEMA,
        findings=findings,
        ecosystems=[EcosystemCoverage(eco, n, n_cov, w, w_cov) for eco, (n, n_cov, w, w_cov) in per.items()],
        raise_sites=len(census.raise_sites),
        covered_raise_sites=sum(_covered(kb, s.example or s.template) for s in census.raise_sites),
    )
