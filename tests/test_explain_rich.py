"""rich's boxed tracebacks (`rich.traceback.install()`), rendered by the real rich library and explained.

rich draws each frame as `path:line in function` inside a box, folds long paths over several box
rows, marks the executing source line with `❱`, and prints the exception after the box's bottom
edge. The frames must come out as if the traceback were Python's own.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ddpdoctor.explain import explain_text

LIBRARY = """
def lookup(devices, index):
    return devices[index]
"""

SCRIPT = """
import sys
sys.path.insert(0, {libdir!r})
from rich.traceback import install
install()
import devicelib

def main():
    devices = ["cuda:0"]
    return devicelib.lookup(devices, 3)

main()
"""


def _rich_traceback(tmp_path: Path, folder: str) -> tuple[str, Path]:
    """The traceback rich prints (80 columns: no terminal) for a script under `folder`."""
    tmp_path = tmp_path / folder
    libdir = tmp_path / "a_rather_long_folder_name_so_that_rich_folds_it" / "site-packages"
    libdir.mkdir(parents=True)
    (libdir / "devicelib.py").write_text(LIBRARY, encoding="utf-8")
    script = tmp_path / "train.py"
    script.write_text(SCRIPT.format(libdir=str(libdir)), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1 and "╭" in done.stderr, done.stderr
    return done.stderr, script


# Deeper folders make rich fold each frame header over one, two or three box rows.
@pytest.mark.parametrize("folder", ["a", "deeper_folder_name_here_xyz", "x" * 60 + "/" + "y" * 40])
def test_a_rich_traceback_gives_its_frames_and_the_users_line(tmp_path: Path, folder: str) -> None:
    text, script = _rich_traceback(tmp_path, folder)
    root = explain_text(text).root_cause
    assert root is not None
    assert root.text == "IndexError: list index out of range"
    assert root.frame is not None and root.frame.endswith("devicelib.py:3 in lookup")
    assert root.user_frame is not None
    assert (root.user_frame.file, root.user_frame.line) == (str(script), 10)
    assert root.user_frame.code == "return devicelib.lookup(devices, 3)"
    # A library indexing its device list with a rank's index: more processes than devices.
    assert root.category == "invalid_device"


def test_a_rich_traceback_under_rank_prefixes_keeps_the_rank(tmp_path: Path) -> None:
    text, _ = _rich_traceback(tmp_path, "a")
    prefixed = "".join(f"[rank3]: {line}\n" for line in text.splitlines())
    root = explain_text(prefixed).root_cause
    assert root is not None and root.rank == 3
    assert root.frame is not None and root.frame.endswith("devicelib.py:3 in lookup")


def test_a_rich_box_cut_off_by_the_paste_ends_the_block(tmp_path: Path) -> None:
    text, _ = _rich_traceback(tmp_path, "a")
    lines = text.splitlines()
    cut = "\n".join(lines[:4]) + "\nRuntimeError: Distributed package doesn't have NCCL built in\n"
    root = explain_text(cut).root_cause
    assert root is not None and root.category == "backend_unsupported"
