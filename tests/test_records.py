"""`ddpdoctor.records.Record`: what the records of explain's cold path rely on, as a dataclass gives it."""

from __future__ import annotations

import pickle

import pytest

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
