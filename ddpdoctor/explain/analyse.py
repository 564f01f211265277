"""Analysers: weigh the timeline's observations and propose culprits, each with its reasons.

Each analyser reads the whole timeline and returns :class:`Candidate` verdicts in tiers:

1. a cause: a knowledge-base root entry, an exception or panic (classified by its structure and by
   what its message says when the knowledge base does not know it), a mismatch between the ranks'
   collectives (different ops at one sequence number, or tracebacks that stop in different
   collectives), a rank a desync report or a monitored barrier names as behind, a process group
   that cannot form (global ranks claimed twice, a store-based barrier stuck at another count than
   the world size);
2. an inference: a rank killed by SIGKILL that printed no error (likely the host's OOM killer), a
   rank that crashed on a signal or exited non-zero without text, a rank that never reported the
   collective timeout every other rank hit (the straggler), ranks behind the others' sequence
   numbers, the peer a rank's report says it waited for;
3. a consequence: timeouts, lost connections to a peer, errors that follow an earlier error of the
   same rank, SIGTERM/SIGABRT sent by the launcher or the watchdog, error-level lines;
4. a wrapper with nothing inside (a launcher's summary only).

Whether a message is a consequence is a property of the context, not of the message: an entry may
declare `consequence_of: [peer-failure]` (it is what a rank sees when another one died) or
`[earlier-error]` (it follows another error of the same rank); :mod:`verdict` demotes such a
candidate only when that other failure is in the logs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from ddpdoctor.explain.clock import Stamp
from ddpdoctor.explain.collectives import collective_facts, monitored_barrier_role
from ddpdoctor.explain.index import ARGPARSE_ERROR, IndexEntry, KbIndex
from ddpdoctor.explain.observations import (
    FATAL_WORD_SIGNALS,
    SIGNAL_NAMES,
    CollectiveObs,
    ExceptionObs,
    ExitObs,
    Frame,
    LeadObs,
    MembershipObs,
    Observation,
    RecentLineObs,
    StackDumpObs,
    ranks_by_collective,
)
from ddpdoctor.explain.ranks import bounded_rank, rank_list
from ddpdoctor.explain.timeline import TAKING_MOST, Timeline, last_run, order
from ddpdoctor.explain.wording import (
    CHILD_DIED,
    CUDA_OOM,
    ENDS_ITSELF,
    ENDS_NORMALLY,
    HAS_NOTHING_TO_DO,
    NAMES_A_FAILURE,
    PEER_LOST,
    PORT_IN_USE,
    PROCESS_EXITED,
    PROGRAM_FAILED,
    STATES_A_HALT,
    TIMED_OUT,
    TRIES_AGAIN,
    VERSION_TEXT,
    WAITS_IN_A_LOOP,
    WAITS_ON_SOMETHING,
    WRAPPER_EXCEPTIONS,
    device_shared_by_processes,
    message_category,
    numberless,
)
from ddpdoctor.frames import called_collective, collective_name, in_distributed_library, in_standard_library
from ddpdoctor.matching import LazyRegex
from ddpdoctor.records import Record, field
from ddpdoctor.units import format_size

CAUSE, INFERRED, CONSEQUENCE, WRAPPER = 1, 2, 3, 4
# Words that say a rank leaves out a step (`no validated cells, skipping eval`): where it parts from its
# peers, the step whose collectives they went on into.
_SKIPS = LazyRegex(r"(?i)\bskip(?:s|ped|ping)?\b")
# The C++ runtime's last word when a process ends with threads still running (gloo's, after a script
# returned without destroying its process group): how it ended, not something it said.
_ENDED_WITH_THREADS = LazyRegex(r"terminate called without an active exception")
# Words that say a rank holds back until something happens (`filter in backwash, holding until controller
# reports service mode`) or holds an action back (`inside quiet hours, holding fog signal test`, `deferring
# upload`): a wait of its own, stated once.
_HOLDS_BACK = LazyRegex(
    r"(?i)\b(?:hold(?:s|ing)?|paus(?:e|es|ing)|block(?:s|ing)?|sleep(?:s|ing)?|stay(?:s|ing)?)\b.{0,80}\buntil\b"
    r"|\b(?:holding(?! out\b)|deferring|postponing|pausing|suspending)\b"
)
# Words that say an action goes on until a condition holds (`redrawing Q until full rank`).
_REPEATS_UNTIL = LazyRegex(r"(?i)\b(?:until|till)\b")
# torch's dispatch refusing a tensor's dtype (`"bincount_cpu" not implemented for 'Double'`).
_NO_KERNEL_FOR_DTYPE = LazyRegex(r"\"\w{1,80}\" not implemented for '\w{1,40}'")
# A message that says what it was given (`... input Tensors supported (got 2D)`, `but got 3 channels`).
_SAYS_WHAT_IT_GOT = LazyRegex(r"\(got [\w.-]{1,40}\)|\bbut got\b")
# Words that say something timed out (`Operation timed out!`).
_SAYS_TIMED_OUT = LazyRegex(r"(?i)\btimed ?out\b")
# An exported or compiled program's check of the inputs it is called with against the example it was
# traced with (torch.export's `Guard failed: x.size()[0] == 8`, `Expected input at *args[0].shape[0] to
# be equal to 8, but got 5`).
_INPUT_GUARD = LazyRegex(r"\bGuard failed: |\bExpected input at \*?\w{1,40}\[")
# A library's assertion on the shape of a tensor it was given (torch's attention: `Expected
# key_padded_mask.shape[1] to be 48, but got 79`).
_SHAPE_ASSERTION = LazyRegex(
    r"^AssertionError: Expected \w{1,80}(?:\.shape|\.size\(\))\S{0,20} to be \S{1,40}, but got "
)

# Knowledge-base entries the analysers name by id (a test checks that each exists).
SIGNAL_ENTRIES = {
    9: "torchelastic-signal-sigkill",
    6: "torchelastic-signal-sigabrt",
    11: "torchelastic-signal-sigsegv",
    15: "torchelastic-signal-sigterm",
    1: "torchelastic-sighup",
}
NO_ERROR_FILE_ENTRY = "torchelastic-no-error-file"
KNOWN_ENTRY_IDS = (*SIGNAL_ENTRIES.values(), NO_ERROR_FILE_ENTRY)

# Frames that set up the process group: a connection lost there is a start-up (rendezvous) failure.
_START_UP = LazyRegex(
    r"init_process_group|rendezvous|_create_c10d_store|_store_based_barrier|TCPStore|init_device_mesh"
)
_OBJECT_COLLECTIVE = LazyRegex(
    r"^(?:all_gather_list|all_gather_object|broadcast_object_list|gather_object|scatter_object_list"
    r"|recv_object_list|broadcast_obj|recv_obj|_tensor_to_object)$"
)
STORE_TIMEOUT_ENTRY = "dist-store-timeout"
_SHM_ENTRY = "nccl-shm-error"
_CUDA_CALL_FAILED_ENTRY = "nccl-unhandled-cuda-error"
_STORE_WAIT = LazyRegex(r"wait timeout after|Timeout waiting for key")
_COLLECTIVE_CALL = LazyRegex(
    r"(?:barrier|broadcast\w*|all_?gather\w*|all_?reduce\w*|gather\w*|scatter\w*|recv\w*|send\w*)$"
)
# A call that only synchronises the ranks (`accelerator.wait_for_everyone()`, `dist.barrier()`).
_NUMERIC = LazyRegex(
    r"\b(?:NaN|nan|inf|Inf|infinite)\b.{0,40}(?:loss|grad|norm)|(?:loss|grad|norm).{0,40}\b(?:NaN|nan|inf|infinite)\b"
)
_USAGE = LazyRegex(ARGPARSE_ERROR)
_BUS_ERROR = LazyRegex(r"Bus error|SIGBUS|signal 7\b")
# A runtime's report that the process was told to stop (PaddlePaddle's `FatalError: `Termination
# signal` is detected by the operating system.`).
_TOLD_TO_STOP = LazyRegex(r"`Termination signal`|\bSIGTERM\b")
# Python exceptions that say the program itself is wrong, whoever raised them.
_PROGRAMMING_ERRORS = (
    "AttributeError",
    "TypeError",
    "NameError",
    "UnboundLocalError",
    "KeyError",
    "IndexError",
    "ValueError",
    "AssertionError",
    "NotImplementedError",
    "ZeroDivisionError",
    "RecursionError",
    "SyntaxError",
    "IndentationError",
)
# Where torch gathers a job's processes: torchrun's rendezvous and init_process_group's store, and the
# etcd clients its etcd rendezvous backends talk through.
_RENDEZVOUS_CODE = LazyRegex(
    r"torch/distributed/(?:elastic/rendezvous/|rendezvous\.py)|(?:site|dist)-packages/etcd3?/"
)
_CHILD_BOOTSTRAP = LazyRegex(r"(?<!torch/)multiprocessing/spawn\.py$")  # a child reading its task
# DataLoader, samplers and datasets of torch, and the data-loading libraries' own code.
_DATA_CODE = LazyRegex(
    r"torch/utils/data/|[/\\](?:site|dist)-packages[/\\](?:datasets|litdata|webdataset|streaming|torchdata|ffcv)[/\\]"
)
_LOADER_FILE = "torch/utils/data/dataloader.py"
_FETCH_FILE = "torch/utils/data/_utils/fetch.py"
_BARRIERS = ("barrier", "monitored_barrier")
_BARRIER_CALLS = (*_BARRIERS, "wait_for_everyone")  # ... and Accelerate's name for one, as a script calls it
_RECEIVE_WAIT = "for recv operation"
_PROCESS_FILE = "multiprocessing/process.py"
# The loop only a DataLoader's worker process runs: a traceback through it was raised in a worker,
# even when the paste starts at its "Original Traceback" and lost the re-raise's words.
# Where tensors pass between processes through shared memory (a DataLoader worker's batch handed to the
# main process by file descriptor: `Connection refused` or `Too many open files` there).
_TENSOR_SHARING = LazyRegex(r"multiprocessing/resource_sharer\.py$|torch/multiprocessing/reductions\.py$")
_WORKER_LOOP = LazyRegex(
    r"torch/utils/data/_utils/worker\.py$"
    # ... and PaddlePaddle's: its DataLoader's workers, its readers' processes (`multiprocess_reader`)
    r"|paddle/(?:io/dataloader|fluid/dataloader)/worker\.py$|paddle/reader/decorator\.py$"
)
# Python's own modules (not the packages installed beside them).
_PYTHON_STDLIB = LazyRegex(
    r"[/\\]lib(?:64)?[/\\]python\d(?:\.\d{1,2})?[/\\](?!(?:site|dist)-packages[/\\])|^<frozen "
)
# A statement that takes the next item of the job's data: a loop over a loader or dataset, or next() on one.
_LOOP = r"\s*(?:for\b.{1,200}?\bin\b|.{0,200}?\bnext\()"  # a loop's head, or a call of next()
_ITERATES_DATA = LazyRegex(
    r"(?i)^" + _LOOP + r".{0,200}?(?:loader|dataset|data_?iter|train_data|batches|sampler|\bdata\b)"
)
_LOOPS = LazyRegex(_LOOP)
_ITEM_PRODUCERS = ("__iter__", "__next__")
_BATCH_FETCH = LazyRegex(r"torch/utils/data/_utils/fetch\.py$")  # the DataLoader asking for a batch
_DEVICE_COUNT = LazyRegex(r"(?i)\b(?:(?:num_gpus|n_gpus?|ngpus?|gpu_count)\b|device_count\(\))")
_RANK_WORD = LazyRegex(r"(?i)rank\b")
# The standard library waiting for a child process (`subprocess.Popen.wait`, `multiprocessing` joins).
_CHILD_WAIT = LazyRegex(
    r"(?:^|/)(?:subprocess\.py|multiprocessing/(?:popen_\w{1,20}|process|connection)\.py)$"
)
# A function a thread sleeps in until something else happens (a lock, a queue, a child process, a socket).
_WAITS = LazyRegex(r"(?:_?wait\w{0,40}|acquire|join|sleep|poll|select|accept|recv\w{0,20}|_try_wait)$")
# An input pipeline's code: torch's (`torch/utils/data/...`), a library's (`fairseq/data/iterators.py`)
# or the script's dataset.
_INPUT_CODE = LazyRegex(r"/data/\w{1,100}\.py$|dataloader|dataset|iterators?\.py$")
# torch's ExceptionWrapper re-raising an error caught in another thread or process.
_CAUGHT_IN = LazyRegex(r"\bCaught \w{1,100} in (DataLoader worker process|pin memory thread|replica)\b")
_SPAWN_CODE = LazyRegex(r"torch/multiprocessing/spawn\.py$")  # where spawn reports a child's failure
# Code that opens the job's own connections: its store, rendezvous, collectives and launchers.
_JOB_NETWORK_CODE = LazyRegex(
    r"torch/distributed/|torch/multiprocessing/|deepspeed/|horovod/|/ray/|accelerate/|lightning/|colossalai/|megatron/"
)
_FAILED_TO_RUN = LazyRegex(r"Error: failed to run ")
_DEFERS_TO_ABOVE = LazyRegex(
    r"(?i)\bsee (?:the )?(?:root cause|(?:original )?(?:error|errors|exception|traceback)) above\b"
)
_COMMUNICATOR_SET_UP = LazyRegex(r"setting up NCCL communicator|retrieving ncclUniqueId")
# A launcher's own code: its command line and the loop that waits on its workers.
_LAUNCHER_CODE = LazyRegex(
    r"accelerate/commands/|torch/distributed/(?:run|launch)\.py$|torch/distributed/launcher/"
    r"|torch/distributed/elastic/(?:agent|multiprocessing)/|deepspeed/launcher/|/bin/(?:accelerate|torchrun|deepspeed)$"
)
# A command that starts processes on other hosts or under a scheduler (`Command 'ssh host ...'`,
# `Command '['srun', ...]'`): whoever ran it is a launcher, reporting a worker it started.
_REMOTE_LAUNCH = LazyRegex(r"\bCommand '\[?'?(?:\S{0,200}/)?(?:ssh|pdsh|srun|mpirun|mpiexec)\b")
_DEVICE_INDEX = LazyRegex(r"\bGPU (\d{1,4})[;,) ]|device='?cuda:(\d{1,4})")
_C10D_API = "torch/distributed/distributed_c10d.py"  # the collectives a script calls
_C10D_CODE = (_C10D_API, "torch/distributed/c10d_logger.py")  # ... and the wrapper that logs them
# Backward's own code, and the script's call of it (`loss.backward()`, `accelerator.backward(loss)`,
# Lightning's `self.manual_backward(loss)`).
_AUTOGRAD_CODE = LazyRegex(r"torch/(?:_tensor\.py$|autograd/)")
_BACKWARD_NAMES = frozenset({"backward", "manual_backward"})
_BACKWARD_CALL = LazyRegex(r"\b(?:manual_)?backward\(")
# Where a timeout raised from `loss.backward()` waited: the gradient all-reduce DDP runs in its hooks.
_IN_BACKWARD = "all_reduce of gradients in backward"
# ... and from a DDP model's forward: the broadcast of rank 0's buffers (`broadcast_buffers=True`), or of its
# buckets' order as the reducer rebuilds them after the first iteration (`_rebuild_buckets`).
_IN_FORWARD = "broadcast in DDP's forward"
# ... and from the script's own line, with no frame of torch.distributed: a wait on a request it holds.
_REQUEST_WAIT = "wait on a request"
_POINT_TO_POINT = frozenset(("send", "recv", "isend", "irecv"))
_QUEUE_EMPTY = frozenset(("_queue.Empty", "queue.Empty", "Empty"))  # a queue's get that timed out
_CALLED_AT = " called at "
_DDP_CODE = "torch/nn/parallel/distributed.py"
_PG_ID = LazyRegex(r"PG ID (\d{1,9})")
_LOOKUP_ERRORS = ("IndexError", "KeyError")
# Errors about a value a function was given (a key the data lacks, a value or type it refuses):
# most often what the program passed, even when raised deep inside a library.
_VALUE_ERRORS = ("KeyError", "ValueError", "TypeError")
# A path that is missing, already there, not a folder (or a file), not empty, or not accessible.
_PATH_ERRORS = (
    "FileNotFoundError",
    "FileExistsError",
    "PermissionError",
    "IsADirectoryError",
    "NotADirectoryError",
)
_PATH_ERRNO = LazyRegex(r"\[Errno (?:2|13|17|20|21|39|66)\]")
# A report that names the one process that failed by its rank (a list of several names none).
_FAILED_PROCESS_RANK = LazyRegex(
    r"\bprocess with rank ?[=:]? ?\[?(\d{1,7})\]? (?:was aborted|failed|exited|died|was killed)\b"
)
# A path inside a library's own cache: a folder `datasets` is still writing (`<hash>.incomplete`), a
# `.cache` folder, the Hugging Face caches. The library chose it; ranks or nodes share it.
_LIBRARY_CACHE = LazyRegex(
    r"\.incomplete\b|[/\\]\.cache[/\\]|[/\\]huggingface[/\\](?:datasets|hub|modules)[/\\]"
)
_DEVICE_LOOKUP = LazyRegex(r"(?i)devices?\b|device_ids|\bgpus?\b|cuda")
_DEVICE_BY_RANK = LazyRegex(r"(?i)(?:devices?|device_ids|gpus?)\w{0,20}\[[^\]]{0,80}rank")
# A data type refused by name (`Invalid scalar type`, `Unsupported data type`).
_TYPE_REFUSED = LazyRegex(r"(?i)\b(?:invalid|unsupported|unknown) (?:scalar type|data ?type|dtype)\b")
_VERSION_TYPES = ("ModuleNotFoundError", "ImportError")
# A message's next lines read with its first one: a terminal's wrap, or a runtime's report under its
# exception (torch_npu's `NPU function error: ...`, then `[ERROR] ...`, ..., `EE1001: ... Reason: ...`).
_CONTINUATION_LINES = 5
_PRIVATE_ATTRIBUTE = LazyRegex(r"object has no attribute '_[A-Za-z]\w{0,100}'")
# A class's object asked for a public name it does not have (`'Accelerator' object has no attribute
# 'deepspeed_engine_wrapped'`): a capitalised class, so not a builtin value (`'int' object`), nor None.
_OBJECT_LACKS = LazyRegex(r"'(?!NoneType')[A-Z]\w{1,100}' object has no attribute '([A-Za-z]\w{0,100})'")
# ... unless the name is a builtin container's method: the code took the object for a dict or a list
# (`getattr(self, 'accelerator', {}).get('model')`), a mistake of its own, not an API that moved.
_CONTAINER_METHODS = frozenset(
    ("get", "keys", "values", "items", "update", "setdefault", "pop", "append", "extend", "insert")
)
# torchrun's rendezvous and the c10d store raise these when the processes cannot assemble.
_RENDEZVOUS_TYPES = (
    "RendezvousClosedError",
    "RendezvousConnectionError",
    "RendezvousError",
    "RendezvousStateError",
    "RendezvousTimeoutError",
    "DistStoreError",
)
# Categories that name only the layer a lost connection surfaced in, not a cause of its own.
_LAYERS = ("rendezvous", "nccl_error", "collective_timeout")
_COLLATERAL_SIGNALS = (15, 1, 2)  # sent by the launcher (or the user) to stop the other ranks


class Candidate(Record):
    """A possible culprit: the observation, what kind of conclusion it is, and why."""

    obs: Observation
    tier: int
    # root, unknown, straggler, left-behind, mismatch, host-kill, crash, exit, symptom, wrapper, error-line, interface
    kind: str
    category: str
    entry: IndexEntry | None
    rank: int | None
    strength: int = 1  # within a tier: 3 a knowledge-base root, 2 structure says much, 1 little
    consequence: str | None = None  # peer-failure, earlier-error, launcher, watchdog, timeout
    reasons: list[str] = field(default_factory=list)
    suspects: list[int] = field(default_factory=list)
    rank_note: str | None = None
    # The line the report points at when it is not the observation the candidate was found by (a
    # straggler's own line where it went its way, rather than the timeout its peers report).
    stated: Observation | None = None

    # Where and when, for ordering candidates like observations (see timeline.order).
    @property
    def stamp(self) -> Stamp | None:
        """The observation's clock reading."""
        return self.obs.stamp

    @property
    def stamp_carried(self) -> bool:
        """Whether the clock reading is one the observation's line carried over (see Observation)."""
        return self.obs.stamp_carried

    @property
    def file(self) -> str:
        """The file the observation was read from."""
        return self.obs.file

    @property
    def file_index(self) -> int:
        """The input the observation was read from."""
        return self.obs.file_index

    @property
    def line(self) -> int:
        """The observation's line."""
        return self.obs.line

    @property
    def left_early(self) -> bool:
        """An inferred culprit that ended as planned (exit 0, `early stopping at epoch 6`) while its peers
        still ran collectives: they lost a rank that had left the job, not one that failed."""
        return self.kind == "lost-peer" and self.category == "collective_timeout"

    def disown(self, why: str) -> None:
        """The rank that printed it is not at fault: name no rank, and say who printed it and why."""
        if self.rank is not None:
            self.rank_note = f"printed by rank {self.rank}; {why}"
            self.rank = None

    @property
    def seq(self) -> int:
        """The observation's order of reading within its input."""
        return self.obs.seq


def candidates(timeline: Timeline, index: KbIndex) -> list[Candidate]:
    """Every analyser's candidates."""
    found = [c for obs in timeline.failures if (c := exception_candidate(obs)) is not None]
    if not any(obs.rank is not None for obs in timeline.failures):
        for cand in found:
            _device_note(cand)
    found += exit_candidates(timeline, index, found)
    found += collective_candidates(timeline, found)
    found += membership_candidates(timeline)
    found += dump_candidates(timeline)
    found += silent_death_candidates(found)
    return found


def silent_death_candidates(found: list[Candidate]) -> list[Candidate]:
    """The launcher stopped its processes (DeepSpeed's `Killing subprocess`, torchrun's `Sending process
    ... closing signal SIGTERM`) and nothing says why: no process printed an error and no exit code is
    in the logs. The process whose death set the teardown off left no words, which is what the
    kernel's out-of-memory killer leaves (SIGKILL): a likely host OOM, inferred. (Exits reported with
    SIGTERM alone are a job stopped from outside: a scheduler's time limit, a preemption.)"""
    if not found or any(c.consequence != "launcher" or isinstance(c.obs, ExitObs) for c in found):
        return []
    first = min(found, key=lambda c: c.obs.seq)
    cand = Candidate(first.obs, INFERRED, "host-kill", "oom_host", first.entry, None)
    cand.reasons.append(
        "the launcher stopped its processes and none of them printed an error or an exit code: the"
        " process that died first left no words, most likely killed by the kernel's out-of-memory"
        " killer (check `dmesg` or the scheduler's memory report)"
    )
    return [cand]


def vanished_while_taking(timeline: Timeline) -> list[Candidate]:
    """Per-rank files (a `--log-dir` folder) in which no process printed an error: nothing in them
    records how the processes ended. When one rank's output stops at a line that reads a size or a count
    far over what its peers ever read in that line (`host cache 51.5 GiB` where they reached 15.5 GiB,
    `118355032 indices` where they read 1204113), or its memory reading alone climbed (`rss 490MB` ...
    `rss 1095MB` while its peers' stayed level), or it alone reads a large allocation (`pivot ... =
    332.14 GiB`), it was taking that memory when it went; when it alone stopped at a line each of its
    peers went on past, it went first. Either is what the kernel's out-of-memory killer leaves: likely
    (inferred, weakly)."""
    if (ended := _ending_itself(timeline)) is not None:
        return [ended]
    went = "it most likely vanished taking the memory for that"
    if (outsized := timeline.outsized_last_reading()) is not None:
        rank, line, peers, now, unit = outsized
        read, most = _amounts(now, peers, unit)
        taking = (
            f"stops at a line that reads {read}, where its peers never read more than {most} in the same line"
        )
        if (final := timeline.last_line(rank)) is not None and final is not line:
            # It went on past that line alone: its output stops at what it did with that much.
            taking = (
                f"went on alone after a line that reads {read} ({line.file}:{line.line}), where its peers never"
                f" read more than {most} in the same line, and stops at this"
            )
            line = final
        note = "inferred: the rank whose output stops at an outsized reading"
    elif (climb := timeline.lone_memory_climb()) is not None:
        rank, line, before, now = climb
        taking = (
            f"reads {format_size(now)} at its last such line, up from {format_size(before)} in the same line"
            " earlier, while no peer's reading climbed so"
        )
        note = "inferred: the rank whose memory alone climbed"
    elif (large := timeline.lone_large_reading()) is not None:
        rank, line, now = large
        taking = f"stops at a line that reads {format_size(now)}, far more than any of its peers ever read"
        note = "inferred: the rank whose output stops at a large allocation"
    elif (short := timeline.stopped_short()) is not None:
        rank, line = short
        taking = "stops at a line every rank printed, while each of its peers went on past it"
        went = "it ended there first, without a word"
        note = "inferred: the rank whose output stopped first"
    elif (stopped := timeline.stopped_together()) is not None:
        return _stopped_mid_step(timeline, stopped)
    else:
        return []
    cand = Candidate(line, INFERRED, "host-kill", "oom_host", None, rank)
    cand.reasons.append(
        f"no process printed an error, and the files do not say how the processes ended; rank {rank}'s"
        f" output {taking}: {went}, most likely killed by the kernel's out-of-memory killer (confirm with"
        " `dmesg -T | grep -i 'killed process'` or the launcher's output: torchrun reports the rank's exit"
        " code -9)"
    )
    cand.rank_note = note
    return [cand]


def _ending_itself(timeline: Timeline) -> Candidate | None:
    """Per-rank files with no error in which one rank alone ends on a line saying it stops of its own
    accord (`34 segments outside 120-160 km/h for cat2, exiting`): the script ended that process (a
    `sys.exit` after it), and its peers waited for it until the launcher stopped them."""
    ending = {
        rank: line
        for rank in timeline.ranks
        if (line := timeline.last_line(rank)) is not None and ENDS_ITSELF.search(line.text)
    }
    if len(ending) != 1 or len(timeline.ranks) < 2:
        return None
    ((rank, line),) = ending.items()
    cand = Candidate(line, INFERRED, "exit", "user_code", None, rank)
    cand.reasons.append(
        f"no process printed an error; rank {rank} alone ends on a line saying it stops of its own accord:"
        f" {line.text[:200]} ({line.file}:{line.line}); its peers waited for it until the launcher stopped them"
    )
    cand.rank_note = "inferred: the only rank whose last line says it ends itself"
    return cand


def _amounts(now: float, peers: float, unit: str) -> tuple[str, str]:
    """A rank's reading and its peers' largest as a sentence says them (`51.5 GiB`, `216000 readings`)."""
    if unit == "B":
        return format_size(now), format_size(peers)
    return f"{now:.0f} {unit}", f"{peers:.0f}"


def _stopped_mid_step(timeline: Timeline, stopped: str) -> list[Candidate]:
    """No process printed an error and every rank's output stops at one point (see
    Timeline.stopped_together): the processes were stopped together from outside, as the launcher stops
    them once one was killed (most often by the kernel's out-of-memory killer). The rank whose reading
    stands TAKING_MOST-fold over every peer's in lines of the same shape (`mosaic 140000x126666 px` where
    its peer's is `24000x22000`, even in its first line: ranks of one job are given alike shares) was the
    one taking the most: it; where the ranks stop at lines of one shape, a number of that last line orders
    of magnitude over every peer's counts too (see Timeline.outlying_last_number). With none, nothing
    names one here (ended_without_a_word then reports the stop, naming no rank)."""
    if (standout := timeline.standout_reading(sorted(timeline.ranks), TAKING_MOST)) is not None:
        rank, read_at, now, most, unit = standout
        read, peers = _amounts(now, most, unit)
    elif stopped == "alike" and (outlying := timeline.outlying_last_number()) is not None:
        rank, read_at, now, most = outlying
        read, peers = f"{now:g}", f"{most:g}"
    else:
        return []
    line = timeline.last_line(rank)
    if line is None:
        return []
    cand = Candidate(line, INFERRED, "host-kill", "oom_host", None, rank)
    cand.suspects = [rank]
    where = (
        "stops at a line that announces a step under way"
        if stopped == "under way"
        else "stops at a line of the same shape, none saying it finished"
    )
    cand.reasons.append(
        f"no process printed an error, and every rank's output {where}: the processes were stopped mid-step,"
        f" as the launcher stops them once one of them is killed. Rank {rank} read {read}"
        f" ({read_at.file}:{read_at.line}), where its peers read at most {peers} in the same line: it was"
        " taking the most, most likely killed by the kernel's out-of-memory killer (confirm with `dmesg -T |"
        " grep -i 'killed process'` or the launcher's output: torchrun reports the rank's exit code -9)"
    )
    cand.rank_note = "inferred: the rank taking the most when every rank stopped mid-step"
    return [cand]


def ended_without_a_word(timeline: Timeline) -> list[Candidate]:
    """A launcher's per-rank files (torchrun's `--log-dir`: the launcher's record of how each process
    ended is in its own output, not there) in which no process printed an error, none says it finished
    and no reading names a rank (see vanished_while_taking): processes stopped without a word, as a
    SIGKILL (most often the kernel's out-of-memory killer) and the launcher's SIGTERM to the rest leave
    them, or a run still going. A rank that alone printed anything, or alone went on past the last line
    its peers printed too (`version 61 carries an inlined matrix, expanding it` where they all stop at
    `loading 40 versions`: it was busy at something of its own when they stopped), rank 0 aside (a script
    that logs on rank 0 alone says nothing of who went), is named; otherwise no rank is, and the report
    points at the output that stops earliest in its file."""
    ends = timeline.ends_unsaid()
    if ends is None:
        return []
    rank = next(iter(ends)) if len(ends) == 1 and len(timeline.ranks) > 1 else None
    went_on = [other for other in ends if timeline.departure(other, after_shared=True) is not None]
    if rank is None and len(ends) > 1 and len(went_on) == 1:
        rank = went_on[0]
    if rank == 0:
        rank = None
    line = ends[rank] if rank is not None else min(ends.values(), key=lambda end: (end.line, end.rank or 0))
    cand = Candidate(line, INFERRED, "host-kill", "oom_host", None, rank)
    cand.reasons.append(
        "no process printed an error, the files do not say how the processes ended, and no rank's last"
        " line says it finished: if the job is not still running, its processes were stopped without a"
        " word, as a SIGKILL leaves them (most often the kernel's out-of-memory killer; the launcher then"
        " stops the rest with SIGTERM). Confirm with `dmesg -T | grep -i 'killed process'` or the"
        " launcher's own output: torchrun reports the rank's exit code"
    )
    if rank is not None:
        cand.rank_note = (
            "inferred: the only rank whose files hold a line"
            if len(ends) == 1
            else "inferred: the only rank that went on past the lines its peers stopped at"
        )
    return [cand]


# The most telling stop first.
_STALL_ORDER = ("collective", "membership", "communicator", "teardown", "phase", "progress")


def stalled(timeline: Timeline, *, phases: bool = True) -> list[Candidate]:
    """No process printed an error, and an input's output stops where processes wait for one another
    (see StallObs): in a collective, while the process group forms, in NCCL's set-up of its communicator
    or as NCCL tears it down, or (with `phases`) as the job starts a phase or a step, or part-way through
    a count. A job hung there (or the paste was cut there): the candidate says where it stopped and names
    no rank, since a hang's waiters print alike and the rank they wait for prints nothing. Of several
    inputs that stop so, the most telling stop is reported, then the first input's."""
    stalls = [stall for stall in timeline.stalls if phases or stall.stage not in ("phase", "progress")]
    if not stalls:
        return []
    obs = min(stalls, key=lambda stall: (_STALL_ORDER.index(stall.stage), stall.file_index, stall.line))
    category = {"membership": "rendezvous", "teardown": "other"}.get(obs.stage, "collective_timeout")
    cand = Candidate(obs, CONSEQUENCE, "stall", category, None, None, consequence="timeout")
    cand.reasons.append(
        {
            "collective": "a rank announced this collective and printed nothing after it, nor did any rank"
            " print an error: it waits in it for a rank that never joined",
            "membership": "the processes announced themselves to the process group and printed nothing"
            " after, nor any error: the group never finished forming (a process that never started, or"
            " that cannot reach the others)",
            "communicator": "the output stops in NCCL's set-up of its communicator, with no error and no"
            " training line after it: the first collective never completed (a rank that never arrived, or"
            " connections between the hosts that cannot carry data)",
            "teardown": "the output stops as NCCL tears its communicators down, with no error after it: the"
            " job hung on its way out (a rank still in a collective, or a process group destroyed on some"
            " ranks only)",
            "phase": "the job announced that it starts a phase (training, its first step, validation) and"
            " printed no progress and no error after it: the phase's first step never finished, most often"
            " because a collective in it waits for a rank that never reached it",
            "progress": "the output stops part-way through a count (a step or a progress bar short of its"
            " total) with no error and nothing after it: a run that ended there had not finished, so most"
            " likely a collective waits for a rank that stopped (unless the log was taken while it still ran)",
        }[obs.stage]
    )
    return [cand]


# --- exceptions and matched messages ------------------------------------------------------------


def _device_note(cand: Candidate) -> None:
    """With no rank label anywhere, an error that names exactly one CUDA device says which GPU failed.

    That is not a rank: in a multi-node job every node has a GPU of that index, and
    CUDA_VISIBLE_DEVICES renumbers them. It is stated as a lead, not as the culprit's rank."""
    if cand.tier != CAUSE or not isinstance(cand.obs, ExceptionObs) or cand.obs.origin != "python":
        return  # a Rust program (Burn) drives every device from one process
    texts = [cand.obs.text, *(text for _, _, text in cand.obs.evidence)]
    devices = {int(a or b) for text in texts for a, b in _DEVICE_INDEX.findall(text)}
    if len(devices) == 1:
        device = devices.pop()
        cand.rank_note = (
            f"no rank label in the logs; the error names GPU {device}: with one process per GPU and no"
            f" CUDA_VISIBLE_DEVICES remapping that is local rank {device} of its node"
        )


def exception_candidate(obs: Observation) -> Candidate | None:
    """A knowledge-base match, or an exception classified by its structure."""
    primary = obs.primary()
    entry = obs.known()
    if primary is not None and primary.entry is not None and primary.entry.kind == "root":
        cand = Candidate(obs, CAUSE, "root", primary.entry.category, primary.entry, obs.rank, strength=3)
        cand.reasons.append(f"the knowledge base knows this message: {primary.entry.id}")
        cand.consequence = _consequence(primary.entry)
        detail = (obs.nccl_detail() or obs) if cand.category == "nccl_error" else None
        if detail is not None and CUDA_OOM.search(detail.text):
            cand.category = "oom_gpu"
            cand.reasons.append(f"the CUDA call NCCL made ran out of device memory: {detail.text}")
        if cand.category == "oom_gpu" and (shared := device_shared_by_processes(obs.text)) is not None:
            cand.category = "duplicate_device"
            cand.reasons.append(shared)
        if primary.entry.id == _SHM_ENTRY and any(
            link.entry is not None and link.entry.id == _CUDA_CALL_FAILED_ENTRY for link in obs.chain
        ):
            cand.category = "nccl_error"
            cand.reasons.append(
                "NCCL's result is a failed CUDA call, not a failed system call: CUDA could not map the"
                " shared-memory segment (WSL, a container's IPC settings), /dev/shm is not full"
            )
        if cand.category == "rendezvous" and _store_wait_in_collective(obs):
            cand.category = "collective_timeout"
            cand.reasons.append(
                "the store wait was a collective's (a barrier or object broadcast over the store), after"
                " the processes had assembled: a peer stopped taking part"
            )
            cand.disown("it waited for a peer's key: a victim")
        if cand.category in ("user_code", "other") and _in_dataloader_worker(obs):
            cand.category = "dataloader"
            cand.reasons.append("a DataLoader worker raised it (re-raised in the main process)")
        elif cand.category in ("user_code", "other") and _starting_loader_workers(obs):
            cand.category = "dataloader"
            cand.reasons.append(
                "the DataLoader could not start its worker processes (what it hands them, the dataset and"
                " its transforms, must pickle when workers are spawned)"
            )
        named = _named_as_behind(obs)
        if not named and cand.category == "collective_timeout" and (naming := _naming_link(obs)) is not None:
            named, cand.stated = naming
            cand.tier, cand.kind = INFERRED, "straggler"
            cand.reasons.append(
                f"the waiting rank's own report names whom it waited for: {naming[1].text[:200]}"
            )
        if named:
            # The message names the ranks the others waited for: they are the culprits, not its printer.
            cand.suspects = named
            cand.rank = named[0] if len(named) == 1 else None
            cand.rank_note = "named by another rank's report as missing or behind"
            cand.consequence = None
        _stalled_in_different_ops(cand)
        return cand
    # A note appended to an unknown message (`CUDA kernel errors might be asynchronously reported
    # ...`, put before it in the chain) does not make the message a consequence.
    inner = obs.chain
    if primary is not None and primary.entry is None and primary in obs.chain:
        inner = obs.chain[obs.chain.index(primary) :]
    if any(link.entry is not None and link.entry.kind == "symptom" for link in inner):
        symptom = next(
            link.entry for link in inner if link.entry is not None and link.entry.kind == "symptom"
        )
        cand = Candidate(obs, CONSEQUENCE, "symptom", symptom.category, symptom, obs.rank)
        cand.consequence = _consequence(symptom) or "peer-failure"
        cand.reasons.append(f"{symptom.id} {_SYMPTOM_OF.get(cand.consequence, _SYMPTOM_OF['peer-failure'])}")
        named = _named_as_behind(obs)
        if named:
            # It names the peer it waited for: that rank is the one to look at (its own error, if
            # the logs hold it, is a cause and outranks this inference).
            cand.tier, cand.kind, cand.consequence = INFERRED, "straggler", None
            cand.suspects = named
            cand.rank = named[0] if len(named) == 1 else None
            cand.rank_note = f"named by rank {obs.rank if obs.rank is not None else '?'}'s report as the peer it waited for"
        return cand
    if primary is not None and primary.entry is not None and primary.entry.kind == "wrapper":
        cand = Candidate(obs, WRAPPER, "wrapper", primary.entry.category, primary.entry, obs.rank)
        cand.reasons.append(
            f"only a launcher's or framework's summary ({primary.entry.id}) with nothing inside"
        )
        return cand
    if isinstance(obs, ExceptionObs) or (primary is not None and primary.entry is None and entry is not None):
        return _structural(obs, entry)
    if isinstance(obs, (CollectiveObs, MembershipObs, StackDumpObs)):
        return None  # the collective, membership and stack-dump analysers weigh them
    if primary is None or (entry is not None and entry.kind == "wrapper"):
        return Candidate(obs, WRAPPER, "wrapper", entry.category if entry else "other", entry, obs.rank)
    if _USAGE.match(obs.text):
        # The launch command is wrong, not the training code: `other`, as a launch's configuration.
        cand = Candidate(obs, CAUSE, "unknown", "other", None, obs.rank, strength=1)
        cand.reasons.append("the program rejected its command line (an argparse usage error)")
        return cand
    said = message_category(obs.text)
    category = said[0] if said else ("nccl_error" if "NCCL" in obs.text else "other")
    cand = Candidate(obs, CONSEQUENCE, "error-line", category, None, obs.rank)
    if cand.rank is None and (failed := _FAILED_PROCESS_RANK.search(obs.text)) is not None:
        # A launcher's report of the one process that failed (PaddlePaddle's `ABORT!!! Out of all 4
        # trainers, the trainer process with rank=[3] was aborted`): that process's rank.
        cand.rank = bounded_rank(failed.group(1))
        cand.rank_note = "named by the launcher's report of the process that failed"
    kind = (
        "a line that says something failed, with no error level (nothing else in the logs is an error)"
        if isinstance(obs, LeadObs)
        else "an error-level line the knowledge base does not know"
    )
    cand.reasons.append(kind + (f"; {said[1]}" if said else ""))
    return cand


def _own_port(exc: ExceptionObs, text: str) -> bool:
    """A port already in use, bound by the script's own code (an HTTP exporter, a socket it opens)."""
    return bool(PORT_IN_USE.search(text)) and not any(_JOB_NETWORK_CODE.search(f.posix) for f in exc.frames)


def _wrapped_message(obs: Observation, text: str) -> str:
    """An exception line with its type alone (`RuntimeError: `, rich's traceback wraps the message onto
    the lines below it), read with those lines; any other text as it is."""
    if not text.rstrip().endswith(":") or " " in text.strip():
        return text
    following = [t for _, number, t in obs.evidence if 0 < number - obs.line <= _CONTINUATION_LINES]
    return " ".join([text.strip(), *following]) if following else text


def _said_around(obs: Observation, text: str) -> tuple[str, str] | None:
    """What the rest of the observation's line (`... NCCL WARN Error : ...`) or the message's next lines
    (a message wrapped by the terminal, XLA's cause under its status) say of a cause, when the
    message's own first line says nothing more than that something failed."""
    if obs.text != text and (said := message_category(obs.text)) is not None and said[0] != "other":
        return said
    following = [t for _, number, t in obs.evidence if 0 < number - obs.line <= _CONTINUATION_LINES]
    said = message_category(" ".join(following)) if following else None
    return said if said is not None and said[0] != "other" else None


def _named_as_behind(obs: Observation) -> list[int]:
    """The ranks a report names as missing or behind (a desync report, a monitored barrier's failed
    ranks), whether it was read as a collective line or raised as an exception."""
    if isinstance(obs, CollectiveObs):
        return list(obs.named_ranks) if obs.state in ("missing", "desync") else []
    facts = collective_facts(obs.innermost_text())
    return list(facts.named_ranks) if facts is not None and facts.state in ("missing", "desync") else []


def _naming_link(obs: Observation) -> tuple[list[int], Observation] | None:
    """The ranks an exception of the chain other than the one that states the failure names as missing
    (the script's own barrier re-raising a store timeout: `store barrier 'ckpt/step20' timed out after
    15s; missing ranks [1]`), with that exception's line: the report that says whom the others waited for."""
    if not isinstance(obs, ExceptionObs) or len(obs.chain) < 2:
        return None
    for link in obs.chain:
        facts = collective_facts(link.text)
        if facts is None or facts.state != "missing" or not facts.named_ranks:
            continue
        line = next(
            (number for _, number, text in obs.evidence if link.text.startswith(text.strip()[:60])), None
        )
        if line is None:
            return None
        said = Observation(
            file=obs.file,
            file_index=obs.file_index,
            line=line,
            text=link.text,
            rank=obs.rank,
            stamp=obs.stamp,
        )
        return list(facts.named_ranks), said
    return None


def _store_wait_in_collective(obs: Observation) -> bool:
    """A key-value store's wait timeout raised inside a collective that runs over the store (vLLM's
    `StatelessProcessGroup.barrier`, an object broadcast, torchelastic's exit barrier) or by the
    script's own wait for its peers' keys, not while the process group is set up."""
    entry = obs.known()
    if (
        not isinstance(obs, ExceptionObs)
        or not obs.frames
        or entry is None
        or entry.id != STORE_TIMEOUT_ENTRY
    ):
        return False
    if any(frame.function == "_exit_barrier" for frame in obs.frames):
        return True  # torchelastic's agents wait over the store for each other's workers to finish
    text = obs.innermost_text()
    if not _STORE_WAIT.search(text) or _COMMUNICATOR_SET_UP.search(text):
        return False  # (NCCL's communicator is set up at a group's first collective: still setting up)
    if any(_START_UP.search(frame.function) for frame in obs.frames):
        return False
    if obs.frames[-1].user and ".wait(" in (obs.frames[-1].code or ""):
        return True  # the script's own wait for keys its peers set (`store.wait(keys)`), the group formed
    return any(_COLLECTIVE_CALL.match(frame.function) for frame in obs.frames[-4:])


def _raised_in_object_collective(exc: ExceptionObs) -> bool:
    """Whether the innermost frame is an object collective (`all_gather_object`, fairseq's
    `all_gather_list`, `broadcast_object_list`), which turns what the other ranks sent into objects."""
    return bool(exc.frames) and bool(_OBJECT_COLLECTIVE.search(exc.frames[-1].function))


def _misread_sizes_in_object_collective(exc: ExceptionObs, text: str) -> bool:
    """An object collective that allocated what the other ranks announced and got a size no object
    has (`Trying to create tensor with negative dimension`): it read bytes that were not sizes."""
    return "negative dimension" in text and _raised_in_object_collective(exc)


def _unpickled_in_object_collective(exc: ExceptionObs, short_type: str, text: str) -> bool:
    """An unpickling failure raised in an object collective: what arrived from the other ranks was
    not the pickle this rank expected."""
    unpickling = short_type == "UnpicklingError" or "unpickl" in text.lower() or "invalid load key" in text
    return unpickling and _raised_in_object_collective(exc)


def _raised_setting_up(exc: ExceptionObs) -> bool:
    """Raised by torch.distributed's own code while it set up the process group (its store, or the
    store-based barrier that waits for every rank): the processes never assembled."""
    return (
        bool(exc.frames)
        and exc.frames[-1].posix.endswith(_C10D_API)
        and bool(_START_UP.search(exc.frames[-1].function))
    )


def _in_dataloader_worker(obs: Observation) -> bool:
    """Whether a DataLoader worker raised the error: the re-raise's words (`Caught KeyError in
    DataLoader worker process 0`), else an "Original Traceback" through torch.utils.data or frames
    through the worker's own loop or the sharing of its batches' tensors. torch
    re-raises DataParallel's replicas the same way (`Caught RuntimeError in replica 1 on device 1`):
    those are the model's errors."""
    for text in (obs.text, obs.innermost_text()):
        if (caught := _CAUGHT_IN.search(text)) is not None:
            return caught.group(1) != "replica"
    if not isinstance(obs, ExceptionObs):
        return False
    return (
        any(_DATA_CODE.search(frame.posix) for frame in obs.worker_frames)
        or any(
            _WORKER_LOOP.search(frame.posix) or _TENSOR_SHARING.search(frame.posix) for frame in obs.frames
        )
        or _raised_by_loader_reraise(obs)
        or _fetched_without_the_loader(obs)
    )


def _fetched_without_the_loader(exc: ExceptionObs) -> bool:
    """Whether the stack fetched a batch (torch's `fetch.py`) with no DataLoader iterating above it: a
    worker's own traceback quoted from its middle (its `Original Traceback` header and its loop's frame
    cut away). In the main process (`num_workers=0`) the DataLoader's `_next_data` calls the fetch."""
    for frame in exc.frames:
        if frame.posix.endswith(_LOADER_FILE):
            return False
        if frame.posix.endswith(_FETCH_FILE):
            return True
    return False


def _starting_loader_workers(obs: Observation) -> bool:
    """Whether the error was raised while a DataLoader started its worker processes: its iterator's
    frames, then Python's `Process.start`."""
    if not isinstance(obs, ExceptionObs):
        return False
    loader = next((i for i, f in enumerate(obs.frames) if f.posix.endswith(_LOADER_FILE)), None)
    return loader is not None and any(
        f.function == "start" and f.posix.endswith(_PROCESS_FILE) for f in obs.frames[loader:]
    )


def _raised_by_data_code(exc: ExceptionObs) -> Frame | None:
    """The frame of the data pipeline's code (torch.utils.data, a data-loading library) that made the
    failing call, looking past Python's own modules it called (`shared_memory.py`, `os.py`), or None.
    Not a constructor the script called itself, refusing the values of its arguments (a `ValueError`
    or `TypeError` from `WeightedRandomSampler(..., num_samples=0)`): that is the script's call, not
    the data pipeline failing (a dataset path that does not exist is the data's)."""
    frame = _innermost_caller(exc.frames)
    if frame is None or not _DATA_CODE.search(frame.posix):
        return None
    at = next(i for i in range(len(exc.frames) - 1, -1, -1) if exc.frames[i] is frame)
    refused = (exc.exc_type or "").rsplit(".", 1)[-1] in ("ValueError", "TypeError")
    if refused and frame.function == "__init__" and at > 0 and exc.frames[at - 1].user:
        return None
    return frame


def _innermost_caller(frames: Sequence[Frame]) -> Frame | None:
    """The innermost frame that is not Python's own modules: the code that made the failing call
    (`subprocess.run(..., check=True)` raises in `subprocess.py` for the frame that called it)."""
    return next((f for f in reversed(frames) if not _PYTHON_STDLIB.search(f.posix)), None)


def _standard_call_failed(exc: ExceptionObs) -> bool:
    """Whether the user's code called Python's standard library and the error came from there alone
    (`datetime.strptime('24:03', '%H:%M')`, whose frames are `_strptime.py`'s): the user's own call
    failed, as `int('n/a')` does with no frame of its own."""
    frames = exc.worker_frames or exc.frames
    caller = _innermost_caller(frames)
    return caller is not None and caller.user and caller is not frames[-1]


def _raised_in_your_code(exc: ExceptionObs | None, user: Frame) -> str:
    """Where the user's code raised it, or ran the worker or replica whose traceback was cut off."""
    if exc is not None and exc.worker_cut:
        return (
            f"raised in a worker or replica your code ran at {user.where()} (its own traceback is cut off"
            " before the error)"
        )
    return f"raised in your code at {user.where()}"


def _data_loop(exc: ExceptionObs) -> Frame | None:
    """The user's loop over its data where the error came from taking the next item (`for batch in
    train_loader:` is the innermost of the user's frames, so only library code is under it): the data
    pipeline failed, not the loop's body. None otherwise."""
    user = exc.user_frame()
    if user is None or exc.worker_frames:
        return None
    if _ITERATES_DATA.search(user.code or ""):
        return user
    # A loop over an iterable of any name (`for step, batch in enumerate(dl):`) whose next frame is the
    # iterable's `__iter__`/`__next__`: the error came from producing the item.
    below = exc.frames[exc.frames.index(user) + 1 :] if user in exc.frames else []
    if below and below[0].function in _ITEM_PRODUCERS and _LOOPS.match(user.code or ""):
        return user
    return None


def _collective_machinery(frame: Frame) -> bool:
    """Whether a frame is a collective's own code: the collective, its logging wrapper, c10d's waits."""
    return collective_name(frame.function, frame.file) is not None or frame.posix.endswith(_C10D_CODE)


def _backward_machinery(frame: Frame) -> bool:
    """Whether a frame is backward's own code: a tensor's `backward`, autograd's engine, a framework's
    `backward` that calls it (Accelerate's, Lightning's `manual_backward`)."""
    return _AUTOGRAD_CODE.search(frame.posix) is not None or (
        frame.function in _BACKWARD_NAMES and in_distributed_library(frame.file)
    )


def _innermost_run(frames: list[Frame], belongs: Callable[[Frame], bool]) -> int:
    """Where the innermost run of frames that all belong (to a collective's own code, to backward's)
    starts: the index of its first frame, len(frames) when the innermost frame does not belong."""
    start = len(frames)
    while start and belongs(frames[start - 1]):
        start -= 1
    return start


def _stopped_in(exc: ExceptionObs | None) -> tuple[str, str]:
    """What a stack that stopped with no error of its own (an interrupted program, a traceback cut off
    before its exception) was waiting for, by the innermost frame that says: (category, words). A
    collective is a frame of one, or the script's line that calls one, with nothing below it but a
    collective's own code (its logging wrapper, c10d's `work.wait()`); or the script's line that calls
    backward, with nothing below it but backward's own code: data-parallel ranks all-reduce their
    gradients there (DDP's hooks), so that is where a rank waits for its peers."""
    if exc is not None and (launcher := _launcher_waiting(exc)) is not None:
        return (
            "collective_timeout",
            f" while the launcher waited for its worker processes in {launcher.function} ({launcher.where()}):"
            " the workers hung",
        )
    frames = exc.frames if exc is not None else []
    # frames[machinery:] are a collective's own code, frames[autograd:] backward's
    machinery = _innermost_run(frames, _collective_machinery)
    autograd = _innermost_run(frames, _backward_machinery)
    for at in range(len(frames) - 1, -1, -1):
        frame = frames[at]
        where = f" while it waited in {frame.function} ({frame.where()})"
        if at >= machinery - 1 and (
            collective_name(frame.function, frame.file) is not None
            or (
                frame.user
                and called_collective(frame.code or "", into_library=at < len(frames) - 1) is not None
            )
        ):
            return (
                "collective_timeout",
                f"{where}: it hung in a collective, waiting for a rank that did not join",
            )
        if at == autograd - 1 and frame.user and _BACKWARD_CALL.search(frame.code or ""):
            return (
                "collective_timeout",
                f"{where}: it hung in backward, where the ranks all-reduce their gradients, waiting for a"
                " rank that did not join",
            )
        if _RENDEZVOUS_CODE.search(frame.posix) or frame.function == "init_process_group":
            return "rendezvous", f"{where}: it hung while the processes gathered"
        if _DATA_CODE.search(frame.posix):
            return "dataloader", f"{where}: it hung waiting for its data"
    return "other", ""


def _launcher_waiting(exc: ExceptionObs) -> Frame | None:
    """The launcher's frame when a stack is a launcher waiting for its worker processes: its innermost
    frame a wait, and only the standard library's frames below the launcher's, which is torchrun's,
    `torch.distributed.launch`'s or spawn's, or any program's that the standard library shows waiting
    for a child process (`subprocess`'s `wait`, `multiprocessing`'s `join`: a project's own launcher)."""
    if not exc.frames or not _WAITS.match(exc.frames[-1].function):
        return None
    at = next(
        (i for i in range(len(exc.frames) - 1, -1, -1) if not in_standard_library(exc.frames[i].file)), None
    )
    if at is None:
        return None
    frame, below = exc.frames[at], exc.frames[at + 1 :]
    if _LAUNCHER_CODE.search(frame.posix) or _SPAWN_CODE.search(frame.posix):
        return frame
    return frame if any(_CHILD_WAIT.search(inner.posix) for inner in below) else None


def _raised_by_loader_reraise(exc: ExceptionObs) -> bool:
    """Whether the frames end in the data loader re-raising a worker's error (`_process_data` then
    `reraise`): the worker failed, even when the re-raise itself broke (an exception type whose
    constructor wants more than the message: `TypeError: __init__() missing 2 required positional
    arguments`) and no "Caught ... in DataLoader worker" was printed."""
    frames = exc.frames
    return len(frames) >= 2 and frames[-1].function == "reraise" and bool(_DATA_CODE.search(frames[-2].posix))


def _divides_by_device_count(exc: ExceptionObs) -> bool:
    """Whether the innermost statement divides by a count of GPUs (`rank % num_gpus`)."""
    return bool(exc.frames) and bool(_DEVICE_COUNT.search(exc.frames[-1].code or ""))


def _checks_device_for_rank(exc: ExceptionObs, text: str) -> bool:
    """Whether a failed assertion compares the number of devices with a rank (`assert
    torch.cuda.device_count() > opt.local_rank`), in its message or in the statement that raised it."""
    frames = exc.worker_frames or exc.frames
    code = ""
    if frames:
        # Interleaved tracebacks of several ranks may give the statement to a copy of the same frame.
        inner = (frames[-1].file, frames[-1].line)
        code = next((f.code for f in reversed(frames) if (f.file, f.line) == inner and f.code), "")
    said = f"{text} {code}"
    return _DEVICE_COUNT.search(said) is not None and _RANK_WORD.search(said) is not None


def _indexes_devices(exc: ExceptionObs) -> bool:
    """Whether the innermost frame looks up a device by index: library code doing so (a rank's device
    list), or any code indexing a device list by the rank (`gpus[hvd.local_rank()]`)."""
    frames = exc.worker_frames or exc.frames
    if not frames:
        return False
    innermost = frames[-1]
    if innermost.user:
        return _DEVICE_BY_RANK.search(innermost.code or "") is not None
    return _DEVICE_LOOKUP.search(f"{innermost.function} {innermost.code or ''}") is not None


# What a symptom's message follows from, by the consequence its entry declares.
_SYMPTOM_OF = {
    "peer-failure": "is what a rank reports when it waits for or loses a peer",
    "earlier-error": "is what a process reports after an error of its own, which it follows from",
    "launcher": "is the launcher's own action after a failure",
}


def _consequence(entry: IndexEntry) -> str | None:
    """What an entry's message is a consequence of: a timeout waits for a peer; else what it declares."""
    if entry.consequence_of and entry.consequence_of[0] != "peer-failure":
        return entry.consequence_of[0]
    if (
        entry.category == "collective_timeout"
        and not PEER_LOST.search(entry.title)
        and (entry.kind == "symptom" or entry.consequence_of)
    ):
        return "timeout"
    return entry.consequence_of[0] if entry.consequence_of else None


def _structural(obs: Observation, carrier: IndexEntry | None) -> Candidate:
    """An error the knowledge base does not know, classified by what its traceback shows."""
    text = _wrapped_message(obs, obs.innermost_text())
    exc = obs if isinstance(obs, ExceptionObs) else None
    exc_type = (exc.exc_type if exc else None) or text.split(":", 1)[0].strip()
    short_type = exc_type.rsplit(".", 1)[-1]
    carried = carrier if carrier is not None and carrier.kind == "wrapper" else None
    facts = collective_facts(text)
    # A collective of torch.distributed that raised it itself, saying it timed out (`work.wait()` in
    # `all_reduce`: `RuntimeError: Operation timed out!`), whatever the backend's words.
    in_collective = (
        exc is not None
        and bool(exc.frames)
        and collective_name(exc.frames[-1].function, exc.frames[-1].file) is not None
    )
    if (
        (facts is not None and facts.state == "timeout")
        or (TIMED_OUT.search(text) and not message_category(text))
        or (in_collective and _SAYS_TIMED_OUT.search(text))
    ):
        cand = Candidate(
            obs, CONSEQUENCE, "symptom", "collective_timeout", carried, obs.rank, consequence="timeout"
        )
        cand.reasons.append("a collective timed out on this rank: it waited for another rank")
        return cand
    if _TOLD_TO_STOP.search(text):
        cand = Candidate(obs, CONSEQUENCE, "symptom", "other", carried, obs.rank, consequence="launcher")
        cand.reasons.append(
            "the process was told to stop (SIGTERM): the launcher stops the others after one fails"
        )
        return cand
    in_rendezvous = (
        exc is not None and bool(exc.frames) and bool(_RENDEZVOUS_CODE.search(exc.frames[-1].posix))
    )
    said = message_category(text)
    if said is None or said[0] == "other":  # nothing known, or only a status code (`INTERNAL:`)
        said = _said_around(obs, text) or said
    if PEER_LOST.search(text) and not in_rendezvous and (said is None or said[0] in _LAYERS):
        starting = exc is not None and any(_START_UP.search(frame.function) for frame in exc.frames)
        starting = starting or (said is not None and said[0] == "rendezvous")  # its words say start-up
        category = "rendezvous" if starting else ("nccl_error" if "NCCL" in text else "collective_timeout")
        cand = Candidate(obs, CONSEQUENCE, "symptom", category, carried, obs.rank, consequence="peer-failure")
        cand.reasons.append(
            "this rank lost its connection to a peer"
            + (" while the process group was being set up" if starting else "")
            + ": a consequence of the peer's failure"
        )
        return cand
    # A native crash's stack (faulthandler's dump) says where it happened, not that the code was wrong.
    user = exc.user_frame() if exc is not None and exc.origin != "fatal" else None
    raised_by_user = (
        user is not None and exc is not None and (not exc.raised_in_library() or _standard_call_failed(exc))
    )
    worker = (exc is not None and _in_dataloader_worker(exc)) or (
        carried is not None and carried.category == "dataloader"
    )
    cand = Candidate(obs, CAUSE, "unknown", "other", carried, obs.rank, strength=1)
    exited = PROCESS_EXITED.search(text)
    # A command the script itself ran and checked is the script's failure, not a launcher's report of a
    # worker: `CalledProcessError` raised in the script's own `subprocess.run([...], check=True)`, or a
    # rank's own code raising about a command it ran (`shell command failed with exit code 2`): what a
    # rank starts is its own command, never another rank.
    own_command = exc is not None and (
        (
            short_type == "CalledProcessError"
            and (caller := _innermost_caller(exc.frames)) is not None
            and caller.user
            and not _REMOTE_LAUNCH.search(text)
        )
        or (raised_by_user and obs.rank is not None and short_type not in WRAPPER_EXCEPTIONS)
    )
    if (
        not worker
        and not own_command
        and (
            short_type in WRAPPER_EXCEPTIONS
            or (exc is not None and exc.frames and _SPAWN_CODE.search(exc.frames[-1].posix))
            or (exited is not None and said is None and exited.group(1) not in ("0", "-0"))
            or (said is None and CHILD_DIED.search(text))
            or (PROGRAM_FAILED.search(text) and said is None)  # a wrapper that states no cause of its own
            or (
                # cut off in the launcher's own code, with no words of what failed (the launcher's own store
                # wait that timed out, stated on the line before, is its failure)
                said is None
                and exc is not None
                and exc.cut_off
                and exc.frames
                and _LAUNCHER_CODE.search(exc.frames[-1].posix)
            )
        )
    ):
        cand.tier, cand.kind = WRAPPER, "wrapper"
        reporter = short_type if exc is None or exc.exc_type else "the traceback"
        cand.reasons.append(f"{reporter} only reports that a child process failed")
        return cand
    if exc is not None and exc.frames and _CHILD_BOOTSTRAP.search(exc.frames[-1].posix):
        # Python's multiprocessing starting a child: it reads its task from the parent, so failing
        # there (`pickle data was truncated`) means the parent went away first.
        cand.tier, cand.kind, cand.consequence = CONSEQUENCE, "symptom", "peer-failure"
        cand.reasons.append("a child process failed while starting: its parent had already gone away")
        return cand
    if _DEFERS_TO_ABOVE.search(text):
        # A report that points back at an error printed before it (vLLM's `Engine core initialization
        # failed. See root cause above.`): that earlier error is the cause.
        cand.tier, cand.kind = WRAPPER, "wrapper"
        cand.reasons.append("the message says its cause is the error printed above it")
        return cand
    if short_type == "Error" and _FAILED_TO_RUN.match(text):
        # A launcher's summary (`colossalai run`: `Error: failed to run torchrun ... on host`): the
        # command's own output says why.
        cand.tier, cand.kind = WRAPPER, "wrapper"
        cand.reasons.append("a launcher's report that the command it ran failed")
        return cand
    if worker:
        cand.category, cand.strength = "dataloader", 2
        cand.reasons.append("a DataLoader worker raised it (re-raised in the main process)")
    elif exc is not None and user is not None and _own_port(exc, text):
        cand.category, cand.strength = "user_code", 2
        cand.reasons.append(
            f"the script's own server could not bind its port ({user.where()}): no code of the job's"
            " store, rendezvous or launcher is in the traceback, so the port is not the processes' meeting point"
        )
    elif said is not None and not (in_rendezvous and said[0] in _LAYERS):
        cand.category, cand.strength = said[0], 2
        cand.reasons.append(said[1])
    elif (setting_up := exc is not None and (in_rendezvous or _raised_setting_up(exc))) or (
        short_type in _RENDEZVOUS_TYPES
    ):
        cand.category, cand.strength = "rendezvous", 2
        where = f", at {exc.frames[-1].where()}" if exc is not None and setting_up else ""
        cand.reasons.append(
            f"{short_type} raised while the job assembled its processes (the rendezvous{where})"
        )
    elif short_type == "MisconfigurationException":
        # Lightning's check of how the script set it up (a hook's return value, a monitored metric, the
        # Trainer's arguments); the device requests it rejects are entries of their own.
        cand.category, cand.strength = "user_code", 2
        cand.reasons.append(f"{short_type}: the framework rejected how the script configured it")
    elif short_type in _VERSION_TYPES or VERSION_TEXT.search(text):
        cand.category, cand.strength = "version_mismatch", 2
        cand.reasons.append(f"{short_type}: a package or symbol is missing or of the wrong version")
    elif (
        short_type == "AttributeError"
        and _PRIVATE_ATTRIBUTE.search(text)
        and not (exc is not None and exc.frames and not exc.raised_in_library())
    ):
        # One library reaching into another's internals (`MMDistributedDataParallel` reading a field
        # of torch's DDP): private names come and go between releases.
        cand.category, cand.strength = "version_mismatch", 2
        cand.reasons.append(
            "library code asked for a private attribute this version of the object does not have:"
            " the installed versions do not fit each other"
        )
    elif (
        short_type == "AttributeError"
        and (lacks := _OBJECT_LACKS.search(text))
        and lacks.group(1) not in _CONTAINER_METHODS
        and exc is not None
        and exc.frames
        and (site := exc.raise_site()) is not None
        and not site.user
        and site.function != "__getattr__"
    ):
        # One library calling another's object by a name this version of it lacks (a module's own
        # attribute lookup, `__getattr__`, is how a wrapper hides the user's model's names instead).
        cand.category, cand.strength = "version_mismatch", 2
        cand.reasons.append(
            "library code asked an object of another library for a name this version of it does not have:"
            " the installed versions do not fit each other"
        )
    elif exc is not None and _unpickled_in_object_collective(exc, short_type, text):
        cand.category, cand.strength = "collective_mismatch", 2
        cand.reasons.append(
            f"{short_type} while {exc.frames[-1].function} unpickled what the other ranks sent: the bytes"
            " were not the object this rank expected, so the ranks called their collectives out of step"
        )
        cand.disown("it could not read what the others sent; which rank went out of step the logs do not say")
    elif exc is not None and _misread_sizes_in_object_collective(exc, text):
        cand.category, cand.strength = "collective_mismatch", 2
        cand.reasons.append(
            f"{exc.frames[-1].function} made a buffer of the sizes the other ranks sent, and they did not fit"
            " what this rank passed (another number of objects): its call differs from theirs"
        )
    elif (
        exc is not None
        and exc.frames
        and exc.frames[-1].posix.endswith(_C10D_API)
        and _TYPE_REFUSED.search(text)
    ):
        # A collective whose backend cannot move this data type (gloo and float8: `Invalid scalar type`).
        cand.category, cand.strength = "backend_unsupported", 2
        cand.reasons.append(
            f"the collective {exc.frames[-1].function} refused the tensor's data type: the process group's"
            " backend cannot reduce or move it"
        )
    elif short_type == "MemoryError":
        cand.category, cand.strength = "oom_host", 2
        cand.reasons.append("MemoryError: the process ran out of host memory")
    elif _BUS_ERROR.search(text):
        cand.category, cand.strength = "oom_host", 2
        cand.reasons.append(
            "a bus error in a data-parallel job is almost always /dev/shm running out (shared memory)"
        )
    elif short_type == "KeyboardInterrupt":
        # Ctrl-C (SIGINT): someone stopped a job that seemed stuck. What it was doing then is where it
        # hung; an error of the job's own, if any, is what it hung after.
        cand.tier, cand.kind, cand.consequence = CONSEQUENCE, "symptom", "interrupt"
        cand.category, waiting = _stopped_in(exc)
        cand.reasons.append(f"KeyboardInterrupt: the program was interrupted (Ctrl-C){waiting}")
    elif short_type == "Empty" and exc is not None and exc.exc_type in _QUEUE_EMPTY:
        # A `get(timeout=...)` on a queue ran out of time: the mechanism of a wait, not a failure; what
        # the code that waited raised about it (`DataLoader worker ... exited unexpectedly`) says why.
        cand.tier, cand.kind, cand.consequence = WRAPPER, "symptom", "timeout"
        cand.reasons.append(f"{exc.exc_type}: a wait on a queue ran out of time")
    elif short_type == "SystemExit":
        cand.tier, cand.kind, cand.consequence = CONSEQUENCE, "symptom", "launcher"
        cand.reasons.append(f"{short_type}: the process was asked to stop")
    elif short_type == "FloatingPointError" and not raised_by_user:
        # A library's check of the numbers (detectron2's `Loss became infinite or NaN`); the script's
        # own guard that raises it is the script's error, read below.
        cand.reasons.append("FloatingPointError: the numbers went bad (NaN/Inf), a numerical failure")
    elif exc is not None and short_type in _LOOKUP_ERRORS and _indexes_devices(exc):
        cand.category, cand.strength = "invalid_device", 2
        cand.reasons.append(
            f"{short_type} while a library looked up this process's device"
            f" ({(exc.worker_frames or exc.frames)[-1].where()}): more processes than devices on the node"
        )
    elif exc is not None and short_type == "AssertionError" and _checks_device_for_rank(exc, text):
        cand.category, cand.strength = "invalid_device", 2
        cand.reasons.append(
            "the check that this process's rank has a GPU of its own failed: more processes than visible GPUs"
            " (CUDA_VISIBLE_DEVICES, --nproc_per_node)"
        )
    elif exc is not None and short_type == "TypeError" and "unexpected keyword argument" in text:
        # A keyword the called function does not take: the script, or a package calling another, was
        # written for another version of it (`Trainer.__init__() got an unexpected keyword argument
        # 'processing_class'`, `from_pretrained(..., use_flash_attention_2=True)` reaching a model).
        cand.category, cand.strength = "version_mismatch", 2
        where = f" ({exc.frames[-1].where()})" if exc.frames else ""
        cand.reasons.append(
            f"a call passed an argument that the installed version of the function it called does not take{where}:"
            " the script or a package was written for another version of it"
        )
    elif (short_type in _PATH_ERRORS or short_type == "OSError") and _LIBRARY_CACHE.search(text):
        cand.category, cand.strength = "other", 2
        cand.reasons.append(
            f"{short_type} on a file of a library's cache: the ranks (or nodes) share that cache and raced"
            " on it, or its file system (NFS, GPFS) did not keep up; give each node its own cache folder"
            " or prepare the data on one rank first"
        )
    elif (short_type in _PATH_ERRORS or (short_type == "OSError" and _PATH_ERRNO.search(text))) and not (
        exc is not None and _raised_by_data_code(exc)
    ):
        cand.category, cand.strength = "user_code", 2
        cand.reasons.append(
            f"{short_type}: a file or folder the program uses is missing, already there, not empty or not"
            " accessible (its paths or permissions, or several ranks writing one path)"
        )
    elif exc is not None and short_type == "ZeroDivisionError" and _divides_by_device_count(exc):
        cand.category, cand.strength = "invalid_device", 2
        cand.reasons.append(
            f"it divided by the number of GPUs ({exc.frames[-1].where()}), which is zero: this process sees no GPU"
            " (CUDA_VISIBLE_DEVICES, the driver, or a CPU-only build)"
        )
    elif (
        exc is not None
        and short_type in _VALUE_ERRORS
        and not raised_by_user  # the script's own dataset or collate function is the script's code
        and any(_BATCH_FETCH.search(f.posix) for f in exc.frames)
    ):
        cand.category, cand.strength = "dataloader", 2
        cand.reasons.append(
            f"{short_type} raised while the DataLoader fetched a batch (the dataset or its collate function)"
        )
    elif exc is not None and (loop := _data_loop(exc)) is not None:
        cand.category, cand.strength = "dataloader", 2
        cand.reasons.append(
            f"raised while the loop at {loop.where()} took its next item from the data, not in the loop's body"
        )
    elif raised_by_user and user is not None:
        cand.category, cand.strength = "user_code", 2
        cand.reasons.append(_raised_in_your_code(exc, user))
    elif exc is not None and (raiser := _raised_by_data_code(exc)) is not None:
        cand.category, cand.strength = "dataloader", 2
        cand.reasons.append(f"raised by the data pipeline's code (at {raiser.where()})")
    elif short_type == "NotImplementedError" and _NO_KERNEL_FOR_DTYPE.search(text) and user is not None:
        # torch's dispatch refusing a dtype (`"bincount_cpu" not implemented for 'Double'`): the operator
        # exists, the tensor the script gave it has a dtype it takes no kernel for.
        cand.category, cand.strength = "user_code", 2
        cand.reasons.append(f"the operator has no kernel for the dtype your code at {user.where()} gave it")
    elif short_type == "NotImplementedError" and _SAYS_WHAT_IT_GOT.search(text) and user is not None:
        # A function that takes no input of this kind and says what it got (`Only 3D, 4D and 5D input
        # Tensors supported (got 2D)`): the tensor your code passed, not a missing backend.
        cand.category, cand.strength = "user_code", 2
        cand.reasons.append(f"the function does not take the input your code at {user.where()} gave it")
    elif (
        short_type == "NotImplementedError"
        and exc is not None
        and (site := exc.raise_site()) is not None
        and not site.user
    ):
        # A library that has no implementation for this case: the model, device or backend asked for
        # is one it does not support (`Sharded Llama requires Flash Attention enabled models`).
        cand.category, cand.strength = "backend_unsupported", 2
        cand.reasons.append(f"the library has no implementation for this case ({site.where()})")
    elif _INPUT_GUARD.search(text) and user is not None:
        cand.category, cand.strength = "user_code", 2
        cand.reasons.append(
            f"the exported (or compiled) program checks its inputs against the example it was traced with,"
            f" and your code at {user.where()} called it with another (a batch of another size: export"
            " with `dynamic_shapes`, or pad the batch)"
        )
    elif _SHAPE_ASSERTION.search(text) and user is not None:
        cand.category, cand.strength = "user_code", 2
        cand.reasons.append(
            f"the library checked the shape of a tensor your code at {user.where()} gave it, and it did not fit"
        )
    elif (
        short_type == "AssertionError"
        and exc is not None
        and (site := exc.raise_site()) is not None
        and not site.user
    ):
        # A library's own invariant failed (`fp32 param and grad have different shape`): its internal
        # state or its support for this combination of features, not a call the script got wrong.
        cand.reasons.append(f"an assertion inside a library failed ({site.where()})")
    elif _NUMERIC.search(text):
        cand.reasons.append("the numbers went bad (NaN/Inf): a numerical failure, not a crash of the code")
    elif user is not None:
        cand.category, cand.strength = "user_code", 2
        if exc is not None and exc.raised_in_library():
            cand.reasons.append(f"raised by a library called from your code at {user.where()}")
        else:
            cand.reasons.append(_raised_in_your_code(exc, user))
    elif short_type in _PROGRAMMING_ERRORS and (
        not (exc is not None and exc.frames and user is None) or short_type in _VALUE_ERRORS
    ):
        # Raised by the program itself; a traceback entirely inside libraries is a library's bug
        # instead, unless the error is about a value the library was given (a key its data lacks).
        cand.category, cand.strength = "user_code", 2 if user is not None else 1
        where = f" from your code at {user.where()}" if user is not None else ""
        given = (
            ""
            if where or not (exc is not None and exc.frames)
            else " (inside library code, about a value it was given)"
        )
        cand.reasons.append(f"{short_type} is a programming error: the code called it wrongly{where}{given}")
    elif (
        exc is not None
        and exc.origin == "python"
        and exc.exc_type
        and short_type != "Error"  # `Error: failed to run ...` is a command-line tool's message
        and not exc.frames
        and not exc.cut_off
    ):
        # Only the exception line was pasted: no frame says a library is at fault, and what such a
        # line reports (a shape, a dtype, a checkpoint that does not fit) is most often the script's use.
        cand.category = "user_code"
        cand.reasons.append(
            f"{short_type} with no traceback in the logs: most likely raised by how the script used a library"
        )
    elif exc is not None and exc.origin == "fatal" and (in_nccl := crashed_in_nccl(exc.native)) is not None:
        cand.category, cand.strength = "nccl_error", 2
        cand.reasons.append(f"the crash's native backtrace is inside NCCL ({in_nccl}): the library crashed")
    elif exc is not None and exc.origin == "panic" and exc.frames and exc.frames[0].user:
        cand.category, cand.strength = "user_code", 2
        cand.reasons.append(f"the panic is in your crate at {exc.frames[0].where()}")
    else:
        cand.reasons.append("an error the knowledge base does not know, raised inside library code")
    if (
        cand.category == "other"
        and cand.tier == CAUSE
        and carried is not None
        and carried.category != "other"
    ):
        cand.category = carried.category
        cand.reasons.append(f"{carried.id} says what kind of failure it carries ({carried.category})")
    if exc is not None and exc.origin == "fatal" and "Abort" in text:
        # An abort with no error of its own: a C++ exception of a lost peer (gloo, NCCL) or the
        # watchdog. It is a consequence when another rank failed first.
        cand.consequence = "peer-failure"
        cand.reasons.append(
            "an abort without an error of its own: usually what a rank does when a peer failed"
        )
    if exc is not None and exc.cut_off:
        cand.strength = 1
        cand.reasons.append("the traceback was cut off before its exception line")
        cand.tier = CONSEQUENCE  # weaker than any complete evidence, but never silence
        category, waiting = _stopped_in(exc)
        if category == "collective_timeout":
            # Cut off in a collective (or in a launcher that waits for its workers, a stack the user took):
            # a rank fails there mostly by waiting too long for its peers or losing them; the report of
            # why, had it followed, is lost.
            cand.category = category
            cand.reasons.append(f"it was cut off{waiting}")
    return cand


# A native backtrace's frames of the signal's handling (the handler, libc's raise and abort, UCX's
# and glog's reporting), above the frame that crashed; not a C++ function's mangled name (`_ZN...`).
_HANDLING = LazyRegex(
    r"^(?:__|_L_|\?|ucs_|ucm_|raise$|abort$|gsignal$|killpg$|libc\.|libpthread\.|libucs\.|google::)"
)
_NCCL_CODE = LazyRegex(r"^(?:p?nccl[A-Z]|libnccl\.|libnccl-net|libnccl\b)")


def crashed_in_nccl(native: list[str]) -> str | None:
    """The NCCL frame a crash happened under: the innermost of its native backtrace below the signal's
    handling (`__sigaction`, then `pncclCommDeregister`), or the NCCL call its plain C helpers ran in
    (`freeRing()`, `commFree()`, then `ncclCommInitAll`); None when a frame of other code (a C++
    function, by its namespace or its mangled name, `_ZN2at6native...`; another library) comes first."""
    for where in native:
        if _HANDLING.search(where):
            continue
        if _NCCL_CODE.search(where):
            return where
        if "::" in where or "." in where or where.startswith("_Z"):
            return None
    return None


# --- exits and signals --------------------------------------------------------------------------


def exit_candidates(timeline: Timeline, index: KbIndex, found: list[Candidate]) -> list[Candidate]:
    """Launchers' reports of ranks that ended: by signal, or non-zero without an error of their own."""
    speaking = {
        c.rank
        for c in found
        if c.rank is not None
        and (c.tier == CAUSE or (c.kind == "symptom" and isinstance(c.obs, ExceptionObs)))
    }
    # Ranks that waited for a collective or lost a peer (None: a report no label ties to a rank); not the C++
    # runtime's note that a process ended with threads still running (`terminate called without an active
    # exception`, gloo's after `sys.exit`): how a process ended, no wait.
    waited = {
        c.rank
        for c in found
        if c.category == "collective_timeout"
        or (
            c.kind == "symptom"
            and c.consequence not in ("launcher", "interrupt")
            and not _ENDED_WITH_THREADS.search(c.obs.text)
        )
    }
    timed_out = any(c.consequence == "timeout" for c in found)
    # An exception (or an error line that names a cause) no label ties to a rank may be any exiting
    # rank's own error; a fatal signal's report (`Fatal Python error: Aborted`) is the error of the
    # rank the launcher saw die of that signal.
    deaths = {o.signal for o in timeline.exits if o.signal is not None and o.rank is not None}
    unlabelled = any(
        c.rank is None
        and c.tier != WRAPPER
        and (
            (isinstance(c.obs, ExceptionObs) and not _reports_death(c.obs, deaths))
            or (c.kind == "error-line" and c.category not in ("other", "collective_timeout"))
        )
        for c in found
    )
    out: list[Candidate] = []
    for obs in timeline.exits:
        code = obs.code
        if code is None or code == 0:
            continue
        sig = obs.signal
        name = SIGNAL_NAMES.get(sig, f"signal {sig}") if sig is not None else None
        entry_id = SIGNAL_ENTRIES.get(sig) if sig is not None else None
        if (
            entry_id is None
            and sig is None
            and obs.reporter in ("torchrun-table", "torchrun-agent")
            and not obs.chain
        ):
            entry_id = NO_ERROR_FILE_ENTRY
        entry = _chain_entry(obs) or (index.get(entry_id) if entry_id else None)
        silent = obs.rank is None or obs.rank not in speaking
        if sig is None and entry is not None and entry.kind == "root" and entry.id != NO_ERROR_FILE_ENTRY:
            # A flattened paste: the rank's own error and the launcher's exit report on one line.
            cand = Candidate(obs, CAUSE, "root", entry.category, entry, obs.rank, strength=3)
            cand.reasons.append(f"the knowledge base knows this message: {entry.id}")
        elif sig == 9:
            cand = Candidate(
                obs, INFERRED if silent else CONSEQUENCE, "host-kill", "oom_host", entry, obs.rank
            )
            cand.reasons.append(
                f"{_who(obs)} was killed by SIGKILL"
                + (" and printed no error: most likely the kernel's out-of-memory killer" if silent else "")
            )
            cand.strength = 2
            _own_account(cand, timeline)
        elif sig == 7:
            cand = Candidate(obs, INFERRED if silent else CONSEQUENCE, "crash", "oom_host", entry, obs.rank)
            cand.reasons.append(
                f"{_who(obs)} died of SIGBUS: in a data-parallel job that is almost always /dev/shm running out "
                "(DataLoader workers and NCCL share memory through it)"
            )
            cand.strength = 2
        elif sig in _COLLATERAL_SIGNALS and _stopped_from_outside(obs, timeline):
            cand = Candidate(obs, INFERRED if silent else CONSEQUENCE, "crash", "other", entry, obs.rank)
            cand.reasons.append(
                f"{_who(obs)} got {name}, which the launcher did not send (it stopped only pid(s)"
                f" {rank_list(sorted(timeline.stopped_pids), limit=4)}): something outside the job stopped it first"
                " (a scheduler's pre-emption or time limit, a `kill`)"
            )
        elif sig in _COLLATERAL_SIGNALS:
            cand = Candidate(obs, CONSEQUENCE, "symptom", "other", entry, obs.rank, consequence="launcher")
            cand.reasons.append(f"{_who(obs)} got {name}: the launcher stopped it after another rank failed")
        elif sig == 6:
            # The watchdog aborts ranks whose collective timed out; a peer's lost connection says
            # nothing of why this rank aborted.
            watchdog = timed_out or None in waited or obs.rank is None or obs.rank in waited
            tier = CONSEQUENCE if (watchdog or not silent) else INFERRED
            # Aborted while only its peers were seen waiting for it or losing it: its own crash.
            crashed = bool(waited) and not watchdog
            category = entry.category if entry is not None and not crashed else "other"
            cand = Candidate(
                obs, tier, "crash", category, entry, obs.rank, consequence="watchdog" if watchdog else None
            )
            cand.reasons.append(
                f"{_who(obs)} aborted (SIGABRT)"
                + (": the NCCL watchdog aborts a rank whose collective timed out" if watchdog else "")
            )
            _own_account(cand, timeline)
        elif sig is not None and (in_nccl := crashed_in_nccl(obs.native)) is not None:
            cand = Candidate(obs, INFERRED if silent else CONSEQUENCE, "crash", "nccl_error", entry, obs.rank)
            cand.reasons.append(
                f"{_who(obs)} crashed with {name}, and its native backtrace is inside NCCL ({in_nccl}):"
                " the library crashed"
            )
        elif sig is not None:
            cand = Candidate(obs, INFERRED if silent else CONSEQUENCE, "crash", "other", entry, obs.rank)
            cand.reasons.append(f"{_who(obs)} crashed with {name}")
            _own_account(cand, timeline)
        elif silent and unlabelled:
            cand = Candidate(obs, CONSEQUENCE, "exit", _exit_category(entry), entry, obs.rank)
            cand.reasons.append(
                f"{_who(obs)} exited with code {code}; an error without a rank label in the logs may be its own"
            )
        elif silent:
            cand = Candidate(obs, INFERRED, "exit", _exit_category(entry), entry, obs.rank)
            cand.reasons.append(f"{_who(obs)} exited with code {code} and raised no exception in these logs")
            _own_account(cand, timeline)
        else:
            continue
        out.append(cand)
    return out


def _own_account(cand: Candidate, timeline: Timeline) -> None:
    """A rank that ended of its own accord with no error (an exit code, a signal the launcher did not
    send) and whose last lines part from its peers' with one that says it stops or failed (`non-finite
    loss at step 2; exiting with code 3`): the script said why it ended itself, and the report points
    at that line. It is the training code's own decision unless its words say otherwise."""
    if cand.tier == INFERRED and cand.rank is not None and cand.category in ("other", "oom_host"):
        line = _account(timeline, cand.rank) or _unlabelled_account(timeline, cand)
        if line is not None:
            _point_at_account(cand, line, timeline)


def _unlabelled_account(timeline: Timeline, cand: Candidate) -> RecentLineObs | None:
    """In a console whose prints carry no rank label, the last such line before the candidate's exit
    report that says a process stops (an error word alone may be anyone's), when that rank is the only
    one that ended of its own accord (the others lost it, or the launcher stopped them): no other
    process could have said it."""
    ended = {
        o.rank
        for o in timeline.exits
        if o.code and (o.signal not in _COLLATERAL_SIGNALS or _stopped_from_outside(o, timeline))
    }
    if ended != {cand.rank}:
        return None
    said = [
        line
        for line in timeline.unlabelled
        if line.file_index == cand.obs.file_index
        and line.line < cand.obs.line
        and (STATES_A_HALT.search(line.text) or _names_the_inferred_cause(line, cand))
    ]
    if said:
        return said[-1]
    # `sys.exit('message')` ends the process with code 1 and its message written bare to stderr.
    exited = isinstance(cand.obs, ExitObs) and cand.obs.code == 1 and cand.obs.signal is None
    return timeline.console_exit_message(cand.rank, cand.obs) if exited and cand.rank is not None else None


def _names_the_inferred_cause(line: RecentLineObs, cand: Candidate) -> bool:
    """Whether a line's words state the cause the candidate's end was inferred to have (a memory
    guard's `rss 642 MiB over host budget 640 MiB, sending SIGKILL` before a SIGKILL)."""
    said = message_category(line.text)
    return said is not None and said[0] == cand.category != "other"


def _account(timeline: Timeline, rank: int) -> RecentLineObs | None:
    """The line where a rank went its own way (its last, when no other rank printed any), or the first of
    its own lines after it, that says the rank stopped or failed, names a cause (`rss 801MB exceeds limit
    800MB`) or is an error-level record (such a record first); else the message Python wrote bare as it
    ended, at the end of a file of its own (`sys.exit('...')`, see Timeline.exit_message)."""
    line = timeline.departure(rank, alone=True)
    if line is not None:
        # (or a later line of its own in that file that does: `lang=fr test rows=0`, then `no test rows
        # ..., refusing to write`)
        later = _later_in_its_file(timeline, line)
        if _handled_then_ended(line, later):
            return line
        saying = [said for said in (line, *later) if _says_why(said)]
        # The first, or after two lines or more (the items of a list: `flip pair (1, 2) maps ...`) the
        # one that sums them up and says it stops (`8/8 flip pairs inconsistent ..., aborting evaluation`).
        halt = next((i for i, said in enumerate(saying) if STATES_A_HALT.search(said.text)), None)
        if halt is not None and sum(said.count for said in saying[:halt]) >= 2:
            return saying[halt]
        # An error-level record among them is the script's own account, over an info line whose words
        # merely name a failure (`-> range error 2.30 m at 120 m`, then `[ERROR] ... range error 2.30 m
        # exceeds 0.50 m`).
        recorded = [said for said in saying if isinstance(said, RecentLineObs) and said.error_record]
        if recorded:
            return recorded[0]
        if saying:
            return saying[0]
    return timeline.exit_message(rank)


def _later_in_its_file(timeline: Timeline, line: RecentLineObs) -> list[RecentLineObs]:
    """The rank's last lines after this one, in the same file."""
    if line.rank is None:
        return []
    return [
        said
        for said in timeline.lines_from(line.rank, line)
        if said.file_index == line.file_index and said is not line
    ]


def _handled_then_ended(line: Observation, later: Sequence[Observation]) -> bool:
    """Whether a rank's line says it skips something or warns of a condition (`shelf 2: nothing due,
    skipping the week`, `WARNING ... QA failed; stopping this cell`) and all it printed after it says it
    ended as planned (`roster run finished`): it handled the condition by leaving its part, and left its
    peers in their collectives."""
    handled = _SKIPS.search(line.text) is not None or (
        isinstance(line, RecentLineObs) and line.warning_record
    )
    ended = [said for said in later if not _ENDED_WITH_THREADS.search(said.text)]
    return handled and bool(ended) and all(ENDS_NORMALLY.search(said.text) for said in ended)


def _says_why(line: Observation) -> bool:
    """Whether a rank's line says it stopped or failed, names a cause, or is an error-level record; not a
    warning that it would try again (`metrics push failed: ...; retrying in 0.5s`): it meant to go on."""
    if isinstance(line, RecentLineObs) and line.warning_record and TRIES_AGAIN.search(line.text):
        return False
    return (
        (isinstance(line, RecentLineObs) and line.error_record)
        or STATES_A_HALT.search(line.text) is not None
        or NAMES_A_FAILURE.search(line.text) is not None
        or message_category(line.text) is not None
    )


def _point_at_account(cand: Candidate, line: RecentLineObs, timeline: Timeline) -> None:
    """The report points at the rank's own account of why it ended."""
    said = message_category(line.text)
    if said:
        cand.category = said[0]
    elif cand.kind == "lost-peer" and (
        (
            (
                ENDS_NORMALLY.search(line.text)
                or (HAS_NOTHING_TO_DO.search(line.text) and not ENDS_ITSELF.search(line.text))
            )
            and not NAMES_A_FAILURE.search(line.text)
        )
        or _handled_then_ended(line, _later_in_its_file(timeline, line))
    ):
        # No exit code is known, and its words say it ended as planned (`early stopping at epoch 6`), or that
        # it had no work and went on to its end (`nothing to train on`; not `nothing to evaluate, exiting`,
        # a guard of the script's that ends the process), or it skipped its part or warned of a condition and
        # then ended as planned: it left the job while its peers still ran collectives.
        cand.category = "collective_timeout"
    elif cand.category == "other":  # (a kill's inferred cause, the host's memory, stands)
        cand.category = "user_code"
    cand.stated = line
    cand.reasons.append(
        f"rank {line.rank}'s own last word before it ended: {line.text[:200]} ({line.file}:{line.line})"
        if line.rank is not None
        else f"a line without a rank label says a process stopped, and rank {cand.rank} alone ended of its"
        f" own accord: {line.text[:200]} ({line.file}:{line.line})"
    )


def _stopped_from_outside(obs: ExitObs, timeline: Timeline) -> bool:
    """A worker's death by a stopping signal the launcher, seen stopping other workers, did not send it."""
    return bool(timeline.stopped_pids) and obs.pid is not None and obs.pid not in timeline.stopped_pids


def _reports_death(obs: ExceptionObs, signals: set[int]) -> bool:
    """Whether a fatal error's words name one of these signals (`Aborted` is SIGABRT)."""
    return obs.origin == "fatal" and any(
        number in signals and word in obs.text for word, number in FATAL_WORD_SIGNALS.items()
    )


def _exit_category(entry: IndexEntry | None) -> str:
    """The category of a bare non-zero exit: what the report's own entry says of the process that
    ended (`DataLoader worker (pid 7948) exited unexpectedly`: a data loader's worker), else other."""
    return entry.category if entry is not None and entry.kind == "symptom" else "other"


def _chain_entry(obs: Observation) -> IndexEntry | None:
    """The launcher message's own entry (it names the launcher), before the generic signal entries."""
    for link in obs.chain:
        if link.entry is not None:
            return link.entry
    return None


def _who(obs: Observation) -> str:
    return f"rank {obs.rank}" if obs.rank is not None else "a process"


# --- collectives --------------------------------------------------------------------------------


def collective_candidates(timeline: Timeline, found: list[Candidate]) -> list[Candidate]:
    """Cross-rank evidence about collectives: mismatched ops, ranks named as behind, silent stragglers."""
    out: list[Candidate] = []
    reports = [o for o in timeline.failures if isinstance(o, CollectiveObs)]
    out += _named_ranks(reports)
    out += _op_mismatch(reports + _timeouts_in_exceptions(timeline, reports), timeline.world_size)
    if not out:
        out += _call_site_mismatch(timeline, found)
    if not out:
        straggler = _straggler(timeline, found, reports)
        if straggler is not None:
            out.append(straggler)
    already = {id(c.obs) for c in found}  # a set: a log of many ranks has as many reports as candidates
    for obs in reports:
        if obs.state == "timeout" and id(obs) not in already:
            cand = Candidate(
                obs,
                CONSEQUENCE,
                "symptom",
                "collective_timeout",
                obs.known(),
                obs.rank,
                consequence="timeout",
            )
            cand.reasons.append("a collective timed out on this rank: it waited for another rank")
            out.append(cand)
    return out


def _timeouts_in_exceptions(timeline: Timeline, reports: list[CollectiveObs]) -> list[CollectiveObs]:
    """The watchdog timeouts that only an exception states (older torch put some ranks' only in a C++
    terminate's `what():`), as reports of their collective: where each rank waited, for comparing
    the ranks. Their exceptions are already candidates of their own."""
    stated = {(o.rank, o.sequence) for o in reports}
    out: list[CollectiveObs] = []
    for obs in timeline.failures:
        if not isinstance(obs, ExceptionObs) or obs.rank is None or "WorkNCCL(" not in obs.text:
            continue
        facts = collective_facts(obs.text)
        if facts is None or facts.state != "timeout" or facts.seq is None or (obs.rank, facts.seq) in stated:
            continue
        stated.add((obs.rank, facts.seq))
        view = CollectiveObs(obs.file, obs.file_index, obs.line, obs.text, obs.seq, obs.rank, stamp=obs.stamp)
        view.chain, view.op, view.sequence = obs.chain, facts.op, facts.seq
        view.numel, view.timeout_ms = facts.numel, facts.timeout_ms
        out.append(view)
    return out


def _named_ranks(reports: list[CollectiveObs]) -> list[Candidate]:
    out: list[Candidate] = []
    # A monitored barrier's peers name rank 0, its coordinator, whatever went wrong; when rank 0's own
    # report (the ranks that did not arrive) is in the logs, theirs only echo it.
    roles = [monitored_barrier_role(o.text) for o in reports]
    for obs, role in zip(reports, roles, strict=True):
        if role == "peer" and "coordinator" in roles:
            continue
        primary = obs.primary()
        if (
            primary is not None
            and primary.entry is not None
            and primary.entry.kind == "root"
            and obs.named_ranks
        ):
            continue  # the knowledge-base candidate of this report already names them
        if obs.state in ("desync", "missing") and (obs.named_ranks or obs.named_seq):
            behind = list(obs.named_ranks)
            if not behind and obs.named_seq:
                low = min(obs.named_seq.values())
                behind = sorted(r for r, s in obs.named_seq.items() if s == low)
                if len(set(obs.named_seq.values())) == 1:
                    continue
            if _all_in_collective(obs):
                continue
            cand = Candidate(
                obs,
                CAUSE,
                "straggler",
                "collective_timeout",
                obs.known(),
                behind[0] if len(behind) == 1 else None,
            )
            cand.strength = 2
            cand.suspects = behind
            where = "is" if len(behind) == 1 else "are"
            report = (
                "desync report" if obs.state == "desync" else "barrier" if obs.op == "BARRIER" else "report"
            )
            cand.reasons.append(f"the {report} names rank(s) {rank_list(behind)}: {where} behind the others")
            cand.rank_note = "named as behind by another rank's report; the rank that printed it is a victim"
            _stalled_in_different_ops(cand)
            out.append(cand)
    return out


def _stalled_in_different_ops(cand: Candidate) -> None:
    """Horovod's stall list names each rank with the tensors it has not submitted: when one rank lacks
    a broadcast and another an allreduce, each is in a collective the other never calls."""
    obs = cand.obs
    if not isinstance(obs, CollectiveObs) or len(set(obs.named_ops.values())) < 2:
        return
    cand.kind, cand.category, cand.rank, cand.consequence = "mismatch", "collective_mismatch", None, None
    cand.suspects = sorted(obs.named_ops)
    detail = ", ".join(f"rank {rank} has not joined {op}" for rank, op in sorted(obs.named_ops.items()))
    cand.reasons.append(
        f"the stalled ranks wait in different kinds of collective ({detail}): their code paths diverged"
    )


def _all_in_collective(obs: CollectiveObs) -> bool:
    """A desync report that lists its own printer among the ranks that joined the collective and did
    not finish it: they all waited in it (a hang of the collective itself), no rank is behind."""
    return obs.state == "desync" and len(obs.named_ranks) > 1 and obs.rank in obs.named_ranks


def _op_mismatch(reports: list[CollectiveObs], world: int | None) -> list[Candidate]:
    """Ranks of one process group that time out at the same sequence number in different collectives,
    or in the same collective with different sizes where every rank must give the same (an
    all-reduce of 4311252 elements on one rank, of 1 on another): their code paths diverged.

    The rank that differs is named only when more than half the job's ranks reported: with half of
    them unseen, those could as well side with it."""
    by_seq: dict[tuple[str | None, int], dict[int, tuple[str, CollectiveObs]]] = {}
    for obs in reports:
        if obs.state == "timeout" and obs.sequence is not None and obs.op and obs.rank is not None:
            group = m.group(1) if (m := _PG_ID.search(obs.text)) else None
            by_seq.setdefault((group, obs.sequence), {})[obs.rank] = (_call_signature(obs), obs)
    for (_, seq), per_rank in sorted(by_seq.items(), key=lambda item: item[0][1]):
        calls = Counter(call for call, _ in per_rank.values())
        if len(calls) < 2:
            continue
        rare = min(calls.values())
        odd = sorted(r for r, (call, _) in per_rank.items() if calls[call] == rare)
        # Otherwise the ranks split evenly, or too few reported to tell: no odd one out.
        minority = rare * 2 < len(per_rank) and len(per_rank) * 2 > (world or 0)
        odd_rank = odd[0] if minority and len(odd) == 1 else None
        obs = per_rank[odd[0]][1]
        cand = Candidate(obs, CAUSE, "mismatch", "collective_mismatch", None, odd_rank, strength=2)
        cand.suspects = odd
        detail = ", ".join(f"rank {r}: {call}" for r, (call, _) in sorted(per_rank.items()))
        cand.reasons.append(f"at sequence number {seq} the ranks ran different collectives ({detail})")
        return [cand]
    return _sequence_skew(reports)


# Collectives in which every rank gives a tensor of the same size (all-to-all, gather, scatter and
# point-to-point sizes may differ between ranks; coalesced calls sum several tensors).
_SAME_SIZE_OPS = frozenset(
    (
        "ALLREDUCE",
        "BROADCAST",
        "REDUCE",
        "ALLGATHER",
        "_ALLGATHER_BASE",
        "REDUCE_SCATTER",
        "_REDUCE_SCATTER_BASE",
    )
)


def _call_signature(obs: CollectiveObs) -> str:
    """The collective a report names, with its size where every rank must give the same size."""
    op = obs.op or ""
    if obs.numel is not None and op.upper() in _SAME_SIZE_OPS:
        return f"{op} of {obs.numel} elements"
    return op


def _call_site_mismatch(timeline: Timeline, found: list[Candidate]) -> list[Candidate]:
    """Ranks whose tracebacks stop in different collectives of torch.distributed (rank 0 in
    `all_reduce`, rank 1 in `broadcast`): each waits for a partner in a call the other never makes.
    When they all stop in one point-to-point call (`recv`), the script's lines that made it tell them
    apart: the one rank at another line is a step apart from its peers. Not when another rank raised
    an error of its own outside any collective, or ended of its own (killed, crashed), nor when every one
    of them lost a peer rather than waited until a timeout and another rank is in the logs: the others
    stopped wherever they were when it died; nor
    when a rank that stopped in no collective last said it waits (`cache locked, waiting for refresh`):
    the ranks it held back stopped in whichever call needed it, those it did not went on to the next."""
    sites: dict[int, tuple[str, ExceptionObs]] = {}
    raised: set[int] = set()
    for obs in timeline.failures:
        if isinstance(obs, ExceptionObs) and obs.rank is not None and obs.rank not in raised:
            # Each rank's first exception only: a later one (after a restart) is another attempt's.
            raised.add(obs.rank)
            site = _waited_in(obs)
            if site is not None:
                sites[obs.rank] = (site, obs)
    if any(
        c.consequence is None
        and c.rank is not None
        and c.rank not in sites
        and (
            (c.tier == CAUSE and isinstance(c.obs, ExceptionObs))
            or (c.tier in (CAUSE, INFERRED) and isinstance(c.obs, ExitObs))
        )
        for c in found
    ):
        return []
    if any(
        (last := timeline.last_line(rank)) is not None
        and (WAITS_ON_SOMETHING.search(last.text) or WAITS_IN_A_LOOP.search(last.text))
        for rank in timeline.ranks - sites.keys()
    ):
        return []
    lost = {id(c.obs) for c in found if c.consequence == "peer-failure"}
    if all(id(obs) in lost for _, obs in sites.values()) and timeline.ranks - sites.keys():
        # Every one lost a peer (none waited until a timeout) and another rank is in the logs: that rank
        # ended, and they were cut off wherever they were.
        return []
    ops = {rank: (site.split(_CALLED_AT)[0], obs) for rank, (site, obs) in sites.items()}
    counts = Counter(op for op, _ in ops.values())
    if not _differ(counts):
        return []  # a gradient all-reduce and no other collective: nothing it could mismatch
    if len(counts) < 2:
        return _point_to_point_apart(timeline, sites)
    rare = min(counts.values())
    odd = sorted(rank for rank, (op, _) in ops.items() if counts[op] == rare)
    odd_rank = odd[0] if rare * 2 < len(ops) and len(odd) == 1 else None
    if odd_rank is not None and any(
        c.tier == CAUSE and c.entry is not None and c.rank == odd_rank and c.obs.rank != odd_rank
        for c in found
    ):
        return []  # another rank's known report already names it (`Rank 2 failed to pass monitoredBarrier`)
    peculiar = [rank for rank in sorted(ops) if timeline.own_lines(rank)]
    if odd_rank is None and len(peculiar) == 1:
        # As many ranks in one call as in the other (two ranks): the only one that printed a line its
        # peers did not took the other path (`step 2: non-finite loss, skipping batch`).
        odd_rank, odd = peculiar[0], peculiar
    # A barrier carries no data: ranks at one while the others are in a collective that does are not
    # exchanging mismatched data, they are a step apart (one skipped or added a step) and hang there.
    # So are ranks that wait on a request of their own (`req.wait()` after `isend`) while another is in
    # a collective: the partner the request waits for is elsewhere.
    at_barrier = any(op in _BARRIERS for op in counts)
    on_request = _REQUEST_WAIT in counts
    category = "collective_timeout" if at_barrier or on_request else "collective_mismatch"
    # ... unless the one rank still in the data collective also counts things otherwise than its peers (`6
    # contaminant classes` where they say 5): they got through that collective and it did not, its tensor
    # of another size than theirs.
    # (An amount of work that differs, `31 steps/epoch` where they say 30, is a step apart: not sizes.)
    counted = (
        timeline.odd_count() if at_barrier and odd_rank is not None and not timeline.uneven_count() else None
    )
    sized_otherwise = counted is not None and counted[0] == odd_rank and ops[counted[0]][0] not in _BARRIERS
    if sized_otherwise:
        category = "collective_mismatch"
    # Of ranks no op singles out, the report to point at is a wait that ran out, not a connection a peer
    # closed when it gave up (that came after); of those, the first.
    reports = order([ops[rank][1] for rank in odd])
    anchor = next((obs for obs in reports if id(obs) not in lost), reports[0])
    cand = Candidate(anchor, CAUSE, "mismatch", category, None, odd_rank, strength=2)
    cand.suspects = odd
    detail = ", ".join(f"rank {rank}: {op}" for rank, (op, _) in sorted(sites.items()))
    cand.reasons.append(f"the ranks' tracebacks stop in different collectives ({detail})")
    own = timeline.own_lines(odd_rank) if odd_rank is not None else []
    if odd_rank is not None and odd == peculiar and rare * 2 >= len(ops):
        cand.reasons.append(
            f"rank {odd_rank} alone printed: {own[0].text[:200]} ({own[0].file}:{own[0].line}): it took the"
            " other path"
        )
    if own and any(said.search(own[0].text) for said in (_SKIPS, _HOLDS_BACK, NAMES_A_FAILURE)):
        # Its own line says it left out or held back a step, or that something failed (`session 5: no
        # panelists present, skipping`): why it went elsewhere; the report points at it, the ranks' wait
        # among the reasons. (A loop it says it stops, as planned or at a deadline, leaves the wait.)
        cand.stated = own[0]
        cand.reasons.append(f"the ranks' wait: {anchor.text[:160]} ({anchor.file}:{anchor.line})")
    if counted is not None and sized_otherwise:
        line = counted[1]
        cand.reasons.append(
            f"rank {odd_rank} counts otherwise than every other rank: {line.text[:200]} ({line.file}:{line.line});"
            " its peers got through the collective it is still in: their sizes did not pair up"
        )
    elif at_barrier:
        cand.reasons.append(
            "some wait at a barrier, the others in a collective that carries data: the ranks are a step"
            " apart, so each side waits for the other until the timeout"
        )
    elif on_request:
        cand.reasons.append(
            "some wait on a request they started earlier (an `isend`, an `irecv` or a collective with"
            " `async_op=True`), another is in a collective: the partner the request waits for is"
            " elsewhere, so it waits until the timeout"
        )
    return [cand]


def _differ(counts: Counter[str]) -> bool:
    """Whether the collectives the ranks stopped in could be at odds: not a gradient all-reduce in
    backward alone beside calls that are no collective."""
    return _IN_BACKWARD not in counts or any(
        collective_name(op, _C10D_API) or op in (_IN_FORWARD, _REQUEST_WAIT) for op in counts
    )


def _point_to_point_apart(timeline: Timeline, sites: dict[int, tuple[str, ExceptionObs]]) -> list[Candidate]:
    """Every rank stopped in the same point-to-point call, all but one from the same line of the
    script: that one is a step apart (it waits to receive a forward activation while its peers wait
    for the gradient it never sent back). Its own line after the last one they shared, if any, says
    why it went its own way."""
    counts = Counter(site for site, _ in sites.values())
    if len(counts) < 2 or not any(_CALLED_AT in site for site in counts):
        return []
    odd = [rank for rank, (site, _) in sites.items() if counts[site] == 1]
    if len(odd) != 1 or len(sites) < 3:
        return []
    (rank,) = odd
    cand = Candidate(sites[rank][1], CAUSE, "mismatch", "collective_timeout", None, rank, strength=2)
    cand.suspects = odd
    detail = ", ".join(f"rank {r}: {site}" for r, (site, _) in sorted(sites.items()))
    cand.reasons.append(
        f"the ranks wait in point-to-point transfers that the script calls from different lines ({detail}):"
        f" rank {rank} alone is at another step, so the transfers its peers wait for never come"
    )
    line = timeline.departure(rank, after_shared=True)
    if line is not None and not line.error_record:
        cand.reasons.append(f"rank {rank} had gone its own way: {line.text[:200]} ({line.file}:{line.line})")
        cand.stated = line
    return [cand]


def _waited_in(obs: ExceptionObs) -> str | None:
    """Where a rank's traceback shows it waiting for its peers, or None: the collective of
    torch.distributed it called (a point-to-point one with the script's line that called it: two
    `recv`s from different lines wait for different sends), DDP's own collectives in backward or
    forward, or a request the script waits on itself (`req.wait()` after `isend`)."""
    for index, frame in enumerate(obs.frames):
        if frame.posix.endswith(_C10D_API):
            caller = next((f for f in reversed(obs.frames[:index]) if f.user), None)
            if frame.function not in _POINT_TO_POINT or caller is None:
                return frame.function
            return f"{frame.function}{_CALLED_AT}{caller.where()}"
    if _timed_out_in_ddp(obs, "torch/autograd/__init__.py", "backward"):
        return _IN_BACKWARD
    if _timed_out_in_ddp(obs, _DDP_CODE, "_sync_buffers") or _timed_out_in_ddp(
        obs, _DDP_CODE, "_pre_forward"
    ):
        return _IN_FORWARD
    innermost = obs.frames[-1] if obs.frames else None
    entry = _chain_entry(obs)
    if (
        innermost is not None
        and innermost.user
        and entry is not None
        and entry.category == "collective_timeout"
    ):
        return _REQUEST_WAIT
    return None


def _timed_out_in_ddp(obs: ExceptionObs, file: str, function: str) -> bool:
    """Whether a collective's timeout (or lost peer) was raised where DDP runs a collective of its own:
    `backward()` (the gradient all-reduce in autograd's hooks), `_sync_buffers` (the forward's broadcast
    of buffers) or `_pre_forward` (that broadcast, or the rebuilt buckets' order)."""
    entry = _chain_entry(obs)
    return (
        entry is not None
        and entry.category == "collective_timeout"
        and any(f.posix.endswith(file) and f.function == function for f in obs.frames)
    )


def _sequence_skew(reports: list[CollectiveObs]) -> list[Candidate]:
    """Ranks of one process group whose oldest unfinished collectives have different sequence numbers:
    they are out of step. The ranks at the lowest number are behind (they stopped issuing collectives,
    or issued fewer); the others went on and wait for them. One rank behind two or more that went on
    is named; of several behind, which one stalled first the reports alone do not say, so those ranks
    are the suspects."""
    oldest: dict[int, CollectiveObs] = {}
    waiting_at: dict[int, set[int]] = {}  # rank -> every sequence number it timed out at
    for obs in reports:
        if obs.state == "timeout" and obs.sequence is not None and obs.rank is not None:
            waiting_at.setdefault(obs.rank, set()).add(obs.sequence)
            kept = oldest.get(obs.rank)
            if kept is None or obs.sequence < (kept.sequence or 0):
                oldest[obs.rank] = obs
    groups = {m.group(1) if (m := _PG_ID.search(o.text)) else None for o in oldest.values()}
    seqs = {o.sequence for o in oldest.values()}
    if len(oldest) < 2 or len(groups) > 1 or len(seqs) < 2:
        return []
    first = min(oldest.values(), key=lambda o: o.sequence or 0)
    behind = sorted(rank for rank, o in oldest.items() if o.sequence == first.sequence)
    went_on = {o.sequence for rank, o in oldest.items() if rank not in behind}
    if any(waiting_at[rank] & went_on for rank in behind):
        # A rank "behind" also waits where the others wait: its lower number is another process
        # group's (the reports do not name their groups), not a step it failed to take.
        return []
    detail = _where_ranks_wait(oldest)
    # Ranks that wait at different places in the sequence are out of step: the ones at the lowest
    # number stopped issuing collectives (or issued fewer) and the others went on and wait for them,
    # whatever kind of collective each waits in. Different collectives at the same number are a
    # mismatch (see _op_mismatch).
    alone = behind[0] if len(behind) == 1 and len(oldest) - len(behind) >= 2 else None
    cand = Candidate(first, INFERRED, "straggler", "collective_timeout", first.known(), alone, strength=2)
    cand.suspects = behind
    if alone is not None:
        cand.rank_note = "inferred: the only rank behind the others in the collectives' sequence"
    cand.reasons.append(
        f"the ranks timed out at different sequence numbers ({detail}): rank(s) {rank_list(behind)} are"
        " behind, the others went on and waited for them"
    )
    return [cand]


def _where_ranks_wait(oldest: dict[int, CollectiveObs], limit: int = 8) -> str:
    """`ranks 0, 1, 2: ALLREDUCE #15173, ranks 6, 7: BROADCAST #15170`: the ranks grouped by the
    collective they wait in, so the text stays short for any number of ranks."""
    groups = ranks_by_collective([obs for _, obs in sorted(oldest.items())])
    parts = [
        f"rank{'s' if len(ranks) > 1 else ''} {rank_list(ranks)}: {op or '?'} #{seq}"
        for op, seq, ranks in groups[:limit]
    ]
    more = f" and {len(groups) - limit} more" if len(groups) > limit else ""
    return ", ".join(parts) + more


def _straggler(timeline: Timeline, found: list[Candidate], reports: list[CollectiveObs]) -> Candidate | None:
    """The rank that never reported the timeout every other rank hit, or the one furthest behind."""
    lost = {c.rank for c in found if c.rank is not None and c.consequence == "peer-failure"}
    # A rank that lost its peer and then ended (SIGABRT after gloo's `Connection closed by peer`) neither
    # waited nor failed of its own accord: its exit is the end of that loss.
    found = [c for c in found if not (isinstance(c.obs, ExitObs) and c.rank in lost)]
    waiting = {
        c.rank
        for c in found
        if c.rank is not None
        and (
            c.consequence == "timeout"
            or (c.category == "collective_timeout" and c.tier > CAUSE and c.consequence != "peer-failure")
        )
    }
    waiting |= {o.rank for o in reports if o.rank is not None and o.state == "timeout"}
    # The watchdog's own `[Rank N]` tag names the rank that timed out where the line's prefix numbers
    # it differently as a node-local rank: that rank waited too. Under a global label another number is
    # the rank inside a smaller process group, not another rank of the job.
    waiting |= {
        tag
        for o in reports
        if o.state == "timeout"
        and (o.rank is None or o.local_rank)
        and (facts := collective_facts(o.text))
        and (tag := facts.reporter) is not None
    }
    # A rank another rank's message names as the one that detected the timeout waited too.
    waiting |= {
        r for c in found if c.category == "collective_timeout" and (r := _named_reporter(c)) is not None
    }
    waiting |= {rank for o in reports if _all_in_collective(o) for rank in o.named_ranks}
    if not waiting and not lost:
        return None
    failing = {
        c.rank
        for c in found
        if c.rank is not None
        and c.consequence is None
        and (c.tier == CAUSE or c.kind in ("host-kill", "crash", "exit"))
    }
    if not failing and (left := _left_in_collective(timeline, found, reports, waiting)) is not None:
        return left
    completed = {
        o.rank: o.last_completed for o in reports if o.rank is not None and o.last_completed is not None
    }
    if len(set(completed.values())) > 1:
        low = min(completed.values())
        behind = sorted(r for r, c in completed.items() if c == low)
        cand = Candidate(
            reports[0],
            INFERRED,
            "straggler",
            "collective_timeout",
            None,
            behind[0] if len(behind) == 1 else None,
        )
        cand.suspects = behind
        cand.reasons.append(
            f"rank(s) {rank_list(behind)} completed the fewest collectives (last completed work {low}): "
            "they fell behind first"
        )
        return cand
    world = timeline.world_size
    if world is None or world > 4096:
        return None
    # Only ranks the logs show exist (an exit report, a line, a WORLD_SIZE) count as silent: an
    # excerpt that shows one rank's timeout says nothing about the ranks it does not show.
    known = set(timeline.ranks) | (set(range(world)) if timeline.world_hinted else set())
    # A rank that printed an exception of its own is not a silent one, whatever the verdict makes of it
    # (a traceback the excerpt cut off, a store wait that names no rank as its culprit).
    printed = {c.obs.rank for c in found if isinstance(c.obs, ExceptionObs) and c.obs.rank is not None}
    silent = _could_be_in_the_group(timeline, sorted(known - waiting - lost - failing - printed), waiting)
    if not silent:
        if failing:
            return None
        departed = _departed(timeline, found, reports, sorted(waiting | lost))
        timed_out = {c.rank for c in found if c.consequence == "timeout"}
        timed_out |= {o.rank for o in reports if o.state == "timeout"}
        if (
            departed is not None
            or not waiting
            or len(lost - waiting) != 1
            or known != waiting | lost
            or known != set(range(world))
            or not waiting <= timed_out  # (a traceback cut off in a collective may have lost a peer too)
        ):
            return departed
        # Every rank but one timed out waiting in a collective, and that one only lost its connection to
        # them, with no timeout of its own: it was not in the collective when its peers gave up (`[rank 1]
        # waiting for zone_setpoints_line1.json` while rank 0 timed out; `no clearance after 30s` after
        # ranks 0 and 2 timed out), the one they waited for.
        silent = sorted(lost - waiting)
        gone = timeline.departure(silent[0], after_shared=True)
        if (
            world > 2
            and (timeline.odd_setting() or timeline.odd_count())
            and not (gone is not None and STATES_A_HALT.search(gone.text))
        ):
            # A rank's line says it ran other collectives, and the rank said nothing of a wait: a mismatch
            # (verdict's _odd_setting).
            return None
    quiet = silent
    if len(silent) > 1:
        silent = _ended_itself(timeline, found, silent)
    behind = _behind(timeline, silent, waiting) if len(silent) > 1 and waiting else silent
    lagging, silent = len(behind) < len(silent), behind
    if not waiting:
        silent = _stopped_elsewhere(
            timeline, _configured_otherwise(timeline, _standing_out(timeline, silent)), lost
        )
    if len(silent) > max(1, world // 2):
        return None if waiting or failing else _left_behind(timeline, found, lost, silent)
    if not waiting:
        # A rank that failed of its own accord (an exit code, a signal not the launcher's) is the one
        # its peers lost; ranks the launcher stopped after it were alive until then.
        return None if failing else _lost_peer(timeline, found, lost, silent)
    anchor = _wait_report(found, reports, waiting)
    if anchor is None:  # waits known only from reports that name no timeout
        return None
    cand = Candidate(
        anchor,
        INFERRED,
        "straggler",
        "collective_timeout",
        anchor.known(),
        silent[0] if len(silent) == 1 else None,
    )
    cand.suspects = silent
    cand.reasons.append(
        f"rank(s) {rank_list(sorted(waiting))} timed out waiting in a collective; rank(s) {rank_list(silent)} "
        "never reported it: they were not in the collective (stuck, slow, or on another code path)"
    )
    for rank in silent:
        _tell_last_lines(cand, timeline, rank)
    cand.rank_note = "inferred: the only rank that did not report the collective timeout"
    if len(quiet) > len(silent):
        which = (
            "whose output does not stop at the line the waiting ranks printed last"
            if lagging
            else "whose own lines say it waited, stopped or failed"
        )
        cand.rank_note = (
            f"inferred: of the ranks that did not report the collective timeout ({rank_list(quiet)}), the"
            f" only one {which}"
        )
    return cand


def _left_in_collective(
    timeline: Timeline, found: list[Candidate], reports: list[CollectiveObs], waiting: set[int]
) -> Candidate | None:
    """One rank of three or more timed out in a collective its peers got through: each of them printed,
    after the last line it printed too, a line it never did (`global face-type loss weights ...`). Their
    collective completed without it, so its call did not pair with theirs (gloo sums tensors of other
    sizes without a word): the collectives disagreed, and it is the odd one."""
    if len(waiting) != 1 or len(timeline.ranks) < 3:
        return None
    (rank,) = waiting
    peers = sorted(timeline.ranks - {rank})
    own = {timeline.alike(line.text) for line in timeline.healthy_lines(rank)}
    last = {peer: lines[-1] for peer in peers if (lines := timeline.healthy_lines(peer))}
    if not own or len(last) != len(peers):
        return None
    shapes = {timeline.alike(line.text) for line in last.values()}
    if len(shapes) != 1 or shapes & own:
        return None
    if any(STATES_A_HALT.search(line.text) for line in last.values()):
        return None  # (a line that says they wait, `not in yet, retrying in 5s`: they never went past it)
    anchor = _wait_report(found, reports, waiting)
    if anchor is None or any(c.entry is not None and c.entry.id == STORE_TIMEOUT_ENTRY for c in found):
        return None  # a store's key waited for too: the ranks need not have met in a collective at all
    if isinstance(anchor, ExceptionObs) and any(
        frame.user and called_collective(frame.code or "", into_library=True) in _BARRIER_CALLS
        for frame in anchor.frames
    ):
        return None  # a barrier carries nothing: the peers may have gone on from one of their own
    cand = Candidate(anchor, INFERRED, "mismatch", "collective_mismatch", None, rank)
    cand.suspects = [rank]
    first = last[peers[0]]
    cand.reasons.append(
        f"rank {rank} alone timed out in a collective while rank(s) {rank_list(peers)} went on past it to"
        f" print {first.text[:160]} ({first.file}:{first.line}), a line rank {rank} never printed: their"
        " collective completed without it, so its call did not pair with theirs (another size or op)"
    )
    cand.rank_note = "inferred: the one rank left waiting in a collective its peers got through"
    return cand


def _wait_report(
    found: list[Candidate], reports: list[CollectiveObs], ranks: Iterable[int]
) -> Observation | None:
    """The report that states the others' wait best: a collective's timeout (a known message first), the
    first observed when they were all read from one file in the order written; else a wait to receive,
    gloo's `... for recv operation to complete`, before the send at its other end."""
    waited = set(ranks)
    timeouts: list[Observation] = [o for o in reports if o.state == "timeout"] or [
        c.obs for c in found if c.rank in waited and c.category == "collective_timeout"
    ]
    in_kb = [o for o in timeouts if o.known() is not None] or timeouts
    if len({o.file_index for o in in_kb}) == 1:
        # One file, read in the order it was written: the first observed.
        return min(in_kb, key=lambda o: o.line)
    return next((o for o in in_kb if _RECEIVE_WAIT in o.text), in_kb[0] if in_kb else None)


def _could_be_in_the_group(timeline: Timeline, silent: list[int], waiting: set[int]) -> list[int]:
    """The silent ranks that may belong to the process group the others timed out in: all of them when
    the waiting ranks' lines name the job's default group (`PG ID 0`) or none; when they name only
    smaller groups (`PG ID 2`, a sequence-parallel or expert group), those seen in one of them: a rank
    seen only in other groups may not be a member."""

    def groups(rank: int) -> set[str]:
        return {m.group(1) for line in timeline.last_lines(rank) if (m := _PG_ID.search(line.text))}

    waited_in = {group for rank in waiting for group in groups(rank)}
    if not waited_in or "0" in waited_in:
        return silent
    return [rank for rank in silent if groups(rank) & waited_in]


def _departed(
    timeline: Timeline, found: list[Candidate], reports: list[CollectiveObs], ranks: list[int]
) -> Candidate | None:
    """Every rank waited or lost its peer, and one of them had gone its own way just before: after the
    last line they all printed, it printed one they never did (`step 7: loss spike ..., skipping
    optimizer step`) while they went on into the collective. The others waited in a collective it
    skipped or called out of turn; that line is the root line, since no timeout names a rank."""
    if len(ranks) < 2:
        return None
    departures = {
        rank: line
        for rank in ranks
        if (line := timeline.departure(rank, after_shared=True)) is not None
        and not line.error_record  # a line of the failure's own report (`[E ProcessGroupNCCL.cpp:1153] ...`)
    }
    if len(departures) != 1:
        return None
    ((rank, line),) = departures.items()
    anchor = _wait_report(found, reports, ranks)
    if anchor is None:  # the ranks only lost a peer, no report of a collective's wait
        return None
    cand = Candidate(anchor, INFERRED, "straggler", "collective_timeout", anchor.known(), rank)
    cand.suspects = [rank]
    # A line it printed only after their report (`no manifest for epoch 0, logging prediction only`, once
    # they had timed out) is how it went on, not why they waited, unless it says it waited.
    late = line.file_index == anchor.file_index and line.line > anchor.line
    if not late or STATES_A_HALT.search(line.text):
        cand.stated = line
    cand.reasons.append(
        f"rank(s) {rank_list(ranks)} all waited in a collective or lost a peer; rank {rank} had gone its own"
        f" way just before: {line.text[:200]} ({line.file}:{line.line}), a line its peers never printed"
    )
    cand.reasons.append(f"the others' report: {anchor.text[:160]} ({anchor.file}:{anchor.line})")
    cand.rank_note = "inferred: the only rank whose last lines part from its peers'"
    return cand


def _tell_last_lines(cand: Candidate, timeline: Timeline, rank: int) -> None:
    """Say what the rank the others waited for did last; when it is the only suspect and went its own
    way with a line that says it stopped or failed (one its peers never printed: `waiting for
    ckpt.lock`), the report points at that line: the timeout is theirs. A line of what it was busy
    with (`compiling eval step`) says nothing went wrong: the peers' timeout stays the root line."""
    departure = timeline.departure(rank) or timeline.first_halt(rank)
    if departure is not None:
        cand.reasons.append(
            f"rank {rank} went its own way: {departure.text[:200]} ({departure.file}:{departure.line}),"
            " a line its peers never printed; they went on into the collective"
        )
        if departure.error_record and cand.rank == rank:
            # Its own error record where it parted from its peers (`[ERROR] bucket sampler yielded no
            # batches ...; nothing to train on`): it failed a check of its own and left them waiting.
            said = message_category(departure.text)
            cand.category, cand.entry = (said[0] if said else "user_code"), None
            _point_at_halt(cand, rank, departure)
            return
        # That line when it says it stopped, waits, holds back, failed or skips a step; else a later
        # healthy line that says it waits or failed (`loss spike, flagging it`, then `waiting for
        # rollback decision ...`), but not one that says it ended as planned (`finished training`):
        # then the peers' timeout stays the root line: a wait loop at its first round.
        later = (departure, *timeline.lines_from(rank, departure))
        halted: Observation | None = next(
            (
                line
                for line in later
                if (
                    STATES_A_HALT.search(line.text)
                    or NAMES_A_FAILURE.search(line.text)
                    # (a warning that it skips an item is a condition it handled and went on from)
                    or (
                        line is departure
                        and not line.warning_record
                        and (_SKIPS.search(line.text) or _HOLDS_BACK.search(line.text))
                    )
                    or (line is departure and _handled_then_ended(line, _later_in_its_file(timeline, line)))
                )
                and (line is departure or not (line.error_record or ENDS_NORMALLY.search(line.text)))
            ),
            None,
        )
        if halted is None:
            # A warning it went on giving, numbers aside, up to its last line (`no solvable maze ...
            # after 1700000 attempts, resampling`): a loop that never ended while its peers waited, at
            # its latest round (how far it went).
            halted = next(
                (
                    latest
                    for line in later
                    if line.warning_record and (latest := timeline.latest_round(rank, line)) is not line
                ),
                None,
            )
        if halted is None and later[-1].warning_record and _REPEATS_UNTIL.search(later[-1].text):
            # Its last word before it went silent while its peers waited was a warning of its own that
            # it would go on until something happened (`P has rank 0 < 2, redrawing Q until full rank`):
            # the loop it was stuck in.
            halted = later[-1]
        _point_at_halt(cand, rank, halted or timeline.shared_wait(rank))
        return
    last = timeline.progress.get(rank)
    if last is not None:
        cand.reasons.append(f"rank {rank}'s last line: {last.text[:200]} ({last.file}:{last.line})")
    # Every rank waited on something of its own (`waiting for shard-003.ready`) and the others got it
    # and went on into the collective: this one never got past its wait.
    halted = timeline.shared_wait(rank)
    with_them = last is not None and not any(
        (own.file_index, own.line) == (last.file_index, last.line) for own in timeline.own_lines(rank)
    )
    if halted is None and (halted := waiting_when_reported(timeline, rank, cand.obs)) is not None:
        cand.reasons.append(
            f"rank {rank} was in a wait loop of its own when the others reported: {halted.text[:200]}"
            f" ({halted.file}:{halted.line}); what it printed after came once they had given up"
        )
    if (
        halted is None
        and (last is None or with_them)
        and (rounds := unclaimed_halts(timeline, last, cand.obs))
    ):
        halted = rounds[0]
        printed = (
            "printed nothing under a rank label"
            if last is None
            else "printed under a rank label only what its peers printed too"
        )
        cand.reasons.append(
            f"rank {rank} {printed}, and one line no label claims after that says a process waited or"
            f" stopped: {halted.text[:200]} ({halted.file}:{halted.line}); the rank the others waited for"
            " is the one that did"
        )
    _point_at_halt(cand, rank, halted)


def waiting_when_reported(timeline: Timeline, rank: int, report: Observation) -> RecentLineObs | None:
    """The first round of the wait loop a rank was in when its peers reported their wait: its last line
    before that report, in the report's file, says it waits (`runner sheet not there yet, checking again in
    2s`), though it printed more after it (`loaded 4 runner rows`, once they had given up)."""
    before = [
        line
        for line in timeline.healthy_lines(rank)
        if line.file_index == report.file_index and line.line < report.line
    ]
    if not before or not WAITS_IN_A_LOOP.search(before[-1].text):
        return None
    return last_run(before)[0]


def unclaimed_halts(
    timeline: Timeline, after: Observation | None, report: Observation
) -> list[RecentLineObs]:
    """The rounds of the one wait no rank label claims, in the order read: lines that say a process waits
    or stopped (`[antwerpen] gateway buffer not flushed yet, polling ...`, under a tag of the script's own),
    after a line `after`, in its file, and before the waiting ranks' `report` in its, when they are one line
    or the rounds of one wait (else none): what the process said once its peers had failed (`gave up on
    camera export after 24s`) is not why they waited."""
    halts = [
        line
        for line in timeline.unlabelled
        if STATES_A_HALT.search(line.text)
        and (after is None or (line.file_index == after.file_index and line.line > after.line))
        and (line.file_index != report.file_index or line.line < report.line)
    ]
    return halts if len({timeline.alike(line.text) for line in halts}) == 1 else []


def _point_at_halt(cand: Candidate, rank: int, halted: Observation | None) -> None:
    """Point the report of the rank the others waited for at the line where it stopped, when it is the
    only suspect: at its wait loop's first round (where most labels put it; `retry 1`, not `retry 4`);
    the others' timeout stays among the reasons."""
    if cand.rank == rank and halted is not None:
        cand.reasons.append(f"the others' report: {cand.obs.text[:160]} ({cand.obs.file}:{cand.obs.line})")
        cand.stated = halted


def membership_candidates(timeline: Timeline) -> list[Candidate]:
    """Places of the process group claimed by two processes while others stay empty: the group can
    never form (two nodes that both think they are node 0, a task count that does not match, two
    ranks on one GPU)."""
    out = []
    for obs in timeline.failures:
        if isinstance(obs, MembershipObs) and obs.device is not None:
            cand = Candidate(obs, CAUSE, "membership", "duplicate_device", None, None, strength=3)
            cand.reasons.append(
                f"NCCL's set-up lines show ranks {rank_list(obs.duplicated)} of one communicator in different"
                f" processes on the same GPU (bus id {obs.device}): NCCL needs one GPU per rank"
            )
            out.append(cand)
        elif isinstance(obs, MembershipObs) and obs.joined is not None:
            cand = Candidate(obs, CAUSE, "membership", "rendezvous", None, None, strength=2)
            cand.reasons.append(
                f"the store-based barrier that starts the process group counted {obs.joined} worker(s) for a"
                f" world of {obs.world} and never completed: "
                + (
                    "some processes never started or cannot reach the store"
                    if obs.joined < obs.world
                    else "more processes joined than the world has (another job on the same address and port,"
                    " or ranks launched twice)"
                )
            )
            out.append(cand)
        elif isinstance(obs, MembershipObs):
            cand = Candidate(obs, CAUSE, "membership", "rendezvous", None, None, strength=2)
            cand.reasons.append(
                f"global rank(s) {rank_list(obs.duplicated)} were claimed by two processes and rank(s)"
                f" {rank_list(obs.missing)} of {obs.world} by none: the launcher gave several processes the"
                " same rank, so the process group cannot form (it hangs at initialisation)"
            )
            out.append(cand)
    return out


# --- stack dumps -----------------------------------------------------------------------------


def dump_candidates(timeline: Timeline) -> list[Candidate]:
    """What the ranks' stack dumps (py-spy, faulthandler) say of a hang: ranks that wait in a
    collective wait for the ranks that do not, so a dumped rank outside any collective while others
    are in one is the straggler; when every dumped rank waits, the job hangs on a rank not dumped."""
    latest: dict[int | None, StackDumpObs] = {}
    for obs in timeline.failures:
        if isinstance(obs, StackDumpObs) and obs.main:
            latest[obs.rank] = obs
    waiting = {rank: obs for rank, obs in latest.items() if obs.collective() is not None}
    ops = sorted({str(obs.collective()) for obs in waiting.values()})
    out = []
    for rank, obs in latest.items():
        if rank in waiting:
            continue
        in_data = any(_INPUT_CODE.search(frame.posix) for frame in obs.frames)
        where = (obs.user_frame() or obs.frames[-1]).where()
        if waiting and rank is not None:
            cand = Candidate(
                obs, INFERRED, "straggler", "dataloader" if in_data else "collective_timeout", None, rank
            )
            cand.strength, cand.suspects = 2, [rank]
            waiters = sorted(r for r in waiting if r is not None)
            cand.reasons.append(
                f"rank(s) {rank_list(waiters) or '?'} wait in {', '.join(ops)} while rank {rank}'s main thread is"
                f" not in a collective ({where}"
                + (", loading data" if in_data else "")
                + "): the others wait for it"
            )
            out.append(cand)
        elif obs.timeout or (in_data and len(latest) == 1):
            # A dump is taken of a process that is stuck: alone, a main thread waiting for its input
            # says the input pipeline is where it hangs.
            cand = Candidate(obs, CONSEQUENCE, "symptom", "dataloader" if in_data else "other", None, rank)
            cand.consequence = "timeout"
            cand.reasons.append(
                f"a timeout fired while the main thread was at {where}: it was stuck there"
                if obs.timeout
                else f"the dumped main thread waits for its input ({where}): the data pipeline is where it hangs"
            )
            out.append(cand)
        elif len(latest) == 1 and (lone := _lone_dump(timeline, obs)) is not None:
            out.append(lone)
    if waiting and not any(c.kind == "straggler" for c in out):
        first = min(waiting.items(), key=lambda item: -1 if item[0] is None else item[0])[1]
        cand = Candidate(
            first, CONSEQUENCE, "symptom", "collective_timeout", None, None, consequence="timeout"
        )
        dumped = sorted(r for r in waiting if r is not None)
        if timeline.world_size and dumped:
            undumped = [r for r in range(timeline.world_size) if r not in latest]
            cand.suspects = undumped if len(undumped) <= max(1, timeline.world_size // 2) else []
        cand.reasons.append(
            f"the dumped rank(s) {rank_list(dumped) or '?'} wait in {', '.join(ops)}"
            f" (called from {(first.user_frame() or first.frames[-1]).where()}): the job hangs on a rank that"
            " never reached it"
            + (f" (not dumped: rank(s) {rank_list(cand.suspects)})" if cand.suspects else "")
        )
        out.append(cand)
    return out


def _lone_dump(timeline: Timeline, main: StackDumpObs) -> Candidate | None:
    """The one dumped process, its main thread in no collective, waiting (in distributed training's code,
    where it waits on its peers, or in a wait: a lock, a queue): a dump is taken of a process that is
    stuck, so where it was is where it hangs. A thread py-spy saw running while the main thread waited
    is the work the main thread waits for. A process dumped at work (an optimizer's step) is no hang."""
    threads = [obs for obs in timeline.failures if isinstance(obs, StackDumpObs) and obs.rank == main.rank]
    stuck = main if main.active else next((obs for obs in threads if obs.active and obs.frames), main)
    distributed = any(in_distributed_library(frame.file) for obs in threads for frame in obs.frames)
    innermost = stuck.frames[-1]
    if not distributed and not (in_standard_library(innermost.file) or _WAITS.match(innermost.function)):
        return None
    category = "collective_timeout" if distributed else "other"
    cand = Candidate(stuck, CONSEQUENCE, "symptom", category, None, main.rank, consequence="timeout")
    whose = (
        "the main thread"
        if stuck is main
        else f"thread {stuck.thread or '(unnamed)'}, running while the main thread waited,"
    )
    cand.reasons.append(
        f"the process was dumped while it was stuck: {whose} was at `{stuck.text}`"
        + (", in distributed training's code: it waits on its peers" if distributed else "")
    )
    return cand


def _named_reporter(cand: Candidate) -> int | None:
    groups = cand.obs.groups()
    return bounded_rank(groups.get("source_rank") or groups.get("reporter"))


def _ended_itself(timeline: Timeline, found: list[Candidate], silent: list[int]) -> list[int]:
    """Of several ranks that printed no exception while their peers waited in a collective or lost a
    connection, the one whose last lines part from its peers' with one that says it stopped, waits or
    failed (or with an error line) is where it went, or else the one whose last line reads an amount far
    over its peers' (`rows=1400000` where they read 12500); the others were still going when the
    launcher stopped them (a `--log-dir` folder does not say how each ended)."""
    erred = {c.rank for c in found if c.kind == "error-line" and c.consequence is None and c.rank is not None}
    accounts = {rank: account for rank in silent if (account := _account(timeline, rank)) is not None}
    spoke = {rank for rank in silent if rank in erred or rank in accounts}
    if len(spoke) == 1:
        return sorted(spoke)
    # Of several that waited (`waiting for roster snapshot ... (0s)`), the one still at its wait when its
    # output stops: the others got what they waited for and went on.
    still = [rank for rank, account in accounts.items() if _still_at(timeline, rank, account)]
    if len(still) == 1 and not erred & spoke:
        return still
    if not spoke:
        # All waited alike (`waiting for the test-day file`); the one whose output stops at a round of its
        # wait loop (`... not in inbox yet, polling (attempt 16)`) never got what it waited for.
        polling = [
            rank
            for rank in silent
            if (last := timeline.last_line(rank)) and WAITS_IN_A_LOOP.search(last.text)
        ]
        if len(polling) > 1:
            # Of several, the one that went on with its loop longest (four rounds of `not in yet, retrying in
            # 5s` where another printed one and said no more): the others got what they waited for.
            rounds = {rank: _rounds(timeline, rank) for rank in polling}
            most = max(rounds.values())
            if most > 1 and list(rounds.values()).count(most) == 1:
                polling = [rank for rank in polling if rounds[rank] == most]
        if len(polling) == 1:
            return polling
    outsized = timeline.outsized_last_reading()
    return [outsized[0]] if not spoke and outsized is not None and outsized[0] in silent else silent


def _still_at(timeline: Timeline, rank: int, account: Observation) -> bool:
    """Whether a rank's output stops at the line where it went its own way, or at a later round of it
    (numbers aside: `... ready (15s)` after `... ready (0s)`)."""
    last = timeline.last_line(rank)
    return last is not None and numberless(last.text) == numberless(account.text)


def _stopped_elsewhere(timeline: Timeline, silent: list[int], lost: set[int]) -> list[int]:
    """Of several ranks that printed nothing while their peers lost a connection, the one alone whose last
    healthy line is not where those peers stopped (`planner: read shard 15/24` where they stopped at `up,
    pod memory limit 1024 MB`), or is that line with fewer rounds of it (`Seaquest: stacked 10000/200000`
    once, where they went on to print it five times): the others sat where the ranks that lost it sat,
    waiting in the same collective, until the launcher stopped them."""
    waited_at: dict[str, int] = {}
    for rank in lost:
        if (at := _stopped_at(timeline, rank)) is not None:
            shape, rounds = at
            waited_at[shape] = min(rounds, waited_at.get(shape, rounds))
    elsewhere = [
        rank
        for rank in silent
        if (at := _stopped_at(timeline, rank)) is not None
        and (at[0] not in waited_at or at[1] < waited_at[at[0]])
    ]
    return elsewhere if waited_at and len(elsewhere) == 1 else silent


def _behind(timeline: Timeline, silent: list[int], waiting: set[int]) -> list[int]:
    """Of several ranks that printed nothing while their peers timed out in a collective, the one alone
    that did not stop where those peers did (`rank 1: wrote tags.txt` where rank 0 wrote too, last): its
    output stops at a line they had printed before that one, at a line of its own they never printed
    (`rank 2: inventory pass complete after 11 steps, writing forecast`), or it printed nothing at all
    where they did. The others stopped where the waiting ranks did, in the same collective, until the
    launcher stopped them."""
    waited_at = {at[0] for rank in waiting if (at := _stopped_at(timeline, rank)) is not None}
    if not waited_at:
        return silent
    stops = {rank: _stopped_at(timeline, rank) for rank in silent}
    elsewhere = [rank for rank, at in stops.items() if at is None or at[0] not in waited_at]
    return elsewhere if len(elsewhere) == 1 and len(silent) > 1 else silent


def _rounds(timeline: Timeline, rank: int) -> int:
    """How many times in a row a rank's output ends with its last healthy line, numbers aside (the rounds
    of a wait loop)."""
    return sum(line.count for line in last_run(timeline.healthy_lines(rank)))


def _stopped_at(timeline: Timeline, rank: int) -> tuple[str, int] | None:
    """Where a rank's output stopped: the statement that printed its last healthy line (see
    Timeline.statement), and how many rounds of that line it printed in a row."""
    healthy = timeline.healthy_lines(rank)
    return (timeline.statement(healthy[-1].text), healthy[-1].count) if healthy else None


def _standing_out(timeline: Timeline, silent: list[int]) -> list[int]:
    """Of several ranks that printed nothing while their peers lost a connection, the one alone whose reading
    stands half again over every other rank's in the same line (`host=222MB` where they reached `host=68MB`):
    one of them went, and it was the one taking that."""
    standout = timeline.standout_reading(silent) if len(silent) > 1 else None
    return [standout[0]] if standout is not None else silent


def _configured_otherwise(timeline: Timeline, silent: list[int]) -> list[int]:
    """Of several ranks that printed nothing while their peers lost a connection, the one that states a
    setting in words otherwise than all its peers (`feature cache: memory` where they say `disk`): it ran
    otherwise, and one of them went."""
    odd = timeline.odd_word_setting() if len(silent) > 1 else None
    return [odd[0]] if odd is not None and odd[0] in silent else silent


def _left_behind(
    timeline: Timeline, found: list[Candidate], lost: set[int], silent: list[int]
) -> Candidate | None:
    """One rank lost its connection and torchrun's table lists it alone: every other rank had ended
    with exit 0 before it, so it was the odd one, still in a collective after its peers had finished
    their loop. It had a step more than they did (uneven inputs: a longer shard, an extra batch)."""
    tabled = {o.rank for o in timeline.exits if o.reporter == "torchrun-table"}
    if len(lost) != 1 or tabled != lost:
        return None
    rank = next(iter(lost))
    anchor = next(c.obs for c in found if c.consequence == "peer-failure" and c.rank == rank)
    cand = Candidate(anchor, INFERRED, "left-behind", "dataloader", None, rank)
    cand.suspects = [rank]
    cand.reasons.append(
        f"rank {rank} lost the connection to its peers and is the only failure torchrun lists: rank(s)"
        f" {rank_list(silent)} printed no error and had ended cleanly (exit 0) while it was still in a"
        " collective, so it had a step more than they did (uneven batches across ranks)"
    )
    _tell_last_lines(cand, timeline, rank)
    cand.rank_note = "inferred: the only rank still running collectives when its peers had finished"
    return cand


def _taking_memory(timeline: Timeline, rank: int) -> tuple[Observation, str] | None:
    """The rank's last line that says it was taking memory when its output stopped, with what it reads:
    a size that climbed, a count of items outsized beside its peers' (an outsized size alone may be a
    steady one), a large allocation none of its peers made, or else a reading that stands half again over
    every peer's in the same line, however small (it is known to have gone: this says what it was taking)."""
    if (climb := timeline.memory_climb(rank)) is not None:
        last, before, now = climb
        return last, f"{format_size(now)}, up from {format_size(before)} in the same line earlier"
    outsized = timeline.outsized_last_reading()
    if outsized is not None and outsized[0] == rank and outsized[4] != "B":
        _, last, peers, now, unit = outsized
        return last, f"{now:.0f} {unit}, where its peers read at most {peers:.0f} in the same line"
    if (large := timeline.large_last_reading(rank)) is not None:
        last, now = large
        return last, f"{format_size(now)}, far more than its peers ever read"
    standout = timeline.standout_reading([rank])
    if standout is not None and standout[1] is timeline.last_line(rank):
        _, line, now, peers, unit = standout
        read, most = _amounts(now, peers, unit)
        return line, f"{read}, where its peers read at most {most} in the same line"
    return None


def _lost_peer(timeline: Timeline, found: list[Candidate], lost: set[int], silent: list[int]) -> Candidate:
    """Ranks lost their connection to a peer, and one rank said nothing at all: that rank went away first.
    When torchrun's table of failures lists the ranks that lost it but not that rank, it ended with exit
    0: it left the job early (an early stop, a shorter shard, a loop it skipped) while its peers still
    ran collectives, so they waited for a rank that was gone."""
    anchor = next(c.obs for c in found if c.consequence == "peer-failure" and c.rank in lost)
    accounts = {rank: line for rank in silent if (line := _account(timeline, rank)) is not None}
    tabled = {o.rank for o in timeline.exits if o.reporter == "torchrun-table"}
    # The table lists every rank that ended with an error or was stopped (those that lost the peer among
    # them); a silent rank it leaves out exited 0. When one alone is left out, that one left cleanly.
    untabled = [rank for rank in silent if rank not in tabled]
    left_cleanly = bool(lost) and lost <= tabled and len(untabled) == 1
    if left_cleanly:
        silent = untabled
    category = "collective_timeout" if left_cleanly else "other"
    cand = Candidate(anchor, INFERRED, "lost-peer", category, None, silent[0] if len(silent) == 1 else None)
    cand.suspects = silent
    lone = silent[0] if len(silent) == 1 and not left_cleanly else None  # the one rank that went silent
    if not left_cleanly and timeline.agent_signals:
        told = timeline.agent_signals[0]
        cand.stated = told
        cand.reasons.append(
            f"a launcher's agent was sent signal {told.signal} and shut its workers down ({told.file}:{told.line}):"
            " the job was stopped from outside (a preemption, the scheduler, a kill); the ranks it ran ended"
            " without an error of their own"
        )
    elif lone is not None and (said := accounts.get(lone)) is not None:
        _point_at_account(cand, said, timeline)
    elif lone is not None and (taking := _taking_memory(timeline, lone)) is not None:
        last, reading = taking
        cand.category, cand.stated = "oom_host", last
        cand.reasons.append(
            f"rank {lone}'s last line reads {reading}, and then it vanished without an error: most likely"
            " the kernel's out-of-memory killer (confirm with `dmesg -T | grep -i 'killed process'` or"
            " `journalctl -k` on its node)"
        )
    elif lone is not None and (final := timeline.last_line(lone)) is not None and not _says_why(final):
        cand.category, cand.stated = "oom_host", final
        cand.reasons.append(
            f"rank {lone} vanished without a word after its line `{final.text[:200]}` ({final.file}:{final.line}):"
            " no exception, no exit message; a process that ends so is most often killed with SIGKILL, likely"
            " by the kernel's out-of-memory killer (these files keep no record of how it ended: confirm with"
            " `dmesg -T | grep -i 'killed process'` on its node, or the launcher's console)"
        )
    if left_cleanly:
        cand.reasons.append(
            f"rank(s) {rank_list(sorted(lost))} lost the connection to a peer; rank {silent[0]} printed no error"
            " and is not among the failures torchrun lists: it ended cleanly (exit 0) while the others still"
            " ran collectives, so they waited for a rank that had left"
        )
        _tell_last_lines(cand, timeline, silent[0])
    else:
        cand.reasons.append(
            f"rank(s) {rank_list(sorted(lost))} lost the connection to a peer; rank(s) {rank_list(silent)} printed"
            f" no error: {'one of them' if len(silent) > 1 else 'it'} ended first (a crash without a message, a"
            " kill, or an early exit)"
        )
    cand.rank_note = "inferred: the rank the others lost their connection to"
    return cand
