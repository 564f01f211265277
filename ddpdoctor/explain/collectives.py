"""The collective-operation facts a line states: watchdog reports, desync reports, gloo timeouts.

This is the recognizer for the lines in which the communication layer talks about a collective:
PyTorch's NCCL watchdog (`WorkNCCL(SeqNum=.., OpType=.., NumelIn=.., Timeout(ms)=..)`), its desync
and Flight Recorder summaries (`ranks [3] are the lagging ranks`, `[2] joined but didn't finish
collective #7`), `TORCH_DISTRIBUTED_DEBUG=DETAIL` fingerprints (`Rank 1 is running collective:
CollectiveFingerPrint(SequenceNumber=.., OpType=..)`), gloo's own timeouts, monitored barriers, and
the last enqueued/completed sequence numbers. Each number is read with bounded digits.
"""

from __future__ import annotations

from ddpdoctor.explain.ranks import bounded_int, bounded_rank
from ddpdoctor.matching import LazyRegex
from ddpdoctor.records import Record, field

# The Work's fields; a line cut off after any of them still gives those it shows.
_WORK = LazyRegex(
    r"WorkNCCL\((?:SeqNum=(?P<seq>\d{1,19}), )?OpType=(?P<op>\w{1,40})\b"
    r"(?:, NumelIn=(?P<numel>\d{1,19})\b)?(?:[^)]{0,300}?Timeout\(ms\)=(?P<timeout>\d{1,12})\b)?"
)
_WATCHDOG = LazyRegex(
    r"Watchdog caught collective operation timeout|ran for \d{1,19} milliseconds before timing out"
)
_RANK_TAG = LazyRegex(r"\[(?:PG [^\]]{0,200}?)?Rank (\d{1,7})\]")
_LAST = LazyRegex(r"last (enqueued|completed) (?:NCCL )?work: (-?\d{1,19})")
_FINGERPRINT = LazyRegex(
    r"Rank (\d{1,7}) is running collective: CollectiveFingerPrint\((?:[^()]|\([^()]*\)){0,2000}?"
    r"(?:SequenceNumber=(\d{1,19}), )?OpType=(\w{1,40})"
)
_FINGERPRINT_OTHER = LazyRegex(
    r"but Rank (\d{1,7}) is running collective: CollectiveFingerPrint\((?:[^()]|\([^()]*\)){0,2000}?"
    r"(?:SequenceNumber=(\d{1,19}), )?OpType=(\w{1,40})"
)
_LAGGING = LazyRegex(r"ranks \[([\d, ]{1,4000})\] are the lagging ranks")
_JOINED = LazyRegex(r"\[([\d, ]{1,4000})\] joined but didn't finish collective #(\d{1,19})")
_FINISHED = LazyRegex(r"\[([\d, ]{1,4000})\] finished collective #(\d{1,19}), but didn't join")
_MONITORED = LazyRegex(r"Ranks? ([\d, ]{1,4000}?) failed to pass monitoredBarrier")
_BARRIER_PEER = LazyRegex(r"waiting for send/recv from rank (\d{1,7})")
_MISSING = LazyRegex(r"missing ranks:? ?[\{\[]?([\d, ]{1,4000})[\}\]]?")
_READY = LazyRegex(r"\[ready ranks: ([\d, ]{1,4000})\]")
# A store wait that timed out on the key gloo's full-mesh rendezvous waits for: the last part of
# `.../default_pg/0//cpu//0/1` (PG prefix, device type, context index, peer) is the rank whose
# address never arrived, the rank that did not join.
_GLOO_PEER_KEY = LazyRegex(
    r"wait timeout after \d{1,12}ms, keys: \S{0,300}?//[a-z]{1,20}//\d{1,4}/(\d{1,7})\b"
)
# JAX's and TensorFlow's coordination service naming the task (process) that stopped answering:
# `Task /job:jax_worker/replica:0/task:37 heartbeat timeout`, `.../task:37 has been set to ERROR`.
_TASK_DOWN = LazyRegex(
    r"/job:\w{1,60}/replica:\d{1,5}/task:(\d{1,7})\b[^\n]{0,60}?(?:heartbeat timeout|has been set to ERROR)"
)
_STALL = LazyRegex(r"submitted to be reduced, gathered or broadcasted by subset of ranks|[Ss]talled ranks:")
_GLOO_TIMEOUT = LazyRegex(
    # gloo's wording, also when a terminal wrapped the line right after `ms`.
    r"Timed out waiting (\d{1,12})ms(?: for (?:recv|send) operation| ?(?:f|fo|for)?\s*$)|Socket Timeout|"
    r"Timed out (?:waiting|after) [^\n]{0,80}(?:barrier|all_?reduce|broadcast|allgather)",
)
_AT_SEQ = LazyRegex(
    r"[Rr]ank (\d{1,7})\D{1,40}?(?:sequence(?: number)?|seq(?:Num)?|SeqNum|collective #)\s*[=:]?\s*(\d{1,19})"
)
MAX_NAMED = 4096  # ranks kept from one list in a message


class CollectiveFacts(Record):
    """What one line says about a collective."""

    state: str  # timeout, mismatch, desync, missing
    op: str | None = None
    seq: int | None = None
    numel: int | None = None
    timeout_ms: int | None = None
    reporter: int | None = None  # the rank the message says it is about (`[Rank 3] Watchdog ...`)
    last_completed: int | None = None
    named_ranks: list[int] = field(default_factory=list)
    named_seq: dict[int, int] = field(default_factory=dict)
    named_ops: dict[int, str] = field(default_factory=dict)


def _ranks(text: str) -> list[int]:
    out: list[int] = []
    for part in text.replace(" ", "").split(","):
        rank = bounded_rank(part)
        if rank is not None and rank not in out:
            out.append(rank)
        if len(out) >= MAX_NAMED:
            break
    return out


def monitored_barrier_role(text: str) -> str | None:
    """Who printed a monitored barrier's report: `coordinator` (rank 0, which waits for every other rank
    and names those that did not arrive) or `peer` (a rank whose exchange with rank 0 failed)."""
    if "monitoredBarrier" not in text:
        return None
    if _MONITORED.search(text):
        return "coordinator"
    return "peer" if _BARRIER_PEER.search(text) else None


def collective_facts(text: str) -> CollectiveFacts | None:
    """The collective facts of one line, or None when it states none."""
    if "Rank" in text and "CollectiveFingerPrint" in text and (m := _FINGERPRINT.search(text)):
        facts = CollectiveFacts("mismatch")
        for found in (m, _FINGERPRINT_OTHER.search(text)):
            if found is None:
                continue
            rank = bounded_rank(found.group(1))
            if rank is None:
                continue
            facts.named_ops[rank] = found.group(3)
            seq = bounded_int(found.group(2))
            if seq is not None:
                facts.named_seq[rank] = seq
        facts.op = m.group(3)
        return facts
    if "lagging" in text or "collective #" in text:
        facts = CollectiveFacts("desync")
        if m := _LAGGING.search(text):
            facts.named_ranks = _ranks(m.group(1))
        if m := _JOINED.search(text):
            facts.named_ranks += [r for r in _ranks(m.group(1)) if r not in facts.named_ranks]
            facts.seq = bounded_int(m.group(2))
        if m := _FINISHED.search(text):
            facts.named_ranks += [r for r in _ranks(m.group(1)) if r not in facts.named_ranks]
            facts.seq = bounded_int(m.group(2))
        if facts.named_ranks:
            return facts
    if "monitoredBarrier" in text and (m := _MONITORED.search(text)):
        return CollectiveFacts("missing", op="BARRIER", named_ranks=_ranks(m.group(1)))
    if "monitoredBarrier" in text and (m := _BARRIER_PEER.search(text)):
        # A rank reached the barrier but its send/recv with the named rank failed: that rank is at fault.
        return CollectiveFacts("missing", op="BARRIER", named_ranks=_ranks(m.group(1)))
    if "missing ranks" in text and (m := _MISSING.search(text)):
        return CollectiveFacts("missing", named_ranks=_ranks(m.group(1)))
    if "/task:" in text and (m := _TASK_DOWN.search(text)):
        return CollectiveFacts("missing", named_ranks=_ranks(m.group(1)))
    if "keys: " in text and (m := _GLOO_PEER_KEY.search(text)):
        return CollectiveFacts("missing", named_ranks=_ranks(m.group(1)))
    if "ranks" in text and (_STALL.search(text) or _READY.search(text)):
        # Horovod's stall warning (or one line of its list of stalled ops): some ranks wait for the
        # others. A rank below the highest ready one that no tensor lists as ready is the one they wait for.
        ready = {rank for listed in _READY.findall(text)[:64] for rank in _ranks(listed)}
        top = max(ready, default=-1)
        absent = [rank for rank in range(top) if rank not in ready] if top < MAX_NAMED else []
        if absent and len(absent) <= max(1, len(ready) // 2):
            return CollectiveFacts("missing", named_ranks=absent)
        return CollectiveFacts("timeout")
    work = _WORK.search(text) if "WorkNCCL(" in text else None
    last = _LAST.findall(text) if "last " in text else []
    if work is not None or _WATCHDOG.search(text) or last:
        facts = CollectiveFacts("timeout")
        if work is not None:
            # An op name not followed by its delimiter was cut (a terminal's margin marker over it).
            facts.op = work.group("op") if text[work.end("op") : work.end("op") + 1] in (",", ")") else None
            facts.seq = bounded_int(work.group("seq"))
            facts.numel = bounded_int(work.group("numel"))
            facts.timeout_ms = bounded_int(work.group("timeout"))
        if tag := _RANK_TAG.search(text):
            facts.reporter = bounded_rank(tag.group(1))
        for kind, value in last:
            if kind == "completed":
                facts.last_completed = bounded_int(value)
        if work is None and not _WATCHDOG.search(text):
            facts.state = "progress"  # only sequence numbers (`last completed NCCL work: 7`)
        return facts
    if ("Timed out" in text or "Socket Timeout" in text) and (m := _GLOO_TIMEOUT.search(text)):
        return CollectiveFacts("timeout", timeout_ms=bounded_int(m.group(1)) if m.group(1) else None)
    if ("desync" in text.lower() or "behind" in text) and (pairs := _AT_SEQ.findall(text)):
        facts = CollectiveFacts("desync")
        for rank_text, seq_text in pairs[:MAX_NAMED]:
            rank, seq = bounded_rank(rank_text), bounded_int(seq_text)
            if rank is not None and seq is not None:
                facts.named_seq[rank] = seq
        return facts if facts.named_seq else None
    return None
