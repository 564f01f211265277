"""How often `explain` is right on real logs: category, failing rank, root line, and silence.

Every labelled log is a sidecar `<name>.yaml` beside `<name>.log` (or beside a folder `<name>/` of
per-rank files) with `expected: {category, rank, root_line?, entry?}`. Two splits are scored:

- `dev`: tests/fixtures/logs/, the logs the diagnosis is tuned on;
- `blind`: tests/fixtures/blind/, logs collected and labelled by someone else, scored here only
  in aggregate (`--misses` names the misses of the dev split; on the blind split it is refused
  unless `--i-am-moving-them` says the misses are about to move into the dev split).

A single-file log is read under a neutral name (`pasted.log`): a fixture's descriptive name
(`...-oom-rank7.log`) would otherwise tell `explain` the rank the way a per-rank file's name does.
A folder of per-rank files keeps its names, which are the launcher's.

The root line is right when the reported root line (or the text `explain` reports for it)
contains the labelled `root_line` (less the spaces around it: a label may keep a code line's
indent). A log is *silent* when `explain` reports no failure at all.

    python bench/accuracy.py                 # both splits, aggregate tables
    python bench/accuracy.py --split dev --misses
    python bench/accuracy.py --json out.json
    python bench/accuracy.py --split dev --shape wrap120   # the same logs as a user's tool rewrote them

`--shape` rewrites every single-file log the way a user's tool does before it reaches us (a
`kubectl logs --timestamps` time, a `kubectl logs --prefix` pod label, Jenkins' bracketed time, a
Docker Compose service label, a Markdown code block's indent, a terminal's hard wrap), or keeps only a
part of it as an issue comment quotes it (`excerpt`: the eight lines on each side of the labelled root
line), and scores the copies against the same labels;
on a wrapped copy the root line is right when the reported line is one of the pieces of the
labelled one's line.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from ddpdoctor.explain import explain_paths  # noqa: E402

SPLITS = {"dev": ROOT / "tests" / "fixtures" / "logs", "blind": ROOT / "tests" / "fixtures" / "blind"}
METRICS = ("category", "rank", "root_line")
WRAP_COLUMNS = 120
EXCERPT_AROUND = 8  # lines kept on each side of the root line by `--shape excerpt`


def _rfc3339(lines: list[str]) -> list[str]:
    return [
        f"2026-11-30T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{i:09d}Z {line}"
        for i, line in enumerate(lines)
    ]


def _wrap(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        out.extend(line[i : i + WRAP_COLUMNS] for i in range(0, max(len(line), 1), WRAP_COLUMNS))
    return out


def _wrapped_root_lines(lines: list[str], root_line: str) -> frozenset[int]:
    """The 1-based numbers of the wrapped copy's lines that the labelled root line was cut into,
    with the other pieces of its line (pointing at a wrapped line's first piece points at it)."""
    numbers, first = set(), 1
    for line in lines:
        pieces = max(1, -(-len(line) // WRAP_COLUMNS))
        if root_line in line:
            numbers.update(range(first, first + pieces))
        first += pieces
    return frozenset(numbers)


def _excerpt(lines: list[str], root_line: str) -> list[str]:
    """The lines around the labelled root line, as a comment in an issue thread quotes a log:
    EXCERPT_AROUND lines on each side of its first occurrence (nothing when it has none)."""
    at = next((i for i, line in enumerate(lines) if root_line and root_line in line), None)
    if at is None:
        return []
    return lines[max(0, at - EXCERPT_AROUND) : at + EXCERPT_AROUND + 1]


# Each shape rewrites a log's lines; the labelled root line is there for shapes that keep a part.
SHAPES: dict[str, Callable[[list[str], str], list[str]]] = {
    "as-pasted": lambda lines, _root: lines,
    "rfc3339": lambda lines, _root: _rfc3339(lines),
    "compose": lambda lines, _root: [f"trainer-1  | {line}" for line in lines],
    "kubectl": lambda lines, _root: [f"[pod/trainer-7f9c4-xk2p/pytorch] {line}" for line in lines],
    "jenkins": lambda lines, _root: [
        f"[2026-11-30T12:00:{i % 60:02d}.{i % 1000:03d}Z] {line}" for i, line in enumerate(lines)
    ],
    "indent": lambda lines, _root: [f"    {line}" for line in lines],
    "wrap120": lambda lines, _root: _wrap(lines),
    "excerpt": _excerpt,
}


@dataclass
class Case:
    """One labelled log."""

    name: str
    log: Path
    framework: str
    expected: dict[str, Any]
    wrapped_root_lines: frozenset[int] | None = None


@dataclass
class Outcome:
    """What `explain` said about one case, scored."""

    case: Case
    got: dict[str, Any]
    right: dict[str, bool | None] = field(default_factory=dict)
    silent: bool = False
    source: str = "structural"


NEUTRAL_NAME = "pasted.log"  # says nothing of a rank, unlike a fixture's descriptive name


def load_cases(folder: Path) -> list[Case]:
    """Every sidecar of a split with the log it describes."""
    cases = []
    for sidecar in sorted(folder.glob("*.yaml")):
        doc = yaml.safe_load(sidecar.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or "expected" not in doc:
            continue
        stem = sidecar.with_suffix("")
        log = stem if stem.is_dir() else sidecar.with_suffix(".log")
        if not log.exists():
            continue
        cases.append(Case(sidecar.stem, log, str(doc.get("framework", "other")), dict(doc["expected"])))
    return cases


def reshape(cases: list[Case], shape: str, folder: Path) -> list[Case]:
    """Copies of the single-file cases rewritten into `folder` in the given paste shape."""
    out = []
    for case in cases:
        if case.log.is_dir():
            continue
        lines = case.log.read_text(encoding="utf-8", errors="replace").splitlines()
        shaped = SHAPES[shape](lines, str(case.expected.get("root_line") or "").strip())
        if not shaped:
            continue  # (an excerpt of a log whose root line is not labelled, or not in it)
        copy = folder / case.log.name
        copy.write_text("\n".join(shaped) + "\n", encoding="utf-8")
        wrapped = None
        if shape == "wrap120" and case.expected.get("root_line"):
            wrapped = _wrapped_root_lines(lines, str(case.expected.get("root_line") or ""))
        out.append(Case(case.name, copy, case.framework, case.expected, wrapped))
    return out


def _reported_line(root: dict[str, Any]) -> str:
    """The text of the line the report points at (read back from the log), plus the reported text."""
    texts = [str(root.get("text") or "")]
    path, number = root.get("file"), root.get("line")
    if isinstance(path, str) and isinstance(number, int) and number > 0:
        try:
            with open(path, "rb") as fh:
                for index, raw in enumerate(fh, 1):
                    if index == number:
                        texts.append(raw.decode("utf-8", "replace"))
                        break
        except OSError:
            pass
    return "\n".join(texts)


def score(case: Case) -> Outcome:
    """Run explain on one case and compare with its labels."""
    if case.log.is_dir():
        return _compare(case, explain_paths([str(case.log)]).root_cause)
    with tempfile.TemporaryDirectory(prefix="ddpdoctor-accuracy-") as folder:
        neutral = Path(folder) / NEUTRAL_NAME
        neutral.write_bytes(case.log.read_bytes())
        return _compare(case, explain_paths([str(neutral)]).root_cause)


def _compare(case: Case, root: Any) -> Outcome:
    """The outcome of one case: the report's root cause against the case's labels."""
    if root is None:
        outcome = Outcome(case, {}, silent=True)
        outcome.right = {
            m: (False if m != "root_line" or "root_line" in case.expected else None) for m in METRICS
        }
        return outcome
    data = root.to_dict() if hasattr(root, "to_dict") else dict(root)
    got = {"category": data.get("category"), "rank": data.get("rank"), "entry": data.get("entry")}
    outcome = Outcome(case, got, source="kb" if data.get("entry") else "structural")
    outcome.right["category"] = got["category"] == case.expected.get("category")
    outcome.right["rank"] = got["rank"] == case.expected.get("rank")
    want_line = case.expected.get("root_line")
    if not want_line:
        outcome.right["root_line"] = None
    elif case.wrapped_root_lines is not None:
        outcome.right["root_line"] = data.get("line") in case.wrapped_root_lines
    else:
        outcome.right["root_line"] = str(want_line).strip() in _reported_line(data)
    got["text"] = str(data.get("text") or "")[:200]
    return outcome


def _pct(values: list[bool | None]) -> str:
    scored = [v for v in values if v is not None]
    if not scored:
        return "   n/a"
    return f"{100.0 * sum(scored) / len(scored):5.1f}%"


def _table(title: str, groups: dict[str, list[Outcome]]) -> list[str]:
    lines = [
        title,
        f"  {'group':<22} {'logs':>5} {'category':>9} {'rank':>7} {'root line':>10} {'silent':>7}",
    ]
    for name, outcomes in sorted(groups.items()):
        cols = [_pct([o.right.get(m) for o in outcomes]) for m in METRICS]
        silent = sum(o.silent for o in outcomes)
        lines.append(f"  {name:<22} {len(outcomes):>5} {cols[0]:>9} {cols[1]:>7} {cols[2]:>10} {silent:>7}")
    return lines


def summarise(split: str, outcomes: list[Outcome]) -> dict[str, Any]:
    """Aggregate figures of one split."""
    out: dict[str, Any] = {"split": split, "logs": len(outcomes), "silent": sum(o.silent for o in outcomes)}
    for metric in METRICS:
        scored = [o.right.get(metric) for o in outcomes if o.right.get(metric) is not None]
        out[metric] = round(100.0 * sum(bool(v) for v in scored) / len(scored), 1) if scored else None
    return out


def main(argv: list[str] | None = None) -> int:
    """Score the splits and print the tables."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    parser.add_argument("--misses", action="store_true", help="name the misses (dev split only)")
    parser.add_argument("--i-am-moving-them", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help="write the aggregate figures as JSON")
    parser.add_argument(
        "--batch", metavar="PREFIX", help="only the logs whose name starts with PREFIX (a batch's first run)"
    )
    parser.add_argument(
        "--shape", choices=list(SHAPES), help="score single-file logs rewritten in this paste shape"
    )
    args = parser.parse_args(argv)
    names = list(SPLITS) if args.split == "all" else [args.split]
    summaries = []
    scratch = tempfile.TemporaryDirectory(prefix="ddpdoctor-shape-")
    for split in names:
        cases = [c for c in load_cases(SPLITS[split]) if c.name.startswith(args.batch or "")]
        if args.shape:
            folder = Path(scratch.name) / split
            folder.mkdir()
            cases = reshape(cases, args.shape, folder)
        if not cases:
            print(f"{split}: no labelled logs in {SPLITS[split]}")
            continue
        outcomes = [score(case) for case in cases]
        summary = summarise(split, outcomes)
        summaries.append(summary)
        by_framework: dict[str, list[Outcome]] = defaultdict(list)
        by_source: dict[str, list[Outcome]] = defaultdict(list)
        for o in outcomes:
            by_framework[o.case.framework].append(o)
            by_source[o.source].append(o)
        print("\n".join(_table(f"{split} split: per framework", by_framework)))
        print("\n".join(_table(f"{split} split: per source of the verdict", by_source)))
        print("\n".join(_table(f"{split} split: all", {"all": outcomes})))
        print()
        if args.misses and (split == "dev" or args.i_am_moving_them):
            for o in outcomes:
                wrong = [m for m in METRICS if o.right.get(m) is False]
                if wrong:
                    print(f"MISS {split}/{o.case.name}: {', '.join(wrong)}")
                    print(f"     expected {o.case.expected}")
                    print(f"     got      {o.got}")
    scratch.cleanup()
    if args.json:
        args.json.write_text(json.dumps(summaries, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
