"""The scored verdict: the culprit among the candidates, its victims, a confidence and the reasons.

1. Context decides what is a consequence: a candidate that declares `peer-failure` is demoted when
   another rank has a failure of its own; `earlier-error` when its own rank has another cause;
   timeouts and collateral signals always are; an abort with no error of its own is the watchdog's
   when a collective timed out; a record logged at warning level gives way to an exception or exit.
2. The culprit is the earliest candidate of the best tier (cause, inference, consequence, wrapper).
   Earliest means by clock when every reading compares (:mod:`timeline`); otherwise, within one
   input, by line; across inputs without comparable clocks, the more specific candidate (a known
   root over an unknown error) comes first. An unknown error gives way to a known root cause of
   the same rank, a library's log line of an error to the exception that raised it just after,
   the user's own sentence quoting an error to the logged line of the same failure, a process's
   death by a signal to its own error record just before it, and a rank's end with no message of its
   own (an exit code, an abort, its peers losing it) to its own error line before it.
   With only consequences, the heartbeat report of the rank with the fewest collectives still
   enqueued names that rank; a timeout alone names none (its printer waited); a statement of a
   failure comes before a traceback cut off before its exception line, and the launcher's own
   collateral action (torchrun's SIGTERM to the other workers) comes last.
   The culprit's rank is then weighed against the launcher: torchrun saw another rank fail first
   (both are suspects), or an unlabelled error and exactly one failed rank, one rank the others
   waited for, or one rank its own report names a few lines on (the error is that rank's);
   several ranks dying alike, the same error raised by every rank of the job, a check of the job's
   parallel layout (`not divisible by`), a message naming two ranks as the parties of one fault, or a
   version mismatch no other rank got past name no rank; NCCL losing a peer with no peer failure in
   the logs points at the network; a CUDA failure NCCL reports (`Cuda failure 'out of memory'`,
   `'invalid device ordinal'`) makes an NCCL error that failure's category.
3. Every other failing rank is a victim (it failed because of the culprit: timeouts, lost peers,
   collateral signals) or also failed (a cause of its own).
4. The confidence is high for a known root or an error in the user's code with nothing to compete,
   medium for inferences (a SIGKILL, a straggler), for unknown library errors and when two ranks had
   causes whose order in time is unknown, low when only consequences were found.
"""

from __future__ import annotations

import re
import signal
from collections import Counter

from ddpdoctor.explain.analyse import (
    CAUSE,
    CONSEQUENCE,
    INFERRED,
    STORE_TIMEOUT_ENTRY,
    Candidate,
    unclaimed_halts,
    waiting_when_reported,
)
from ddpdoctor.explain.collectives import collective_facts
from ddpdoctor.explain.index import INTERPRETER_REFUSAL
from ddpdoctor.explain.observations import (
    CollectiveObs,
    ExceptionObs,
    ExitObs,
    Observation,
    ProgressObs,
    RecentLineObs,
)
from ddpdoctor.explain.ranks import NCCL_PROCESS, bounded_rank, rank_list
from ddpdoctor.explain.timeline import Timeline, order
from ddpdoctor.explain.wording import (
    CONNECT_FAILED,
    CUDA_OOM,
    CUDA_SYSTEM_NOT_READY,
    LAYOUT_CHECK,
    NAMES_A_FAILURE,
    NATIVE_CHECK,
    SCHEDULER_SAYS,
    STATES_A_HALT,
    TERMINATES_THE_OTHERS,
    WAITS_IN_A_LOOP,
    WAITS_ON_SOMETHING,
    message_category,
    numberless,
)
from ddpdoctor.matching import LazyRegex
from ddpdoctor.records import Record, field

CONFIDENCE = ("high", "medium", "low")
_RAISED_WITHIN = 60  # lines between a library's log of an error and the traceback that raises it
_RAISED_MIN_TEXT = 12  # the logged message's last part, found in the raised one: the same failure
_PART_START = re.compile(r"^|:\s|\]\s")  # where a logged message's part may start
_STATED_WITHIN = 20  # lines between a process's error record and its report of a fatal signal
# A user's own sentence about the failure (first person and a verb of meeting it), not a log line.
_PROSE = LazyRegex(
    r"(?:^|[\s,.])(?:I|we)(?:'ve| have| had)? (?:caught|got|get|met|meet|encounter(?:ed)?|faced?|hit|see|saw|"
    r"found|receive[d]?|am getting|keep getting|ran into|run into)\b"
)
# A library's record names the source file and line it was logged from (`ProcessGroupGloo.cpp:67]`).
_SOURCE_LOCATION = LazyRegex(r"\.(?:h|hpp|c|cc|cpp|cu|cxx|py|rs):\d{1,6}\b")
_COMMUNICATOR_ABORTED = LazyRegex(r"NCCL communicator was aborted")
_ENQUEUED = LazyRegex(r"workMetaList_\.size\(\)=(\d{1,9})")
_INTERPRETER_REFUSED = LazyRegex(INTERPRETER_REFUSAL)


class Verdict(Record):
    """The culprit (or none), the victims, and what decided it."""

    culprit: Candidate | None
    victims: list[tuple[Candidate, str]] = field(default_factory=list)  # (candidate, victim | also-failed)
    confidence: str = "low"
    why: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)


def decide(timeline: Timeline, found: list[Candidate]) -> Verdict:
    """Pick the culprit and the victims."""
    _waited_for_the_same_client(found)
    _demote_consequences(found)
    _demote_warnings(found)
    if not found:
        return Verdict(None)
    best_tier = min(c.tier for c in found)
    pool = [c for c in found if c.tier == best_tier]
    ranked = order(pool, tier=lambda c: -c.strength)
    culprit = _logged_form(_raised_form(_prefer_known(ranked), pool), ranked)
    culprit = _best_consequence(ranked) if best_tier == CONSEQUENCE else _stated_before_crash(culprit, found)
    culprit = _whole_copy(culprit, pool)
    if best_tier == CONSEQUENCE:
        culprit = _symptom_rank(culprit, pool)
        _lone_lost_connection(culprit)
    elif culprit.kind in ("crash", "exit", "host-kill"):
        culprit = _shared_exit(culprit, pool)
    culprit = _stated_before_end(culprit, found)
    _named_beyond_the_job(culprit, timeline)
    if best_tier == CAUSE and not _named_by_report(culprit):
        _first_failure_elsewhere(culprit, found)
        _sole_failing_rank(culprit, found, timeline)
        _helper_of_the_one_rank(culprit, found)
        _rank_in_its_own_report(culprit, found)
        _awaited_rank(culprit, found)
        _sole_rank_of_its_kind(culprit, found)
        _sole_aborted_rank(culprit, found)
        _every_rank_alike(culprit, pool, found, timeline)
        culprit = _named_by_the_others(culprit, pool)
        _job_configuration(culprit, found)
    _last_word_of_the_script(culprit, found, timeline)
    warn = nccl_warn_for(culprit, timeline)
    said = warn.known() if warn is not None else None
    stated = warn or culprit.obs.nccl_detail() or culprit.obs  # NCCL's own report, or its `Last error:`
    cuda = _cuda_failure_category(stated) if culprit.category == "nccl_error" else None
    if cuda is not None:
        culprit.category = cuda[0]
        culprit.reasons.append(f"NCCL's own report is of a CUDA call that failed: {cuda[1]}")
        if CUDA_SYSTEM_NOT_READY.search(stated.text):  # the machine's, not a rank's
            culprit.disown("the GPU system of the machine is not ready: every rank on it fails alike")
    elif (
        culprit.category == "nccl_error"
        and said is not None
        and said.kind == "root"
        and said.category not in ("nccl_error", "other")
    ):
        # The generic NCCL error carries NCCL's own, more specific report (`Duplicate GPU detected`).
        culprit.category = said.category
        culprit.reasons.append(f"NCCL's own report says what went wrong: {said.id} ({said.category})")
    _key_owed(culprit, found, timeline)
    if (
        culprit.category == "rendezvous"
        and (culprit.tier == CAUSE or (culprit.kind == "error-line" and culprit.consequence is None))
        and not culprit.suspects
    ):
        # A rank that prints a start-up failure is not at fault unless the message names another.
        culprit.disown("the job as a whole could not assemble")
    if (
        culprit.category == "version_mismatch"
        and culprit.tier == CAUSE
        and not _others_got_further(culprit, found)
    ):
        # Versions are a property of the environment every rank of it shares: unless another rank
        # is seen getting past the failing step, they all fail alike.
        culprit.disown("the environment it runs in is every rank's")
    if (
        culprit.category == "backend_unsupported"
        and culprit.tier == CAUSE
        and not _others_got_further(culprit, found)
    ):
        # The build or the backend lacks what the job asks for: every rank asks for it alike, unless
        # the others are seen past that point (only this rank's path asked for it).
        culprit.disown("the backend or build lacks it on every rank")
    if (
        culprit.entry is not None
        and culprit.entry.scope == "machine"
        and culprit.tier == CAUSE
        and not _others_got_further(culprit, found)
    ):
        # The knowledge base says the fault is the machine's (its shared memory, its kernel's rules):
        # every rank on it meets it alike.
        culprit.disown("the machine's fault, which every rank on it meets alike")
    _two_parties(culprit, found)
    _reported_by_several(culprit, found)
    _first_to_differ(culprit)
    _uneven_work(culprit, timeline)
    culprit = _odd_setting(culprit, timeline, found)
    _counted_otherwise(culprit, timeline)
    culprit = _one_rank_ahead(culprit, timeline, found)
    _unlabelled_wait(culprit, timeline)
    _gave_up_waiting(culprit, timeline, found)
    culprit = _unreachable_interface(culprit, timeline, found)
    verdict = Verdict(culprit, candidates=found)
    verdict.why = list(culprit.reasons)
    rivals = [c for c in pool if c is not culprit and c.rank != culprit.rank and c.tier == CAUSE]
    verdict.confidence = _confidence(culprit, rivals, timeline)
    if rivals:
        how = (
            "by time"
            if _ordered_in_time([culprit, *rivals])
            else "by place in the logs (no comparable times)"
        )
        verdict.why.append(
            f"chosen over {len(rivals)} other failing rank(s) ({_rank_list(rivals)}) {how}: it came first"
        )
    for other in found:
        if other.tier > culprit.tier and other.consequence is not None and other.rank != culprit.rank:
            whose = f"rank {other.rank}'s" if other.rank is not None else "an unlabelled"
            verdict.why.append(f"lost: {whose} {other.kind} is a consequence ({other.consequence})")
            break
    verdict.victims = _victims(culprit, found)
    return verdict


def _key_owed(culprit: Candidate, found: list[Candidate], timeline: Timeline) -> None:
    """Every rank of the job but one timed out waiting for the same store key: that one never waited
    for it (it set another key, or went elsewhere), so it is the rank that should have written it."""
    keys = culprit.obs.groups().get("keys")
    if culprit.tier != CAUSE or not keys or timeline.world_size is None:
        return
    waited = {c.obs.rank for c in found if c.obs.rank is not None and c.obs.groups().get("keys") == keys}
    if len(waited) == 1 and culprit.obs.rank in waited:
        _alone_waited(culprit, found, timeline, keys)
        return
    if culprit.category != "rendezvous":
        return
    known = set(timeline.ranks) | (set(range(timeline.world_size)) if timeline.world_hinted else set())
    owing = sorted(known - waited)
    if len(waited) < 2 or len(owing) != 1:
        return
    culprit.rank, culprit.suspects = owing[0], owing
    culprit.rank_note = f"inferred: every other rank waited for the key {keys[:120]}; rank {owing[0]} did not"
    culprit.reasons.append(
        f"rank(s) {rank_list(sorted(waited))} timed out waiting for the store key {keys[:120]}, rank"
        f" {owing[0]} never waited for it: it is the rank that should have set it"
    )


_NAMES_A_RANK = LazyRegex(r"(?i)\branks? ?\d")  # a message that says which rank it is about
_NAMED_RANK = LazyRegex(r"(?i)\brank[ =#:]{0,2}(\d{1,7})\b")  # the rank a message names


def _names_rank(text: str, rank: int) -> bool:
    """Whether a message names this rank (`no heartbeat from rank 3`, `rank=3`)."""
    return any(int(found) == rank for found in _NAMED_RANK.findall(text))


_LAST_NUMBER = LazyRegex(r"/(\d{1,7})$")  # a store key's last part when it is a number


def _alone_waited(culprit: Candidate, found: list[Candidate], timeline: Timeline, keys: str) -> None:
    """One rank timed out waiting for a store key while its peers failed of nothing of their own
    (they lost it, or the launcher stopped them): they had gone on, so the key it waited for was its
    own mistake (a name no peer writes), neither a job that could not assemble nor a peer that died
    before writing it. A store failure, then, not a wait for a peer. Not a wait for several keys (a
    coordinator's for one key of each rank): one of them missing says nothing of whose it was."""
    rank = culprit.obs.rank
    if (
        rank is None
        or "," in keys
        or any(c.rank not in (None, rank) and c.tier <= INFERRED and c.consequence is None for c in found)
    ):
        return
    if not set(timeline.ranks) - {rank}:
        return  # no other rank is seen at all: nothing says the others went on
    culprit.category, culprit.consequence = "rendezvous", None
    culprit.reasons.append(
        f"rank {rank} alone timed out waiting for the store key {keys[:120]}; the other ranks failed of"
        " nothing of their own (they lost it, or the launcher stopped them): no peer ever wrote that key"
    )
    # A key whose last part is another rank's number (`/stats/val/1`) is that rank's to write: it
    # wrote it under another name. Otherwise the waiter asked for a name no peer writes.
    numbered = _LAST_NUMBER.search(keys)
    owner = bounded_rank(numbered.group(1)) if numbered else None
    if owner is not None and owner != rank and owner in timeline.ranks:
        culprit.rank, culprit.suspects = owner, [owner]
        culprit.rank_note = (
            f"inferred: the key {keys[:120]} is rank {owner}'s to write; rank {rank} waited for it"
        )
        return
    culprit.rank, culprit.suspects = rank, [rank]
    culprit.rank_note = f"inferred: rank {rank} alone waited for the key {keys[:120]}; its peers went on"


def _uneven_work(culprit: Candidate, timeline: Timeline) -> None:
    """The ranks waited in a collective or lost a peer and none is named, but each had announced how
    many batches (steps, samples) it would run, and one rank's count differs from all the others':
    it runs more or fewer collectives than its peers, so one side waits in a collective the other
    never joins. The input was uneven: that rank's data, not the network."""
    if culprit.rank is not None or culprit.category not in ("collective_timeout", "collective_mismatch"):
        return
    odd = timeline.uneven_count()
    if odd is None:
        return
    rank, line = odd
    culprit.category, culprit.rank, culprit.suspects = "dataloader", rank, [rank]
    culprit.rank_note = f"inferred: rank {rank} alone announced another amount of work than its peers"
    culprit.reasons.append(
        f"rank {rank} announced another amount of work than every other rank: {line.text[:200]}"
        f" ({line.file}:{line.line}); the ranks run different numbers of collectives, so they wait for each other"
    )


# gloo's size check: the bytes that arrived against the bytes the receiver expected.
_SIZES_COMPARED = re.compile(r"(\d{1,15}) vs (\d{1,15})\. Received data size")


def _compared_sizes(text: str) -> tuple[int, int] | None:
    """The bytes a size check says arrived and the bytes it expected, both above zero; None without one."""
    compared = _SIZES_COMPARED.search(text)
    sizes = (int(compared.group(1)), int(compared.group(2))) if compared else None
    return sizes if sizes is not None and min(sizes) > 0 else None


def _odd_setting(culprit: Candidate, timeline: Timeline, found: list[Candidate]) -> Candidate:
    """Collectives that disagreed, reported by a rank the message does not name as the odd one (gloo's
    size check fails on the rank that received the data), or collectives every rank timed out in with
    none named, while one rank had started with a setting none of its peers has (`bond_features=False`
    where they say `True`, `tasks=cls` where they say `tasks=cls,reg`), or, for the size check, who states
    a number in the proportion of the sizes it compared (`calib_bins: 50` where they say 20, for 100 bytes
    against 40), or whose count of items stands far over its peers' (`45 docs` where they say 3 or 4):
    that rank runs other collectives than they do, so the others wait in ones it never joins. Where that
    rank reported the same mismatch itself, its own report is the root line; where every rank waited and
    that rank reported its own wait (a timeout, where its peers lost it), that report is the culprit."""
    all_waited = culprit.category == "collective_timeout" and culprit.rank is None
    if (
        (culprit.category != "collective_mismatch" and not all_waited)
        or _named_by_report(culprit)
        or _NAMES_A_RANK.search(culprit.obs.text)
    ):
        return culprit
    consequence = (
        "every rank waited in a collective its peers never joined with the same sizes or count"
        if all_waited
        else "the rank that reported the mismatch only received what it sent"
    )
    counted = False  # the odd line is a count of the rank's values: the one sign of the mismatch
    # A key-value store's wait moves no tensors: a count of a rank's items says nothing of its sizes there.
    sized = culprit.entry is None or culprit.entry.id != STORE_TIMEOUT_ENTRY
    sizes = _compared_sizes(culprit.obs.text)
    if sizes is not None and (odd := timeline.sized_in_ratio(sizes[0] / sizes[1], culprit.rank)) is not None:
        stated = f"states a number in the proportion of the sizes gloo compared ({sizes[0]} bytes against {sizes[1]})"
        note = "sized what it sent otherwise than"
    elif (odd := timeline.odd_setting()) is not None:
        stated, note = "states a setting otherwise than every other rank", "started with another setting than"
    elif sized and (odd := timeline.odd_count()) is not None:
        stated, note, counted = (
            "counts otherwise than every other rank",
            "held a tensor of another size than",
            True,
        )
    elif sized and not all_waited and (odd := timeline.outlying_count()) is not None:
        stated, note = "reads a count of items far over every other rank's", "held far more items than"
    elif not all_waited and not culprit.suspects and (odd := timeline.odd_value()) is not None:
        stated, note = "gives a value otherwise than every other rank", "started with another value than"
    elif all_waited and sized and (lists := timeline.lists_that_differ()) is not None:
        # Two ranks, or no rank labels: which one is odd the lines cannot tell, that they differ they can.
        culprit.category = "collective_mismatch"
        first, other, how = lists
        differs = "another number of values" if how == "length" else "the same names in another order"
        culprit.reasons.append(
            f"one statement lists {differs} in another process: {first.text[:160]}"
            f" ({first.file}:{first.line}) against {other.text[:160]} ({other.file}:{other.line}); {consequence}"
        )
        return culprit
    else:
        return culprit
    rank, line = odd
    if rank == culprit.rank:
        return culprit
    waited = [
        c for c in found if all_waited and not counted and c.obs.rank == rank and c.consequence is not None
    ]
    if waited:
        # The odd rank reported its own wait: that report, not another rank's of losing it, is the culprit.
        own_wait = waited[0]
        own_wait.tier, own_wait.consequence = min(own_wait.tier, culprit.tier), None
        own_wait.reasons.append(
            f"the others' report: {culprit.obs.text[:160]} ({culprit.obs.file}:{culprit.obs.line})"
        )
        culprit.rank = culprit.obs.rank  # (a victim again, of its own rank)
        culprit = own_wait
    culprit.category, culprit.rank, culprit.suspects = "collective_mismatch", rank, [rank]
    culprit.rank_note = f"inferred: rank {rank} alone {note} its peers"
    if all_waited and counted:
        culprit.stated = line  # no report names a size: the line with the rank's count is the sign of it
    mismatch = culprit.entry is not None and culprit.entry.category == "collective_mismatch"
    own = [c.obs for c in found if mismatch and c.obs.rank == rank and c.entry is culprit.entry]
    if own:
        culprit.stated = own[0]  # the odd rank's own report of the mismatch
    culprit.reasons.append(
        f"rank {rank} {stated}: {line.text[:200]} ({line.file}:{line.line}); {consequence}"
    )
    return culprit


def _counted_otherwise(culprit: Candidate, timeline: Timeline) -> None:
    """The rank its peers waited for printed a list of another length than every other rank did
    (`histogram [0.0, 38.0, 10.0, 0.0, 0.0]` where they list four): it was in the collective with a tensor
    of another size, waiting for elements its peers never send, not slow. A mismatch, that line the sign of
    it. (A count in words is no such sign: a straggler is slow because it has more to do.)"""
    if culprit.kind != "straggler" or culprit.category != "collective_timeout" or culprit.rank is None:
        return
    odd = timeline.odd_list_length()
    if odd is None or odd[0] != culprit.rank:
        return
    rank, line = odd
    culprit.category, culprit.stated = "collective_mismatch", line
    culprit.rank_note = f"inferred: rank {rank} alone held a tensor of another size than its peers"
    culprit.reasons.append(
        f"rank {rank} lists another length than every other rank: {line.text[:200]} ({line.file}:{line.line});"
        " its collective had another size than theirs, so they waited in one that never completed"
    )


def _unlabelled_wait(culprit: Candidate, timeline: Timeline) -> None:
    """A collective timed out with no rank named, and before that report one process said, under no rank
    label, that it waits for a thing of its own round after round (`[station 2] waiting for tare lab
    results ... (try 1)`, then `(try 2)`), or in a loop's words (`bay 2: racking log not uploaded yet,
    polling (0s)`): that wait is why the others waited, whoever it was; its first round is the root line,
    the timeout among the reasons. (A line said once, `Trainer.fit stopped`, a sentence of prose, is no
    wait loop.)"""
    if culprit.category != "collective_timeout" or culprit.rank is not None or culprit.stated is not None:
        return
    rounds = unclaimed_halts(timeline, None, culprit.obs)
    if not rounds:
        return
    halted = rounds[0]
    # (its words a loop's round, `not uploaded yet, polling (0s)`, or a wait said twice: not `Rank 1
    # initialization finished.` said twice)
    said_twice = sum(line.count for line in rounds) >= 2
    if not (WAITS_IN_A_LOOP.search(halted.text) or (WAITS_ON_SOMETHING.search(halted.text) and said_twice)):
        return
    culprit.reasons.append(
        f"a process no rank label names said it waits before the timeout: {halted.text[:200]}"
        f" ({halted.file}:{halted.line}); the others' report: {culprit.obs.text[:160]}"
        f" ({culprit.obs.file}:{culprit.obs.line})"
    )
    culprit.stated = halted


def _gave_up_waiting(culprit: Candidate, timeline: Timeline, found: list[Candidate]) -> None:
    """The culprit's error says a wait of its own brought nothing (`TimeoutError: no calibration for
    passing_loop after 30.0s`), and it came after a peer had already timed out in a collective while this
    rank was in that wait loop (`calibration ... not published yet, waited 0s`, then `waited 10s`): the
    peers waited for this rank, which waited for its own thing; the error is how its wait ended once they
    had given up. The wait is the cause the others met: a collective timeout, with the loop's first round
    as the root line."""
    if culprit.tier != CAUSE or culprit.rank is None or not isinstance(culprit.obs, ExceptionObs):
        return
    if culprit.entry is not None or not STATES_A_HALT.search(culprit.obs.text):
        return
    for report in found:
        if report.category != "collective_timeout" or report.rank in (None, culprit.rank):
            continue
        if report.obs.file_index != culprit.obs.file_index or report.obs.line > culprit.obs.line:
            continue
        halted = waiting_when_reported(timeline, culprit.rank, report.obs)
        if halted is None:
            continue
        culprit.reasons.append(
            f"rank {culprit.rank} was in a wait loop of its own when rank {report.rank} timed out in a"
            f" collective: {halted.text[:200]} ({halted.file}:{halted.line}); its error came after, when that"
            f" wait gave up: {culprit.obs.text[:160]}"
        )
        culprit.category, culprit.stated = "collective_timeout", halted
        return


def _one_rank_ahead(culprit: Candidate, timeline: Timeline, found: list[Candidate]) -> Candidate:
    """Every rank timed out in a collective, none is named, and one rank had got further than all its
    peers (`epoch 1` where they all last said `epoch 0`) before its own timeout: it got through a
    collective they are still in, which only happens when the ranks' collectives did not pair up (sizes
    or order that differ). That rank's collectives are the odd ones: a mismatch, not a slow peer."""
    if culprit.rank is not None or culprit.category != "collective_timeout":
        return culprit
    ahead = timeline.one_ahead()
    if ahead is None:
        return culprit
    rank, line = ahead
    # Its own timeout in a process group's collective, as the backend reports it (a known entry), after
    # that line: a barrier of the script's own (a store counter) pairs no collectives.
    own = next(
        (
            c
            for c in found
            if c.obs.rank == rank
            and c.category == "collective_timeout"
            and c.entry is not None
            and (c.file_index != line.file_index or c.line > line.line)
        ),
        None,
    )
    if own is None:
        return culprit  # it did not wait in a collective itself: it may have finished, or died
    own.category, own.rank, own.suspects, own.consequence = "collective_mismatch", rank, [rank], None
    own.tier = min(own.tier, INFERRED)
    own.rank_note = f"inferred: rank {rank} alone got further than its peers before the collectives hung"
    own.reasons[:0] = [
        f"rank {rank} got further than every other rank: {line.text[:200]} ({line.file}:{line.line}), then"
        " timed out in a collective too; its peers never got past the one before: its collectives did not"
        " pair up with theirs",
        f"the others' report: {culprit.obs.text[:160]} ({culprit.obs.file}:{culprit.obs.line})",
    ]
    return own


def _unreachable_interface(culprit: Candidate, timeline: Timeline, found: list[Candidate]) -> Candidate:
    """Connections between the ranks failed and NCCL had chosen an interface other hosts cannot reach
    (the loopback, a container bridge): that choice is the cause, the failed connections its effect."""
    iface = timeline.interfaces[0] if timeline.interfaces else None
    if iface is None or culprit.category not in ("rendezvous", "nccl_error", "collective_timeout"):
        return culprit
    said = [culprit.obs.text, *(text for _, _, text in culprit.obs.evidence)]
    if not any(CONNECT_FAILED.search(text) for text in said):
        return culprit
    cause = Candidate(iface, CAUSE, "interface", "nccl_error", None, None, strength=2)
    cause.reasons.append(
        f"NCCL chose the interface {iface.interface} ({iface.address}) for its connections, which ranks on"
        " other hosts cannot reach; the connection failures follow from it"
    )
    cause.reasons.append(f"lost: {culprit.obs.text[:160]}: a connection that could not be made")
    found.append(cause)
    return cause


def _demote_consequences(found: list[Candidate]) -> None:
    """Consequences become tier 3 when what they are a consequence of is in the logs."""
    for cand in found:
        if cand.tier != CAUSE or cand.consequence is None:
            continue
        others = [c for c in found if c is not cand and c.tier <= INFERRED and c.consequence is None]
        watchdog = _bare_abort(cand) and any(c.consequence == "timeout" for c in found)
        if cand.consequence == "peer-failure":
            hit = watchdog or any(c.rank is None or cand.rank is None or c.rank != cand.rank for c in others)
        else:
            hit = any(c.rank == cand.rank for c in others)
        if hit:
            cand.tier = CONSEQUENCE
            cand.reasons.append(
                "demoted: "
                + (
                    "the watchdog aborts a process whose collective timed out"
                    if watchdog
                    else "a consequence of "
                    + ("another rank's failure" if cand.consequence == "peer-failure" else "an earlier error")
                )
            )


def _waited_for_the_same_client(found: list[Candidate]) -> None:
    """The store's host timed out waiting for its clients (`3/4 clients joined`): a process never
    reached the store. A rank that timed out waiting for a key the host was to set (gloo's address of
    rank 0) did not wait for the host: the host was itself waiting for the missing process."""
    # The store entry's captures say which: its host's count of clients, or the keys a rank waited for.
    if not any("joined" in c.obs.groups() for c in found):
        return
    for cand in found:
        if cand.tier == CAUSE and cand.suspects and "keys" in cand.obs.groups():
            cand.tier, cand.consequence, cand.suspects = CONSEQUENCE, "peer-failure", []
            cand.rank, cand.rank_note = cand.obs.rank, None
            cand.reasons.append(
                "demoted: the rank it waited for was itself waiting for a process that never joined"
            )


def _bare_abort(cand: Candidate) -> bool:
    """An abort with no error of its own (`Aborted (core dumped)`, `Fatal Python error: Aborted`)."""
    return isinstance(cand.obs, ExceptionObs) and cand.obs.origin == "fatal" and "Abort" in cand.obs.text


def _demote_warnings(found: list[Candidate]) -> None:
    """A record logged at warning level says the program went on after it (DeepSpeed's `[WARNING]
    FusedAdam CUDA build failed`, then its fallback): it gives way to an exception or an exit that ended a rank."""
    if not any(
        c.tier <= INFERRED and isinstance(c.obs, (ExceptionObs, ExitObs)) and not c.obs.logged_as_warning
        for c in found
    ):
        return  # nothing else ended a rank: what was logged as a warning is all the logs say
    for cand in found:
        if cand.tier == CAUSE and cand.obs.logged_as_warning:
            cand.tier = CONSEQUENCE
            cand.reasons.append("demoted: logged as a warning, after which the program went on")


def _prefer_known(ranked: list[Candidate]) -> Candidate:
    """The earliest candidate, unless it is unknown text and the KB knows a failure of the same rank.

    A rank's exception with its traceback is not unknown text: a known message of no rank that comes
    later (a restarted attempt's `Gloo connectFullMesh failed`) does not outweigh it."""
    first = ranked[0]
    if first.strength >= 3 or (
        isinstance(first.obs, ExceptionObs) and first.obs.frames and first.rank is not None
    ):
        return first
    for other in ranked[1:]:
        if other.strength >= 3 and (other.rank is None or first.rank is None or other.rank == first.rank):
            return other
        if other.kind == "mismatch" and other.strength > first.strength:
            # Ranks in different collectives at one sequence number: their code paths split before
            # anything waited, and an unknown message is as likely its consequence (a broadcast
            # paired with another collective hands over garbage).
            return other
    return first


# How far below a line cut at its start (an excerpt that begins mid-line) its complete copy may stand, and
# how far below a report's sentence that quotes the message's first words.
_COPY_LINES = 3
_QUOTE_LINES = 8
_MIN_COPY_CHARS = 20


def _whole_copy(culprit: Candidate, pool: list[Candidate]) -> Candidate:
    """The complete line of the same message, numbers aside, when the culprit's line is cut short: at its
    start (an excerpt that begins mid-line: `operation timeout: WorkNCCL(...)` above `[Rank 5] Watchdog
    caught collective operation timeout: WorkNCCL(...)`), or at its end in a sentence quoting it (a
    report's summary, ``**Error**: `RuntimeError: ... FAILED` in ...``, above the message in full)."""
    text = culprit.obs.text.strip()
    if len(text) < _MIN_COPY_CHARS:
        return culprit
    # A line that starts where a message or a label starts was not cut at its start.
    cut_at_start = not (text[:1].isupper() or text[:1] in "[(<")
    if not cut_at_start and not culprit.obs.quoted:
        return culprit
    below = _COPY_LINES if cut_at_start else _QUOTE_LINES
    cut = numberless(text)
    for other in pool:
        whole = numberless(other.obs.text.strip())
        if (
            other.obs.file_index == culprit.obs.file_index
            # A copy another rank's label claims is that rank's own error (a victim's rank is decided
            # from every victim after this).
            and (other.rank == culprit.rank or other.tier == CONSEQUENCE)
            and 0 < other.obs.line - culprit.obs.line <= below
            and not other.obs.quoted
            and len(whole) > len(cut)
            and (whole.endswith(cut) if cut_at_start else whole.startswith(cut))
        ):
            return other
    return culprit


def _logged_form(culprit: Candidate, ranked: list[Candidate]) -> Candidate:
    """The log's own line of the failure, when the culprit is the user's sentence quoting it ("I caught
    a `CUDA error: unspecified launch failure`") and the log shows the same failure later."""
    if _PROSE.search(culprit.obs.text) is None:
        return culprit
    for other in ranked:
        if other is not culprit and other.category == culprit.category and not _PROSE.search(other.obs.text):
            return other
    return culprit


def nccl_warn_for(cand: Candidate, timeline: Timeline) -> Observation | None:
    """NCCL's own `WARN` line for an error NCCL reported ("unhandled system error", "invalid usage"): it says what failed."""
    if "NCCL WARN" in cand.obs.text or not (
        cand.category == "nccl_error" or any("nccl" in link.text.lower() for link in cand.obs.chain)
    ):
        return None
    for obs in timeline.failures:
        if "NCCL WARN" in obs.text and (obs.rank is None or cand.rank is None or obs.rank == cand.rank):
            return obs
    return None


# The CUDA failures NCCL reports (`NCCL WARN Cuda failure 101 'invalid device ordinal'`): a fault of
# the device or its driver, more specific than an NCCL error, unless it is one of the statuses NCCL's
# own use of CUDA earns (an argument it passed, peer access between two GPUs its topology chose, a
# feature of the driver it asked for that this platform lacks: cuMem or IPC handles under a vGPU or a
# container, `operation not supported`).
_CUDA_FAILURE_REPORT = LazyRegex(r"\bCuda failure(?: \d{1,4})? '[^'\n]{1,200}(?:'|$)")
_CUDA_FAULTS = ("oom_gpu", "invalid_device", "version_mismatch", "cuda_error")
_NCCL_USE_OF_CUDA = LazyRegex(
    r"'(?:invalid argument|peer access is not supported between these two devices|operation not supported)'"
)


def _cuda_failure_category(obs: Observation) -> tuple[str, str] | None:
    """(category, reason) of the CUDA failure an NCCL record reports, when it names one."""
    report = _CUDA_FAILURE_REPORT.search(obs.text) or (
        CUDA_OOM.search(obs.text) if "NCCL WARN" in obs.text else None
    )
    if report is None:
        return None
    said = message_category(obs.text[report.start() :])
    if said is None and not _NCCL_USE_OF_CUDA.search(report.group()):
        said = ("cuda_error", "a CUDA call NCCL made failed on the device (a fault of the GPU or its driver)")
    return said if said is not None and said[0] in _CUDA_FAULTS else None


def _stated_before_crash(culprit: Candidate, found: list[Candidate]) -> Candidate:
    """The process's own error record just before it died of a signal, when the culprit is that death
    with no message of its own (UCX's `ERROR cuCtxGetDevice(...) is failed`, then `Caught signal 11`):
    the record says what went wrong, the signal only how the process ended."""
    obs = culprit.obs
    if not (isinstance(obs, ExceptionObs) and obs.origin == "fatal") or culprit.entry is not None:
        return culprit
    stated = [
        c
        for c in found
        if c.kind == "error-line"
        and c.consequence is None
        and (c.category != "other" or NAMES_A_FAILURE.search(c.obs.text) or NATIVE_CHECK.search(c.obs.text))
        and c.obs.file_index == obs.file_index
        and c.rank == culprit.rank
        and 0 < obs.line - c.obs.line <= _STATED_WITHIN
    ]
    if not stated:
        return culprit
    cause = min(stated, key=lambda c: c.obs.line)
    cause.tier = CAUSE
    cause.reasons.append(
        f"the process's own error record, {obs.line - cause.obs.line} line(s) before it died ({obs.text[:80]})"
    )
    return cause


# How a rank that printed no exception of its own is seen to end: a launcher's report of its exit or
# signal, or its peers losing the connection to it.
_ENDS = ("exit", "crash", "lost-peer")
_OWN_OUTPUT = ("line prefix", "file name", "torchrun log folder")  # rank sources that place a line


def _stated_before_end(culprit: Candidate, found: list[Candidate]) -> Candidate:
    """The rank's own error-level line, when the culprit is only how that rank ended (an exit code, an
    abort, its peers losing it): `sys.exit("ERROR: shard ... is missing")` prints the line, then the
    process ends (gloo's threads abort it); the line says why, the end only how. A line with no rank
    label is that rank's when no other rank is seen to end on its own."""
    killed = culprit.kind == "host-kill"  # a SIGKILL with no error: the host's memory, most likely
    if (culprit.kind not in _ENDS and not killed) or culprit.rank is None:
        return culprit
    if culprit.category not in _NO_CAUSE and not killed:
        return culprit
    ended = {c.rank for c in found if c.kind in (*_ENDS, "host-kill") and c.tier <= INFERRED}
    obs = culprit.obs
    stated = [
        c
        for c in found
        if (c.kind == "error-line" or _uncaught_cpp_exception(c))
        and c.consequence is None
        and not c.obs.logged_as_warning
        and (c.rank == culprit.rank or (c.rank is None and ended == {culprit.rank}))
        and (c.obs.file_index != obs.file_index or c.obs.line < obs.line)
        and (not killed or _printed_by_rank(c))
    ]
    if not stated:
        return culprit
    cause = min(stated, key=lambda c: (c.obs.file_index, c.obs.line))
    if _INTERPRETER_REFUSED.search(cause.obs.text):
        # `python: can't open file 'train.py--cfg'`: the script never ran; the launch command is wrong.
        cause.tier = CAUSE
        cause.reasons.append(f"the interpreter refused to start the program, then it ended ({obs.text[:80]})")
        cause.rank = culprit.rank
        cause.disown("the command that every rank runs names a program the interpreter cannot start")
        return cause
    if cause.rank is None:
        cause.rank = culprit.rank
        cause.rank_note = f"the line carries no rank label; rank {culprit.rank} alone ended on its own"
    cause.tier = CAUSE
    cause.reasons.append(f"rank {culprit.rank}'s own error line before it ended ({obs.text[:80]})")
    if (
        cause.category == "other"
        and culprit.kind in _ENDS
        and not _SOURCE_LOCATION.search(cause.obs.text)
        and not SCHEDULER_SAYS.match(cause.obs.text)
    ):
        # A line of the script's own (no library's source location, not the scheduler's) and then the
        # process ended itself: the training code's own check stopped it.
        cause.category = "user_code"
        cause.reasons.append("the script printed it and then ended its own process: its own check failed")
    if killed and cause.category in _NO_CAUSE:
        # The line says what the process was doing; how it ended still says why.
        cause.category = culprit.category
        cause.reasons.append(culprit.reasons[0] if culprit.reasons else "it was killed by SIGKILL")
    return cause


def _last_word_of_the_script(culprit: Candidate, found: list[Candidate], timeline: Timeline) -> None:
    """An error record of the script's own (no entry knows it, no library's source location in it) ends
    its rank's output, alone or with more of its error records after it, and no other rank failed of its
    own accord: the script logged why it stopped, then ended (`log.error("no trainable images ...");
    sys.exit(3)`), also where no launcher's report of that exit was kept (a `--log-dir` folder)."""
    obs = culprit.obs
    if culprit.kind != "error-line" or culprit.category != "other" or culprit.entry is not None:
        return
    if culprit.rank is None or not _printed_by_rank(culprit) or _SOURCE_LOCATION.search(obs.text):
        return
    last = timeline.last_line(culprit.rank)
    alone = last is not None and (last.file_index, last.line) == (obs.file_index, obs.line)
    if not alone:
        after = [line for line in timeline.lines_from(culprit.rank, obs) if line.file_index == obs.file_index]
        if not after or after[-1] is not last:
            return
        if not all(line.error_record and not _SOURCE_LOCATION.search(line.text) for line in after):
            return
    if any(
        c is not culprit and c.tier <= culprit.tier and c.consequence is None and c.rank != culprit.rank
        for c in found
    ):
        return
    culprit.category = "user_code"
    ending = "the last line" if alone else "the first of the error records that end what"
    culprit.reasons.append(
        f"it is {ending} rank {culprit.rank} printed: the script logged why it stopped, then ended"
    )


def _printed_by_rank(cand: Candidate) -> bool:
    """Whether a line is its rank's own output by where it stands (a label, a per-rank file), not by
    what it says (a launcher's report that quotes `--local_rank=7`)."""
    return cand.rank is not None and (cand.obs.rank_source or "").startswith(_OWN_OUTPUT)


def _uncaught_cpp_exception(cand: Candidate) -> bool:
    """A C++ exception nothing caught (`terminate called after throwing an instance of ...`) or a
    failed C++ check, whatever it said: the process aborts right after, so it is why it ended."""
    return isinstance(cand.obs, ExceptionObs) and cand.obs.origin == "cpp"


def _raised_form(culprit: Candidate, pool: list[Candidate]) -> Candidate:
    """The same failure as raised, when the culprit is the log line printed just before raising it.

    Libraries log an error and then raise it (`THCudaCheck FAIL ... invalid device ordinal`, then
    `RuntimeError: cuda runtime error (101) : invalid device ordinal`): the raised exception carries
    the traceback and the user's frame, so it is the one to report. A client that logs the error at
    each of its retries (c10d's store connection) raises it after the last one."""
    if isinstance(culprit.obs, ExceptionObs) or culprit.entry is None:
        return culprit
    for other in pool:
        obs = other.obs
        if (
            not isinstance(obs, ExceptionObs)
            or other.entry is not culprit.entry
            or other.rank != culprit.rank
            or obs.file_index != culprit.obs.file_index
            or obs.line <= culprit.obs.line
            or not _same_statement(culprit.obs.text, obs.text)
        ):
            continue
        logged = [culprit.obs.line]
        logged += [  # the same record logged again (a retry), seen apart or folded into the culprit
            c.obs.line
            for c in pool
            if c.entry is culprit.entry
            and c.rank == culprit.rank
            and c.obs.file_index == obs.file_index
            and not isinstance(c.obs, ExceptionObs)
            and _same_statement(c.obs.text, obs.text)
        ]
        logged += [
            number
            for file, number, line in culprit.obs.evidence
            if file == culprit.obs.file and _same_statement(line, obs.text)
        ]
        if any(0 < obs.line - line <= _RAISED_WITHIN for line in logged):
            return other
    return culprit


def _same_statement(logged: str, raised: str) -> bool:
    """Whether a logged record and a raised exception state one failure: a part of the record (after
    its header `[E1202 ... socket.cpp:1028] [c10d] ` or a `: `) is all the exception says, or the
    exception's message is in the record."""
    logged = logged.strip()
    if any(
        len(part := logged[m.end() :].strip()) >= _RAISED_MIN_TEXT and part in raised
        for m in _PART_START.finditer(logged)
    ):
        return True
    message = raised.split(": ", 1)[-1].strip()
    return len(message) >= _RAISED_MIN_TEXT and message in logged


# Categories that name where a failure surfaced (or nothing), not what caused it.
_NO_CAUSE = ("rendezvous", "nccl_error", "collective_timeout", "other")


def _best_consequence(ranked: list[Candidate]) -> Candidate:
    """Among consequences only: torchrun's first observed failure, else the watchdog's report of the collective."""
    for cand in ranked:
        if isinstance(cand.obs, ExitObs) and cand.obs.table_root:
            return cand
    for cand in ranked:
        if isinstance(cand.obs, CollectiveObs) and (cand.obs.op or cand.obs.sequence is not None):
            return cand
    # Any statement of a failure before a traceback cut off before its exception (where, not what),
    # and what a rank reports about its peers before what it says about itself ("taking the process down").
    ranked = sorted(
        ranked,
        key=lambda c: (isinstance(c.obs, ExceptionObs) and c.obs.cut_off, c.consequence == "earlier-error"),
    )
    for cand in ranked:
        if cand.category == "collective_mismatch" and cand.consequence is None:
            return cand  # ranks that called different collectives: what the timeouts and aborts follow from
    for cand in ranked:
        if cand.kind == "error-line" and cand.consequence is None and cand.category not in _NO_CAUSE:
            # An error-level line whose words name a cause (a device out of memory, a driver too old):
            # what the peers' lost connections and cancelled collectives follow from.
            return cand
    if (first_warn := _first_nccl_warning(ranked)) is not None:
        return first_warn
    # Ranks that lost a peer, and one rank alone that exited of its own accord after an error record of
    # its own (`[ERROR][rank 2] tokenizer size 514 exceeds ...`, exit code 2): the peer they lost.
    departed = [
        c for c in ranked if isinstance(c.obs, ExitObs) and c.consequence is None and c.rank is not None
    ]
    said = {c.rank for c in ranked if c.kind == "error-line" and c.consequence is None}
    if (
        len({c.rank for c in departed}) == 1
        and departed[0].rank in said
        and any(c.consequence == "peer-failure" for c in ranked)
    ):
        return departed[0]
    for kind in ("symptom", "crash", "error-line"):
        for cand in ranked:
            if cand.kind == kind and cand.category == "collective_timeout":
                return cand
    for cand in ranked:
        if cand.consequence != "launcher":
            return cand
    return ranked[0]


def _first_nccl_warning(ranked: list[Candidate]) -> Candidate | None:
    """A process's first NCCL warning, one no entry knows or a known NCCL error of its own (the
    service thread's failed `Connect`), when its later warnings are known symptoms of a lost peer
    (the proxy's failed `Connect`, the connection its proxy closed): NCCL warns first of what failed,
    then of what that broke."""
    warnings = [c for c in ranked if "NCCL WARN" in c.obs.text and _process_of(c) is not None]
    if not warnings:
        return None
    first = warnings[0]
    unknown = first.kind == "error-line" and first.consequence is None
    if not (unknown or first.kind == "symptom") or first.category != "nccl_error":
        return None
    process = _process_of(first)
    later = [
        c for c in warnings[1:] if _process_of(c) == process and c.obs.file_index == first.obs.file_index
    ]
    return first if later and all(c.kind == "symptom" for c in later) else None


def _process_of(cand: Candidate) -> tuple[str, str] | None:
    m = NCCL_PROCESS.search(cand.obs.text)
    return (m.group("host"), m.group("pid")) if m is not None else None


def _shared_exit(culprit: Candidate, pool: list[Candidate]) -> Candidate:
    """Several ranks ended the same way with nothing else said: torchrun's first observed failure, else no rank."""
    code = culprit.obs.code if isinstance(culprit.obs, ExitObs) else None
    same = [
        c
        for c in pool
        if c.kind == culprit.kind
        and isinstance(c.obs, ExitObs)
        and c.obs.code == code
        and c.rank != culprit.rank
    ]
    if TERMINATES_THE_OTHERS.search(culprit.obs.text):
        # The report of this death says the launcher then kills the rest: deaths reported after it are its doing.
        same = [
            c for c in same if c.obs.file_index != culprit.obs.file_index or c.obs.line < culprit.obs.line
        ]
    if not same:
        return culprit
    for cand in [culprit, *same]:
        if isinstance(cand.obs, ExitObs) and cand.obs.table_root:
            culprit = cand  # state torchrun's first observed failure, but every rank died alike
    culprit.suspects = sorted({c.rank for c in [culprit, *same] if c.rank is not None})
    culprit.rank = None
    culprit.rank_note = "several ranks ended the same way; the logs do not say which was first"
    return culprit


def _symptom_rank(culprit: Candidate, pool: list[Candidate]) -> Candidate:
    """With only consequences, the rank is known only when one rank reported them (or torchrun said), or
    when one rank's report shows it fell behind the others; returns the culprit (that rank's report)."""
    obs = culprit.obs
    if isinstance(obs, ExitObs) and obs.table_root:
        return culprit
    ranks = {c.rank for c in pool if c.rank is not None and c.consequence != "launcher"}
    behind = _fewest_enqueued(pool)
    if behind is not None:
        report, note = behind
        report.rank_note = note
        report.suspects = [report.rank] if report.rank is not None else []
        return report
    if (
        culprit.consequence == "timeout" or culprit.category == "collective_timeout"
    ) and culprit.rank is not None:
        # A rank that reports a timeout waited for another one: it is a victim, the culprit is unknown.
        culprit.rank_note = (
            f"rank {culprit.rank} reported the timeout; the rank it waited for is not in the logs"
        )
        culprit.rank = None
    elif len(ranks) > 1 or (culprit.rank is not None and ranks and culprit.rank not in ranks):
        culprit.suspects = culprit.suspects or []
        culprit.rank = None
    return culprit


def _fewest_enqueued(pool: list[Candidate]) -> tuple[Candidate, str] | None:
    """(report, note) of the one rank with fewer collectives still enqueued than every other reporting rank.

    ProcessGroupNCCL's heartbeat monitor prints how many collectives its watchdog still tracks
    (`workMetaList_.size()=84`). Launching a collective is asynchronous, so ranks that went on enqueue
    more than a rank that stopped before them: the rank with the fewest is the one behind."""
    sizes: dict[int, int] = {}
    reports: dict[int, Candidate] = {}
    for cand in pool:
        m = _ENQUEUED.search(cand.obs.text)
        if m is not None and cand.rank is not None and cand.rank == cand.obs.rank:
            sizes[cand.rank] = int(m.group(1))
            reports.setdefault(cand.rank, cand)
    if len(sizes) < 2:
        return None
    fewest = min(sizes.values())
    behind = [rank for rank, size in sizes.items() if size == fewest]
    if len(behind) != 1:
        return None
    others = sorted({size for rank, size in sizes.items() if rank != behind[0]})
    note = (
        f"rank {behind[0]} had {fewest} collectives enqueued when its heartbeat monitor fired, the other"
        f" ranks {', '.join(map(str, others))}: it fell behind them"
    )
    return reports[behind[0]], note


# What a message that names two ranks as the parties of one fault says of them (a KB entry that
# declares which of the two is at fault, by its `rank` group, keeps that rank).
_TWO_PARTIES = {
    "duplicate_device": "several ranks share one device; no single rank is at fault",
    "collective_mismatch": (
        "the message names the ranks that disagree; which one took the other path it does not say"
    ),
}


def _two_parties(culprit: Candidate, found: list[Candidate]) -> None:
    """A message naming two ranks as the parties of the fault (`rank 0 and rank 1 both on CUDA device
    1000`, `Rank 0 is running collective ..., but Rank 1 is running ...`): both are suspects, neither
    is the culprit."""
    note = _TWO_PARTIES.get(culprit.category)
    groups = culprit.obs.groups()
    peer = groups.get("peer") or groups.get("other_rank")
    entry = culprit.entry
    if (
        note is None
        or bounded_rank(peer) is None
        or (entry is not None and entry.rank_group not in (None, "rank"))
    ):
        return  # the peer of a lost connection is an address, not a rank
    if entry is not None and (agreed := _odd_one_named(entry.id, found)) and agreed[0] == culprit.rank:
        return  # the other ranks that raised it all name this one: it is the party at fault
    named = {bounded_rank(groups.get(key)) for key in ("rank", "peer", "other_rank")}
    culprit.suspects = sorted(
        {c.rank for c in found if c.rank is not None and c.category == culprit.category}
        | {rank for rank in named if rank is not None}
    )
    culprit.rank = None
    culprit.rank_note = note


def _reported_by_several(culprit: Candidate, found: list[Candidate]) -> None:
    """Collectives that disagreed, found by gloo's size check on more than one rank (`28 vs 24` on one,
    `24 vs 8` on another): each rank that received more than it expected reports it, so no one report singles
    out the rank whose tensor differs; those ranks are the suspects (a setting or count of one rank's own
    may name it, see _odd_setting)."""
    if culprit.category != "collective_mismatch" or culprit.rank is None or culprit.entry is None:
        return
    if _compared_sizes(culprit.obs.text) is None:
        return
    reporters = {
        c.rank
        for c in found
        if c.entry is culprit.entry and c.tier == CAUSE and c.rank is not None and _compared_sizes(c.obs.text)
    }
    if len(reporters) > 1:
        culprit.suspects = sorted(reporters)
        culprit.rank = None
        culprit.rank_note = (
            f"ranks {rank_list(culprit.suspects)} each found the sizes disagree: gloo's check fails on every rank"
            " that received more than it expected, so none of them is singled out"
        )


def _first_to_differ(culprit: Candidate) -> None:
    """torch's check of collectives (TORCH_DISTRIBUTED_DEBUG=DETAIL) on one rank compares its collective with
    every rank's in rank order and reports the first that differs (`Rank 1 is running collective: ..., but
    Rank 7 is running collective: ...`): each rank before that one, the reporter aside, runs the reporter's
    collective, so the named rank is the odd one. Where it names rank 0 (or rank 0 names rank 1), no other
    rank is known to agree, and the report only names the two parties."""
    if culprit.category != "collective_mismatch":
        return
    facts = collective_facts(culprit.obs.innermost_text())
    if facts is None or facts.state != "mismatch" or len(facts.named_ops) != 2:
        return
    reporter, first = facts.named_ops  # in the order the report names them
    if first == 0 or (first == 1 and reporter == 0):
        return
    culprit.rank, culprit.suspects = first, [first]
    culprit.rank_note = (
        f"inferred: rank {reporter}'s check compares every rank's collective in rank order and names rank"
        f" {first} first, so the ranks before it run rank {reporter}'s"
    )
    culprit.reasons.append(
        f"rank {reporter} found rank {first} the first rank whose collective differs from its own: the ranks"
        f" before rank {first} run the same collective as rank {reporter}, so rank {first} is the odd one"
    )


def _others_got_further(culprit: Candidate, found: list[Candidate]) -> bool:
    """Whether another rank got past the culprit's failing step: it waited in a collective or lost
    its peer, failed of another cause of its own (not a bare exit, which says nothing of where), or
    its traceback (even one cut off) ends at another line of the script than the culprit's."""
    return any(
        c.rank is not None
        and c.rank != culprit.rank
        and (
            c.consequence in ("timeout", "peer-failure", "watchdog")
            or (c.tier == CAUSE and c.category != culprit.category and c.kind not in ("exit", "crash"))
            or _elsewhere_in_the_script(c, culprit)
        )
        for c in found
    )


def _elsewhere_in_the_script(other: Candidate, culprit: Candidate) -> bool:
    """Whether the other's innermost frame of the user's code is another line of the culprit's file."""
    if not isinstance(other.obs, ExceptionObs) or not isinstance(culprit.obs, ExceptionObs):
        return False
    theirs, mine = other.obs.user_frame(), culprit.obs.user_frame()
    return theirs is not None and mine is not None and theirs.file == mine.file and theirs.line != mine.line


def _named_by_report(culprit: Candidate) -> bool:
    """Whether the culprit's rank is one its message names (the rank waited for), not its printer's."""
    return culprit.rank is not None and culprit.rank in culprit.suspects and culprit.rank != culprit.obs.rank


def _named_beyond_the_job(culprit: Candidate, timeline: Timeline) -> None:
    """A report names as missing a rank that appears nowhere in the logs, above every rank that does,
    while every rank below it is there: the job was started with fewer processes than its world size
    says (or a whole node never started), a configuration fault rather than that rank's."""
    if not _named_by_report(culprit) or culprit.rank is None:
        return
    seen = timeline.ranks
    if len(seen) < 2 or culprit.rank in seen or culprit.rank <= max(seen) or set(range(max(seen))) - seen:
        return
    if timeline.world_hinted and timeline.world_size is not None and culprit.rank < timeline.world_size:
        return  # the logs' world size says the rank exists: it did not arrive
    culprit.rank_note = (
        f"the report names rank {culprit.rank}, which appears nowhere in the logs while ranks"
        f" {rank_list(sorted(seen))} do: fewer processes were started than the world size says"
    )
    culprit.rank = None


def _first_failure_elsewhere(culprit: Candidate, found: list[Candidate]) -> None:
    """torchrun saw another rank fail first, and that rank's own error is not in the logs: both are suspects."""
    if culprit.rank is None or culprit.category in ("collective_mismatch", "collective_timeout"):
        return  # a collective's report names ranks of its own
    first = [
        c
        for c in found
        if c.kind == "exit"
        and isinstance(c.obs, ExitObs)
        and (c.obs.table_root or c.obs.reporter == "torchrun-agent")
        and c.rank is not None
        and c.rank != culprit.rank
    ]
    other = next((c.rank for c in first if c.rank is not None), None)
    if other is None:
        return
    if any(c.rank == other and c.kind != "exit" and _names_rank(c.obs.text, culprit.rank) for c in found):
        # What the first to fail said names this rank (`watchdog: no heartbeat from rank 3`): it ended
        # because of this rank's error, which is not every rank's.
        culprit.reasons.append(
            f"rank {other}, which torchrun saw fail first, named rank {culprit.rank} as it ended"
        )
        return
    culprit.suspects = sorted({culprit.rank, other})
    culprit.rank_note = (
        f"rank {culprit.rank} printed this error, but torchrun saw rank {other} fail first"
        f" and rank {other}'s own error is not in these logs (likely the same error on every rank)"
    )
    culprit.rank = None


# Categories whose report says nothing of the rank that printed it: a job that could not assemble, a
# device two ranks share, a wait for peers.
_NOT_THE_PRINTERS = ("rendezvous", "duplicate_device", "collective_timeout")


def _sole_failing_rank(culprit: Candidate, found: list[Candidate], timeline: Timeline) -> None:
    """An error with no rank label, and the launcher saw exactly one rank fail (the others it stopped,
    or they lost a peer): the error is that rank's. Not a wait for peers (`collective_timeout`): its
    printer is the one that waited, not the one that failed."""
    if culprit.rank is not None or culprit.suspects or culprit.category in _NOT_THE_PRINTERS:
        return
    message = culprit.obs.innermost_text().strip(" :")[-40:]  # the tail survives interleaved output
    printed = sum(message in text for _, _, text in culprit.obs.evidence) + sum(
        message in c.obs.text for c in found if c.obs is not culprit.obs
    )
    if any(
        c.rank is not None and c.consequence is None and c.kind != "lost-peer"
        for c in found
        if not isinstance(c.obs, ExitObs)
    ):
        return  # other ranks speak for themselves (not when all they say is that they lost a peer)
    exits = [
        c.obs for c in found if isinstance(c.obs, ExitObs) and c.consequence != "launcher" and c.obs.code
    ]
    # A rank that exited non-zero after saying only that it lost a peer gets no candidate for its exit;
    # one that timed out waiting exited because of the wait, not of an error of its own.
    waited = {c.rank for c in found if c.consequence == "timeout"}
    counted = {id(o) for o in exits}
    exits += [
        o
        for o in timeline.exits
        if o.code and o.signal is None and o.rank not in waited and id(o) not in counted
    ]
    failed = {o.rank for o in exits}
    if max(culprit.obs.count, printed) > max(len(exits), 1):
        return  # printed more often than the launcher saw a rank fail (once per restart): several ranks hit it
    if len(failed) == 1 and None not in failed:
        culprit.rank = failed.pop()
        culprit.rank_note = "the only rank the launcher reported as failed; the error itself carries no rank"


def _helper_of_the_one_rank(culprit: Candidate, found: list[Candidate]) -> None:
    """An exception with no rank label (a helper thread's or worker process's traceback, which the
    launcher's prefix does not reach) while exactly one rank raised an error of its own that is no
    peer's consequence (`checkpoint writer stopped`, `BrokenProcessPool`): the helper was that rank's,
    and its failure is what the rank's own error followed from."""
    if culprit.rank is not None or culprit.obs.rank is not None or not isinstance(culprit.obs, ExceptionObs):
        return
    owners = {
        c.rank
        for c in found
        if c is not culprit
        and c.rank is not None
        and c.consequence is None
        and c.tier == CAUSE
        and c.kind in ("root", "unknown")  # raised whole, not inferred of a rank others lost
        and isinstance(c.obs, ExceptionObs)
    }
    if len(owners) != 1:
        return
    culprit.rank = owners.pop()
    culprit.rank_note = (
        f"inferred: rank {culprit.rank} is the only rank that raised an error of its own; this one carries no"
        " rank label (a helper thread's or process's), so it was that rank's"
    )


# Lines after an error's first line that may still be the same report (DDP's list of the parameters
# that "did not receive grad for rank 1", printed after its message).
_SAME_REPORT_LINES = 30


def _rank_in_its_own_report(culprit: Candidate, found: list[Candidate]) -> None:
    """An error with no rank label whose own report goes on to name one rank (DDP's `Parameter
    indices which did not receive grad for rank 1`, a few lines below `Expected to have finished
    reduction`): the report is that rank's."""
    if culprit.rank is not None or culprit.suspects or culprit.entry is None:
        return
    obs = culprit.obs
    named = {
        c.rank
        for c in found
        if c is not culprit
        and c.entry is culprit.entry
        and c.rank is not None
        and (c.obs.rank_source or "").startswith("message (")
        and c.obs.file_index == obs.file_index
        and 0 < c.obs.line - obs.line <= _SAME_REPORT_LINES
    }
    if len(named) == 1:
        culprit.rank = named.pop()
        culprit.rank_note = f"the error's own report names rank {culprit.rank} a few lines on"


def _awaited_rank(culprit: Candidate, found: list[Candidate]) -> None:
    """An error with no rank label (a thread's or a subprocess's traceback, which torch's `[rankN]:`
    prefix never covers, or an uncaught C++ exception's `terminate called`), and the other ranks waited
    in a collective for one rank, or lost their connection to the one rank with no labelled line: the
    error is that of the rank that stopped taking part."""
    if culprit.rank is not None or culprit.suspects or culprit.category in ("rendezvous", "duplicate_device"):
        return
    awaited = {c.rank for c in found if c.kind in ("straggler", "lost-peer")}
    if len(awaited) != 1 or None in awaited:
        return
    if any(c.rank is not None and c.tier == CAUSE for c in found):
        return  # a rank failed for a reason of its own
    culprit.rank = awaited.pop()
    culprit.rank_note = f"the error carries no rank label; the other ranks waited for rank {culprit.rank}"


def _sole_rank_of_its_kind(culprit: Candidate, found: list[Candidate]) -> None:
    """A CUDA failure with no rank label (a kernel's device-side assertion, which the CUDA runtime
    writes past the launcher's rank prefix), and one rank alone reports a CUDA failure (rank 6's
    watchdog: `CUDA error: device-side assert triggered`, or a traceback the excerpt cut off before
    its exception), other unlabelled lines aside: the unlabelled lines are that rank's."""
    if culprit.rank is not None or culprit.suspects or culprit.category != "cuda_error":
        return
    ranks = {
        c.rank
        for c in found
        if c.obs is not culprit.obs
        and c.rank is not None
        and (c.category == culprit.category or (isinstance(c.obs, ExceptionObs) and c.obs.cut_off))
    }
    if len(ranks) != 1:
        return
    if any(c.rank is not None and c.rank not in ranks and c.tier == CAUSE for c in found):
        return  # another rank failed for a reason of its own
    culprit.rank = ranks.pop()
    culprit.rank_note = f"the error carries no rank label; rank {culprit.rank} alone reports a CUDA failure"


def _sole_aborted_rank(culprit: Candidate, found: list[Candidate]) -> None:
    """An uncaught C++ exception with no rank label (`terminate called after throwing ...`, written
    past the launcher's rank prefix) ends its process with SIGABRT; when one rank alone is reported
    to have ended by SIGABRT, the exception is that rank's."""
    if culprit.rank is not None or culprit.suspects or not _uncaught_cpp_exception(culprit):
        return
    aborted = {
        c.rank
        for c in found
        if isinstance(c.obs, ExitObs) and c.obs.signal == signal.SIGABRT and c.rank is not None
    }
    if len(aborted) != 1:
        return
    culprit.rank = aborted.pop()
    culprit.rank_note = (
        f"the error carries no rank label; rank {culprit.rank} alone ended by SIGABRT, which is how an"
        " uncaught C++ exception ends its process"
    )


def _every_rank_alike(
    culprit: Candidate, pool: list[Candidate], found: list[Candidate], timeline: Timeline
) -> None:
    """Every rank of the job raised the same error: the fault is shared (code, data, configuration), not
    one rank's, so no rank is named; the ranks are the suspects. A rank whose traceback was cut off
    in a frame of the culprit's own traceback counts as raising it too."""
    if not _printed_by(culprit) or not timeline.world_size or timeline.world_size < 2:
        return
    signature = _error_signature(culprit)
    ranks = {
        c.rank
        for c in [culprit, *pool]
        if c.rank is not None and _printed_by(c) and c.tier == CAUSE and _error_signature(c) == signature
    }
    ranks |= {
        c.rank for c in found if c.rank is not None and _printed_by(c) and _cut_off_on_the_way(c, culprit)
    }
    if len(ranks) < timeline.world_size or not ranks.issuperset(range(timeline.world_size)):
        return
    culprit.suspects = sorted(ranks)
    culprit.rank_note = (
        f"every rank of the job ({timeline.world_size}) raised this same error: the cause is shared"
        f" (the code, the data or the configuration), not one rank's; rank {culprit.rank} printed it first"
    )
    culprit.rank = None


def _named_by_the_others(culprit: Candidate, pool: list[Candidate]) -> Candidate:
    """Ranks raised one known message that names another rank (`but Rank 1 has 9 params, while rank
    0 has inconsistent 8 params`, a fingerprint check's `Rank 0 is running collective: ..., but Rank 1
    is running collective: ...`), and every one of them but the rank named names that same rank: the
    others agree it is the odd one (its own message can only name one of them). Its own copy of the
    message, where it raised one, is the one to show."""
    entry = culprit.entry
    if entry is None or entry.rank_fixed is not None:
        return culprit
    agreed = _odd_one_named(entry.id, pool)
    if agreed is None:
        return culprit
    odd, printers = agreed
    others = rank_list(printers)
    chosen = next(
        (c for c in pool if c.entry is not None and c.entry.id == entry.id and c.obs.rank == odd), culprit
    )
    chosen.rank, chosen.suspects = odd, [odd]
    chosen.rank_note = f"named by every other rank that raised it ({others})"
    chosen.reasons.append(
        f"ranks {others} each name rank {odd} in this message: it is the one that differs from them"
    )
    return chosen


def _odd_one_named(entry_id: str, cands: list[Candidate]) -> tuple[int, list[int]] | None:
    """The rank that every other rank printing this known message names in it, and those others, when
    at least two of them agree on it and none names another."""
    raised = [c for c in cands if c.entry is not None and c.entry.id == entry_id]
    named = {c.obs.rank: _other_rank_named(c) for c in raised if c.obs.rank is not None}
    votes = Counter(rank for rank in named.values() if rank is not None)
    if not votes:
        return None
    odd, count = votes.most_common(1)[0]
    if count < 2 or any(named[printer] != odd for printer in named if printer != odd):
        return None
    return odd, sorted(printer for printer in named if printer != odd)


def _other_rank_named(cand: Candidate) -> int | None:
    """The rank a known message names beside the rank that printed it: by its entry's rank rule when
    that reads another group than the printer's own, or the peer of a collective fingerprint check."""
    entry = cand.entry
    if entry is not None and entry.rank_group not in (None, "rank"):
        return entry.rank_from(cand.obs.groups())
    facts = collective_facts(cand.obs.innermost_text())
    peers = (
        set(facts.named_ops) - {cand.obs.rank} if facts is not None and facts.state == "mismatch" else set()
    )
    return peers.pop() if len(peers) == 1 else None


def _cut_off_on_the_way(cand: Candidate, culprit: Candidate) -> bool:
    """Whether a traceback cut off before its exception line stopped in a frame of the culprit's traceback."""
    obs, raised = cand.obs, culprit.obs
    if not isinstance(obs, ExceptionObs) or not obs.cut_off or not obs.frames:
        return False
    if not isinstance(raised, ExceptionObs):
        return False
    last = obs.frames[-1]
    return any((frame.file, frame.line) == (last.file, last.line) for frame in raised.frames)


def _job_configuration(culprit: Candidate, found: list[Candidate]) -> None:
    """A check of the job's parallel layout (sizes that must divide the world size, batch sizes that
    must multiply out) gives the same answer on every rank: the rank that printed it is not at fault.
    Unless the other ranks are seen past it (waiting for that rank, or losing it): then the sizes it
    checked were that rank's own (read from its shard or its config), an error of the training code."""
    if not LAYOUT_CHECK.search(culprit.obs.innermost_text()):
        return
    if _others_got_further(culprit, found):
        if culprit.category == "other" and culprit.entry is None:
            culprit.category = "user_code"
        culprit.reasons.append(
            "the other ranks got past this check (they waited for this rank, or lost it): the sizes it"
            " checked were this rank's own"
        )
        return
    culprit.disown("it is a check of the job's configuration that every rank fails alike")


def _printed_by(cand: Candidate) -> bool:
    """Whether the candidate's rank is the rank that printed it (not a rank its message names)."""
    source = cand.obs.rank_source or ""
    return cand.rank is not None and cand.rank == cand.obs.rank and not source.startswith("message")


def _error_signature(cand: Candidate) -> tuple[str | None, str]:
    """What makes two ranks' errors the same: the entry and the message with its numbers left out."""
    text = numberless(cand.obs.innermost_text().strip())[:200]
    return (cand.entry.id if cand.entry is not None else None, text)


def _lone_lost_connection(culprit: Candidate) -> None:
    """NCCL lost a connection and no peer's failure is in the logs: the network is the suspect, not the reporter."""
    if culprit.consequence != "peer-failure" or "NCCL" not in " ".join(
        link.text for link in culprit.obs.chain
    ):
        return
    if _COMMUNICATOR_ABORTED.search(culprit.obs.text):
        return  # the process group aborted it after a failed or timed-out collective: no connection was lost
    if culprit.category != "rendezvous":  # a lost store while NCCL sets up stays a rendezvous failure
        culprit.category = "nccl_error"
        culprit.reasons.append(
            "NCCL lost its connection to a peer and no other rank's failure is in the logs:"
            " the network or the remote host is the suspect"
        )
    if culprit.rank is not None:
        culprit.rank_note = (
            f"rank {culprit.rank} reported the lost connection; the peer it lost is not in the logs"
        )
        culprit.rank = None


def _ordered_in_time(cands: list[Candidate]) -> bool:
    from ddpdoctor.explain.clock import comparable

    stamps = [c.obs.stamp for c in cands]
    return all(s is not None for s in stamps) and comparable([s for s in stamps if s is not None]) is not None


def _confidence(culprit: Candidate, rivals: list[Candidate], timeline: Timeline) -> str:
    if culprit.tier == CAUSE and culprit.strength >= 2:
        level = 0
        if culprit.entry is not None and culprit.entry.status == "experimental":
            level = 1
        if culprit.kind == "unknown" and culprit.category == "other":
            level = 1
    elif culprit.tier in (CAUSE, INFERRED):
        level = 1
    else:
        level = 2
    if rivals and not _ordered_in_time([culprit, *rivals]):
        level = min(2, level + 1)
    if culprit.rank is None and timeline.world_size and timeline.world_size > 1 and culprit.tier <= INFERRED:
        level = max(level, 1)
    if isinstance(culprit.obs, (ProgressObs, RecentLineObs)) or (
        culprit.kind == "lost-peer" and culprit.category == "oom_host"
    ):
        level = 2  # no failure line backs it, or how the rank ended is inferred from its silence
    return CONFIDENCE[level]


def _victims(culprit: Candidate, found: list[Candidate]) -> list[tuple[Candidate, str]]:
    best: dict[object, Candidate] = {}
    for cand in found:
        if cand is culprit or cand.kind == "wrapper":
            continue
        if cand.rank is not None and cand.rank == culprit.rank:
            continue
        if cand.rank is None and cand.kind in ("exit", "symptom") and cand.consequence == "launcher":
            continue
        entry = cand.entry
        key: object = (
            cand.rank if cand.rank is not None else ("none", entry.id if entry else cand.obs.text[:80])
        )
        if key not in best or (cand.tier, -cand.strength) < (best[key].tier, -best[key].strength):
            best[key] = cand
    out = []
    for cand in sorted(best.values(), key=lambda c: (c.rank if c.rank is not None else 1 << 30, c.obs.line)):
        role = "victim" if cand.tier >= CONSEQUENCE or cand.consequence is not None else "also-failed"
        out.append((cand, role))
    return out


def _rank_list(cands: list[Candidate]) -> str:
    ranks = sorted({str(c.rank) for c in cands if c.rank is not None})
    return ", ".join(ranks) if ranks else "unknown ranks"
