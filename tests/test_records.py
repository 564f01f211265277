"""`ddpdoctor.records.Record`: what the records of explain's cold path rely on, as a dataclass gives it."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

import ddpdoctor
from ddpdoctor.explain.observations import ExitObs, Observation
from ddpdoctor.explain.report import ExplainReport
from ddpdoctor.findings import Evidence, Finding, Report, Severity
from ddpdoctor.records import Record, field


class Point(Record):
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)


class Point3(Point):
    z: int = 0
    y: int = 5  # a base field given a new default keeps its place


def test_fields_in_declaration_order_base_fields_first() -> None:
    assert Point._fields == ("x", "y", "tags")
    assert Point3._fields == ("x", "y", "tags", "z")
    assert Observation._fields[:4] == ("file", "file_index", "line", "text")
    assert ExitObs._fields[: len(Observation._fields)] == Observation._fields


def test_positional_and_keyword_arguments_and_defaults() -> None:
    p = Point(1, tags=["a"])
    assert (p.x, p.y, p.tags) == (1, 0, ["a"])
    q = Point3(2, z=3)
    assert (q.x, q.y, q.tags, q.z) == (2, 5, [], 3)


def test_a_factory_default_is_fresh_for_each_record_and_not_a_class_attribute() -> None:
    a, b = Point(1), Point(1)
    a.tags.append("t")
    assert b.tags == []
    assert "tags" not in vars(Point)
    assert ExplainReport().findings is not ExplainReport().findings


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, "missing required argument 'x'"),
        ((1, 2, [], 4), {}, "takes 3 arguments but 4 were given"),
        ((1,), {"x": 2}, "unexpected or repeated argument 'x'"),
        ((1,), {"w": 2}, "unexpected or repeated argument 'w'"),
    ],
)
def test_wrong_arguments_raise_type_error(
    args: tuple[object, ...], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        Point(*args, **kwargs)


def test_equality_is_by_class_and_fields_and_records_are_unhashable() -> None:
    assert Point(1, 2) == Point(1, 2)
    assert Point(1, 2) != Point(1, 3)
    assert Point3(1, 2) != Point(1, 2)  # another class is never equal, as with dataclasses
    assert Report("s") == Report("s", [])
    with pytest.raises(TypeError):
        hash(Point(1))


def test_repr_names_every_field() -> None:
    assert repr(Point(1, tags=["a"])) == "Point(x=1, y=0, tags=['a'])"


def test_replace_copies_with_changes_and_keeps_the_class() -> None:
    report = ExplainReport(stats={"engine": "python"})
    copy = report._replace(findings=[])
    assert type(copy) is ExplainReport
    assert copy.stats == {"engine": "python"} and copy.schema == report.schema
    assert copy is not report


class Pair(Record, frozen=True):
    left: str
    right: tuple[str, ...] = ()


def test_a_frozen_record_refuses_changes_and_hashes_by_its_fields() -> None:
    pair = Pair("a", ("b",))
    with pytest.raises(AttributeError, match="frozen Pair"):
        pair.left = "c"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="frozen Pair"):
        del pair.left
    assert hash(pair) == hash(Pair("a", ("b",)))
    assert {pair, Pair("a", ("b",))} == {pair}
    assert pair._replace(left="c") == Pair("c", ("b",))


def test_a_frozen_record_is_not_a_tuple() -> None:
    evidence = Evidence("text", "f.log", 3)
    assert not isinstance(evidence, tuple)
    assert evidence != ("text", "f.log", 3)
    with pytest.raises(TypeError):
        iter(evidence)  # type: ignore[call-overload]


def test_records_survive_pickling_as_worker_results_do() -> None:
    finding = Finding("x", Severity.ERROR, "c", "t", "m", evidence=(Evidence("e"),), data={"k": 1})
    report = ExplainReport(findings=[finding], stats={"engine": "python"})
    assert pickle.loads(pickle.dumps(report)) == report
    assert pickle.loads(pickle.dumps(finding)) == finding


def test_redaction_copies_nested_records_and_keeps_their_classes() -> None:
    evidence = Evidence("failed on /home/alice/train.py", "/home/alice/log.txt", 3)
    finding = Finding("x", Severity.ERROR, "c", "t", "at /home/alice", evidence=(evidence,))
    report = ExplainReport(findings=[finding], stats={"engine": "python"})
    redacted = report.redacted()
    assert type(redacted) is ExplainReport and redacted is not report
    [copy] = redacted.findings
    assert type(copy) is Finding and copy.message == "at ~"
    assert copy.evidence == (Evidence("failed on ~/train.py", "~/log.txt", 3),)
    assert report.findings[0] is finding and finding.message == "at /home/alice"


def _decorated_as_dataclass(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if (isinstance(target, ast.Name) and target.id == "dataclass") or (
            isinstance(target, ast.Attribute) and target.attr == "dataclass"
        ):
            return True
    return False


def test_no_record_subclass_is_also_a_dataclass() -> None:
    # `@dataclass` on a subclass of a Record (a report, say) would make an `__init__` without the
    # base's fields. Bases are resolved by name through each module's classes and `from` imports.
    package = Path(ddpdoctor.__file__).parent
    modules = {
        ".".join(path.relative_to(package.parent).with_suffix("").parts): ast.parse(path.read_text("utf-8"))
        for path in sorted(package.rglob("*.py"))
        if "_knowledge" not in path.parts
    }
    bases: dict[tuple[str, str], list[tuple[str, str]]] = {}
    decorated: set[tuple[str, str]] = set()
    for module, tree in modules.items():
        imported = {
            alias.asname or alias.name: node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
            for alias in node.names
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names = [b.id for b in node.bases if isinstance(b, ast.Name)]
                bases[(module, node.name)] = [(imported.get(n, module), n) for n in names]
                if _decorated_as_dataclass(node):
                    decorated.add((module, node.name))
    records = {("ddpdoctor.records", "Record")}
    while found := {c for c, of in bases.items() if c not in records and any(b in records for b in of)}:
        records |= found
    assert {("ddpdoctor.findings", "Report"), ("ddpdoctor.explain.observations", "ExitObs")} <= records
    assert sorted(records & decorated) == []
