"""Merge the stacks of every rank the way LLNL's STAT does, and name the ranks worth a look.

Each rank's main-thread stack is a path from the outermost frame to the innermost. The paths of
all ranks form a prefix tree whose nodes carry the ranks that passed through them; ranks with
identical paths form an equivalence class. In a hang most ranks wait in the same collective, so
the suspects are the ranks that do not: a rank outside any collective while others are in one, a
rank in a different collective, a minority class, and a rank that is gone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ddpdoctor.check.grouping import rank_list
from ddpdoctor.frames import collective_name
from ddpdoctor.supervise.stacks import Frame, ProcessStacks

# Decorator frames between the user's call and the function the user called.
_WRAPPERS = frozenset({"wrapper", "_wrapper", "inner", "_fn", "decorate_context", "wrapped"})
# Knowledge-base entries for each situation a suspect can be in (checked against the KB by a test).
KB_LINKS: dict[str, tuple[str, ...]] = {
    "not-in-collective": ("nccl-watchdog-timeout", "gloo-timeout"),
    "dataloader": ("dataloader-timeout", "nccl-watchdog-timeout"),
    "different-collective": ("collective-mismatch-detected", "nccl-watchdog-timeout"),
    "left-loop": ("collective-mismatch-detected", "monitored-barrier-failed"),
    "minority": ("nccl-watchdog-timeout", "gloo-timeout"),
    "gone": ("torchelastic-worker-failed-exitcode", "nccl-watchdog-timeout"),
    "same-collective": ("nccl-watchdog-timeout", "nccl-heartbeat-timeout"),
}


def member_ranks(members: Iterable[str]) -> list[int]:
    """The rank numbers among member labels (`rank 3`); members known only by pid are left out."""
    return [int(label[5:]) for label in members if label.startswith("rank ")]


def ranks_label(labels: Sequence[str]) -> str:
    """`ranks 0-2, 4` / `rank 3` / `pid 1234`: the members of a class in words."""
    numbers = member_ranks(labels)
    others = [label for label in labels if not label.startswith("rank ")]
    words = []
    if numbers:
        words.append(("ranks " if len(numbers) > 1 else "rank ") + rank_list(numbers, span_pairs=True))
    words += others
    return ", ".join(words)


def user_frame(frames: Sequence[Frame]) -> Frame | None:
    """The innermost frame of the user's code (frames are innermost first)."""
    return next((f for f in frames if f.user), None)


def called_frame(frames: Sequence[Frame]) -> Frame | None:
    """The library function the user's innermost frame called (decorator frames skipped)."""
    python = [f for f in frames if not f.native]
    for index, frame in enumerate(python):
        if frame.user:
            inner = python[:index]
            for candidate in reversed(inner):
                if candidate.function.rsplit(".", 1)[-1] not in _WRAPPERS:
                    return candidate
            return inner[-1] if inner else None
    return python[0] if python else None


def collective_of(frames: Sequence[Frame]) -> str | None:
    """The collective a stack waits in (outermost match), e.g. `all_reduce`, or None."""
    for frame in reversed(frames):
        name = None if frame.native else collective_name(frame.function, frame.file)
        if name is not None:
            return name
    return None


def _in_dataloader(frames: Sequence[Frame]) -> bool:
    return any("torch/utils/data/" in f.file for f in frames if not f.native)


@dataclass(frozen=True)
class StackClass:
    """Ranks whose main threads have the same stack (an equivalence class)."""

    members: tuple[str, ...]
    frames: tuple[Frame, ...]
    collective: str | None
    call: Frame | None
    user: Frame | None
    helper_user: Frame | None = None

    @property
    def label(self) -> str:
        """The members in words, e.g. `ranks 0-2, 4-7`."""
        return ranks_label(self.members)

    @property
    def summary(self) -> str:
        """`all_reduce in train.py:57 train_step` or `__next__ in torch/utils/data/dataloader.py, called from train.py:49 main`."""
        if not self.frames:
            return "no Python stack"
        where = f"{self.user.location} {self.user.function}" if self.user else None
        if self.collective is not None and where:
            text = f"{self.collective} in {where}"
        elif self.call is not None and where:
            text = f"{self.call.function} in {self.call.short_file}, called from {where}"
        elif where:
            text = f"in {where}"
        else:
            text = f"{self.frames[0].function} in {self.frames[0].location}"
        if self.helper_user is not None:
            text += f"; its worker process is in {self.helper_user.location} {self.helper_user.function}"
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "members": list(self.members),
            "ranks": member_ranks(self.members),
            "summary": self.summary,
            "collective": self.collective,
            "call": None if self.call is None else self.call.to_dict(),
            "user_frame": None if self.user is None else self.user.to_dict(),
            "helper_user_frame": None if self.helper_user is None else self.helper_user.to_dict(),
            "frames": [f.to_dict() for f in self.frames],
        }


@dataclass
class TreeNode:
    """A node of the merged prefix tree: one frame and the ranks whose stacks pass through it."""

    frame: Frame
    members: list[str] = field(default_factory=list)
    children: list[TreeNode] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "frame": self.frame.to_dict(),
            "members": list(self.members),
            "children": [c.to_dict() for c in self.children],
        }


@dataclass(frozen=True)
class Suspect:
    """A rank (or ranks) whose situation differs from the others', with the reason and KB links."""

    members: tuple[str, ...]
    reason: str
    message: str
    user: Frame | None
    entries: tuple[str, ...]

    @property
    def label(self) -> str:
        """The members in words."""
        return ranks_label(self.members)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "members": list(self.members),
            "ranks": member_ranks(self.members),
            "reason": self.reason,
            "message": self.message,
            "user_frame": None if self.user is None else self.user.to_dict(),
            "entries": list(self.entries),
        }


@dataclass(frozen=True)
class StackAnalysis:
    """The merged view of all ranks: tree, classes, suspects, and ranks that are gone."""

    tree: tuple[TreeNode, ...]
    classes: tuple[StackClass, ...]
    suspects: tuple[Suspect, ...]
    gone: tuple[int, ...]
    unreadable: tuple[str, ...]


def _main_frames(stacks: ProcessStacks) -> tuple[Frame, ...]:
    thread = stacks.main_thread
    return thread.frames if thread is not None else ()


def build_tree(paths: Sequence[tuple[str, tuple[Frame, ...]]]) -> list[TreeNode]:
    """The STAT prefix tree of `(member, frames innermost first)` paths."""
    roots: list[TreeNode] = []
    for member, frames in paths:
        level = roots
        for frame in reversed(frames):
            node = next((n for n in level if n.frame == frame), None)
            if node is None:
                node = TreeNode(frame)
                level.append(node)
            node.members.append(member)
            level = node.children
    return roots


def _helper_user_frame(stacks: ProcessStacks) -> Frame | None:
    """The user's code a helper process (a data-loader worker) is in, below its worker loop.

    A forked worker's stack still shows the parent's frames above the loop; they say nothing.
    """
    for helper in stacks.helpers:
        frames = _main_frames(helper)
        loop = next((i for i, f in enumerate(frames) if f.function.endswith("_worker_loop")), len(frames))
        frame = user_frame(frames[:loop])
        if frame is not None:
            return frame
    return None


def _classes(stacks: Sequence[ProcessStacks]) -> list[StackClass]:
    groups: dict[tuple[Frame, ...], list[ProcessStacks]] = {}
    for item in stacks:
        frames = _main_frames(item)
        if frames:
            groups.setdefault(frames, []).append(item)
    classes = []
    for frames, members in groups.items():
        classes.append(
            StackClass(
                members=tuple(m.process.label for m in members),
                frames=frames,
                collective=collective_of(frames),
                call=called_frame(frames),
                user=user_frame(frames),
                helper_user=next((f for f in map(_helper_user_frame, members) if f is not None), None),
            )
        )
    # Largest class first; ties by the first member.
    return sorted(classes, key=lambda c: (-len(c.members), c.members))


def _gone_ranks(stacks: Sequence[ProcessStacks]) -> list[int]:
    seen = [s.process for s in stacks if s.process.rank is not None]
    sized = [p for p in seen if p.local_world_size and p.local_rank is not None and p.rank is not None]
    if sized:
        base = sized[0]
        assert base.rank is not None and base.local_rank is not None and base.local_world_size is not None
        first = base.rank - base.local_rank
        present = {p.local_rank for p in sized}
        return [first + local for local in range(base.local_world_size) if local not in present]
    sizes = [p.world_size for p in seen if p.world_size]
    if sizes:
        present_ranks = {p.rank for p in seen}
        return [r for r in range(max(sizes)) if r not in present_ranks]
    return []


def _suspect(cls: StackClass, reason: str, message: str) -> Suspect:
    if reason == "not-in-collective" and cls.call is not None and _in_dataloader(cls.frames):
        reason = "dataloader"
    return Suspect(cls.members, reason, message, cls.user, KB_LINKS[reason])


def _where(classes: Sequence[StackClass]) -> str:
    """`rank 0 waits in all_reduce; ranks 2-3 wait in barrier`."""
    return "; ".join(
        f"{c.label} {'waits' if len(c.members) == 1 else 'wait'} in {c.collective}" for c in classes
    )


def _suspects(classes: Sequence[StackClass], gone: Sequence[int]) -> list[Suspect]:
    suspects: list[Suspect] = []
    waiting = [c for c in classes if c.collective is not None]
    idle = [c for c in classes if c.collective is None]
    if waiting and idle:
        for cls in idle:
            message = f"not in a collective while {_where(waiting)}: {cls.summary}"
            suspects.append(_suspect(cls, "not-in-collective", message))
    ops = {c.collective for c in waiting if c.collective is not None}
    if len(ops) > 1:
        counts = {op: sum(len(c.members) for c in waiting if c.collective == op) for op in ops}
        ending = {"barrier", "monitored_barrier"}
        if ops & ending and ops - ending:
            odd = {op for op in ops if op in ending}
            reason = "left-loop"
        else:
            fewest = min(counts.values())
            odd = {op for op, n in counts.items() if n == fewest}
            reason = "different-collective"
        for cls in waiting:
            if cls.collective in odd:
                others = [c for c in waiting if c.collective != cls.collective]
                message = f"in a different collective ({_where(others)}): {cls.summary}"
                if reason == "left-loop":
                    message += "; it left the loop early (uneven batches or a rank-conditional break)"
                suspects.append(_suspect(cls, reason, message))
    elif len(waiting) > 1 and not idle:
        suspects += _minority(waiting, "the same collective from a different place")
    elif not waiting and len(idle) > 1:
        suspects += _minority(idle, "a minority stack")
    if gone:
        members = tuple(f"rank {r}" for r in gone)
        message = f"{ranks_label(members)}: no longer running (exited, killed, or never started)"
        suspects.append(Suspect(members, "gone", message, None, KB_LINKS["gone"]))
    return suspects


def _minority(classes: Sequence[StackClass], what: str) -> list[Suspect]:
    smallest = min(len(c.members) for c in classes)
    if all(len(c.members) == smallest for c in classes):
        return []
    return [_suspect(c, "minority", f"{what}: {c.summary}") for c in classes if len(c.members) == smallest]


def analyse(stacks: Sequence[ProcessStacks]) -> StackAnalysis:
    """Merge the stacks of every rank: prefix tree, equivalence classes, suspects and gone ranks."""
    readable = [s for s in stacks if _main_frames(s)]
    tree = build_tree([(s.process.label, _main_frames(s)) for s in readable])
    classes = _classes(readable)
    gone = _gone_ranks(stacks)
    return StackAnalysis(
        tree=tuple(tree),
        classes=tuple(classes),
        suspects=tuple(_suspects(classes, gone)),
        gone=tuple(gone),
        unreadable=tuple(
            f"{s.process.label}: {s.error or 'no main thread'}" for s in stacks if not _main_frames(s)
        ),
    )


def same_collective_note(analysis: StackAnalysis) -> str | None:
    """When every rank waits in one collective at one place, the hang is below Python; say so."""
    if len(analysis.classes) == 1 and analysis.classes[0].collective and not analysis.gone:
        return (
            f"every rank waits in {analysis.classes[0].collective} at the same place: the collective itself "
            "does not complete (network, NCCL, a device, or a rank of another node)"
        )
    return None
