"""Census coverage against the issue's targets: `python bench/coverage.py [CENSUS_DIR]`.

Prints the share of the message census (knowledge/census/) that the knowledge base recognises,
weighted by thread count, per ecosystem and overall, and the most frequent uncovered templates;
exits 1 when the overall share is under 90% or any ecosystem's under 80% (an ecosystem whose
census lists raise sites only has no weight and is shown as n/a). The same numbers come
from `ddpdoctor kb coverage`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ddpdoctor.kb import load_knowledge_base
from ddpdoctor.kb.census import UNCOVERED_SHOWN, load_census, measure_coverage

OVERALL_TARGET = 0.90
ECOSYSTEM_TARGET = 0.80


def main(argv: list[str]) -> int:
    """Measure, print, and compare with the targets."""
    report = measure_coverage(load_knowledge_base(), load_census(Path(argv[0]) if argv else None))
    missed = []
    for eco in report.ecosystems:
        if not eco.weight:
            print(f"{eco.ecosystem:<12}     n/a  no thread-weighted templates (raise sites only)")
            continue
        flag = "" if eco.share >= ECOSYSTEM_TARGET else f"  (under {ECOSYSTEM_TARGET:.0%})"
        print(f"{eco.ecosystem:<12} {eco.share:7.1%}  {eco.covered_weight:>5}/{eco.weight:<5} threads{flag}")
        if flag:
            missed.append(eco.ecosystem)
    print(f"{'overall':<12} {report.share:7.1%}  of {report.weight} threads (target {OVERALL_TARGET:.0%})")
    print(f"raise sites with an entry: {report.covered_raise_sites}/{report.raise_sites}")
    for finding in report.findings[:UNCOVERED_SHOWN]:
        print(f"  uncovered  {finding.data['threads']:>3}  {finding.data['ecosystem']:<10} {finding.title}")
    return 1 if missed or report.share < OVERALL_TARGET else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
