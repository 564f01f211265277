"""The package's import structure: every module imports alone, no cycles, the core never imports the CLI.

Layers, lowest first: the core (`findings`, `errors`, `kb`, `explain`, `check`, ...), then the
presentation layer (`ddpdoctor.present`), then the edges that print: the command line
(`ddpdoctor.cli`, `ddpdoctor.__main__`) and the training-script hooks (`ddpdoctor.hooks`). A module
may import its own layer or lower ones only.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import ddpdoctor

PACKAGE_DIR = Path(ddpdoctor.__file__).parent
CLI_MODULES = ("ddpdoctor.cli", "ddpdoctor.__main__")
EDGE_MODULES = (*CLI_MODULES, "ddpdoctor.hooks")
# What reading a log must never import: explain's fast path starts without them.
HEAVY = ("torch", "typer", "rich", "yaml")
# Standard modules explain's fast path also goes without: each costs milliseconds of a small log's
# cold start. `dataclasses` (which imports `inspect`) stays out because records on that path are
# `ddpdoctor.records.Record`s; `copy`, `secrets` and `traceback` are imported where they are used;
# `typing` only under `TYPE_CHECKING` (a constant of each module's own: importing typing costs ~4 ms).
COLD_PATH_AVOIDS = ("copy", "dataclasses", "inspect", "secrets", "traceback", "typing")
SMALL_LOG = Path(__file__).resolve().parent / "fixtures" / "explain" / "torchrun_oom_table.log"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    _module_name(p): p
    for p in sorted(PACKAGE_DIR.rglob("*.py"))
    if "_knowledge" not in p.parts and "__pycache__" not in p.parts
}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str, *, top_level_only: bool) -> set[str]:
    """The ddpdoctor modules `module` imports (a name imported from a package counts as the package)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node):
                continue
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{anchor}.{base}" if base else anchor
                for alias in node.names:
                    candidate = f"{base}.{alias.name}"
                    found.add(candidate if candidate in MODULES else base)
            if top_level_only:
                if isinstance(node, (ast.If, ast.Try, ast.With)):
                    visit([*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])])
                    for handler in getattr(node, "handlers", []):
                        visit(handler.body)
            else:
                visit([child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)])

    visit(tree.body)
    return {name for name in found if name in MODULES and name != module}


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of `graph`, as the list of modules along it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (cycle := walk(target)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := walk(start)) is not None:
            return cycle
    return None


def test_module_level_imports_have_no_cycle() -> None:
    graph = {m: _imports(m, top_level_only=True) for m in MODULES}
    assert _find_cycle(graph) is None


def test_no_core_or_presentation_module_imports_the_cli() -> None:
    offenders = {
        m: sorted(i for i in _imports(m, top_level_only=False) if _within(i, CLI_MODULES))
        for m in MODULES
        if not _within(m, CLI_MODULES)
    }
    assert {m: found for m, found in offenders.items() if found} == {}


def test_the_core_never_imports_the_presentation_layer() -> None:
    core = [m for m in MODULES if not _within(m, (*EDGE_MODULES, "ddpdoctor.present"))]
    offenders = {
        m: sorted(i for i in _imports(m, top_level_only=False) if i.startswith("ddpdoctor.present"))
        for m in core
    }
    assert {m: found for m, found in offenders.items() if found} == {}


def test_cycle_finder_finds_a_cycle_and_accepts_a_tree() -> None:
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


# Run as `python -c FORK_SERVER FOLDER HEAVY,... MODULE...`: an interpreter that imports nothing beyond
# what every interpreter starts with forks one child per module (four at a time); the child imports
# that module alone, writes its output (then the HEAVY packages that came with it) to FOLDER/MODULE and
# exits 0, or 1 after a traceback. The server prints `(module, exit code)` per child, then its own
# sys.modules, which the test compares with a fresh interpreter's. One fork costs far less than one
# interpreter's start-up, and the child is as alone as a new interpreter would be.
FORK_SERVER = """
import os, sys
folder, heavy, modules = sys.argv[1], set(sys.argv[2].split(",")), sys.argv[3:]
running = {}

def reap():
    pid, status = os.wait()
    print(repr((running.pop(pid), os.waitstatus_to_exitcode(status))), flush=True)

for module in modules:
    if len(running) == 4:
        reap()
    pid = os.fork()
    if pid == 0:
        output = os.open(os.path.join(folder, module), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(output, 1)
        os.dup2(output, 2)
        try:
            __import__(module)
        except BaseException:
            import traceback
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(1)
        print(*sorted(set(sys.modules) & heavy), flush=True)
        os._exit(0)
    running[pid] = module
while running:
    reap()
print(repr(sorted(sys.modules)), flush=True)
"""


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.slow
def test_every_module_imports_alone(tmp_path: Path) -> None:
    modules = [m for m in MODULES if not m.endswith("__main__")]
    server = _python("-c", FORK_SERVER, str(tmp_path), ",".join(HEAVY), *modules)
    assert server.returncode == 0, server.stderr
    *children, loaded = server.stdout.splitlines()
    # The children were forked from an interpreter holding only what a fresh one starts with.
    fresh = _python("-c", "import sys; print(repr(sorted(sys.modules)))")
    assert ast.literal_eval(loaded) == ast.literal_eval(fresh.stdout)
    codes = dict(ast.literal_eval(line) for line in children)
    assert sorted(codes) == sorted(modules)
    output = {m: (tmp_path / m).read_text(encoding="utf-8") for m in modules}
    failures = {m: output[m].strip().splitlines()[-1:] for m, code in codes.items() if code != 0}
    assert failures == {}
    # Reading a log goes through these alone; they start without torch, typer, rich or yaml.
    for module in ("ddpdoctor.cli.explain_fast", "ddpdoctor.explain", "ddpdoctor.present.explain"):
        assert output[module].strip() == "", module


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "text"])
def test_explain_on_a_small_log_imports_no_heavy_or_costly_module(fmt: str) -> None:
    # The console script's own path, in a new interpreter; the first run builds the index cache
    # (which may import more), the second is the cold start every later run has.
    probe = (
        "import sys; from ddpdoctor.cli import main; watched = set(sys.argv[3:]); "
        "sys.argv = ['ddpdoctor', 'explain', sys.argv[1], '-f', sys.argv[2]]; code = main(); "
        "print('IMPORTED', sorted(set(sys.modules) & watched), code)"
    )
    command = [sys.executable, "-c", probe, str(SMALL_LOG), fmt, *HEAVY, *COLD_PATH_AVOIDS]
    for _ in range(2):
        proc = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert proc.stdout.strip().splitlines()[-1] == "IMPORTED [] 1", proc.stderr
