"""The streaming scanner and its prefilters agree with the reference matcher.

`ddpdoctor.kb.matching.Matcher` defines what matches; `explain` only reaches it faster. These
tests check, on every knowledge-base sample and every real fixture log (a quarter of them for the
slow pure-Python engine), that the lines and entries the fast path finds are exactly the
reference's, whatever the chunk size and engine.
"""

from __future__ import annotations

import gzip
import io
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ddpdoctor import matching as core
from ddpdoctor.explain import ExplainOptions, explain_paths, explain_text
from ddpdoctor.explain.index import KbIndex, load_index
from ddpdoctor.explain.match import FastMatcher
from ddpdoctor.explain.prefilter import required_literals, superset_regex
from ddpdoctor.explain.scan import BEFORE_LINES, HyperscanEngine, LiteralEngine, Scanner, make_engine
from ddpdoctor.kb import KnowledgeBase
from ddpdoctor.kb import matching as reference

Engine = HyperscanEngine | LiteralEngine
LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
SAMPLES = Path(__file__).resolve().parent / "fixtures" / "explain"


@pytest.fixture(scope="module")
def index() -> KbIndex:
    return load_index()


class Recorder:
    """A sink that keeps every line it is handed."""

    def __init__(self) -> None:
        self.lines: list[tuple[int, bytes, frozenset[int]]] = []
        self.gaps = 0

    def line(self, number: int, data: bytes, candidates: frozenset[int]) -> None:
        self.lines.append((number, data, candidates))

    def gap(self) -> None:
        self.gaps += 1

    def more(self) -> int:
        return 0


def scan_bytes(data: bytes, engine: Engine, index: KbIndex, chunk: int = 8 << 20) -> Recorder:
    sink = Recorder()
    stream = io.BytesIO(data)
    Scanner(engine, index, sink, chunk_bytes=chunk).run(stream.readinto)
    return sink


def fast_matches(text: str, index: KbIndex, engine: Engine) -> set[tuple[int, str]]:
    """(0-based line, entry id) of every direct match, through the scanner and the fast matcher."""
    matcher = FastMatcher(index, engine)
    found = set()
    for number, data, cands in scan_bytes(text.encode("utf-8"), engine, index).lines:
        if not cands:
            continue
        for segment in core.segments(data.decode("utf-8")):
            found |= {(number - 1, hit.entry.id) for hit in matcher.match(segment, cands)}
    return found


def reference_matches(text: str, kb: KnowledgeBase) -> set[tuple[int, str]]:
    return {(m.line, m.entry.id) for m in kb.matcher.match_text(text) if m.depth == 0}


def corpus(kb: KnowledgeBase, most: int) -> list[str]:
    """Every knowledge-base sample and example log, and about `most` fixture logs (evenly spread)."""
    texts = [s.text for e in kb.entries for s in (*e.samples_match, *e.samples_no_match)]
    every = sorted(LOGS.rglob("*.log"))
    logs = every[:: max(1, len(every) // most)]
    texts += [p.read_text(encoding="utf-8", errors="replace") for p in logs]
    texts += [p.read_text(encoding="utf-8") for p in sorted(SAMPLES.glob("*.log"))]
    return texts


# How many fixture logs each engine is checked on (every one of the knowledge base's samples too): a
# time that does not grow with the splits. The pure-Python engine is the fallback where hyperscan is
# missing; it scans the same way but slowly.
ENGINE_LOGS = {"hyperscan": 2000, "python": 800}


@pytest.mark.parametrize("engine_name", ["hyperscan", "python"])
def test_fast_path_agrees_with_the_reference_matcher(
    engine_name: str, index: KbIndex, kb: KnowledgeBase
) -> None:
    engine = make_engine(index, engine_name)
    for text in corpus(kb, ENGINE_LOGS[engine_name]):
        assert fast_matches(text, index, engine) == reference_matches(text, kb), text[:200]


def test_line_cleaning_is_one_rule_for_kb_and_explain() -> None:
    """The knowledge base and explain clean lines with the same function of the one matching core."""
    assert reference.clean_line is core.clean_line
    assert core.clean_line("\x1b[31mRuntimeError\x1b[0m: boom   ") == "RuntimeError: boom"
    assert core.clean_line("\x1b]0;title\x07ok") == "ok"
    assert len(core.clean_line("x" * 70000)) == core.MAX_MATCH_CHARS
    assert list(core.segments("10%|#   |\r100%|####|#015done")) == ["10%|#   |", "100%|####|", "done"]


@pytest.mark.parametrize("chunk", [64, 1000, 4096])
def test_chunk_size_does_not_change_what_is_selected(chunk: int, index: KbIndex) -> None:
    engine = make_engine(index, "auto")
    data = (SAMPLES / "torchrun_oom_table.log").read_bytes() * 3
    whole = scan_bytes(data, engine, index)
    small = scan_bytes(data, engine, index, chunk=chunk)
    assert [(n, d) for n, d, _ in small.lines] == [(n, d) for n, d, _ in whole.lines]
    assert [c for _, _, c in small.lines] == [c for _, _, c in whole.lines]


def test_context_lines_follow_a_traceback_and_gaps_are_reported(index: KbIndex) -> None:
    noise = b"".join(b"step %d loss 1.0\n" % i for i in range(200))
    data = noise + b'Traceback (most recent call last):\n  File "a.py", line 1, in f\nValueError: x\n' + noise
    sink = scan_bytes(data, make_engine(index, "auto"), index)
    numbers = [n for n, _, _ in sink.lines]
    # A few lines before the header (line 201) for timestamps, then the traceback's long tail
    # (which reaches the end here); the noise before that is skipped, and said to be.
    assert numbers == list(range(201 - BEFORE_LINES, 404)) and sink.gaps == 1


def test_ansi_crlf_and_progress_bars() -> None:
    text = (
        "\x1b[32mepoch 1\x1b[0m\r\n"
        "  3%|#         | 3/100 [00:01<00:40]\r 45%|####5     | 45/100 [00:10<00:12]"
        "\x1b[31mRuntimeError\x1b[0m: CUDA error: an illegal memory access was encountered\r\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.entry == "cuda-illegal-memory-access" and root.line == 2


def test_gzip_is_read_transparently(tmp_path: Path) -> None:
    path = tmp_path / "rank2.log.gz"
    path.write_bytes(gzip.compress((SAMPLES / "srun_labels.log").read_bytes()))
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and root.entry == "cuda-invalid-device-ordinal"


def test_a_gzipped_error_file_is_read_as_one(tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "logs"
    shutil.copytree(SAMPLES / "torchrun_logdir", folder)
    (error_json,) = folder.rglob("error.json")
    error_json.with_name("error.json.gz").write_bytes(gzip.compress(error_json.read_bytes()))
    error_json.unlink()
    report = explain_paths([str(folder)])
    root = report.root_cause
    assert root is not None and (root.entry, root.rank) == ("cuda-illegal-memory-access", 1)
    assert root.file.endswith("attempt_0/1/error.json.gz")
    assert [i["kind"] for i in report.inputs if i["path"].endswith(".gz")] == ["error-file"]


def test_an_overlong_line_is_cut_into_its_segments(tmp_path: Path) -> None:
    path = tmp_path / "train.log"
    bar = b" 50%|#####     | 5/10 [00:01<00:01]\r" * 200_000  # ~7 MB without a newline
    path.write_bytes(b"start\n" + bar + b"RuntimeError: CUDA error: device-side assert triggered\nend\n")
    report = explain_paths([str(path)])
    assert report.root_cause is not None and report.root_cause.entry == "cuda-device-side-assert"
    assert report.root_cause.line == 2 and report.inputs[0]["lines"] == 3


# --- prefilters are supersets ----------------------------------------------------------------------


def test_every_sample_is_flagged_by_its_own_prefilter(index: KbIndex, kb: KnowledgeBase) -> None:
    for entry in kb.entries:
        for sample in entry.samples_match:
            for line in sample.text.split("\n"):
                for segment in core.segments(line):
                    for pattern in entry.patterns:
                        if pattern.regex.search(segment):
                            body = superset_regex(pattern.source)
                            assert re.search(body, segment.encode("utf-8")), (entry.id, pattern.source)
                            lits = required_literals(pattern.source)
                            if lits is not None:
                                assert any(
                                    (t.lower() if caseless else t)
                                    in (segment.lower() if caseless else segment)
                                    for t, caseless in lits.options
                                ), (entry.id, lits)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_prefilter_is_a_superset_on_mutated_samples(data: st.DataObject, kb: KnowledgeBase) -> None:
    entry = data.draw(st.sampled_from([e for e in kb.entries if e.samples_match]))
    sample = data.draw(st.sampled_from(entry.samples_match)).text
    line = data.draw(st.sampled_from([ln for ln in sample.split("\n") if ln.strip()] or [sample]))
    cut = data.draw(st.integers(0, len(line)))
    # Log text arrives as bytes: lone surrogates (category Cs) have no UTF-8 form.
    noise = data.draw(
        st.text(
            alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=20
        )
    )
    text = core.clean_line(line[:cut] + noise + line[cut:])
    for pattern in entry.patterns:
        if pattern.regex.search(text):
            assert re.search(superset_regex(pattern.source), text.encode("utf-8")), pattern.source


@settings(max_examples=40, deadline=None)
@given(st.text(min_size=1, max_size=40))
def test_prefilter_handles_unicode_classes_and_case(word: str) -> None:
    for source in (r"(?i)cuda\s+error: (?P<x>\w+)", r"nicht genügend Speicher: .{2,4}!", r"[^\s]+ failed"):
        regex = re.compile(source)
        for text in (word, f"CUDA  Error: {word}", f"nicht genügend Speicher: {word[:3]}!", f"{word} failed"):
            if regex.search(text):
                assert re.search(superset_regex(source), text.encode("utf-8")), (source, text)


# --- gates of explain's own structural regexes ------------------------------------------------------


def test_a_gated_regex_says_no_without_compiling_and_matches_once_a_literal_is_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(core, "_LAZY_PATTERNS", [])
    monkeypatch.setattr(core, "_GATES", {})
    source = r"gate probe (\d+) of (?:alpha|beta)"
    lazy = core.LazyRegex(source)
    assert core.lazy_pattern_sources() == [source]
    literals = required_literals(source)
    assert literals is not None
    core.install_gates({source: literals.options})
    assert lazy.search("step 3 of alpha") is None and lazy.findall("nothing") == []
    assert lazy.sub("-", "kept as is") == "kept as is"
    assert lazy._compiled is None
    found = lazy.search("x gate probe 12 of beta")
    assert found is not None and found.group(1) == "12"
    assert lazy.sub("-", "a gate probe 3 of alpha") == "a -"
    # A pattern with flags is never gated: its literals could fold or span lines.
    caseless = core.LazyRegex("gate probe", re.IGNORECASE)
    core.install_gates({"gate probe": [("absent", False)]})
    assert caseless.search("GATE PROBE") is not None


def _real_lines(limit: int) -> list[str]:
    files = sorted(LOGS.rglob("*.log"))
    lines: list[str] = []
    per_file = max(1, limit // len(files))
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace").splitlines()
        step = max(1, len(text) // per_file)
        lines.extend(core.clean_line(line) for line in text[::step][:per_file])
    return lines


def test_every_gate_holds_on_real_log_lines(index: KbIndex) -> None:
    # A gate claims that every match of its pattern holds one of its literals; were it wrong, explain
    # would miss a line without a sign. Each gate is checked against the pattern on real lines.
    assert len(index.gates) > 100 and set(index.gates) <= set(core.lazy_pattern_sources())
    # Each line is tried whole and without its first field (a prefix such as `[rank1]:`); `match` keeps
    # the nested quantifiers of some patterns from making this a search at every position.
    texts = [text for line in _real_lines(4000) for text in (line, line.partition(" ")[2]) if text]
    hits = 0
    for source, literals in index.gates.items():
        regex = re.compile(source)
        for text in texts:
            if regex.match(text):
                hits += 1
                assert any(
                    literal in (text.lower() if caseless else text) for literal, caseless in literals
                ), (source, text)
    assert hits > 500  # the lines do reach the patterns


def test_without_hyperscan_the_python_engine_gives_the_same_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(SAMPLES / "torchrun_oom_table.log")
    with_hs = explain_paths([path], ExplainOptions(engine="hyperscan")).to_dict()
    assert with_hs["stats"]["engine"] == "hyperscan"
    monkeypatch.setitem(sys.modules, "hyperscan", None)  # as if the wheel were missing
    monkeypatch.setenv("DDPDOCTOR_CACHE_DIR", str(tmp_path))
    index = load_index()
    assert index.hs_blob is None
    without = explain_paths([path]).to_dict()
    assert without["stats"]["engine"] == "python"
    for report in (with_hs, without):
        report["stats"].pop("engine")
    assert without == with_hs
