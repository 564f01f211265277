"""Shared fixtures: the bundled knowledge base and a CLI runner with exact exit codes."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ddpdoctor.cli import main
from ddpdoctor.explain import explain_paths
from ddpdoctor.explain.report import ExplainReport
from ddpdoctor.kb import KnowledgeBase, load_knowledge_base

FIXTURES = Path(__file__).resolve().parent / "fixtures"

# `make test` runs the suite on two workers (`pytest -n 2`, pytest-xdist). The scheduler below sends
# every test of one worker group to the same worker, one after another; other tests go one at a time to
# whichever worker is free. The files in SERIAL share one group: each runs real torchrun jobs that must
# hang, or must not, and judges them by a threshold of a few seconds (`--hang-after`, a collective
# timeout, `--timeout`, a scenario's bound), which a second such burst of ranks on the other worker
# could push past; test_run_hangs.py and test_run_heartbeat.py start theirs in module-scoped fixtures,
# and test_scenarios.py keeps each scenario's run for its later tests.
SERIAL = frozenset(
    {
        "test_run_hangs.py",
        "test_run_heartbeat.py",
        "test_distributed_launch.py",
        "test_scenarios.py",
    }
)
# Files whose tests share an expensive result (a module-scoped fixture, a per-session cache) stay on
# one worker, so that it is computed once rather than once per worker.
SHARED_RESULTS = {
    "test_packaging.py": "wheel",  # the built wheel
    "test_explain_scan.py": "index",  # the compiled pattern index
    "test_explain_contract.py": "explained-logs",  # `explained_log`: every fixture log explained once
    "test_explain_fixtures.py": "explained-logs",
}


def worker_group(nodeid: str) -> str | None:
    """The worker group of the test `nodeid`, or None for a test that may run on any worker."""
    name = nodeid.split("::", 1)[0].rpartition("/")[2]
    return "serial" if name in SERIAL else SHARED_RESULTS.get(name)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `-n N` (`--dist load`), hand out each worker group whole, the largest groups first."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        # xdist_group marks would do this, but pytest 9.2 ignores the node ids xdist 3.8 rewrites for them.
        def _split_scope(self, nodeid: str) -> str:
            return worker_group(nodeid) or nodeid

    return GroupScheduling(config, log)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Stop at once, with one line, when the log fixtures are missing (a partial checkout)."""
    if not (FIXTURES / "logs").is_dir():
        raise pytest.UsageError(f"missing {FIXTURES / 'logs'}: the fixture logs are part of the repository")


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test writes caches under a temporary folder of this session, never ~/.cache/ddpdoctor."""
    root = tmp_path_factory.getbasetemp() / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(root))
    monkeypatch.setenv("DDPDOCTOR_CACHE_DIR", str(root / "ddpdoctor"))
    return root


@pytest.fixture(scope="session")
def explained_log(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], ExplainReport]:
    """A fixture log's report as a user would paste it, explained once per session (several files
    check the same report): a single file under a neutral name, as bench/accuracy.py reads it (a
    fixture's name, `...-oom-rank7.log`, would tell the rank); a folder of per-rank files keeps the
    launcher's names."""
    reports: dict[Path, ExplainReport] = {}

    def explain(log: Path) -> ExplainReport:
        if log not in reports:
            target = log
            if not log.is_dir():
                target = tmp_path_factory.mktemp("pasted") / "pasted.log"
                target.write_bytes(log.read_bytes())
            reports[log] = explain_paths([str(target)])
        return reports[log]

    return explain


@pytest.fixture(scope="session")
def kb() -> KnowledgeBase:
    """The bundled knowledge base, loaded once."""
    return load_knowledge_base()


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    """A text stream over bytes, with a `.buffer`, like the real standard streams."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", write_through=True)


def _written(stream: io.TextIOWrapper) -> str:
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch):
    """Run `ddpdoctor ARGS...` in-process through the console entry point; exit code, stdout, stderr."""
    monkeypatch.delenv("DDPDOCTOR_KB_PATH", raising=False)
    monkeypatch.delenv("DDPDOCTOR_DEBUG", raising=False)

    def invoke(*args: str, input: str | None = None, env: dict[str, str | None] | None = None) -> CliResult:
        with monkeypatch.context() as patch:
            for key, value in (env or {}).items():
                if value is None:  # None unsets the variable
                    patch.delenv(key, raising=False)
                else:
                    patch.setenv(key, value)
            out, err = _stream(), _stream()
            patch.setattr(sys, "stdin", _stream((input or "").encode("utf-8")))
            patch.setattr(sys, "stdout", out)
            patch.setattr(sys, "stderr", err)
            code = main(list(args))
        return CliResult(code, _written(out), _written(err))

    return invoke
