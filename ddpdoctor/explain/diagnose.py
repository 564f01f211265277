"""From observations to the report: timeline, analysers, verdict, then the typed root cause.

This module only assembles: the reasoning lives in :mod:`timeline` (merging and ordering),
:mod:`analyse` (candidates with reasons), :mod:`verdict` (the culprit, victims, confidence) and
:mod:`advice` (numbers turned into sentences).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ddpdoctor.explain import advice
from ddpdoctor.explain.analyse import (
    CONSEQUENCE,
    Candidate,
    candidates,
    ended_without_a_word,
    stalled,
    vanished_while_taking,
)
from ddpdoctor.explain.attempts import attempts
from ddpdoctor.explain.index import IndexEntry, KbIndex
from ddpdoctor.explain.observations import (
    SIGNAL_NAMES,
    AgentSignalObs,
    ExceptionObs,
    ExitObs,
    InterfaceObs,
    LeadObs,
    Link,
    MembershipObs,
    Observation,
    ProgressObs,
    RecentLineObs,
    StackDumpObs,
    StallObs,
)
from ddpdoctor.explain.ranks import rank_list
from ddpdoctor.explain.report import (
    MAX_EVIDENCE,
    ChainLink,
    ExplainReport,
    RootCause,
    UserFrame,
    Victim,
    event_finding,
    short,
)
from ddpdoctor.explain.timeline import Timeline
from ddpdoctor.explain.verdict import Verdict, decide, nccl_warn_for
from ddpdoctor.explain.wording import numberless, without_source_preamble
from ddpdoctor.findings import Evidence, Finding, Severity

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import Any

REPORT_URL = "https://github.com/ddpdoctor/ddpdoctor/issues"
_PLACEHOLDER = re.compile(r"\{(\w{1,40})\}")
_GENERIC_SOLUTIONS = (
    "Read the evidence line: it is the first error the logs show; the other ranks' errors are usually "
    "consequences of it.",
    "If it was raised from your code (see 'your code'), fix it there; reproduce on a single device first.",
)
_LEFT_EARLY_SOLUTIONS = (
    "Make every rank run the same steps and collectives to the end: decide to stop on every rank at once"
    " (all_reduce the stop flag, or broadcast rank 0's decision), and give each rank the same number of"
    " batches (`DistributedSampler(drop_last=True)`, or DDP's `Join` context for uneven inputs).",
    "Look at the rank's last lines before it left (the evidence): a loop that ended early on that rank only.",
)
_INTERFACE_SOLUTIONS = (
    "Set NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) to the interface the hosts reach each other on (`ip -br"
    " addr` on each node: for example `eth0` or `ib0`), or leave out the local ones (`NCCL_SOCKET_IFNAME=^lo,docker0`).",
    "Check that MASTER_ADDR resolves to that interface's address on every node, not to 127.0.0.1 (`getent hosts"
    " $MASTER_ADDR`).",
)
_LOST_PEER_SOLUTIONS = (
    "Find out how the rank that went away ended: its last lines, its exit code in the launcher's table of"
    " failures, and the kernel's log on its node for the out-of-memory killer (`dmesg -T | grep -i 'killed"
    " process'`).",
    "Keep every rank's whole output (torchrun --log-dir DIR --tee 3, or the launcher's per-rank logs): the"
    " other ranks' lost connections are consequences of it.",
)
_HOST_KILL_SOLUTIONS = (
    "Confirm how the rank ended: torchrun's console output reports its exit code (-9 for SIGKILL), and the"
    " kernel's log on its node names what the out-of-memory killer stopped (`dmesg -T | grep -i 'killed"
    " process'`, `journalctl -k`).",
    "Bound what the killed rank holds in host memory where its output stops: shard or stream the data,"
    " memory-map it, or free what it no longer needs.",
    "Keep the launcher's output beside the per-rank files (torchrun --log-dir DIR --tee 3, and the console):"
    " the per-rank files alone do not record how each process ended.",
)
_STALL_SOLUTIONS = (
    "See where each rank waits while it hangs: `ddpdoctor stacks` (or `py-spy dump --pid PID` on every"
    " rank's process); the rank that is not where the others are is the one they wait for.",
    "Make the hang end with an error that names the collective and the ranks: pass a timeout to"
    " `init_process_group(timeout=timedelta(minutes=5))` and run with TORCH_DISTRIBUTED_DEBUG=DETAIL,"
    " NCCL_DEBUG=INFO (and TORCH_NCCL_ASYNC_ERROR_HANDLING=1).",
    "Across hosts, test the network NCCL chose: NCCL_SOCKET_IFNAME set to the interface the hosts reach"
    " each other on, NCCL_IB_DISABLE=1 to rule out InfiniBand/RoCE, NCCL_P2P_DISABLE=1 for peer-to-peer"
    " transfers on one host; `all_reduce_perf` from nccl-tests on the same hosts checks NCCL alone.",
)
_SOLUTIONS_OF_KIND = {
    "host-kill": _HOST_KILL_SOLUTIONS,
    "stall": _STALL_SOLUTIONS,
    "interface": _INTERFACE_SOLUTIONS,
    "left-early": _LEFT_EARLY_SOLUTIONS,
    "lost-peer": _LOST_PEER_SOLUTIONS,
}


def diagnose(
    observations: Iterable[Observation],
    world_hints: Iterable[int],
    index: KbIndex,
    input_ranks: Iterable[int] = (),
    launcher_folder: bool = False,
) -> tuple[Timeline, Verdict]:
    """The timeline of every observation and the verdict over it (`input_ranks`: ranks whose files were read;
    `launcher_folder`: they are a launcher's per-rank files, torchrun's `--log-dir`, which keep what the
    processes printed and not how they ended).

    When the launcher restarted the workers, the first failure still set everything off (the restarted
    attempts fail again, or on what the failed attempt left behind: a lock file, a half-written
    checkpoint, a port still taken); how the last attempt failed is told among the reasons."""
    observations = list(observations)
    world_hints, input_ranks = list(world_hints), list(input_ranks)
    numbers = attempts(observations)
    if numbers is None:
        return _diagnose_one(observations, world_hints, index, input_ranks, launcher_folder)
    last = max(numbers)
    import copy  # (only restarted jobs need it: kept off the cold start)

    # (copies: reading observations merges and marks them, and the whole verdict reads them next)
    final = [copy.deepcopy(obs) for obs, n in zip(observations, numbers, strict=True) if n == last]
    ended = _diagnose_one(final, world_hints, index, input_ranks, launcher_folder)[1].culprit
    timeline, verdict = _diagnose_one(observations, world_hints, index, input_ranks, launcher_folder)
    if verdict.culprit is None:
        return timeline, verdict
    said = f"the launcher restarted the workers {last} time(s)"
    if ended is None or numberless(ended.obs.text) == numberless(verdict.culprit.obs.text):
        said += ": the last attempt failed the same way"
    else:
        whose = f"rank {ended.rank}" if ended.rank is not None else "no rank named"
        said += f"; the last attempt then failed with: {short(ended.obs.text)} ({whose})"
    verdict.why.append(said)
    return timeline, verdict


def _diagnose_one(
    observations: list[Observation],
    world_hints: list[int],
    index: KbIndex,
    input_ranks: list[int],
    launcher_folder: bool,
) -> tuple[Timeline, Verdict]:
    """The timeline and verdict of one attempt's observations (or of all, when read as one).

    Lines that only say something failed (:class:`LeadObs`) are weighed only when nothing else is a
    failure, and after them warnings whose words the knowledge base knows as a failure: a log with a
    failure in it never gets "no failure found"."""
    leads = [obs for obs in observations if isinstance(obs, LeadObs)]
    timeline = Timeline(
        [obs for obs in observations if not isinstance(obs, LeadObs)], world_hints, input_ranks
    )
    found = candidates(timeline, index)
    if not found and leads:
        timeline = Timeline(observations, world_hints, input_ranks)
        found = candidates(timeline, index)
    if not found and (stated := [obs for obs in timeline.warnings if _states_a_failure(obs)]):
        # Nothing failed but a warning whose words are a known failure (FSDP's `UserWarning: Failed to
        # clone() ... Error: CUDA out of memory`): the warning is the only account of it.
        for obs in stated:
            obs.warning = False
        timeline = Timeline(observations, world_hints, input_ranks)
        found = candidates(timeline, index)
        warned = {id(obs) for obs in stated}
        for cand in found:
            if id(cand.obs) in warned:
                cand.strength = min(cand.strength, 1)
                cand.reasons.append(
                    "only a warning says it: the program went on, and nothing else in the logs failed"
                )
    if not found and len(set(input_ranks)) > 1:
        found = vanished_while_taking(timeline)
    if not found:
        # In a launcher's per-rank files, where the processes were ended by it, a phase the output stops
        # in says less than how they ended (ended_without_a_word).
        found = stalled(timeline, phases=not launcher_folder)
    if not found and launcher_folder:
        found = ended_without_a_word(timeline)
    return timeline, decide(timeline, found)


def _states_a_failure(obs: Observation) -> bool:
    """A warning whose message the knowledge base knows as the root of a failure, not as a warning."""
    entry = obs.known()
    return entry is not None and entry.kind == "root" and not entry.id.endswith("-warning")


def build_report(
    timeline: Timeline, verdict: Verdict, inputs: list[dict[str, Any]], engine: str
) -> ExplainReport:
    """The typed report of a verdict (JSON contract plus findings)."""
    report = ExplainReport(
        inputs=inputs,
        stats={
            "engine": engine,
            "events": len(timeline.failures) + len(timeline.exits),
            "world_size": timeline.world_size,
        },
    )
    findings: list[Finding] = []
    culprit = verdict.culprit
    if culprit is not None:
        root = _root_cause(culprit, verdict, timeline)
        report.root_cause = root
        findings.append(
            Finding(
                id="explain.root-cause",
                severity=Severity.ERROR,
                category=root.category,
                title=root.headline,
                message=root.text,
                rank=root.rank,
                evidence=root.evidence,
                entry=root.entry,
                solutions=root.solutions,
                data={
                    "kind": root.kind,
                    "confidence": root.confidence,
                    "chain": [c.to_dict() for c in root.chain],
                },
            )
        )
        for cand, role in verdict.victims:
            victim = _victim(cand, role)
            report.victims.append(victim)
            findings.append(_finding(cand, f"explain.{role}", Severity.WARNING))
    shown = {id(culprit.obs)} if culprit is not None else set()
    shown |= {id(cand.obs) for cand, _ in verdict.victims}
    for obs in [*timeline.all_failures(), *timeline.warnings]:
        if id(obs) not in shown:
            entry = obs.known()
            findings.append(
                event_finding(
                    "explain.warning" if obs.warning else "explain.event",
                    Severity.WARNING if obs.warning else Severity.INFO,
                    category=entry.category if entry else "other",
                    title=render_title(entry, obs) if entry else short(obs.innermost_text()[:200]),
                    message=obs.text,
                    rank=obs.rank,
                    evidence=obs.evidence,
                    entry=entry.id if entry else None,
                )
            )
    report.findings = findings
    return report


def render_title(entry: IndexEntry, obs: Observation) -> str:
    """The entry's title with the captured values in place of its placeholders, when all are known."""
    groups = obs.groups()
    missing = [name for name in _PLACEHOLDER.findall(entry.title) if not groups.get(name)]
    if missing:
        return entry.title
    return _PLACEHOLDER.sub(lambda m: groups[m.group(1)].strip(), entry.title)


def _headline(cand: Candidate) -> str:
    obs = cand.obs
    who = (
        f"rank {cand.rank}"
        if cand.rank is not None
        else (
            ("ranks " if len(cand.suspects) > 1 else "suspect rank ") + rank_list(cand.suspects)
            if cand.suspects
            else ""
        )
    )
    if (
        isinstance(obs, ExitObs)
        and cand.kind in ("host-kill", "crash", "exit", "symptom")
        and obs.code is not None
    ):
        sig = obs.signal
        subject = who or "a process"
        if sig is not None:
            return f"{subject} was killed by {SIGNAL_NAMES.get(sig, f'signal {sig}')} (exit {obs.code})"
        return f"{subject} exited with code {obs.code} and printed no error"
    if cand.kind == "host-kill" and isinstance(obs, (ProgressObs, RecentLineObs)):
        if not who:
            return (
                "no process printed an error or said it finished, most likely one was killed for host memory:"
                f" the output stops at `{_first_sentences(obs.text, 100)}`"
            )
        subject = who
        return f"{subject} most likely ran out of host memory: its output stops at `{_first_sentences(obs.text, 100)}`"
    if cand.kind == "stall" and isinstance(obs, StallObs):
        said = _first_sentences(obs.text, 100)
        if obs.stage == "collective":
            return f"the output stops in a collective with no error after it, most likely a hang: `{said}`"
        if obs.stage == "teardown":
            return f"the output stops as NCCL tears its communicators down, most likely a hang on the way out: `{said}`"
        if obs.stage == "phase":
            return f"the output stops as the job starts a phase, with no progress or error after it, most likely a hang: `{said}`"
        if obs.stage == "progress":
            return f"the output stops part-way through the run, with no error after it, most likely a hang: `{said}`"
        if obs.stage == "membership":
            return (
                f"the output stops while the processes join the process group, most likely a hang: `{said}`"
            )
        return f"the output stops in NCCL's set-up with no error after it, most likely a hang: `{said}`"
    if cand.kind == "straggler":
        subject = who or "a rank"
        if isinstance(cand.stated, RecentLineObs) and cand.stated.error_record:
            return f"{subject}: {_first_sentences(cand.stated.text)}; the other ranks then waited for it"
        return f"{subject} stopped taking part in collectives; the other ranks timed out waiting for it"
    if cand.kind == "left-behind":
        subject = who or "a rank"
        return f"{subject} was still in a collective after every other rank had finished: it had more batches"
    if cand.left_early:
        subject = who or "a rank"
        said = (
            f"; its last word: {_first_sentences(cand.stated.text, 100)}" if cand.stated is not None else ""
        )
        return f"{subject} left the job while the other ranks still ran collectives{said}"
    if cand.kind == "lost-peer":
        subject = who or "a rank"
        if isinstance(cand.stated, AgentSignalObs):
            return (
                f"a launcher's agent was sent signal {cand.stated.signal} and shut its workers down; the other"
                " ranks lost their connection to them"
            )
        if cand.category == "oom_host" and cand.stated is not None:
            return (
                f"{subject} vanished without an error, most likely killed by the host's out-of-memory killer:"
                f" its output stops at `{_first_sentences(cand.stated.text, 100)}`"
            )
        if cand.stated is not None:
            return f"{subject}: {_first_sentences(cand.stated.text)}"
        them = "them" if cand.rank is None and len(cand.suspects) > 1 else "it"
        return f"{subject} went away first, without an error; the other ranks lost their connection to {them}"
    if cand.kind == "interface" and isinstance(obs, InterfaceObs):
        return f"NCCL connects over {obs.interface} ({obs.address}), which ranks on other hosts cannot reach"
    if cand.kind == "mismatch":
        return f"{who or 'the ranks'}: ran a different collective than the other ranks"
    if cand.kind == "membership" and isinstance(obs, MembershipObs) and obs.device is not None:
        return f"ranks {rank_list(obs.duplicated)} run on the same GPU (bus id {obs.device})"
    if cand.kind == "membership" and isinstance(obs, MembershipObs) and obs.joined is not None:
        return (
            f"{obs.joined} of {obs.world} processes joined the store-based barrier that starts the process"
            " group: it can never complete"
        )
    if cand.kind == "membership" and isinstance(obs, MembershipObs):
        return (
            f"two processes claimed each of global ranks {short(', '.join(map(str, obs.duplicated)))}"
            f" and none claimed {short(', '.join(map(str, obs.missing)))}: the process group cannot form"
        )
    message = _first_sentences(without_source_preamble(obs.innermost_text().strip()))
    return f"{who}: {message}" if who else message


def _first_sentences(text: str, limit: int = 160) -> str:
    """The message up to the end of the sentence that passes 40 characters (at most `limit`)."""
    end = text.find(". ", 60)
    if 0 < end < limit:
        return text[: end + 1]
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _root_cause(cand: Candidate, verdict: Verdict, timeline: Timeline) -> RootCause:
    obs = cand.obs
    entry = cand.entry
    chain = list(obs.chain) or [Link(entry, obs.text)]
    chain = _outer_wrappers(cand, timeline) + chain
    exc = obs if isinstance(obs, (ExceptionObs, StackDumpObs)) and _own_report(cand) else None
    frame = exc.user_frame() if exc else None
    frames = (
        (exc.worker_frames or exc.frames) if isinstance(exc, ExceptionObs) else (exc.frames if exc else [])
    )
    innermost = frames[-1] if frames else None
    exit_code = obs.code if isinstance(obs, ExitObs) else _exit_code_of(cand.rank, timeline)
    stated = cand.stated or nccl_warn_for(cand, timeline) or obs.nccl_detail() or obs.raised or obs
    return RootCause(
        entry=entry.id if entry else None,
        category=cand.category,
        rank=cand.rank,
        file=stated.file,
        line=stated.line,
        text=stated.text,
        headline=_headline(cand),
        title=render_title(entry, obs) if entry else _unknown_title(cand),
        kind=cand.kind,
        confidence=verdict.confidence,
        why=tuple(verdict.why),
        chain=tuple(ChainLink(link.entry.id if link.entry else None, short(link.text)) for link in chain),
        solutions=(
            tuple(entry.solutions)
            if entry
            else _SOLUTIONS_OF_KIND.get("left-early" if cand.left_early else cand.kind, _GENERIC_SOLUTIONS)
        ),
        advice=tuple(_advice(cand, verdict, timeline)),
        status=entry.status if entry else None,
        rank_note=cand.rank_note or obs.rank_note or _local_note(obs),
        rank_source=obs.rank_source,
        local_rank=obs.local_rank,
        frame=innermost.where() if innermost else None,
        user_frame=UserFrame(frame.file, frame.line, frame.function, frame.code) if frame else None,
        thread=exc.thread if exc else None,
        exit_code=exit_code,
        suspect_ranks=tuple(cand.suspects),
        evidence=tuple(
            Evidence(short(t), f, n)
            for f, n, t in ([] if stated is obs else stated.evidence[:1]) + obs.evidence[:MAX_EVIDENCE]
        ),
        example_fix=dict(entry.fix) if entry else None,
    )


def _own_report(cand: Candidate) -> bool:
    """Whether the candidate's observation is the culprit's own report. An inferred culprit (a
    straggler, a lost peer) is known through another rank's report: that report's exception and
    frames are the victim's, not the culprit's."""
    return cand.kind != "lost-peer" and (cand.rank is None or cand.obs.rank == cand.rank)


def _unknown_title(cand: Candidate) -> str:
    obs = cand.obs
    if isinstance(obs, ExceptionObs) and obs.exc_type and _own_report(cand):
        return f"{obs.exc_type} (not in the knowledge base)"
    return _headline(cand)


def _local_note(obs: Observation) -> str | None:
    if obs.local_rank and obs.rank is not None:
        return f"{obs.rank} is a node-local rank (the launcher's numbering on that node)"
    return None


def _exit_code_of(rank: int | None, timeline: Timeline) -> int | None:
    if rank is None:
        return None
    codes = [e.code for e in timeline.exits if e.rank == rank and e.code is not None]
    return codes[0] if codes else None


def _outer_wrappers(cand: Candidate, timeline: Timeline) -> list[Link]:
    """Launcher wrappers (ChildFailedError, DeepSpeed, Accelerate) in front of the chain, outermost first."""
    present = {link.entry.id for link in cand.obs.chain if link.entry is not None}
    outer: list[Link] = []
    reports = sorted(timeline.all_failures(), key=lambda o: (o.file_index, o.line, o.seq), reverse=True)
    for obs in reports:
        if obs is cand.obs or (obs.rank is not None and obs.rank != cand.rank):
            continue
        for link in obs.chain:
            if link.entry is not None and link.entry.kind == "wrapper" and link.entry.id not in present:
                present.add(link.entry.id)
                outer.append(link)
    return outer


def _advice(cand: Candidate, verdict: Verdict, timeline: Timeline) -> list[str]:
    out: list[str] = []
    if cand.category == "oom_gpu":
        out += advice.oom_advice(cand)
    if cand.category == "duplicate_device":
        out += advice.duplicate_advice(cand)
    if cand.category in ("collective_timeout", "collective_mismatch"):
        out += advice.collective_advice(cand, timeline)
    if cand.kind == "host-kill":
        out += advice.kill_advice(cand)
    if cand.kind == "left-behind":
        out += advice.uneven_advice(cand)
    out += advice.interface_advice(cand)
    if cand.kind == "exit":
        out += advice.exit_advice(cand, timeline)
    if cand.kind == "membership":
        out += advice.membership_advice(cand)
    if cand.tier < CONSEQUENCE:
        out += advice.consequence_note(cand, verdict.candidates)
    out += advice.notes(cand.obs)
    # (an interface or a lost peer is inferred from known messages: no unknown one to report)
    if (
        cand.entry is None
        and cand.category in ("other", "nccl_error")
        and cand.kind not in ("interface", "lost-peer")
    ):
        out.append(
            f"ddpdoctor does not know this message yet: report it at {REPORT_URL} (`--format markdown`)."
        )
    return out


def _victim(cand: Candidate, role: str) -> Victim:
    obs = cand.obs
    return Victim(
        rank=cand.rank,
        category=cand.category,
        entry=cand.entry.id if cand.entry else None,
        file=obs.file,
        line=obs.line,
        text=obs.text,
        role=role,
        exit_code=obs.code if isinstance(obs, ExitObs) else None,
    )


def _finding(cand: Candidate, finding_id: str, severity: Severity) -> Finding:
    obs = cand.obs
    return event_finding(
        finding_id,
        severity,
        category=cand.category,
        title=render_title(cand.entry, obs) if cand.entry else short(obs.innermost_text()[:200]),
        message=obs.text,
        rank=cand.rank,
        evidence=obs.evidence,
        entry=cand.entry.id if cand.entry else None,
        data={"kind": cand.kind, "reasons": list(cand.reasons)},
    )
