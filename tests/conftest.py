"""Shared fixtures: the bundled knowledge base and a CLI runner with exact exit codes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ddpdoctor.cli.app import app
from ddpdoctor.kb import KnowledgeBase, load_knowledge_base

FIXTURES = Path(__file__).resolve().parent / "fixtures"


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
def kb() -> KnowledgeBase:
    """The bundled knowledge base, loaded once."""
    return load_knowledge_base()


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch):
    """Run `ddpdoctor ARGS...` in-process; returns exit code, stdout and stderr separately."""
    monkeypatch.delenv("DDPDOCTOR_KB_PATH", raising=False)
    monkeypatch.delenv("DDPDOCTOR_DEBUG", raising=False)

    def invoke(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> CliResult:
        runner = CliRunner()
        result = runner.invoke(app, list(args), input=input, env=env, catch_exceptions=False)
        return CliResult(result.exit_code, result.stdout, result.stderr)

    return invoke
