"""Recognizers: turn the selected lines of one log into typed observations.

Lines arrive in order (with gaps where the scanner skipped uninteresting text). Each line is split
into its carriage-return segments, its rank labels are peeled off (:mod:`ranks`), and the rest goes
to the stream of the rank that printed it, so interleaved output of eight ranks still yields eight
clean tracebacks. In each stream one block recognizer is active at a time; it asks for lines until
its block ends (the reader's :meth:`LogReader.more` tells the scanner how many more it wants, so a
250-frame traceback is read whole whatever the scanner's context window). The recognizers:

- Python tracebacks: chained ("direct cause" / "during handling"), exception groups (`+ Exception
  Group Traceback`, `| ` boxes), a DataLoader worker's "Original Traceback", excerpts that start at
  their `File "..."` frames, tracebacks cut off before their exception line, and rich's boxed
  tracebacks (`╭─ Traceback ─╮`, one `path:line in function` row per frame);
- Rust panics (`thread 'X' (TID) panicked at file:line:col:` and the pre-1.73 `panicked at 'msg',
  file:line:col`), their backtraces and Burn's `=== PANIC ===` banner;
- C++ `terminate called after throwing ... what():`, fatal signals (`Segmentation fault`,
  `Fatal Python error`, glog's and absl's `*** SIGABRT ...` reports) and the source-located check
  (`[file.h:596] message`) printed just before such an abort;
- torchrun's ChildFailedError table (Failures and Root Cause, multi-line tracebacks) and
  launcher exits (torchrun's agent, DeepSpeed, cargo, Open MPI, srun, `Killed`, `Signal N (SIG..) received by PID`);
- collective lines (:mod:`collectives`: watchdog, desync, fingerprints, gloo timeouts);
- NCCL `WARN` lines, generic error-level lines (`ERROR ...`, `[E ...]`), retries at their limit
  (`retrying (34/34)`), and any other line the knowledge base matches;
- as a last resort (:class:`LeadObs`), a line near the end of its input that only says something failed.

Every message is matched against the knowledge base and unwrapped (wrapper -> inner -> ...) into a
chain of links, outermost first.
"""

from __future__ import annotations

import builtins
import json
import re
from collections import deque
from collections.abc import Callable, Iterable

from ddpdoctor.explain.clock import Stamp, YearTracker, epoch_stamp, find_stamp, torchrun_stamp
from ddpdoctor.explain.collectives import MAX_NAMED, collective_facts
from ddpdoctor.explain.index import (
    ARGPARSE_ERROR,
    CANN_ERROR_CODE,
    CANONICAL_STATUS,
    CUDA_RUNTIME_TEXT,
    ERRNO_TEXT,
    INTERPRETER_REFUSAL,
    LEAD_WORDS,
    MPI_ERROR_LOG,
    TF_FAILURE,
)
from ddpdoctor.explain.match import INNER_GROUP, FastMatcher, Hit
from ddpdoctor.explain.observations import (
    FATAL_WORD_SIGNALS,
    RECENT_LINES,
    SIGNAL_NAMES,
    AgentSignalObs,
    CollectiveObs,
    ExceptionObs,
    ExitObs,
    Frame,
    InterfaceObs,
    LeadObs,
    Link,
    MembershipObs,
    Observation,
    ProgressObs,
    RecentLineObs,
    StackDumpObs,
    StallObs,
    StopObs,
)
from ddpdoctor.explain.ranks import (
    NCCL_PROCESS,
    NO_FORMATS,
    bounded_int,
    bounded_rank,
    collector_bracketed,
    collector_end,
    common_margin,
    has_kube_master,
    head_lines,
    host_labels,
    label_formats,
    looks_srun_labelled,
    program_lines,
    rank_from_path,
    split_prefix,
)
from ddpdoctor.explain.wording import (
    NAMES_A_FAILURE,
    NATIVE_CHECK,
    OFI_PLUGIN_WARN,
    OLD_NCCL_WARN,
    PROCESS_EXITED,
    PROGRESS_COUNTER,
    SCHEDULER_SAYS,
    UNDER_WAY,
    WAITS_IN_A_LOOP,
    WRAPPER_EXCEPTIONS,
    message_category,
    numberless,
)
from ddpdoctor.frames import in_standard_library
from ddpdoctor.matching import LazyRegex, clean_line, segments
from ddpdoctor.records import Record, field

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import Any

MAX_MESSAGE_LINES = 30
STANDALONE_MESSAGE_LINES = 3
LINE_MESSAGE_LINES = 4
MAX_PANIC_LINES = 60
MAX_FRAMES = 4000  # frames kept per traceback; more are counted, not stored
MAX_NAMED_MEMBERS = 1 << 16  # a group announced larger than this is not checked for missing places
MAX_OBSERVATIONS = 20000  # per input; beyond it only failures of a kind not seen yet are kept
BLOCK_LOOKAHEAD = 60  # lines an open block asks the scanner for beyond the current one
_CHAIN_TRAILER = 6  # a Python chain's follow-up text must appear within this many lines

TRACEBACK_HEAD = "Traceback (most recent call last):"
ORIGINAL_TRACEBACK = "Original Traceback (most recent call last):"
# torch.compile's exceptions are structured messages: fields under the exception line, then (after
# this head) the frames of the compiled code it was running.
COMPILED_FRAMES_HEAD = "from user code:"
_COMPILER_MESSAGE_FIELDS = ("Explanation:", "Hint:", "Developer debug context:")
CAUSE_MARKER = "The above exception was the direct cause of the following exception:"
CONTEXT_MARKER = "During handling of the above exception, another exception occurred:"

_FRAME = LazyRegex(r'\s*File "(?P<file>[^"]{0,4096})", line (?P<line>\d{1,9})(?:, in (?P<func>.{0,512}))?')
# A frame line whose start was cut off by the excerpt (`...site-packages/x.py", line 9, in f`), also
# when a wrap moved its `in f` to the next line (`...x.py", line 9,`).
_CUT_FRAME = LazyRegex(
    r'(?P<file>[^"\s][^"]{0,4095}\.py)", line (?P<line>\d{1,9})(?:, in (?P<func>\S.{0,511})|,)$'
)
# rich's boxed traceback (`rich.traceback.install()`, Typer, many CLIs).
_RICH_TOP, _RICH_SIDE, _RICH_BOTTOM = "╭", "│", "╰"
_RICH_BOX_CHARS = "╭│╰"
_RICH_FRAME = LazyRegex(r"(?P<file>\S.{0,4095}?):(?P<line>\d{1,9}) in (?P<func>\S{1,512})$")
# IPython's and Jupyter's tracebacks: `Cell In[3], line 5` and `File /path/x.py:544, in f(self, ...)`
# frames, each followed by source context where `----> 544 code` marks the executing line.
_IPYTHON_FRAME = LazyRegex(
    r"File (?P<file>\S.{0,4095}?):(?P<line>\d{1,9}), in (?P<func>[^\s(]{1,512})"
    r"|(?P<cell>Cell In ?\[\d{1,7}\]), line (?P<cell_line>\d{1,9})"
)
_IPYTHON_HEAD = LazyRegex(r"[A-Za-z_][\w.]{0,200}\s{2,}Traceback \(most recent call last\)$")
# IPython before 8 names a frame without its line (`/x/spawn.py in start_processes(fn, args)`,
# `<ipython-input-3-5f2a> in <module>()`); its `--> 182 code` context line gives the line.
_IPYTHON_LEGACY_FRAME = LazyRegex(
    r"(?P<file>\S.{0,4095}?\.py|<[^<>]{1,200}>) in (?P<func>[A-Za-z_<][\w<>.]{0,511})(?:\(.{0,2000}\))?\s*$"
)
_IPYTHON_CODE = LazyRegex(r"-{1,8}> ?(?P<line>\d{1,9}) (?P<code>.*)")
# Stack dumps, innermost frame first: faulthandler's `Thread 0x00007f... (most recent call first):`
# (`Current thread ...` for the thread that dumped) with `  File "x.py", line 12 in f` frames, and
# `py-spy dump`'s `Thread 4242 (idle): "MainThread"` with `    f (x.py:12)` frames.
_FH_THREAD = LazyRegex(
    r"(?P<current>Current thread|Thread) 0x[0-9a-fA-F]{1,16}(?: \[(?P<name>[^\]]{0,200})\])?"
    r" \(most recent call first\):$"
)
_FH_FRAME = LazyRegex(
    r'\s{1,8}File "(?P<file>[^"]{1,4096})", line (?P<line>\d{1,9}|\?\?\?) in (?P<func>\S{1,512})\s*$'
)
_PYSPY_THREAD = LazyRegex(
    r"Thread (?:0x[0-9a-fA-F]{1,16}|\d{1,10}) \((?P<state>idle|active|gil|waiting)[^)]{0,60}\)"
    r'(?:: "(?P<name>[^"]{0,200})")?\s*$'
)
_PYSPY_FRAME = LazyRegex(
    r"(?P<indent>\s{2,12})(?P<func>[^\s()][^()]{0,511}?) \((?P<file>[^()]{1,4096}):(?P<line>\d{1,9})\)\s*$"
)
# faulthandler.dump_traceback_later's note before its dump.
_DUMP_TIMEOUT = LazyRegex(r"Timeout \(\d{1,4}:\d\d:\d\d(?:\.\d{1,6})?\)!$")
_MAX_DUMP_FRAMES = 200
# UCX's head of a crash's backtrace, naming the thread (`==== backtrace (tid:  17316) ====`) its
# report named (`[host:16170:0:17316] Caught signal 11 (Segmentation fault: ...)`).
_UCX_BACKTRACE = LazyRegex(r"==== backtrace \(tid:\s{0,8}(\d{1,10})\) ====")
_MAX_NATIVE_FRAMES = 16  # of a crash's native backtrace, the innermost (where it crashed) are kept
# A frame of a native backtrace: UCX's and gdb's (` 1 0x00000000000736aa pncclCommDeregister()  ???:0`,
# `#3 0x00007f in ncclCommAbort () from /lib/libnccl.so.2`), glibc's `backtrace_symbols`
# (`/usr/lib/libnccl.so.2(ncclCommAbort+0x1a)[0x7f...]`).
_NATIVE_FRAME = LazyRegex(
    r"(?:^|\s)#?\d{1,3}\s{1,4}0x[0-9a-fA-F]{4,16}\s{1,4}(?:in\s)?(?P<function>[A-Za-z_][\w:~]{0,200})\s?\("
    r"|(?P<library>[\w./+-]{0,300}\.so(?:\.\d{1,4}){0,4})\((?P<symbol>\w{0,200})\+0x[0-9a-fA-F]{1,16}\)\s?\[0x"
)
_FATAL_DUMP_LINES = 400  # a crash's dump of its threads follows its `Fatal Python error` within this
_RICH_CODE = LazyRegex(r"(?P<current>❱)?\s*\d{1,9}(?: (?P<code>.*))?$")
_EXC_LINE = LazyRegex(r"(?P<type>[A-Za-z_][\w.]{0,200}(?:\[\w{1,40}\])?)(?::[ \t]?(?P<msg>.*))?$")
# An exception type's name: it says it is one (`...Error`), or its module is a package's module of
# exceptions (`torch._dynamo.exc.Unsupported`, `requests.exceptions.Timeout`).
_ERROR_NAME = LazyRegex(
    r"(?:[A-Za-z_]\w{0,100}\.){0,12}\w{0,100}(?:Error|Exception|Exit|Interrupt|Failure|Fault)(?:\[\w{1,40}\])?$"
    r"|(?:[A-Za-z_]\w{0,100}\.){1,12}(?:exc|exceptions?|errors)\.[A-Z]\w{0,100}$"
)
_GROUP_BOX = LazyRegex(r"^[ \t]*(?:[+|] ?|\+-[+-]*[^\n]*$)")
_GROUP_SEPARATOR = LazyRegex(r"^[ \t]*\+?-[+-]{2,}(?: \d{1,4} -+| \.\.\.[^\n]*)?\s*$")
_PANIC_NEW = LazyRegex(
    r"(?:thread '(?P<thread>[^']{0,200})'(?: \((?P<tid>\d{1,20})\))? |^\s*)panicked at (?P<loc>\S.{0,1000}?):(?P<line>\d{1,9}):(?P<col>\d{1,9}):$"
)
# Rust aborts when a panic hook panics again: the first panic's message is lost.
_DOUBLE_PANIC = "thread panicked while processing panic"
_PANIC_OLD = LazyRegex(
    r"thread '(?P<thread>[^']{0,200})'(?: \((?P<tid>\d{1,20})\))? panicked at '(?P<msg>.*)$"
)
# A new-form head whose location the line was cut in (a terminal's edge, an excerpt): the place
# ends on the next line (`\\handle.rs:88:32:`), the message follows.
_PANIC_CUT = LazyRegex(
    r"thread '(?P<thread>[^']{0,200})'(?: \((?P<tid>\d{1,20})\))? panicked at (?P<loc>[^\s'][^']{0,1000})$"
)
_PANIC_LOC_END = LazyRegex(r"\S{0,1000}:\d{1,9}:\d{1,9}:$")
_PANIC_OLD_END = LazyRegex(r"(?P<msg>.*)', (?P<loc>\S{1,1000}?):(?P<line>\d{1,9}):(?P<col>\d{1,9})$")
# Horovod's stall report lists, under `Stalled ranks:` / `Missing ranks:`, each rank that has not
# submitted the tensors the others wait for (`6: [allreduce.0, ...]`, `!` when past the shutdown limit).
_STALL_LIST_HEAD = ("Stalled ranks:", "Missing ranks:")
_STALL_LIST_ENTRY = LazyRegex(r"(\d{1,7})!?: \[")
# The kind of collective a stalled tensor belongs to, from its name (`HorovodBroadcast_w_0`, `allreduce.fc1`).
_STALL_OP = LazyRegex(r"(?i)(allreduce|allgather|broadcast|alltoall|reduce_?scatter)")
_BANNER_PATH = LazyRegex(
    r"A fatal error happened, you can check the experiment logs here => '(?P<path>[^']{0,4096})'"
)
_SEPARATOR = LazyRegex(r"[=\-]{10,}$")
# The title of torchrun's failure table (`train.py FAILED`, `my.module FAILED`), between its rules.
_TABLE_TITLE = LazyRegex(r"\S{0,500}\.\S{1,200} FAILED$")
_LOOSE_FIELD = LazyRegex(
    r"^(?:rank\s*:\s*\d{1,7} \(local_rank: \d{1,7}\)|exitcode\s*:\s*-?\d{1,9} \(pid: \d{1,10}\))$"
)
# How far apart a launcher's banner may state one exit twice (MPICH's `BAD TERMINATION` box).
_BANNER_LINES = 10
_FATAL_WORDS = (
    "Memory access fault by GPU",
    "HW Exception by GPU",
    "Fatal Python error",
    "Segmentation fault",
    "Bus error",
    "Floating point exception",
    "Illegal instruction",
    "Aborted",
)
# Lines that start a new log record: NCCL's `host:pid:tid [dev] `, c10's `[E ProcessGroupNCCL.cpp:...]`.
_NCCL_RECORD = LazyRegex(r"\S{1,200}:\d{1,10}:\d{1,10} \[\d{1,4}\] |\[[IWEF](?:\d{3,4} \d\d:\d\d|\s)")
# A record of Python's `logging` in its default format (`WARNING:torch.distributed.elastic...:Sending ...`):
# a new record, never the continuation of an exception's message.
_LOGGING_RECORD = LazyRegex(r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[A-Za-z_][\w.]{0,150}:")
_FIELD_NAMES = ("time", "host", "rank", "exitcode", "error_file", "traceback")
_TABLE_ITEM = LazyRegex(r"\[(\d{1,7})\]:$")
_TABLE_FIELD = LazyRegex(rf"({'|'.join(_FIELD_NAMES)})\s*:\s?(.*)$")
_TABLE_RANK = LazyRegex(r"(-?\d{1,9})(?: \(local_rank: (\d{1,9})\))?")
_TABLE_EXIT = LazyRegex(r"(-?\d{1,9})(?: \(pid: (\d{1,10})\))?")
_AGENT_FAILED = LazyRegex(r"failed \( ?exitcode: ?(-?\d{1,9}) ?\) local_rank: (\d{1,7}) \(pid: (\d{1,10})\)")
# ... broken at its end by a paste's wrap: the local rank and pid start the next line.
_AGENT_FAILED_CUT = LazyRegex(r"failed \( ?exitcode: ?(-?\d{1,9}) ?\)(?: local_rank:)?$")
# ... laid out in columns by a rich log handler (accelerate's): the pid wraps into the column below
# and the source location follows on the line (`local_rank: 0 (pid:      api.py:672`).
_AGENT_FAILED_COLUMNS = LazyRegex(r"failed \( ?exitcode: ?(-?\d{1,9}) ?\) local_rank: (\d{1,7})\b")
_AGENT_FAILED_REST = LazyRegex(r"(?:local_rank: )?(\d{1,7}) \(pid: (\d{1,10})\)")
_DEEPSPEED_EXIT = LazyRegex(r"exits with return code = (-?\d{1,9})")
_LOCAL_RANK_ARG = LazyRegex(r"--local[_-]rank=(\d{1,7})")
_CARGO_EXIT = LazyRegex(
    r"process didn't exit successfully: .{0,4000}\((?:exit status|signal|exit code): (0x[0-9a-fA-F]{1,8}|\d{1,10})"
)
_SIGNAL_PID = LazyRegex(r"Signal (\d{1,3}) \((SIG\w{1,10})\) received by PID (\d{1,10})")
# Failure signal handlers: glog's (and Paddle's, Caffe's) `*** SIGSEGV (@0x0) received by PID 24044 (TID ...`,
# absl's `*** SIGABRT received at time=1734086759 on cpu 3 ***`.
_GLOG_SIGNAL = LazyRegex(
    r"\*\*\* (SIG[A-Z]{2,8}) (?:\(@.{0,120}? received by PID (\d{1,10})|received at time=\d)"
)
# The signal line of a handler's report under its `*** Process received signal ***` (Open MPI's,
# libSegFault's `Signal: Aborted (6)`); Open MPI's starts with the process's host and pid
# (`[node3:19474] Signal: Segmentation fault (11)`), which its launcher's report names with the rank.
_HANDLER_SIGNAL = LazyRegex(
    r"(?:^|\[[\w.-]{1,128}:(\d{1,10})\] |\] )Signal: [A-Z][A-Za-z ]{1,40} \((\d{1,2})\)\s*$"
)
# A C++ message with its source location, as a failed check prints it just before `abort()`:
# gloo's `[/src/gloo/transport/uv/libuv.h:596] uv_accept: invalid argument`, glog's `... file.cc:12] ...`.
# Not the signal handler's own report (`PC: @ ...`, `*** Aborted at ...`) nor a glog info/warning record.
_SOURCE_LOCATED = LazyRegex(
    r"^(?![IW]\d{4} |(?:\S{0,40}\s){0,2}[IW] \S{1,300}:\d{1,6}\] ).{0,400}?\.(?:h|hh|hpp|c|cc|cpp|cu|cuh|cxx):\d{1,6}\] (?!PC: |\*\*\* |@ )\S"
    # ... or glibc's failed assertion (`prog: file.h:186: void f(int): Assertion `x > 0' failed.`)
    r"|^.{0,400}?\.(?:h|hh|hpp|c|cc|cpp|cu|cuh|cxx):\d{1,6}: .{0,400}\bAssertion `.{0,400}' failed\.?$"
)
# horovodrun (gloo): `Process 0 exit with status code 137.`; Open MPI's report of the first process to
# exit non-zero: `Process name: [[50371,1],0]` then `Exit code:    1` (job, then rank).
_HOROVOD_EXIT = LazyRegex(r"\bProcess (\d{1,7}) exit with status code (-?\d{1,9})")
# ... and horovodrun's (gloo) `Process name: elastic-worker-1[0]` (host and local rank).
_MPI_PROCESS = LazyRegex(r"Process name: (?:\[\[\d{1,10},\d{1,10}\],(\d{1,7})\]|[\w.-]{1,200}\[\d{1,7}\]$)")
_MPI_EXIT_CODE = LazyRegex(r"(?:Exit code:|with errorcode|Errorcode:)\s{1,20}(-?\d{1,9})\.?$")
# Ray's head of a remote task's traceback: the exception's type, then the task (`ray::Worker.step()`).
# An actor whose repr gives its rank (`repr=DTensorPolicyWorkerV2[rank=0]`) names the traceback's rank.
_RAY_HEAD = LazyRegex(
    r"RayTaskError\((?P<type>\w{1,80})\): (?:\S{0,20})?(?P<task>ray::[\w.]{1,120}\(\))"
    r"(?:.{0,300}?\brepr=[\w.]{1,120}\[rank=(?P<rank>\d{1,7})\])?"
)
# Open MPI's report of a process that called MPI_Abort (mpi4py's and Horovod's way out of an uncaught
# error): `MPI_ABORT was invoked on rank 2 in communicator MPI_COMM_WORLD`, then `with errorcode 1.`
# (Open MPI 5: `Errorcode: 1` a few lines on).
_MPI_ABORT = LazyRegex(r"MPI_ABORT was invoked on rank (\d{1,7}) in communicator")
# A launcher naming the global rank that ended (MosaicML Composer: `Rank 2 crashed with exit code -7.`).
_RANK_CRASHED = LazyRegex(
    r"\b[Rr]ank (\d{1,7}) (?:crashed|failed|exited) with (?:exit|return) code (-?\d{1,9})"
)
# PaddlePaddle's launcher: `Container rank 0 status failed cmd ['python', '-u', 'train.py'] code -9 log ...`.
_PADDLE_EXIT = LazyRegex(r"\bContainer rank (\d{1,7}) status failed cmd .{0,4000}? code (-?\d{1,9})\b")
# Slurm: `srun: error: node7: task 3: Exited with exit code 1` (`tasks 2-7:` for several; task = rank).
_SRUN_EXIT = LazyRegex(
    r"srun: error: \S{1,200}: tasks? (\d{1,7}|[\d,-]{1,200}): (?:Exited with exit code (\d{1,9})|(Killed|Out Of Memory))"
)
_MPI_SIGNAL = LazyRegex(
    r"process rank (\d{1,7}) with PID (\d{1,10})?\S{0,20} on node (?:\S{1,200} )?exited on signal (\d{1,3})"
)
# Hugging Face text-generation-inference's launcher: `Shard process was signaled to shutdown with signal 7
# rank=1` (the rank is a field of its log record).
_TGI_SHARD_SIGNAL = LazyRegex(
    r"Shard (?:process )?was signaled to shutdown with signal (\d{1,3})(?: rank=(\d{1,7}))?"
)
# Any tool's words for a process that ended with a code (`Process finished with exit code 137`,
# `worker exited with code 1`, `Job failed: exit code 1`), and make's `*** [Makefile:12: train] Error 1`.
_MAKE_ERROR = LazyRegex(r"\*\*\* \[[^\]]{1,200}\] Error (\d{1,4})$")
_RANK_NAMED = LazyRegex(r"\b[Rr]ank[ _]?(\d{1,7})\b")
# The shell's `Killed` (`bash: line 1: 4321 Killed  python train.py`), also written over a progress line
# that a carriage return left on screen (`Killedg in train batch: 127687 / 263115`), and MPICH's words for
# it (`YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)`).
_KILLED = LazyRegex(r"Killed$|Killed[a-z]|.{0,200}\b\d{1,10}\s+Killed\s|.{0,200}: Killed \(signal 9\)$")
_TERMINATE = LazyRegex(r"terminate called after throwing an instance of '(?P<type>[^']{0,500})'")
_WHAT = LazyRegex(r"what\(\):\s+(?P<msg>.*)")
# A process's fatal end as Python or the shell reports it (`./run.sh: line 3: 812 Aborted (core dumped)
# python train.py`); not glog's own `*** Aborted at 1700000000 (unix time)`.
_FATAL = LazyRegex(
    r"(?:Fatal Python error: (?P<what>.*)"
    r"|(?P<segv>Segmentation fault|Bus error|Floating point exception|Illegal instruction"
    # ROCm's report of a kernel's bad address or of a hung or faulted GPU, before it aborts
    r"|Memory access fault by GPU|HW Exception by GPU)\b.*"
    r"|(?:^\s{0,20}|\d\s{1,20})(?P<abort>Aborted)\b(?! at ).*)"
)
_WARNING_TEXT = LazyRegex(r"\b\w{0,100}Warning\b:|\bwarnings\.warn\b")
# torch's warning that a CUDA call in a destructor failed with an error that leaves the device unusable
# (`Warning: CUDA warning: device-side assert triggered (function destroyEvent)`): the failure itself,
# however it was logged.
_CUDA_FATAL_WARNING = LazyRegex(
    r"\bCUDA warning: (?:device-side assert triggered|an illegal (?:memory access|instruction)|misaligned address"
    r"|unspecified launch failure|uncorrectable ECC error)"
)
# also NCCL's error line pasted alone, and the WARN of NCCL before 2.5
_NCCL_WARN = LazyRegex(r"\bNCCL WARN\b|\bNCCL error in\b|" + OLD_NCCL_WARN + "|" + OFI_PLUGIN_WARN)
# The message of an error file's JSON as torchelastic's error handler logs it (`"message": "...",`).
_JSON_MESSAGE = LazyRegex(r'"message": "((?:[^"\\]|\\.){1,2000})"')
# A record that says the library carries on another way (NCCL's `..., falling back to simple order`).
# ... or turns a feature off and goes on without it (PSM3's `Reading from remote process' memory failed.
# Disabling CMA support`).
_FALLING_BACK = LazyRegex(r"\bfalling back\b|\b[Dd]isabling \w{1,40} support\b")
# Error-level records: `ERROR:`, `[FATAL]`, glog's `E1231 23:59:58` (`E20241231 23:59:58` since glog 0.7),
# ONNX Runtime's `[E:onnxruntime:...]`, dmlc-core's fatal handler (MXNet, XGBoost, ps-lite: `[07:48:18]
# dmlc/logging.h:276: [07:48:18] src/van.cc:121: ...`),
# a tool's `prog: error: ...`, a shell's own error (`/bin/bash: SSH_CONNECTION: readonly variable`),
# ssh's (`ssh: Could not resolve hostname node0: ...`).
_ERROR_LEVEL = LazyRegex(
    r"^(?:\[[^\]]{1,40}\]\s|\S{0,40}\s){0,3}(?:\[?(?:ERROR|FATAL|CRITICAL)\]?[:\s]|\[?[EF](?:\d{3,4}|\d{8}) \d\d:\d\d|\[[EF]:\w|\[[EF] [\w./-]{1,300}:\d{1,6}\] "
    r"|\S{0,40}\]\[(?:ERROR|FATAL|CRITICAL)\]"  # a bracketed level glued to the field before it (`...:31][CRITICAL][RANK 0]`)
    r"|[EF] [\w./-]{1,300}:\d{1,6}\] )|^(?:\S{1,40}\s{1,4})?[\w./-]{1,200}: error: {1,4}\S"
    # a C library's record: its fields, the source location, the component, the level (UCX's
    # `[1579244748.838971] [host:56309:2]    cuda_ipc_md.c:62   UCX  ERROR cuCtxGetDevice ...`)
    r"|^(?:\S{1,40}\s+){0,3}[\w.-]{1,80}\.(?:c|cc|cpp|cu|h|hpp):\d{1,6}\s+(?:[A-Z]\w{0,15}\s+)?(?:ERROR|FATAL)\s"
    # Ray's C++ records (`[2023-11-02 13:17:59,227 E 19045 21937] logging.cc:97: ...`)
    r"|^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[,.]\d{1,6} [EF] \d{1,10} \d{1,10}\] "
    r"|^\[\d\d:\d\d:\d\d\] [\w./-]{0,300}dmlc/logging\.h:\d{1,6}: "
    # a dated record whose level is a word in title case (Marian's `[2023-11-11 10:24:27] Error: ...`)
    r"|^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[\d.,:+Z]{0,16}\]? (?:Error|Fatal|Critical): \S"
    # ... or bracketed among the record's first fields (LightGBM's `[LightGBM] [Fatal] ...`, Omniverse
    # Kit's `2026-05-09T11:08:58Z [48,152ms] [Error] [usdrt.scenegraph.plugin] ...`)
    r"|^(?:\S{1,60}\s){0,3}\[(?:Error|Fatal|Critical)\] "
    # a native library's `file (line) : internal error : ...` (NVIDIA PhysX, compilers' style)
    r"|^\S{1,300} \(\d{1,6}\) : (?:internal |fatal )?error : \S"
    # a library that names itself before its error (`MIOpen Error: ...`, `### HCC STATUS_CHECK Error: ...`),
    # not a metric's value (`Top-1 Error: 23.4`, `Validation Error: nan`)
    r"|^(?:#{1,5} )?(?:[A-Z][\w.-]{1,40} ){1,3}Error: (?!(?:nan|inf)\b)[A-Za-z/\[_]"
    r"|^(?:[\w.-]{1,128}: )?ssh: \S"  # ssh's own errors (a launcher reaching the other nodes), behind pdsh's host
    r"|^(?:/usr)?(?:/bin/)?(?:ba|z|da|k)?sh: (?:line \d{1,9}: )?\S"
    # a status printed on its own by JAX, XLA and TensorFlow (`INTERNAL: ... ncclCommInitRank failed`)
    r"|^" + CANONICAL_STATUS + r": \S"
    r"|^" + CANN_ERROR_CODE + r"\S"  # Ascend's error codes (`EI0002: The wait execution of ...`)
    r"|^" + ARGPARSE_ERROR  # argparse's, whose program name may hold spaces
)
# A line that starts with an error type's name and goes on without a colon (a C++ extension's
# `RuntimeError indice_cuda.cu 124 cuda execution failed with error 2`).
# ... or runs into its message (two writes spliced: `RuntimeErrorstill have inflight params`).
_ERROR_NAMED = LazyRegex(
    r"(?:[A-Za-z_]\w{0,60}\.){0,6}[A-Z]\w{0,60}(?:Error|Exception)(?: [\w/.]|[a-z]{2,} )"
    # also a Windows path (`D:\Anaconda3\python.exe: ...`), and behind pdsh's host label (`host-1: /usr/bin/python: ...`)
    r"|(?:[\w.-]{1,128}: )?[\w./\\:~-]{0,200}" + INTERPRETER_REFUSAL
)
# Warning-level records, in the places `_ERROR_LEVEL` reads a level: `[WARNING]`, `WARNING:root:`, glog's
# `W1231 23:59:58`, torch's C++ `[W socket.cpp:464]`, absl's `W file.cc:12] ` (NCCL's `WARN` is its error level).
# A program's own warning record (a logger's `WARNING`, not a C++ `[W ...]` of the library it calls).
_PROGRAM_WARNING = LazyRegex(r"^(?:\[[^\]]{1,40}\]\s|\S{0,40}\s){0,3}\[?WARN(?:ING)?\]?[:\s]")
_WARNING_LEVEL = LazyRegex(
    r"^(?:\[[^\]]{1,40}\]\s|\S{0,40}\s){0,3}\[?WARN(?:ING)?\]?[:\s]|^\[?W(?:\d{3,4}|\d{8}) \d\d:\d\d|^\[W [\w./-]{1,300}:\d{1,6}\]"
    r"|^(?:\S{0,40}\s){0,3}W [\w./-]{1,300}:\d{1,6}\] "
)
# Slurm's step daemon (`slurmstepd: error: ...`, `slurmstepd-node01: error: ...`): it speaks for the job.
_SCHEDULER_DAEMONS = ("slurmstepd: ", "slurmstepd-")
# A retry counter at its limit (`retrying (34/34)`): an INFO line that reports the last attempt failed.
_RETRY_COUNT = LazyRegex(r"\bretrying \((\d{1,5})/(\d{1,5})\)")


# The verdict's last resort (see LeadObs): a line that says something failed, not at a log level
# that says it is not an error (NCCL's `INFO Failed to open libibverbs.so` is normal start-up).
_LEAD = LazyRegex(LEAD_WORDS)
# A C++ exception's trace: its header, and the frames under it (a lead only where the excerpt lost the header).
_TRACE_HEADER = "Exception raised from "
_TRACE_FRAME = "frame #"
_TRACE_LINES = 40  # a trace's frames and its header are this close
_NOT_A_LEAD = LazyRegex(
    # a level, not a setting's value (`run with NCCL_DEBUG=INFO for details` ends many NCCL errors)
    r"(?<![=_])\b(?:INFO|DEBUG|TRACE|WARN(?:ING)?|[Ww]arning)\b|^[IWD]\d{4} \d\d:|^\[[IWD][\s\]]"
    r"|^(?:\S{0,40}\s){0,2}[IW] [\w./-]{1,300}:\d{1,6}\] "  # TensorFlow's and absl's info and warning records
)
# torchrun's agent stopping a worker (`Sending process 812914 closing signal SIGTERM`; older: `Closing process
# 812914 via signal SIGTERM`), or torch.multiprocessing.spawn stopping one (`Terminating process 18428 via
# signal SIGTERM`).
_LAUNCHER_STOP = LazyRegex(
    r"(?:Sending process (\d{1,10}) closing signal|Closing process (\d{1,10}) via signal"
    r"|Terminating process (?P<spawned>\d{1,10}) via signal) SIG"
)
# torchrun's agent itself signalled (`Received 15 death signal, shutting down workers`).
_AGENT_SIGNAL = LazyRegex(r"Received (\d{1,2}|SIG[A-Z]{2,8}) death signal")
_MAX_STOPS = 256  # stop lines kept per input: a job's workers on one host, with room for restarts
# NCCL's choice of network interface (`NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>`) when it is
# one that other hosts cannot reach.
_NCCL_LOCAL_INTERFACE = LazyRegex(
    r"NCCL INFO (?:Bootstrap|NET/Socket) ?: Using \[\d{1,3}\](?P<iface>lo|docker\d{1,3}|virbr\d{1,3})"
    r" ?: ?(?P<addr>[\d.]{7,15}|[\da-fA-F:]{2,39})"
)
_MAX_LEADS = 16
_CODE_SPAN = LazyRegex(r"`([^`]{1,400})`")
_MIN_QUOTED = 12  # the least of a quoted message that identifies the line it quotes
_MAX_WARNED = 256
_BOX_LINES = 30  # a box's headline speaks for the lines under it up to this far
_REPEATS_TO_FAIL = 3
_WARNED_TAIL_LINES = 5  # ... and the last of them among the input's last lines
# A message saying which rank it failed on (`... size 20971520 on rank 0`).
_ON_RANK = re.compile(r"\bon (?:global )?rank (\d{1,7})\b", re.IGNORECASE)
_LONE_EXCEPTION_INDENT = 8
_BARE_LABELS = ("Error:", "Exception:")  # a heading over the lines that follow, not an error of its own
# An exception line behind a label no reader knows (`job-7f3a/worker [w2]:RuntimeError: ...`, `<w3> KeyError:
# ...`): at most three short fields, then the exception's qualified name (see _behind_a_label).
_LABELLED_EXCEPTION = LazyRegex(
    r"(?P<label>(?:\S{1,40}[ \t]{0,2}){1,3}?)(?<![\w.])(?P<exc>(?:[A-Za-z_]\w{0,60}\.){0,6}[A-Z]\w{0,60}"
    r"(?:Error|Exception|Interrupt)(?:\[\w{1,40}\])?: .*)$"
)
_LABEL_END = ":|>]~)-"  # punctuation that ends a label (a sentence's words end in letters)
_IGNORED_EXCEPTION = "Exception ignored in"
_CHECK_TRACE_HEAD = "*** Check failure stack trace: ***"
_CHECK_TRACE_FRAME = LazyRegex(
    r"@ +(?:0x[0-9a-f]{1,16}|\(nil\)) +(?:\d{1,6} +)?(?P<function>[A-Za-z_][\w:~]{0,200})?"
)
_CHECK_TRACE_GAP = 2  # lines of the trace's head the excerpt may lack
_WRAP_MIN_CHARS = 60  # a line shorter than this was not wrapped by a terminal
_WRAP_JOINED_CHARS = 4000
_ZERO_DIGITS = str.maketrans("123456789", "000000000")
_ROOT_ERRORS_FOUND = LazyRegex(r"\b\d{1,6} root error\(s\) found\.?$")
_STATUS_NAMED = LazyRegex(r"\b" + CANONICAL_STATUS + r":")


def _first_root_error(exc: _Exception) -> tuple[int, str] | None:
    """The first error of TensorFlow's list (`(0) Internal: ...`) under an exception whose message is
    only their count (`5 root error(s) found.`, on its line or the next), unless the message states a
    status of its own (`RESOURCE_EXHAUSTED: From /job:...:`)."""
    said = [exc.text, *(text for _, text, _ in exc.lines[:1])]
    if not any(_ROOT_ERRORS_FOUND.search(text) for text in said) or _STATUS_NAMED.search(exc.text):
        return None
    return next(((number, text) for number, text, _ in exc.lines[:4] if text.startswith("(0) ")), None)


def _bare_type_line(exc: _Exception) -> bool:
    """An exception line that is its type and a colon, its message left for the lines under it."""
    return exc.type is not None and exc.text.rstrip() == exc.type + ":"


def _awaits_message(exc: _Exception | None) -> bool:
    """Whether an exception line still waits for its message past a blank line (see _bare_type_line);
    not a wrapper's (`ProcessRaisedException:`), whose lines carry another exception."""
    return (
        exc is not None
        and not exc.lines
        and _bare_type_line(exc)
        and (exc.type or "").rsplit(".", 1)[-1] not in WRAPPER_EXCEPTIONS
    )


def _explaining_link(links: list[Link]) -> int | None:
    """In a chain of unknown exceptions (outermost first), the outer one whose words name a cause
    when the innermost's do not: a library that caught a low-level error and said what it means
    (`KeyError: 'RANK'`, then `RuntimeError: Could not find 'RANK' in the torch environment`)."""
    if len(links) < 2 or any(link.entry is not None for link in links):
        return None
    if message_category(links[-1].text) is not None:
        return None
    for index in range(len(links) - 2, -1, -1):
        if message_category(links[index].text) is not None:
            return index
    return None


def _remember(stream: _Stream, number: int, text: str) -> None:
    """Keep the line among the stream's last ones; a line that differs from the one before only in its
    numbers (a retry's attempt, a wait's seconds) is that one again: the run is kept as its first,
    with how many lines it stands for."""
    shape = numberless(text)
    if stream.recent and stream.recent[-1][2] == shape:
        stream.recent[-1] = (*stream.recent[-1][:6], stream.recent[-1][6] + 1)
        return
    stream.recent.append((number, text, shape, stream.error_level, stream.warning_level, stream.labelled, 1))
    if len(stream.recent) > RECENT_LINES:
        del stream.recent[0]


def _margin_shape(margin: str) -> str:
    """A traceback header's margin as a shape: its digits as zeros (a time stamp's digits change)."""
    return margin.translate(_ZERO_DIGITS)


def _without_margin(shape: str, rest: str) -> str:
    """A block's line without the margin its header had (a logger's record head, an indentation)."""
    width = len(shape)
    return rest[width:] if rest[:width].translate(_ZERO_DIGITS) == shape else rest


_LEAD_BURST_LINES = 30
_LEAD_TAIL_LINES = 40


def _is_error_record(rest: str) -> bool:
    """Whether a line is an error by its level (`NCCL WARN`, `ERROR:`, glog's `E1231 ...`) or says
    that the last of its retries failed."""
    if _NCCL_WARN.search(rest) or _ERROR_LEVEL.match(rest.strip()) or _ERROR_NAMED.match(rest.strip()):
        return True
    if _TF_FAILURE.search(rest):
        return True  # TensorFlow's report that an op failed, whatever level it was logged at
    if "logging.h:" in rest and _DMLC_FATAL.search(rest):
        return True  # dmlc's fatal record, whatever the paste lost of its level
    if "CUDA_ERROR_" in rest and _CUDA_DRIVER_ERROR.search(rest):
        return True  # a CUDA driver call's error code, whatever level the caller logged it at
    if "Error" in rest and _RUNTIME_STATUS.search(rest):
        return True  # so is a runtime's status by name
    if _CUDA_RUNTIME_TEXT.search(rest) and not _NOT_A_LEAD.search(rest):
        return True  # and its status in words, as an extension prints it (`error in im2col: invalid device function`)
    if "[Errno " in rest and _ERRNO.search(rest):
        return True  # an operating system's error as Python prints it (`[Errno 2] No such file or directory`)
    if NATIVE_CHECK.search(rest.strip()):
        return True  # a native library's assert, whatever level (none) it was printed at
    if "|CCL_ERROR|" in rest or "|CCL_FATAL|" in rest:
        return True  # oneCCL's error level (`2024:10:01-12:00:00:(1234) |CCL_ERROR| worker.cpp:338 ...`)
    if "_ERROR_LOG: " in rest and _MPI_ERROR_LOG.search(rest):
        return True  # Open MPI's error records
    retry = _RETRY_COUNT.search(rest) if "retrying (" in rest else None
    return retry is not None and retry.group(1) == retry.group(2)


# A log record's header before its message: a time, a level and the source location, as common
# loggers print them (TensorFlow's `2020-05-03 02:06:12.462209: W tensorflow/x.cc:216] `, glog's
# `E0103 10:00:00.123456  1234 socket.cpp:42] `, DeepSpeed's `[2023-06-25 10:47:37,222] [INFO] [launch.py:428:f] `).
_RECORD_HEADER = LazyRegex(
    r"\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\]?:?\s{1,4}"
    r"(?:[IWEF] [\w./-]{1,300}:\d{1,6}\]\s{1,4}"
    r"|\[?(?:INFO|WARN(?:ING)?|ERROR|FATAL|CRITICAL)\]?:?\s{1,4}(?:\[[\w./-]{1,300}:\d{1,6}(?::\w{1,100})?\]\s{1,4})?)"
    r"|\[?[IWEF](?:\d{4}){1,2} \d\d:\d\d:\d\d(?:\.\d{1,9})?\s{1,4}(?:\d{1,10}\s{1,4})?[\w./-]{1,300}:\d{1,6}\]\s{1,4}"
    r"|[IWEF] [\w./-]{1,300}\.(?:cc|cpp|h|py):\d{1,6}\]\s{1,4}"  # the same without its time
    # vLLM's `ERROR 09-23 10:49:22 multiproc_worker_utils.py:226] ` (and `[executor.py:522] ` in later releases)
    r"|(?:ERROR|WARNING|INFO|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})? \[?[\w./-]{1,300}:\d{1,6}\] ?"
)
# The source place in a record's header (`run.py:874]`, `[launch.py:428:f]`): a library's record names it.
_HEADER_PLACE = LazyRegex(r":\d{1,6}(?::\w{1,100})?\]")


def _library_record(text: str) -> bool:
    """Whether a line is a library's log record: a header with the source place it was logged from. A
    record of a time and a level alone (`%(asctime)s %(levelname)s [name] ...`) may as well be the
    script's own."""
    header = _RECORD_HEADER.match(text)
    return header is not None and _HEADER_PLACE.search(header.group()) is not None


# Lines that go on with a record whose header is repeated on each of them (vLLM logs a traceback a
# line at a time): a frame, its code, the carets under it, or the traceback's own header.
_RECORD_GOES_ON = LazyRegex(r"[ \t]|Traceback \(most recent call last\)")
_MIN_RECORD_MESSAGE = 15
# Python's own exception names as a user retyping a message in lower case writes them.
_LOWER_CASE_BUILTINS = frozenset(
    name.lower()
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException) and name.endswith("Error")
)


_SAID_BEFORE = 3  # the most lines from a process's statement of a failure to its traceback's head
_LATEST_OBSERVATIONS = 3  # the observations looked back over for one read from a given line
# A wait whose time ran out, stated with the time it waited (`... timed out after 1800000ms`).
_TIMED_OUT_AFTER = LazyRegex(r"(?i)\btimed? ?out after \d")
# A statement that names an error (`kernel execution error. (..., error: 13)`), not only that something failed.
_NAMES_AN_ERROR = LazyRegex(r"\b(?:[Ee]rror|ERROR)\b")

_INTERRUPT_ECHO = "^C"  # a terminal's echo of Ctrl-C, before the interrupted program's last words


# A head that says only that an exception happened, not which (SGLang's `Scheduler hit an exception:`):
# the cut-off traceback under it states no failure.
_SAYS_ONLY_THAT_IT_FAILED = LazyRegex(
    r"(?i)\b(?:hit|got|encountered|raised|caught|had|threw|throws) an? (?:unexpected |unhandled |fatal )?"
    r"(?:exception|error)$"
)


def _stated_before_head(head: tuple[int, str] | None) -> str | None:
    """The error a traceback's head line states before `Traceback (most recent call last):` (a
    logger's `Exception in worker ...: <message>, Traceback ...`), when it names one; Ray's head names
    the remote exception's type (`RayTaskError(OutOfMemoryError): ray::Worker.step() (pid=...)`)."""
    if head is not None and (ray := _RAY_HEAD.search(head[1])) is not None:
        return f"{ray.group('type')}: raised in {ray.group('task')}, its message cut off"
    if head is None or TRACEBACK_HEAD not in head[1]:  # (IPython's head names the type, not a message)
        return None
    before = _record_message(head[1].split(TRACEBACK_HEAD, 1)[0]).strip().rstrip(",:; ").strip()
    if (
        len(before) < _MIN_RECORD_MESSAGE
        or not NAMES_A_FAILURE.search(before)
        or _SAYS_ONLY_THAT_IT_FAILED.search(before)
    ):
        return None
    return before


def _record_message(text: str) -> str:
    """A log record's message without its header (time, level, source location); the record as it
    is when no such header leads it or too little is left after it."""
    header = _RECORD_HEADER.match(text)
    if header is None or len(text) - header.end() < _MIN_RECORD_MESSAGE:
        return text
    return text[header.end() :]


# TensorFlow's reports that an op or a collective failed, also logged at warning level or pasted alone
# (`OP_REQUIRES failed at ...`, `BaseCollectiveExecutor::StartAbort Internal: ...`, XLA's
# `unsupported op: No registered 'NcclAllReduce' OpKernel for XLA_GPU_JIT devices ...`).
_TF_FAILURE = LazyRegex(TF_FAILURE)
_SPAWN_SOURCE = "torch.multiprocessing.spawn (process index)"
# DCP's CheckpointException: the ranks that failed, then each one's traceback under its number.
_CHECKPOINT_RANKS = LazyRegex(r"CheckpointException ranks:dict_keys\(\[([\d, ]{1,200})\]\)")
_RANKED_HEAD = LazyRegex(r"Traceback \(most recent call last\): \(RANK (\d{1,7})\)$")
# Python's header over an exception a thread died of, the thread's name carrying the rank it belongs
# to (`Exception in thread heartbeat-rank3:`).
_RANKED_THREAD = LazyRegex(
    r"^Exception in thread \S{0,100}?(?<![A-Za-z])[Rr]ank[-_ ]?(\d{1,7})(?!\d)\S{0,100}:$"
)
# torchrun's agent logging in glog's format from its own modules.
_AGENT_RECORD = LazyRegex(
    r"[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{1,9} {1,8}\d{1,10} torch/distributed/(?:run\.py|launcher/|elastic/(?:agent|multiprocessing)/)"
)
# dmlc's fatal record (MXNet, XGBoost): `LOG(FATAL)` is written from its `logging.h` with the place that
# raised it after (`[08:41:20] dmlc-core/include/dmlc/./logging.h:300: [08:41:20] src/kvstore/kvstore.cc:37: ...`).
_DMLC_FATAL = LazyRegex(r"\blogging\.h:\d{1,6}: \[\d\d:\d\d:\d\d\] \S{1,300}:\d{1,6}: ")
_MPI_ERROR_LOG = LazyRegex(MPI_ERROR_LOG)
_ERRNO = LazyRegex(ERRNO_TEXT)
_CUDA_DRIVER_ERROR = LazyRegex(r"\bCUDA_ERROR_[A-Z_]{3,60}\b")
# A CUDA or HIP runtime status by name (`cudaError error: 1 (invalid argument)`, `hipErrorNoDevice:`),
# not its type (`cudaError_t`) nor the status a poll expects (`cudaErrorNotReady`).
_RUNTIME_STATUS = LazyRegex(r"\b(?:cuda|hip)Error(?!_t\b|NotReady)\w{0,40}[ :(]")
# ... and its words for them, after the colon of whoever printed them.
_CUDA_RUNTIME_TEXT = LazyRegex(r":\s{0,4}" + CUDA_RUNTIME_TEXT)
# A `raise` statement with literal arguments (a traceback's code line pasted on its own).
_RAISE_STATEMENT = LazyRegex(
    r"raise (?P<type>(?:[A-Za-z_]\w{0,60}\.){0,6}[A-Z]\w{0,60})\((?P<args>.{1,2000})\)\s*$"
)
_STRING_LITERAL = LazyRegex(r'"((?:[^"\\\n]|\\.){0,1000})"|\'((?:[^\'\\\n]|\\.){0,1000})\'')
# Python's dump of an object (`object repr     : IndexError('Caught IndexError in ...\nOriginal ...')`).
_OBJECT_REPR = LazyRegex(
    r"object repr\s{0,10}: (?P<type>(?:[A-Za-z_]\w{0,60}\.){0,6}[A-Z]\w{0,60}(?:Error|Exception))"
    r"\(['\"](?P<message>.{1,4000})"
)
_BARE_EXCEPTION = re.compile(r"\s*(?:[A-Za-z_]\w{0,100}\.){0,8}[A-Z]\w{0,100}\s*$")
_FLATTENED_FRAME = re.compile(r'(?<=\S)\s+(?=File "[^"]{1,4096}", line \d)')
# One frame of it: a function's name has no spaces (the paste may have lost the one before it: `, inmain`).
_FLATTENED_HEAD = re.compile(
    r'File "(?P<file>[^"]{1,4096})", line (?P<line>\d{1,9})(?:, in ?(?P<func><\w{1,40}>|[\w.]{1,200}))?'
)
# ... or put beside it in a second column of a wide paste (`dtype=x.dtype      AttributeError: ...`), or
# one space after it where the paste lost its line breaks (`cmd=args) subprocess.CalledProcessError: ...`).
_GLUED_EXCEPTION = LazyRegex(
    r"(?P<code>.*?[)\]\w])(?: {2,}| (?=[\w.]{1,200}: ))?"
    r"(?P<exc>(?:[A-Za-z_]\w{0,100}\.){0,8}[A-Z]\w{0,100}(?:Error|Exception|Interrupt|Exit)(?::.*)?)$"
)
# What follows is an exception line (`ValueError: ...`, `[rank3]: torch.OutOfMemoryError: ...`).
_EXCEPTION_AHEAD = (
    r"(?=(?:\[rank\d{1,7}\]:\s?)?(?:[A-Za-z_]\w{0,100}\.){0,8}[A-Z]\w{0,100}(?:Error|Exception): )"
)
# An exception line pasted inside quotes (`"ValueError: You set ...`, `"[rank3]: ValueError: ...`), also
# as a field's value (SageMaker's `ErrorMessage "RuntimeError: ...`, or `ErrorMessage ":RuntimeError: ...`
# where it joins the script's stderr lines with colons).
_QUOTED_EXCEPTION = LazyRegex(r"(?:[A-Z]\w{0,40} )?[\"']:?" + _EXCEPTION_AHEAD)
# ... or in a sentence (`It returns:RuntimeError: einsum(): ...`): prose, not the program's output, so
# only the last resort's (a lead).
_QUOTED_IN_PROSE = LazyRegex(r"\b" + _EXCEPTION_AHEAD)
# ... or inside a Markdown code span in the middle of a sentence (`I get: `TypeError: forward() ...``).
_SPANNED_EXCEPTION = LazyRegex(r"[^`]{1,400}`" + _EXCEPTION_AHEAD)
_FOREIGN_LABEL = LazyRegex(r"[^\x00-\x7f]{1,12}[：:]\s{0,3}(?=[A-Za-z_][\w.]{0,200}(?:Error|Exception)\b)")
_XLA_DEVICE_ERROR = LazyRegex(r"Exception in device=\w{1,10}:\d{1,5}: ")
_QUOTE = LazyRegex(r"(?:> ?){1,8}(?!>)")
# Markdown bold: `**` that touches the text (`** server ...` and `*** Error` are not bold).
_OPENING_TICKS = re.compile(r"`{1,3}(?=[^`\s])")
_BOLD = re.compile(r"^(?P<indent>[ \t]*)\*\*(?![*\s])|(?<![*\s])\*\*\s*$")
_PYTEST_ERROR = LazyRegex(r"E(?: {3,}|$)")  # pytest's failure report: `E       RuntimeError: ...`
_PYTEST_SOURCE = LazyRegex(r">   +(?=\S)")  # ... under the source line that failed: `>       x = f(y)`
_PYTEST_MARGIN = 8
# `tail`/`head` given several files print each one's name before its lines: `==> logs/rank_3.log <==`.
_FILE_SECTION = LazyRegex(r"==> (.{1,4096}) <==[ \t]*$")
# Composer's launcher prints each failed rank's output between markers after its exit report:
# `----------Begin global rank 5 STDERR----------` ... `----------End global rank 5 STDERR----------`.
_RANK_SECTION = LazyRegex(r"-{5,}(Begin|End) global rank (\d{1,7}) STD(?:OUT|ERR)-{5,}[ \t]*$")
_SPAWN_ERROR = LazyRegex(r"-- Process (\d{1,7}) terminated with the following error:")
_SPAWN_EXCEPTIONS = ("Exception", "ProcessExitedException")
_SPAWN_EXIT = LazyRegex(
    r"process (\d{1,7}) terminated with (?:signal (SIG[A-Z]{2,8})|exit code (-?\d{1,10}))"
)
_SIGNAL_NUMBERS = {name: number for number, name in SIGNAL_NAMES.items()}
_GLOBAL_RANK_WORD = {"srun": "task", "mpirun": "MPI rank", "horovodrun": "process index"}
# Lightning's `initializing ddp: GLOBAL_RANK: 1, MEMBER: 2/8` (`Initializing distributed:` since 1.6).
_MEMBER = LazyRegex(r"[Ii]nitializing (?:ddp|distributed): GLOBAL_RANK: (\d{1,7}), MEMBER: \d{1,7}/(\d{1,7})")
# Where an input's output stops with no error after it (see LogReader._stall): the last lines are read
# back from the end while they are set-up lines of a distributed job. A collective a rank announced it
# runs (TORCH_DISTRIBUTED_DEBUG=DETAIL's `Running collective: CollectiveFingerPrint(`, NCCL's
# `Launch mode Parallel` as it launches one, ProcessGroupNCCL's warning as a barrier starts before any
# collective: `Rank 0 using best-guess GPU 0 to perform barrier`, DDP's `Reducer buckets have been rebuilt
# in this iteration` in its first backward, TensorFlow's `batch_all_reduce: 369 all-reduces with
# algorithm = nccl`), a step of NCCL building its communicator, a process joining the group, NCCL
# tearing a communicator down; and lines that only set up (NCCL's other INFO records, in its older
# `host:pid:tid [0] INFO` form too, Lightning's seed), or the shell's `Terminated` once the hung job was
# stopped.
_STALL_TAIL_LINES = 64
_STALL_COLLECTIVE = LazyRegex(
    r"Running collective: CollectiveFingerPrint\(|NCCL INFO Launch mode \w|using best-guess GPU \d{1,4} to perform barrier"
    r"|Reducer buckets have been rebuilt in this iteration|batch_all_reduce: \d{1,9} all-reduces with algorithm"
)
_STALL_COMMUNICATOR = LazyRegex(
    r"INFO (?:.{0,200} - Init COMPLETE|Connected all (?:rings|trees)|Channel \d{1,3}(?:/\d{1,3})? ?: .{0,120}"
    r" via |Ring \d{1,3} ?: .{0,120} via |Trees \[|comm 0x[0-9a-f]{1,16} rank \d{1,7} nranks \d{1,7})"
)
# A process joining the group as it starts (besides Lightning's `MEMBER: 2/4`): DeepSpeed's announcement
# before it calls init_process_group, torch's store-based barrier taking a rank's key, a script's or a
# trainer's own word as it does (NVIDIA's Tacotron 2 `Initializing distributed`, Coqui's `Using PyTorch
# DDP`).
_STALL_JOINING = LazyRegex(
    r"Initializing TorchBackend in DeepSpeed with backend \w|Added key: store_based_barrier_key:\d{1,6} to store"
    r"|^Initializing distributed$|\bUsing PyTorch DDP$"
)
_STALL_TEARDOWN = LazyRegex(r"INFO comm 0x[0-9a-f]{1,16} .{0,200} - Destroy COMPLETE")
_NCCL_INFO = LazyRegex(r"NCCL INFO |:\d{1,10}:\d{1,10} \[\d{1,3}\] INFO ")
_STALL_SETUP = LazyRegex(r"NCCL version \d|^\[rank: \d{1,7}\] (?:Global )?[Ss]eed set to \d|^Terminated$")
# A job announcing that it starts a phase (`Starting training from iteration 0`, `Start running`,
# `Computing validation loss`, HF's `***** Running training *****`, Megatron's `[before the start of
# training step]`, Lightning's `Sanity Checking` or the model summary it prints before it, `27.9 K  Total
# params`), or a progress bar that never moved (`  0%|          | 0/1000 [00:29<?, ?it/s]`): output that
# stops there (or at a step announced under way), with only quiet lines after it, stopped before that
# phase or step finished.
_PHASE_START = LazyRegex(
    r"(?i)\b(?:start(?:ing|s|ed)?|begin(?:ning|s)?|comput(?:e|ing))(?: (?:of|the|to|model|running))*\W{1,3}"
    r"(?:training|train\b|running|epoch|evaluation|eval\b|validation|validating|inference|fit(?:ting)?\b)"
    r"|\b(?:training|evaluation|validation|inference) (?:is )?(?:start(?:ed|s|ing)|begins?)\b"
    r"|\bRunning (?:training|evaluation|validation|prediction|inference)\b|\bSanity Checking\b"
    r"|(?:^|[\s:])0%\|[^|]{0,200}\|\s{0,4}0/\d{1,12}\b"
    r"|^[\d.,]{1,12} ?[KMGT]?\s{1,12}Total (?:estimated model )?params\b"
)
# Lines read past after such an announcement: a library's INFO record that counts nothing, a GPU
# monitor's row pasted under the log (gpustat's `[0] TITAN Xp | 55'C, 100 % | 865 / 12196 MB`,
# nvidia-smi's `MiB / MiB`), a paste's `...` or code fence.
_QUIET_INFO = LazyRegex(r"\bINFO\b")
# ... unless it counts: a progress counter (PROGRESS_COUNTER), or a loss, a batch, a fraction or a rate.
_COUNTING = LazyRegex(r"(?i)\b(?:loss|batch)\b\W{0,3}\d|\d/\d|\bit/s\b|\bs/it\b")
# A count the output stopped part-way through: a progress bar (`33%|███▎  | 1128/3384 [05:28<10:53]`) or a
# counter with its total (`iter: 40/360000`, mmcv's `Epoch [1][50/7330]`, `Epoch 3/10`).
_PART_WAY_COUNT = LazyRegex(
    r"(?i)(?:\d{1,3}%\|[^|]{0,200}\|\s{0,4}|\b(?:epoch|step|iter(?:ation)?|batch)\b(?:\(\w{1,10}\))?\W{0,4}"
    r"(?:\[?\s{0,4}\d{1,9}\s{0,4}\]\s{0,4})?\[?\s{0,4})(\d{1,12}) ?/ ?(\d{1,12})\b"
)
_GPU_MONITOR_ROW = LazyRegex(r"\d{1,3}\s?'?°?C, .{0,40}%|\d{1,7} ?MiB / \d{1,7} ?MiB|\d{1,7} / \d{1,7} MB\b")
_PASTE_FILLER = LazyRegex(r"^(?:`{3}\w{0,20}|\[?(?:\.{3}|…)\]?)$")
_STORE_BARRIER = LazyRegex(
    r"Waiting in store based barrier to initialize process group for rank: \d{1,7}, key: (\S{1,200}) "
    r"\(world_size=(\d{1,7}), worker_count=(\d{1,7})"
)
_STORE_BARRIER_DONE = LazyRegex(r"Completed store-based barrier for key: ?(\S{1,200}) ")
_WORLD = LazyRegex(r"(?:WORLD_SIZE|world_size|[Ww]orld size|n[Rr]anks)\W{1,4}(\d{1,7})\b")
# NCCL's record label `host:pid:tid [device] NCCL ...`, and its communicator set-up line that says which
# rank that process is (`ncclCommInitRank comm 0x.. rank 1 nranks 2 cudaDev 1 ...`).
_NCCL_COMM_RANK = LazyRegex(
    r"\brank (\d{1,7}) n[Rr]anks (\d{1,7})\b(?: cudaDev \d{1,4}(?: nvmlDev \d{1,4})? busId ([0-9a-fA-F]{1,16})\b)?"
)
_MAX_NCCL_PROCESSES = 4096
_MAX_LOCAL_LABELS = 4096


class _Exception(Record):
    """One exception of a (possibly chained) traceback, while it is read."""

    type: str | None
    text: str
    line: int
    frames: list[Frame]
    cands: frozenset[int]
    stamp: Stamp | None = None
    lines: list[tuple[int, str, frozenset[int]]] = field(default_factory=list)
    max_lines: int = MAX_MESSAGE_LINES
    observation: Observation | None = None  # a matched log line whose next lines may continue it
    worker_frames: list[Frame] = field(default_factory=list)
    worker_text: str | None = None
    worker_line: int = 0
    in_worker_traceback: bool = False
    compiled_frames: list[Frame] = field(default_factory=list)  # torch.compile's `from user code:`
    from_statement: bool = False  # read from a `raise` statement: its own exception line may follow
    # Raised while the one before it was being handled (`During handling of the above exception, ...`).
    during_handling: bool = False
    label: str = ""  # the rank label its line carried, numbers aside: its message's lines carry it too


class _Failure(Record):
    """One `[i]:` item of torchrun's failure table."""

    line: int
    root: bool
    stamp: Stamp | None = None
    rank: int | None = None
    local: int | None = None
    exit: int | None = None
    pid: int | None = None
    error_file: str = ""
    trace: list[tuple[int, str]] = field(default_factory=list)
    exit_line: tuple[int, str] | None = None  # the `exitcode : -9 (pid: 123)` line as printed


class _Table(Record):
    line: int
    failures: list[_Failure] = field(default_factory=list)
    current: _Failure | None = None
    root: bool = False
    field: str | None = None


class _Panic(Record):
    thread: str
    loc: str | None
    line: int
    head: tuple[str, frozenset[int]] = ("", frozenset())
    lines: list[tuple[int, str, frozenset[int]]] = field(default_factory=list)
    open: bool = False  # the old form: the message runs until `', file:line:col`
    old: bool = False
    aborted: bool = False  # the panic hook panicked too: Rust aborted without the message
    loc_cut: str | None = None  # the start of a location cut at the head line's end


class _Dump:
    """A thread's stack dump being read: its header and its frames, innermost first."""

    def __init__(self, line: int, header: str, tool: str, thread: str, current: bool) -> None:
        self.line = line
        self.header = header
        self.tool = tool
        self.thread = thread
        self.current = current
        self.frames: list[tuple[Frame, int, str]] = []
        self.indent = 0
        self.active = False  # py-spy saw it running (`active`, holding the GIL), not waiting


class _Stream:
    """Recognizer state of one rank's output within one input."""

    def __init__(self, rank: int | None, local: bool) -> None:
        self.rank = rank
        self.local = local
        self.stamp: Stamp | None = None
        self.stamp_line = 0  # the line the stamp was read on
        self.years = YearTracker()
        self.mode = "idle"  # idle, traceback, rich, message, panic, backtrace, table, cpp, banner, stall
        self.quoted_line: int | None = None  # a line that quotes an error inside a sentence
        self.frames: list[Frame] = []
        self.rich_path = ""  # a rich traceback's frame header, folded over several box lines
        self.frames_dropped = 0
        self.frame_indent = 0  # the indentation of the last `File "..."` line
        self.code_indent = -1  # ... and of the last frame's code line read indented
        self.ipython = False  # the traceback being read is IPython's (context lines around each frame)
        self.exc: _Exception | None = None
        self.chain: list[_Exception] = []
        self.chain_marker: str | None = None  # "cause", "context", or "group" (an exception group's member)
        self.group_members = 0  # members of an exception group read so far (they lead the chain)
        self.since_exc = 0
        self.panic: _Panic | None = None
        self.cpp: tuple[str, int] | None = None
        self.banner: str | None = None
        self.table: _Table | None = None
        self.last_line: tuple[int, str] | None = None
        # the last lines (number, text, numberless text, whether its logger's fields said an error, a
        # warning, whether the line carried a rank label of its own, how many lines its run stands for)
        self.recent: list[tuple[int, str, str, bool, bool, bool, int]] = []
        self.last_seen = 0  # number of the last line this stream received
        self.error_level = False  # that line's logger fields, peeled with its rank, said it is an error
        self.warning_level = False  # ... or a warning
        self.labelled = False  # that line carried the program's label of its global rank
        self.label = ""  # that line's rank label as written, numbers aside (`[rank#]: `; a carried one's)
        self.latest: tuple[int, str] | None = None  # that line (number, text) ...
        self.before: tuple[int, str] | None = None  # ... and the one it received before it
        # Open MPI's `Process name: [[job,1],rank]` (rank, line, text) seen; its exit code comes next.
        self.mpi_process: tuple[int | None, int, str] | None = None
        self.agent_cut: ExitObs | None = None  # torchrun's agent report cut before its local rank
        # The rank of the next traceback (spawn's `-- Process N terminated with the following error:`,
        # DCP's `(RANK N)`) and what gave it.
        self.spawn_rank: int | None = None
        self.spawn_source = _SPAWN_SOURCE
        self.failed_ranks: tuple[str, ...] = ()  # the ranks a CheckpointException just listed as failed
        self.dump: _Dump | None = None  # a thread's stack dump being read
        self.dump_timeout: int | None = None  # the line of faulthandler's `Timeout (0:05:00)!`
        self.fatal: ExceptionObs | None = None  # the last `Fatal Python error` (its dump follows it)
        self.signal_report: tuple[int, int | None] | None = None  # glog's `*** SIGSEGV ...`: (line, signal)
        self.signal_exit: ExitObs | None = None  # ... and the exit it reports (its `@ 0x...` frames follow)
        self.signal_head: int | None = None  # the line of a handler's `*** Process received signal ***`
        self.head: tuple[int, str] | None = None  # the open traceback's `Traceback (...)` line
        self.said_before_head: tuple[int, str] | None = None  # the stream's line just before that head
        # What stood before the open traceback's header (`2024-05-01 10:00:02,123 - ERROR - `), its
        # digits as zeros: the same margin on the block's next lines is not the block's text.
        self.margin = ""
        self.box: tuple[int, str] | None = None  # a box of dashes is open: its first line (0 until read)
        self.stalled: CollectiveObs | None = None  # the ranks of Horovod's stall list read so far
        self.ignored_at: int | None = None  # the line of Python's `Exception ignored in: ...`
        self.ignored = False  # the open traceback is that ignored exception's: not a failure
        self.handled = False  # the open traceback came right after a warning-level record: printed, handled
        self.agent_stamped = False  # `stamp` is a launcher's record's time ...
        self.worker_stamp: Stamp | None = None  # ... and this the time the stream had before it
        # glog's `*** Check failure stack trace: ***` and its `@ 0x...` frames: (first line, last line)
        self.check_trace: tuple[int, int] | None = None


class LogReader:
    """Receives the selected lines of one input (see :class:`~ddpdoctor.explain.scan.LineSink`)."""

    def __init__(
        self,
        matcher: FastMatcher,
        label: str,
        file_index: int,
        *,
        default_rank: int | None = None,
        rank_source: str | None = None,
        head: Callable[[], bytes] | None = None,
    ) -> None:
        self.matcher = matcher
        self.label = label
        self.file_index = file_index
        self.default_rank = default_rank
        self.default_rank_source = rank_source
        # The input's own rank; a `==> name <==` section's replaces it for the section's lines.
        self._file_rank = (default_rank, rank_source)
        self._head = head
        self._srun: bool | None = None
        self._hosts: frozenset[str] = frozenset()
        self._formats = NO_FORMATS  # the file's own rank labels (see ranks.label_formats)
        self._kube_master = False
        self._pytest_margin = _PYTEST_MARGIN  # where the text of pytest's `E` lines starts
        self._margin = b""  # the indentation of the whole paste (ranks.common_margin)
        self._bracketed = False  # a collector's bracketed time on every line (ranks.collector_bracketed)
        # The last rank-labelled line: (number, rank, local, whether it ended with a colon, whether it
        # was an error-level record).
        self._labelled: tuple[int, int, bool, bool, bool] | None = None
        self.streams: dict[tuple[int | None, bool], _Stream] = {}
        self.observations: list[Observation] = []
        self._seen: dict[tuple[Any, ...], Observation] = {}
        # torchrun agents' reports of a failed attempt so far: a failure repeated after one (by restarted
        # workers) is not folded into its earlier sighting, which belongs to another attempt.
        self._attempt_reports = 0
        self._kinds_kept: set[tuple[Any, ...]] = set()
        self.dropped = 0
        self._seq = 0
        self.world_sizes: set[int] = set()
        self._spawn_stopped: set[int] = set()  # the processes torch.multiprocessing.spawn stopped
        self._members: dict[int, list[tuple[int, str]]] = {}  # global rank -> its announcements (two kept)
        self._member_world = 0
        self._barriers: dict[str, tuple[int, str, int, int]] = {}  # key -> (line, text, world, workers)
        self._barriers_done: set[str] = set()
        self._nccl_ranks: dict[tuple[str, str], int] = {}  # (host, pid) -> rank, from NCCL's set-up lines
        # node-local label -> the global ranks lines labelled with both give it (`[default1]:[rank1]:`)
        self._local_labels: dict[int, set[int]] = {}
        # (host, nranks, bus id) -> pid -> (rank, line, text): the processes of a communicator on each GPU
        self._nccl_gpus: dict[tuple[str, str, str], dict[str, tuple[int, int, str]]] = {}
        self._leads: deque[LeadObs] = deque(maxlen=_MAX_LEADS)
        self._interface: InterfaceObs | None = None  # NCCL's choice of an interface other hosts cannot reach
        self._stops = 0  # StopObs kept (at most _MAX_STOPS)
        self._warned: dict[str, list[Any]] = {}  # a failure warning's words: [count, first, last line]
        self._tail: deque[tuple[int, str, _Stream]] = deque(maxlen=_STALL_TAIL_LINES)  # the last lines read

    # --- sink interface ---------------------------------------------------------------------

    def line(self, number: int, data: bytes, candidates: frozenset[int]) -> None:
        """One selected line."""
        if self._srun is None:
            head = self._head() if self._head is not None else b""
            self._margin = common_margin(head)
            if self._margin:
                head = b"\n".join(line.removeprefix(self._margin) for line in head.split(b"\n"))
            text_lines = head_lines(head)
            self._bracketed = collector_bracketed(text_lines)
            lines = program_lines(text_lines, self._bracketed)
            self._srun = looks_srun_labelled(lines)
            self._hosts = host_labels(lines)
            self._formats = label_formats(lines)
            self._kube_master = has_kube_master(head)
        if self._margin and data.startswith(self._margin):
            data = data[len(self._margin) :]  # a paste indented as a whole
        if data[:4] == b"==> " and (section := _FILE_SECTION.match(data.decode("utf-8", "replace"))):
            self._file_section(section.group(1))
            return
        if data[:5] == b"-----" and (section := _RANK_SECTION.match(data.decode("utf-8", "replace"))):
            self._rank_section(section.group(1) == "Begin", section.group(2))
            return
        pieces = list(segments(data.decode("utf-8", "replace")))
        if not pieces:
            self._blank(None)
            return
        for piece in pieces:
            self._segment(number, piece, candidates)

    def _file_section(self, name: str) -> None:
        """The lines that follow are another file's (`==> name <==`): its blocks are not the previous
        file's, and its lines are the rank its name gives, if it gives one, like a file given alone."""
        self.gap()
        self._labelled = None
        rank, how = rank_from_path(name)
        if rank is not None:
            self.default_rank, self.default_rank_source = rank, f"{how} in a `==> {name} <==` header"
        else:
            self.default_rank, self.default_rank_source = self._file_rank

    def _rank_section(self, begins: bool, rank: str) -> None:
        """The lines up to the section's end are that global rank's output, quoted by its launcher."""
        self.gap()
        self._labelled = None
        number = bounded_rank(rank)
        if begins and number is not None:
            self.default_rank = number
            self.default_rank_source = f"a `Begin global rank {number}` section (Composer's launcher)"
        else:
            self.default_rank, self.default_rank_source = self._file_rank

    def gap(self) -> None:
        """Lines were skipped: every open block ends here."""
        for stream in self.streams.values():
            self._close(stream)
            stream.stamp = None

    def more(self) -> int:
        """How many lines after the last one the open blocks still want to see."""
        return BLOCK_LOOKAHEAD if any(s.mode != "idle" or s.chain for s in self.streams.values()) else 0

    def finish(self, lines: int | None = None) -> list[Observation]:
        """Close open blocks and return the observations of this input (`lines`: the number of its
        last line with text; blank lines after it do not count)."""
        self.gap()
        self._stall(lines)
        self._membership(lines)
        self._nccl_process_ranks()
        for stream in self.streams.values():
            if stream.last_line is not None and stream.rank is not None:
                number, text = stream.last_line
                self.observations.append(self._observe(ProgressObs, number, text, stream))
            for n, text, _, error, warning, labelled, count in stream.recent:
                if stream.rank is None and (_library_record(text) or SCHEDULER_SAYS.match(text)):
                    continue  # a library's record (torchrun's agent) or the scheduler's, not the script's
                recent = self._observe(RecentLineObs, n, text, stream)
                # The level its logger fields (peeled with the rank) gave it, else what its words say;
                # a warning that quotes an error (`WARNING: push failed: [Errno 111] ...`) stays a warning.
                a_warning = warning or _PROGRAM_WARNING.match(text) is not None
                recent.error_record = error or (not a_warning and _is_error_record(text))
                recent.warning_record = not recent.error_record and a_warning
                recent.labelled, recent.count = labelled, count
                self.observations.append(recent)
        self._global_ranks_of_local_labels()
        if self._interface is not None:
            self.observations.append(self._interface)
        end = self._leads[-1].line if self._leads else 0
        if end and (lines is None or end > lines - _LEAD_TAIL_LINES):
            # The last burst of such lines, where the input ends (a healthy job's start-up may say
            # "not found" and go on): its first line is the earliest sign.
            burst = [o for o in self._leads if o.line >= end - _LEAD_BURST_LINES]
            lead = burst[0]
            # A sentence that quotes the failure in a code span (`fails with an `Collective ops is
            # aborted by: ...` error`) gives way to the line it quotes.
            spans = [span.rstrip(" .…") for span in _CODE_SPAN.findall(lead.text)]
            quoted = [
                o for o in burst[1:] if any(len(span) >= _MIN_QUOTED and span in o.text for span in spans)
            ]
            lead = quoted[0] if quoted else lead
            lead.chain = self._links(_record_message(lead.text), None)
            self.observations.append(lead)
        elif warned := [
            (first, count)
            for count, first, seen_last in self._warned.values()
            if (count >= _REPEATS_TO_FAIL and (lines is None or seen_last > lines - _WARNED_TAIL_LINES))
            or (
                seen_last == lines
                # (a counted retry below its limit, `retrying (4/34)`, says it goes on)
                and (
                    (count > 1 and _RETRY_COUNT.search(first.text) is None)
                    or _WARNING_LEVEL.match(first.text)
                )
            )
        ]:
            # A warning that something failed, repeated until the input ends or as the input's last words
            # (not an info record): the retries never succeeded (a rendezvous that never connects prints
            # nothing else).
            lead, count = min(warned, key=lambda item: item[0].line)
            lead.chain = self._links(_record_message(lead.text), None)
            lead.notes.append(
                f"repeated {count} times until the end of the log: the retries never succeeded"
                if count > 1
                else "the log's last line: nothing came after it"
            )
            self.observations.append(lead)
        return self.observations

    # --- NCCL's process labels -------------------------------------------------------------

    def _nccl_process(self, m: re.Match[str], rest: str, number: int) -> None:
        if len(self._nccl_ranks) < _MAX_NCCL_PROCESSES and (comm := _NCCL_COMM_RANK.search(rest, m.end())):
            rank = bounded_rank(comm.group(1))
            if rank is not None:
                process = (m.group("host"), m.group("pid"))
                self._nccl_ranks[process] = rank
                if comm.group(3) is not None and len(self._nccl_gpus) < _MAX_NCCL_PROCESSES:
                    # A communicator's ranks on one host, by the GPU (bus id) each process drives.
                    gpu = (m.group("host"), comm.group(2), comm.group(3).lower())
                    self._nccl_gpus.setdefault(gpu, {}).setdefault(
                        m.group("pid"), (rank, number, rest.strip())
                    )

    def _nccl_process_ranks(self) -> None:
        """Unlabelled NCCL records get the rank of their process from NCCL's own set-up line for it.

        The `[device]` field alone is not used: it is a local index (and one process may drive several
        devices), so it names no global rank."""
        if not self._nccl_ranks:
            return
        for obs in self.observations:
            if obs.rank is not None or isinstance(obs, ProgressObs) or "NCCL" not in obs.text:
                continue
            m = NCCL_PROCESS.search(obs.text)
            rank = self._nccl_ranks.get((m.group("host"), m.group("pid"))) if m is not None else None
            if rank is not None and m is not None:
                obs.rank, obs.local_rank = rank, False
                obs.rank_source = f"NCCL's set-up line of process {m.group('pid')}"

    def _global_ranks_of_local_labels(self) -> None:
        """Lines labelled only with a node-local index (`[default1]:`) get the global rank that the
        same input's doubly labelled lines (`[default1]:[rank1]:`) give that index, when they give one."""
        for obs in self.observations:
            if obs.rank is None or not obs.local_rank:
                continue
            ranks = self._local_labels.get(obs.rank, set())
            if len(ranks) == 1:
                (rank,) = ranks
                obs.rank_source = f"line prefix (local label {obs.rank} is rank {rank} in this log)"
                obs.rank, obs.local_rank = rank, False

    # --- process-group membership ---------------------------------------------------------

    def _member(self, number: int, text: str, m: re.Match[str]) -> None:
        rank, world = bounded_rank(m.group(1)), bounded_rank(m.group(2))
        if rank is None or not world or rank >= world:
            return
        self._member_world = max(self._member_world, world)
        self.world_sizes.add(world)
        seen = self._members.setdefault(rank, [])
        if len(seen) < 2:
            seen.append((number, text))

    def _store_barrier(self, number: int, text: str) -> None:
        if (done := _STORE_BARRIER_DONE.search(text)) is not None:
            self._barriers_done.add(done.group(1).rstrip(".,"))
        elif (m := _STORE_BARRIER.search(text)) is not None and len(self._barriers) < 64:
            world, workers = bounded_rank(m.group(2)), bounded_rank(m.group(3))
            if world and workers is not None and world != workers:
                self._barriers.setdefault(m.group(1).rstrip(".,"), (number, text, world, workers))

    def _members_then_nothing(self, lines: int | None) -> None:
        """Some of the group's processes announced themselves (`MEMBER: 4/8`) and the input ends right
        there: the job is stuck waiting for the others (the verdict's last resort, like a lead)."""
        number, text = max(seen[-1] for seen in self._members.values())
        if lines is None or number <= lines - _WARNED_TAIL_LINES:
            return
        lead = self._observe(LeadObs, number, text, self._stream(None, False))
        lead.chain = self._links(text, None)
        lead.notes.append(
            f"only {len(self._members)} of {self._member_world} processes announced themselves and the log"
            " ends there: the others never started, or cannot reach this node"
        )
        self._leads.append(lead)

    def _stall(self, lines: int | None) -> None:
        """The input's last lines, back from its end, are set-up lines of a distributed job with no error
        after them: its processes stopped where they wait for one another (a StallObs, the verdict's
        last resort). A collective a rank announced outranks the set-up lines printed after it (its peers
        still setting up), and its first announcement is reported (that rank has waited longest);
        otherwise the latest of a process joining the group, a step of NCCL's communicator or its
        teardown says how far the job got, and with none of them, NCCL's last line."""
        if not self._tail or (lines is not None and self._tail[-1][0] < lines):
            return  # (the input's last lines were not all read)
        found: dict[str, tuple[int, str, _Stream]] = {}
        latest = None
        for number, text, stream in reversed(self._tail):
            if _STALL_COLLECTIVE.search(text):
                stage = "collective"
            elif ("GLOBAL_RANK" in text and _MEMBER.search(text)) or _STALL_JOINING.search(text):
                stage = "membership"
            elif "INFO" not in text:
                if _STALL_SETUP.search(text) or text.startswith("```"):
                    continue
                break
            elif _STALL_TEARDOWN.search(text):
                stage = "teardown"
            elif _STALL_COMMUNICATOR.search(text):
                stage = "communicator"
            elif _NCCL_INFO.search(text):
                stage = "nccl"
            else:
                break
            if stage == "collective":
                found[stage] = (number, text, stream)  # the first rank into it: it has waited longest
            else:
                found.setdefault(stage, (number, text, stream))
            if stage not in ("collective", "nccl"):
                latest = latest or stage
        reached = (
            "collective" if "collective" in found else latest or ("communicator" if "nccl" in found else None)
        )
        if reached is None:
            self._stalled_phase()
            return
        number, text, stream = found.get(reached) or found["nccl"]
        obs = self._observe(StallObs, number, text, stream)
        obs.stage = reached
        obs.chain = [Link(None, text)]
        self.observations.append(obs)

    def _stalled_phase(self) -> None:
        """The input's last lines, back from its end, are quiet lines after the job announced it starts a
        phase (training, its first step, validation), drew a progress bar that never moved, or announced
        a step under way that counts nothing (UNDER_WAY: `Setting up PyTorch plugin ...`): the output
        stopped before that phase or step finished (a StallObs at the announcement, stage `phase`); or
        after a line that shows a count short of its total (`progress`: the run had not finished)."""
        for number, text, stream in reversed(self._tail):
            if _PASTE_FILLER.match(text):
                continue
            counts = PROGRESS_COUNTER.search(text) or _COUNTING.search(text)
            under_way = UNDER_WAY.search(text) and not counts and not _WARNING_TEXT.search(text)
            stage = (
                "phase" if _PHASE_START.search(text) or under_way else "progress" if _part_way(text) else None
            )
            if stage is not None:
                obs = self._observe(StallObs, number, text, stream)
                obs.stage = stage
                obs.chain = [Link(None, text)]
                self.observations.append(obs)
                return
            if not ((_QUIET_INFO.search(text) and not counts) or _GPU_MONITOR_ROW.search(text)):
                return

    def _membership(self, lines: int | None) -> None:
        """Places of the group claimed twice while others were never claimed, or a store-based barrier
        stuck at another count than the world size, or one GPU driven by two of a communicator's
        processes: the process group cannot form."""
        for (_, nranks, bus_id), processes in self._nccl_gpus.items():
            ranks = sorted({rank for rank, _, _ in processes.values()})
            if len(ranks) > 1:
                number, text = max((line, said) for _, line, said in processes.values())
                obs = self._observe(MembershipObs, number, text, self._stream(None, False))
                obs.duplicated, obs.world, obs.device = ranks, int(nranks), bus_id
                obs.chain = [Link(None, text)]
                self._add(obs)
                return
        for key, (number, text, world, workers) in self._barriers.items():
            if key not in self._barriers_done:
                obs = self._observe(MembershipObs, number, text, self._stream(None, False))
                obs.world, obs.joined = world, workers
                obs.chain = [Link(None, text)]
                self._add(obs)
                return
        world = self._member_world
        duplicated = sorted(rank for rank, seen in self._members.items() if len(seen) > 1)
        if not duplicated and world and len(self._members) < world:
            self._members_then_nothing(lines)
        if not duplicated or not world or world > MAX_NAMED_MEMBERS:
            return
        missing = [rank for rank in range(world) if rank not in self._members]
        if not missing:
            return  # every place claimed (again): a restart, not a conflict
        number, text = self._members[duplicated[0]][0]
        obs = self._observe(MembershipObs, number, text, self._stream(None, False))
        obs.duplicated, obs.missing, obs.world = duplicated, missing, world
        obs.chain = [Link(None, text)]
        obs.evidence += [(self.label, n, t) for n, t in self._members[duplicated[0]][1:]]
        self._add(obs)

    # --- dispatch ---------------------------------------------------------------------------

    def _record_traceback(self, labelled: tuple[int, int, bool, bool, bool], segment: str) -> bool:
        """Whether an unlabelled line goes on a rank's error record as the traceback a logger prints
        under it (`logger.exception`): its header right after the record, then every line until the
        traceback ends (its exception line too, which is not indented)."""
        if not labelled[4]:
            return False
        stream = self.streams.get((labelled[1], labelled[2]))
        return segment.strip() == TRACEBACK_HEAD or (stream is not None and stream.mode == "traceback")

    def _stream(self, rank: int | None, local: bool) -> _Stream:
        key = (rank, local)
        stream = self.streams.get(key)
        if stream is None:
            stream = self.streams[key] = _Stream(rank, local)
        return stream

    def _blank(self, rank: int | None) -> None:
        for key in ((rank, False), (rank, True)):
            stream = self.streams.get(key)
            if stream is not None:
                self._on_blank(stream)

    def _segment(self, number: int, segment: str, candidates: frozenset[int]) -> None:
        # A log collector's label and time come first (`kubectl logs --timestamps`, Docker Compose):
        # the program's line, with its own quoting and labels, is what follows them.
        in_sentence = False  # the error was quoted inside the user's sentence
        collected = collector_end(segment, self._bracketed)
        collector, segment = segment[:collected], segment[collected:]
        if segment[:4] == ">   " and (source := _PYTEST_SOURCE.match(segment)):
            # pytest's failing source line: the `E` lines under it are aligned with its code.
            self._pytest_margin = source.end()
        if segment[:1] == ">" and (quote := _QUOTE.match(segment)):
            segment = segment[quote.end() :]  # a Markdown quote of a log (`> Traceback ...`)
        if ('"' in segment[:42] or "'" in segment[:42]) and (quoted := _QUOTED_EXCEPTION.match(segment)):
            segment = segment[quoted.end() :]
        elif "`" in segment and segment[:1] != "`" and (spanned := _SPANNED_EXCEPTION.match(segment)):
            segment = segment[spanned.end() :].split("`", 1)[0]  # the span's text, up to its closing tick
            in_sentence = True
        if segment[:1] > "\x7f" and (label := _FOREIGN_LABEL.match(segment)):
            # The user's own label in their language (`报错：RuntimeError: ...`).
            segment = segment[label.end() :]
        elif segment.startswith("Exception in device=") and (xla := _XLA_DEVICE_ERROR.match(segment)):
            # torch-xla's spawn: the error of one device's process.
            segment = "Exception: " + segment[xla.end() :]
        if segment[:8] in ("stderr: ", "stdout: "):
            segment = segment[8:]  # a test harness's channel label (accelerate's `stderr: Traceback ...`)
        elif segment[:1] == "`" and segment.rstrip().endswith("`"):
            segment = segment.strip().strip("`")  # a line pasted as a Markdown code span
        elif segment[:1] == "`" and (opened := _OPENING_TICKS.match(segment)) is not None:
            segment = segment[opened.end() :]  # a code span or fence opened at the line's start
        elif segment.lstrip(" \t")[:2] == "**" or segment.rstrip().endswith("**"):
            # A line pasted in Markdown bold (`**ImportError: ...**`, a frame's `  **File ...`).
            segment = _BOLD.sub(r"\g<indent>", segment)
        elif segment[:1] == "E" and (marker := _PYTEST_ERROR.match(segment)):
            # pytest keeps the text's indentation after its margin (8 columns, or the failing line's)
            segment = segment[min(marker.end(), self._pytest_margin) :]
        prefix = split_prefix(
            segment,
            srun=bool(self._srun),
            kube_master=self._kube_master,
            hosts=self._hosts,
            formats=self._formats,
        )
        rank, local = prefix.rank, prefix.local
        if (
            prefix.local_label is not None
            and rank is not None
            and len(self._local_labels) < _MAX_LOCAL_LABELS
        ):
            self._local_labels.setdefault(prefix.local_label, set()).add(rank)
        # Slurm's step daemon writes into a task's labelled output: its words are the job's, not the task's.
        daemon = prefix.rest.startswith(_SCHEDULER_DAEMONS)
        if daemon:
            rank = None
        labelled = self._labelled
        rank_label: str | None = ""  # the line's own, numbers aside; None: the one it is carried under holds
        if rank is not None:
            self._labelled = (number, rank, local, prefix.rest.rstrip().endswith(":"), prefix.error_level)
            if prefix.level is None:  # (a logger's fields beside it vary from record to record)
                rank_label = numberless(segment[: len(segment) - len(prefix.rest)].strip())
        elif (
            not daemon
            and labelled is not None
            and labelled[0] == number - 1
            and (segment[:1] in (" ", "\t") or labelled[3] or self._record_traceback(labelled, segment))
            and segment.strip()
        ):
            # An indented line right after a labelled one, or any line after a labelled one that
            # ended where its detail starts (`... last error: UNKNOWN:`), without a label of its
            # own: the rest of that rank's multi-line record (a desync report's list, a wrapped message,
            # the traceback a logger prints under its error record).
            rank, local = labelled[1], labelled[2]
            self._labelled = (number, rank, local, False, labelled[4])
            rank_label = None
        # The program's own label of a global rank (not a launcher's node-local `[default1]:`, not a file's rank).
        labelled_itself = rank is not None and not local
        if rank is None:
            rank = self.default_rank
        stream = self._stream(rank, local)
        stream.last_seen = number
        stream.labelled = labelled_itself
        if rank_label is not None:
            stream.label = rank_label
        stream.error_level = prefix.error_level
        stream.warning_level = prefix.warning_level
        if in_sentence:
            stream.quoted_line = number
        rest = prefix.rest.rstrip()
        if rest.lstrip()[:1] in ("+", "|") and _GROUP_BOX.match(rest):
            # An exception group's box drawing, also behind a rank's label: a numbered separator
            # (`+-+---- 1 ----`) starts one of the group's sub-exceptions, the causes of the group.
            separator = _GROUP_SEPARATOR.match(rest)
            rest = _unbox(rest)
            if not rest.strip():
                self._on_blank(stream)
                if separator is not None:  # the group's closing line has no number
                    stream.chain_marker = "group" if any(c.isdigit() for c in separator.group()) else None
                return
        if (
            rest[:1].isupper()
            and (header := _RECORD_HEADER.match(rest))
            and _RECORD_GOES_ON.match(rest, header.end())
        ):
            rest = rest[header.end() :]  # the record's header repeated before each of its lines
        if stream.margin:
            if stream.mode in ("traceback", "message") or stream.chain:
                rest = _without_margin(stream.margin, rest)
            else:
                stream.margin = ""
        stream.before, stream.latest = stream.latest, (number, rest)
        if prefix.rank is not None and rest.lstrip()[:1] == "`":
            rest = rest.strip().strip("`").strip()  # a Markdown code fence or span opened after the label
        elif prefix.rank is not None and rest.lstrip()[:2] == "**":
            rest = _BOLD.sub(r"\g<indent>", rest)  # Markdown bold opened after the label
        if not rest.strip():
            self._on_blank(stream)
            return
        self._tail.append((number, rest.strip(), stream))
        if "GLOBAL_RANK" in rest and (member := _MEMBER.search(rest)):
            self._member(number, rest.strip(), member)
        elif "store" in rest and "barrier" in rest:
            self._store_barrier(number, rest.strip())
        if ("orld" in rest or "anks" in rest or "WORLD" in rest) and (world := _WORLD.search(rest)):
            size = bounded_rank(world.group(1))
            if size:
                self.world_sizes.add(size)
        if "NCCL" in rest and (nccl := NCCL_PROCESS.search(rest)):
            self._nccl_process(nccl, rest, number)
        if "CheckpointException ranks:" in rest and (listed := _CHECKPOINT_RANKS.search(rest)):
            stream.failed_ranks = tuple(r.strip() for r in listed.group(1).split(",") if r.strip())
        # The program's own time starts a new record; a collector's time on every line orders the
        # lines but does not end a multi-line message.
        stamp = find_stamp(rest) or (find_stamp(segment) if prefix.rank is not None else None)
        when = stamp or (find_stamp(collector) if collector else None)
        if when is not None:
            # A launcher's own record (torchrun's `W1202 04:49:21.035000 16568 torch/distributed/run.py:874]`)
            # times its own lines, not the workers' unlabelled output after it (a crash dump at the end
            # would read as printed when the job started).
            agent = stamp is not None and rest[:1] in "IWEF" and _AGENT_RECORD.match(rest) is not None
            if agent and not stream.agent_stamped:
                stream.worker_stamp = stream.stamp
            stream.stamp, stream.agent_stamped = stream.years.place(when), agent
            stream.stamp_line = number
        elif stream.agent_stamped:
            stream.stamp, stream.agent_stamped = stream.worker_stamp, False
        if "object repr" in rest and (dumped := _OBJECT_REPR.match(rest.strip())) is not None:
            # Python's dump of an exception object it could not print (`_PyObject_Dump`, before a
            # fatal error): the first line of the repr's message is the exception line.
            message = dumped.group("message").split("\\n", 1)[0]
            rest = f"{dumped.group('type')}: {message}"
            candidates = self.matcher.candidates(rest)
        if 'File "' in rest and len(parts := _FLATTENED_FRAME.split(rest)) > 1:
            # A pasted traceback whose line breaks were lost: one frame per piece.
            for piece in parts:
                head = _FLATTENED_HEAD.match(piece)
                if head is None:
                    if piece.strip():
                        self._feed(stream, number, piece, segment, candidates, stamp)
                    continue
                # The frame's header, then its source line (the code after the function's name).
                func = f", in {head.group('func')}" if head.group("func") else ""
                frame = f'  File "{head.group("file")}", line {head.group("line")}{func}'
                self._feed(stream, number, frame, segment, candidates, stamp)
                if code := piece[head.end() :].strip():
                    self._feed(stream, number, "    " + code, segment, candidates, stamp)
            return
        self._feed(stream, number, rest, segment, candidates, stamp)

    def _feed(
        self,
        stream: _Stream,
        number: int,
        rest: str,
        segment: str,
        cands: frozenset[int],
        stamp: Stamp | None,
    ) -> None:
        mode = stream.mode
        if mode == "traceback":
            if self._traceback_line(stream, number, rest, cands):
                return
        elif mode == "rich":
            if self._rich_line(stream, rest):
                return
        elif mode == "message":
            if self._message_line(stream, number, rest, cands, stamp):
                return
        elif mode == "compiled":
            if self._compiled_frame_line(stream, rest):
                return
        elif mode == "panic":
            if self._panic_line(stream, number, rest, cands, stamp):
                return
        elif mode == "backtrace":
            if re.match(r"\s+(?:\d{1,6}: |at )", rest):
                return
            stream.mode = "idle"
        elif mode == "table":
            if self._table_line(stream, number, rest):
                return
        elif mode == "cpp":
            m = _WHAT.search(rest)
            stream.mode = "idle"
            if m and stream.cpp is not None:
                self._cpp_observation(stream, number, m.group("msg"), cands)
                return
            self._cpp_without_message(stream)
        elif mode == "dump":
            if self._dump_line(stream, number, rest):
                return
        elif mode == "stall":
            if self._stall_line(stream, number, rest):
                return
        elif mode == "banner":
            m = _BANNER_PATH.search(rest)
            if m:
                stream.banner = m.group("path")
                return
            stream.mode = "idle"
            if set(rest.strip()) == {"="}:
                return
        self._idle(stream, number, rest, segment, cands)

    # --- idle: what starts a block ------------------------------------------------------------

    def _idle(self, stream: _Stream, number: int, rest: str, segment: str, cands: frozenset[int]) -> None:
        stripped = rest.strip()
        if self._interface is None and "NCCL INFO" in rest and (iface := _NCCL_LOCAL_INTERFACE.search(rest)):
            self._interface = self._observe(InterfaceObs, number, stripped, stream)
            self._interface.interface, self._interface.address = iface.group("iface"), iface.group("addr")
            return
        if "process" in rest and self._stops < _MAX_STOPS and (stop := _LAUNCHER_STOP.search(rest)):
            self._stops += 1
            fact = self._observe(StopObs, number, stripped, stream)
            fact.pid = bounded_int(stop.group(1) or stop.group(2) or stop.group("spawned"))
            if stop.group("spawned") and fact.pid is not None:
                # spawn stops every process still running once one failed (it never restarts them): the job
                # had at least the ones it stopped and the one that failed
                self._spawn_stopped.add(fact.pid)
                self.world_sizes.add(len(self._spawn_stopped) + 1)
            self.observations.append(fact)  # a fact beside the line's own reading (the KB knows it too)
        elif "death signal" in rest and self._stops < _MAX_STOPS and (signal := _AGENT_SIGNAL.search(rest)):
            self._stops += 1
            told = self._observe(AgentSignalObs, number, stripped, stream)
            told.signal = signal.group(1)
            self.observations.append(told)  # a fact beside the line's own reading, as above
        if stripped == _CHECK_TRACE_HEAD:
            stream.check_trace = (number, number)
            return
        if stripped[:2] == "@ " and (frame := _CHECK_TRACE_FRAME.match(stripped)):
            trace = stream.check_trace
            stream.check_trace = (trace[0] if trace and trace[1] >= number - 2 else number, number)
            crash = stream.signal_exit
            if (
                crash is not None
                and 0 < number - crash.line <= _FATAL_DUMP_LINES
                and len(crash.native) < _MAX_NATIVE_FRAMES
                and frame.group("function")
            ):
                crash.native.append(frame.group("function"))  # a frame of the crash the handler reported
            return
        if (
            TRACEBACK_HEAD in rest
            or (stripped.startswith(_RICH_TOP) and TRACEBACK_HEAD[:-1] in rest)
            or (stripped.endswith(TRACEBACK_HEAD[:-1]) and _IPYTHON_HEAD.match(stripped) is not None)
        ):
            if not stream.chain_marker:
                self._flush_chain(stream)
                stream.ignored = stream.ignored_at is not None and stream.ignored_at == number - 1
                stream.handled = (
                    stream.before is not None
                    and stream.before[0] == number - 1
                    and _PROGRAM_WARNING.match(stream.before[1].strip()) is not None
                )
            if (
                stripped.endswith(")")
                and (ranked := _RANKED_HEAD.search(stripped)) is not None
                and stream.failed_ranks == (ranked.group(1),)
            ):
                # DCP's CheckpointException quotes the failed ranks' tracebacks under `(RANK 2)`: with
                # one rank failed, that traceback is its error, whichever rank printed the report.
                _next_traceback_rank(
                    stream,
                    ranked.group(1),
                    "the traceback's header (`(RANK N)`, a checkpoint's report of that rank)",
                )
            if (
                stream.before is not None
                and stream.before[0] == number - 1
                and (thread := _RANKED_THREAD.match(stream.before[1].strip())) is not None
            ):
                _next_traceback_rank(
                    stream,
                    thread.group(1),
                    "the name of the thread it killed (`Exception in thread ...-rank3:`)",
                )
            stream.mode = "rich" if stripped.startswith(_RICH_TOP) else "traceback"
            stream.frames = []
            stream.code_indent = -1
            stream.frames_dropped = 0
            stream.rich_path = ""
            stream.ipython = _IPYTHON_HEAD.match(stripped) is not None
            stream.head = (number, stripped)
            stream.said_before_head = (
                stream.before
                if stream.before is not None and number - stream.before[0] <= _SAID_BEFORE
                else None
            )
            stream.margin = _margin_shape(rest[: max(rest.find(TRACEBACK_HEAD), 0)])
            return
        if stripped in _STALL_LIST_HEAD:
            self._start_stall_list(stream, number)
            return
        if stripped.startswith(_IGNORED_EXCEPTION):
            stream.ignored_at = number
            return
        if stripped in (CAUSE_MARKER, CONTEXT_MARKER):
            if stream.chain:
                stream.chain_marker = "cause" if stripped == CAUSE_MARKER else "context"
            return
        if "terminated with the following error" in stripped and (spawn := _SPAWN_ERROR.search(stripped)):
            self._flush_chain(stream)
            _next_traceback_rank(stream, spawn.group(1))
            return
        if stripped == COMPILED_FRAMES_HEAD and stream.chain and stream.chain[-1].observation is None:
            stream.mode = "compiled"  # after the blank line that ended the compiler's message
            return
        if stream.chain:
            stream.since_exc += 1
            if stream.since_exc > _CHAIN_TRAILER or not _is_quiet(stripped):
                self._flush_chain(stream)
        if self._start_dump(stream, number, stripped):
            return
        frame = _FRAME.match(rest) if rest[:1] in (" ", "\t") or stripped.startswith('File "') else None
        if frame is None and '", line ' in rest:
            frame = _CUT_FRAME.match(stripped)
        if frame is not None:
            # A traceback excerpt that starts at its frames (its header was not pasted), or Ray's remote
            # traceback, whose head is the `RayTaskError(...)` line just before: it has no header.
            before = stream.before if stream.before is not None and stream.before[0] == number - 1 else None
            ray = _RAY_HEAD.search(before[1]) if before is not None else None
            stream.head = before if ray is not None else None
            if ray is not None and ray.group("rank") is not None:
                _next_traceback_rank(
                    stream, ray.group("rank"), "Ray's head of the task's traceback (the actor's repr)"
                )
            stream.mode = "traceback"
            stream.frames = [_frame(frame)]
            stream.frame_indent = len(rest) - len(rest.lstrip(" \t"))
            stream.code_indent = -1
            stream.frames_dropped = 0
            return
        if self._start_panic(stream, number, rest, cands):
            return
        if stripped == "=== PANIC ===":
            if cands:  # the banner is a failure of its own when no panic follows it in the excerpt
                self._line_observation(stream, number, rest, segment, cands)
                self._end_exception(stream)
            stream.mode = "banner"
            return
        if stripped == "Failures:" or stripped.startswith("Root Cause (first observed failure)"):
            if cands:  # the table's header is known too (torchrun's ChildFailedError report)
                self._line_observation(stream, number, rest, segment, cands)
                self._end_exception(stream)
            self._start_table(stream, number, stripped)
            return
        m = _TERMINATE.search(rest) if "terminate called" in rest else None
        if m:
            if m.start() > 0 and cands:  # a flattened paste: what came before is a message of its own
                self._line_observation(stream, number, rest[: m.start()], segment[: m.start()], cands)
                self._end_exception(stream)
            stream.mode = "cpp"
            stream.cpp = (m.group("type"), number)
            inline = _WHAT.search(rest, m.end())
            if inline:
                stream.mode = "idle"
                self._cpp_observation(stream, number, inline.group("msg"), cands)
            return
        field_match = _TABLE_FIELD.match(stripped) if stripped.startswith(_FIELD_NAMES) else None
        if field_match and _LOOSE_FIELD.search(stripped):
            self._start_loose_table(stream, number, field_match.group(1), field_match.group(2))
            return
        if self._launcher_line(stream, number, rest, cands):
            return
        if stream.fatal is not None and "backtrace" in rest and (head := _UCX_BACKTRACE.search(rest)):
            # UCX's backtrace of one of several crashes just reported: the one of its thread.
            stream.fatal = self._crash_of_thread(stream, head.group(1)) or stream.fatal
            return
        if (
            stream.fatal is not None
            and 0 < number - stream.fatal.line <= _FATAL_DUMP_LINES
            and "0x" in rest
            and (frame := _NATIVE_FRAME.search(rest)) is not None
        ):
            # A frame of the crash's native backtrace: where in which library it crashed.
            if len(stream.fatal.native) < _MAX_NATIVE_FRAMES:
                where = frame.group("function") or frame.group("symbol") or frame.group("library")
                stream.fatal.native.append(where.rsplit("/", 1)[-1])
            return
        m = _FATAL.search(rest) if any(word in rest for word in _FATAL_WORDS) else None
        report = stream.signal_report
        if (
            m
            and report is not None
            and number - report[0] <= _FATAL_DUMP_LINES
            and FATAL_WORD_SIGNALS.get(m.group("segv") or "") == report[1]
        ):
            return  # the shell's word for a crash the process's own signal handler already reported
        if m and not (cands and self.matcher.match(segment, cands)):
            what = m.group("what") or m.group("segv") or m.group("abort")
            check = self._check_before_abort(stream, number) if m.group("abort") else None
            if check is not None:
                # The failed check is the error; the abort that follows it is how the process ended.
                check.evidence.append((self.label, number, rest.strip()))
                return
            obs = self._observe(ExceptionObs, number, rest.strip(), stream)
            obs.origin = "fatal"
            obs.chain = [Link(None, what.strip() or rest.strip())]
            stream.fatal = obs
            self._add(obs)
            return
        if stripped.startswith('"message": "') and (field := _JSON_MESSAGE.match(stripped)):
            # torchelastic's error handler logs an error file's JSON: its message is the error.
            inner = field.group(1)
            if _raised_line(inner):
                self._start_exception(
                    stream, number, inner, self.matcher.candidates(inner), frames=[], standalone=True
                )
                return
        if stripped.startswith("raise ") and (raised := _raised_by_statement(stripped)) is not None:
            # A traceback's `raise` statement pasted without the exception line under it: the
            # statement's message is what the exception said.
            self._start_exception(
                stream, number, raised, self.matcher.candidates(raised), frames=[], standalone=True
            )
            assert stream.exc is not None
            stream.exc.from_statement = True
            return
        # An exception line on its own, also indented as a Markdown code block (4 spaces) or a list
        # item; not deeper (a printed structure's nested text).
        if (
            len(rest) - len(rest.lstrip(" \t")) <= _LONE_EXCEPTION_INDENT
            and stripped not in _BARE_LABELS
            and _raised_line(stripped)
        ):
            self._start_exception(stream, number, stripped, cands, frames=[], standalone=True)
            return
        if (behind := _behind_a_label(stripped)) is not None:
            self._start_exception(
                stream, number, behind, self.matcher.candidates(behind), frames=[], standalone=True
            )
            return
        if not (_SEPARATOR.match(stripped) or _TABLE_TITLE.match(stripped)):
            _remember(stream, number, stripped)  # (not a rule of dashes, nor the launcher's table title)
        worth_a_look = cands or stream.error_level or _is_error_record(rest) or _collective_hint(rest)
        if worth_a_look and self._line_observation(stream, number, rest, segment, cands):
            return
        if _SEPARATOR.match(stripped):
            # A box of dashes around a tool's message (Open MPI's help messages): its first line
            # is the message's headline.
            stream.box = None if stream.box is not None else (0, "")
        elif stream.box is not None and stream.box[0] == 0 and stripped:
            stream.box = (number, stripped)
        if _LEAD.search(stripped) or _QUOTED_IN_PROSE.search(stripped):
            if not _NOT_A_LEAD.search(stripped):
                box = stream.box
                said = (
                    box
                    if box is not None and box[0] and number - box[0] <= _BOX_LINES
                    else (number, stripped)
                )
                last = self._leads[-1] if self._leads else None
                if (
                    last is not None
                    and last.line == number - 1
                    and last.text.endswith(":")
                    and last.rank == stream.rank
                ):
                    self._leads.pop()  # the line before ended where this one, its detail, starts
                elif (
                    last is not None
                    and stripped.startswith(_TRACE_HEADER)
                    and last.text.startswith(_TRACE_FRAME)
                    and number - last.line <= _TRACE_LINES
                    and last.rank == stream.rank
                ):
                    self._leads.pop()  # a frame of a C++ trace read before the trace's own header
                self._leads.append(self._observe(LeadObs, said[0], said[1], stream))
            else:
                self._repeated_warning(stream, number, stripped)
        elif WAITS_IN_A_LOOP.search(stripped):
            self._repeated_warning(stream, number, stripped)  # a wait that never ends is a failure too
        stream.last_line = (number, stripped)

    def _repeated_warning(self, stream: _Stream, number: int, text: str) -> None:
        """Count a warning that says something failed (`[W socket.cpp:601] ... failed to connect ...`),
        by its words with the numbers left out: one is a retry, the same one until the end is not."""
        key = numberless(text)[:300]
        seen = self._warned.get(key)
        if seen is not None:
            seen[0] += 1
            seen[2] = number
        elif len(self._warned) < _MAX_WARNED:
            self._warned[key] = [1, self._observe(LeadObs, number, text, stream), number]

    # --- Python tracebacks ---------------------------------------------------------------------

    def _traceback_line(self, stream: _Stream, number: int, rest: str, cands: frozenset[int]) -> bool:
        indent = len(rest) - len(rest.lstrip(" \t"))
        if rest[:1] in (" ", "\t") and not (
            # A traceback indented as a whole (torchrun's failure table): the exception line is
            # indented less than the frames; or at their margin once the last frame has its code
            # (frames that lost their indentation, then indented again as a whole).
            stream.frames
            and _looks_like_exception(rest.strip())
            and (
                indent < stream.frame_indent
                or (indent == stream.frame_indent and stream.frames[-1].code is not None)
                # every line of the traceback at one indent (a log viewer's: CloudWatch), the last
                # frame's code already read: an exception's name at that indent ends the traceback
                or (
                    indent == stream.code_indent
                    and stream.frames[-1].code is not None
                    and (named := _EXC_LINE.match(rest.strip())) is not None
                    and _ERROR_NAME.match(named.group("type")) is not None
                )
            )
        ):
            m = _FRAME.match(rest)
            if m:
                stream.frame_indent = indent
                if len(stream.frames) < MAX_FRAMES:
                    stream.frames.append(_frame(m))
                else:
                    stream.frames_dropped += 1
                    if stream.frames_dropped > MAX_FRAMES:
                        self._cut_off_traceback(stream)
                        stream.mode = "idle"
            elif stream.frames and stream.frames[-1].code is None and rest.strip() and not stream.ipython:
                stream.frames[-1].code = rest.strip()[:400]
                stream.code_indent = indent
            return True
        stripped = rest.strip()
        if stripped.startswith(TRACEBACK_HEAD):
            if stream.frames:
                self._cut_off_traceback(stream)  # a new traceback began before this one's exception line
                stream.mode = "traceback"
            stream.frames = []
            return True
        if (ipython := _IPYTHON_FRAME.match(stripped)) is not None:
            stream.ipython = True
            if len(stream.frames) < MAX_FRAMES:
                if ipython.group("cell"):
                    line = bounded_int(ipython.group("cell_line")) or 0
                    stream.frames.append(Frame(ipython.group("cell"), line, "<cell>"))
                else:
                    stream.frames.append(_frame(ipython))
            return True
        if stream.ipython and (legacy := _IPYTHON_LEGACY_FRAME.match(stripped)) is not None:
            if len(stream.frames) < MAX_FRAMES:
                stream.frames.append(Frame(legacy.group("file"), 0, legacy.group("func")))
            return True
        if stream.ipython and stream.frames and (marked := _IPYTHON_CODE.match(stripped)) is not None:
            stream.frames[-1].code = marked.group("code").strip()[:400]
            if not stream.frames[-1].line:
                stream.frames[-1].line = bounded_int(marked.group("line")) or 0
            return True
        if stripped.startswith("[Previous line repeated"):
            return True
        if stripped.startswith('File "') and (m := _FRAME.match(stripped)):
            # A pasted traceback that lost its indentation: frames at the first column.
            if len(stream.frames) < MAX_FRAMES:
                stream.frames.append(_frame(m))
            return True
        if _NCCL_RECORD.match(stripped):
            # A log record after frames with no exception line (a faulthandler dump): the block is over.
            self._unfinished_traceback(stream)
            stream.mode = "idle"
            return False
        if (
            stream.frames
            and stream.frames[-1].code is None
            and not _looks_like_exception(stripped)
            # A known message is not code, unless spliced into the position markers under the code
            # (`^^^^torch.cuda^^.^OutOfMemoryError^^: ...`, ranks writing at once).
            and not (cands and stripped[:1] not in "^~" and self.matcher.match(stripped, cands))
        ):
            stream.frames[-1].code = stripped[:400]  # a pasted traceback that lost its indentation
            return True
        # A class's name alone after the last frame's code is an exception raised without a message
        # (`bdb.BdbQuit`, `StopIteration`), whatever its name says.
        bare = bool(stream.frames) and stream.frames[-1].code is not None and _BARE_EXCEPTION.match(stripped)
        if not bare and not _looks_like_exception(stripped):
            # Not an exception line (another process's output run into the frames): the traceback was
            # cut off here; the line is read on its own.
            self._unfinished_traceback(stream)
            stream.mode = "idle"
            return False
        self._start_exception(stream, number, stripped, cands, frames=stream.frames, standalone=False)
        return True

    def _start_stall_list(self, stream: _Stream, number: int) -> None:
        """`Stalled ranks:` after Horovod's stall warning: the list that follows completes the warning."""
        stream.mode, stream.stalled = "stall", None
        last = self.observations[-1] if self.observations else None
        if isinstance(last, CollectiveObs) and last.rank == stream.rank and 0 < number - last.line <= 3:
            stream.stalled = last

    def _stall_line(self, stream: _Stream, number: int, rest: str) -> bool:
        """A line of Horovod's stall list: the ranks it names are the ones the others wait for; the
        first of them is the line that says who they are."""
        entry = _STALL_LIST_ENTRY.match(rest.strip())
        rank = bounded_rank(entry.group(1)) if entry is not None else None
        if rank is None:
            stream.mode = "idle"
            return False
        report = stream.stalled
        if report is None:
            report = stream.stalled = self._observe(CollectiveObs, number, rest.strip(), stream)
            report.chain = [Link(None, clean_line(rest.strip()))]
            self._add(report)
        if report.state != "missing":
            report.state = "missing"
            report.evidence.append((self.label, number, rest.strip()))
            report.line = number
        if rank not in report.named_ranks and len(report.named_ranks) < MAX_NAMED:
            report.named_ranks.append(rank)
            if op := _STALL_OP.search(rest[:2000]):
                report.named_ops[rank] = op.group(1).lower().replace("_", "")
        return True

    def _rich_line(self, stream: _Stream, rest: str) -> bool:
        """A line of rich's boxed traceback: frame headers (`path:line in function`, folded when
        long), source lines (`❱` marks the executing one), then the box's bottom edge."""
        stripped = rest.strip()
        if stripped.startswith(_RICH_BOTTOM):
            stream.mode = "traceback"  # the exception line follows the box
            return True
        if not stripped.startswith(_RICH_SIDE):
            stream.mode = "idle"  # the paste lost the rest of the box
            return False
        inner = stripped[1:].removesuffix(_RICH_SIDE).rstrip().removeprefix(" ")
        content = inner.strip()
        if not content or content[0] in _RICH_BOX_CHARS:  # a blank row, or a nested locals panel
            stream.rich_path = ""
            return True
        # Source rows are indented (or marked `❱`); a folded frame header continues at the margin.
        code = _RICH_CODE.match(content) if inner[:1] in (" ", "❱") else None
        if code is not None:
            stream.rich_path = ""
            if code.group("current") and stream.frames:
                stream.frames[-1].code = code.group("code").lstrip(" " + _RICH_SIDE)[:400]
            return True
        # rich folds a long path anywhere and wraps `in function` at the space, which the box drops.
        for joined in (stream.rich_path + content, f"{stream.rich_path} {content}"):
            frame = _RICH_FRAME.match(joined)
            if frame is not None:
                if len(stream.frames) < MAX_FRAMES:
                    stream.frames.append(_frame(frame))
                stream.rich_path = ""
                return True
        stream.rich_path = (stream.rich_path + content)[-4096:]
        return True

    def _start_exception(
        self,
        stream: _Stream,
        number: int,
        text: str,
        cands: frozenset[int],
        *,
        frames: list[Frame],
        standalone: bool,
    ) -> None:
        if standalone and not stream.chain_marker:
            self._flush_chain(stream)
        m = _EXC_LINE.match(text)
        exc = _Exception(m.group("type") if m else None, text, number, list(frames), cands, stream.stamp)
        exc.label = stream.label
        if standalone:
            exc.max_lines = STANDALONE_MESSAGE_LINES
        stream.exc = exc
        stream.frames = []
        stream.mode = "message"

    def _message_line(
        self, stream: _Stream, number: int, rest: str, cands: frozenset[int], stamp: Stamp | None
    ) -> bool:
        exc = stream.exc
        stripped = rest.strip()
        if "terminated with the following error" in stripped and (spawn := _SPAWN_ERROR.search(stripped)):
            # torch.multiprocessing.spawn's report: the exception it raised ends here, and the
            # process index is the rank of the traceback that follows (not of the report itself).
            self._end_exception(stream)
            self._flush_chain(stream)
            _next_traceback_rank(stream, spawn.group(1))
            return True
        if exc is not None and exc.from_statement and not exc.lines and _raises_the_same(exc, stripped):
            # The exception line under the `raise` statement it came from (the statement's frame
            # line cut off above it): the line says what was raised, with the values filled in.
            stream.exc = None
            self._start_exception(stream, number, stripped, cands, frames=[], standalone=True)
            return True
        if exc is not None and exc.observation is None and stripped == ORIGINAL_TRACEBACK:
            exc.in_worker_traceback = True
            exc.max_lines = MAX_MESSAGE_LINES + MAX_FRAMES
            return True
        if exc is not None and exc.observation is None and stripped.startswith(_COMPILER_MESSAGE_FIELDS):
            # A field of the compiler's message keeps it open however long its fields are.
            exc.max_lines = max(exc.max_lines, len(exc.lines) + 1 + STANDALONE_MESSAGE_LINES)
        if exc is not None and exc.observation is None and stripped == COMPILED_FRAMES_HEAD:
            self._end_exception(stream)
            stream.mode = "compiled"
            return True
        if exc is not None and exc.in_worker_traceback and exc.worker_text is None:
            # The worker's frames, indented or (a paste that lost its indentation) at the first
            # column, each followed by its code line.
            m = _FRAME.match(rest) if rest[:1] in (" ", "\t") or stripped.startswith('File "') else None
            unindented_code = (
                exc.worker_frames
                and exc.worker_frames[-1].code is None
                and not _looks_like_exception(stripped)
            )
            if rest[:1] in (" ", "\t") or m is not None or unindented_code:
                if m and len(exc.worker_frames) < MAX_FRAMES:
                    exc.worker_frames.append(_frame(m))
                elif exc.worker_frames and exc.worker_frames[-1].code is None and stripped:
                    exc.worker_frames[-1].code = stripped[:400]
                return True
            exc.worker_text, exc.worker_line = stripped, number
            exc.lines.append((number, stripped, cands))
            return True
        ends = (
            stamp is not None
            or stripped in (CAUSE_MARKER, CONTEXT_MARKER)
            or stripped in _STALL_LIST_HEAD
            or stripped == _CHECK_TRACE_HEAD
            or stripped.startswith(_IGNORED_EXCEPTION)
            or (exc is not None and _carried_exception(exc, stripped))
            or (rest[:1] not in (" ", "\t") and _launcher_wrapper(stripped))
            or TRACEBACK_HEAD in rest
            or (rest[:1] in (" ", "\t") and stripped.startswith('File "') and _FRAME.match(rest) is not None)
            or _SEPARATOR.match(stripped) is not None
            or ("panicked at" in rest and _PANIC_NEW.search(rest) is not None)
            # C++'s runtime calling std::terminate (after a C++ exception of its own, or with none in flight,
            # `terminate called without an active exception`): a record of its own, not the message's rest
            or "terminate called " in rest
            # faulthandler's report of a crash after a Python exception (not the abort that ends a C++ one)
            or (stripped.startswith("Fatal Python error") and exc is not None and exc.type is not None)
            or _is_exit_report(rest)
            or ("Process name: " in rest and _MPI_PROCESS.search(rest) is not None)
            or _NCCL_RECORD.match(rest) is not None
            or (stripped[:1] in "DIWEC" and _LOGGING_RECORD.match(stripped) is not None)
            or (stripped.startswith(_FIELD_NAMES) and _TABLE_FIELD.match(stripped) is not None)
            or exc is None
            # a line of the rank labelled otherwise than the exception's (`[rank 3] ...` under `[rank3]: ...`):
            # another record, the program's print (a line with no label may go on the message)
            or (exc.label and stream.label and exc.label != stream.label)
            or len(exc.lines) >= exc.max_lines
            or (bool(cands) and self._launcher_record(stripped, cands))
        )
        if ends:
            self._end_exception(stream)
            return False
        assert exc is not None
        exc.lines.append((number, stripped, cands))
        return True

    @staticmethod
    def _compiled_frame_line(stream: _Stream, rest: str) -> bool:
        """torch.compile's frames of the code it was compiling (`from user code:` under its exception,
        outermost first): they belong to that exception, not to a traceback of their own (which, with
        no exception line after it, would read as cut off)."""
        frames = stream.chain[-1].compiled_frames
        m = _FRAME.match(rest)
        if m is not None:
            if len(frames) < MAX_FRAMES:
                frames.append(_frame(m))
            return True
        if frames and frames[-1].code is None and rest[:1] in (" ", "\t") and rest.strip():
            frames[-1].code = rest.strip()[:400]
            return True
        stream.mode = "idle"
        return False

    def _launcher_record(self, text: str, cands: frozenset[int]) -> bool:
        """Whether a line is, from its first character, the launcher's own report (torchelastic's
        `Killing subprocess 4701`): a record of the launcher, not the continuation of a worker's message."""
        hits = self.matcher.match(text, cands)
        return (
            bool(hits)
            and hits[0].start == 0
            and hits[0].entry.framework == "torchelastic"
            and hits[0].entry.kind in ("symptom", "wrapper")
        )

    def _end_exception(self, stream: _Stream) -> None:
        exc, stream.exc = stream.exc, None
        stream.mode = "idle"
        if exc is None:
            return
        if exc.observation is not None:
            self._end_line_message(exc, exc.observation)
            return
        if stream.chain and not stream.chain_marker:
            self._flush_chain(stream)
        if stream.chain_marker == "group":
            # A group's sub-exception, printed after the group: it goes inside it, after the ones before.
            stream.chain.insert(stream.group_members, exc)
            stream.group_members += 1
        else:
            exc.during_handling = stream.chain_marker == "context"
            stream.chain.append(exc)
            stream.chain_marker = None
        stream.since_exc = 0

    def _flush_chain(self, stream: _Stream) -> None:
        chain, stream.chain = stream.chain, []
        stream.chain_marker = None
        stream.group_members = 0
        if not chain:
            return
        outer_first = list(reversed(chain))
        inner = chain[0]
        obs = self._observe(ExceptionObs, inner.line, inner.text, stream)
        links: list[Link] = []
        named: list[Link] = []
        for exc in outer_first:
            own = self._links(exc.text, exc.cands)
            if all(link.entry is None for link in own) and exc.lines and exc.lines[0][0] == exc.line + 1:
                own = self._wrapped_links(exc.text, exc.lines[0][1]) or own
            added: list[Link] = []
            for _number, text, cands in exc.lines:
                if cands:
                    more = self._links(text, cands, known_only=True)
                    named += more
                    added += _new_links(links + own + added, more)
            # A note the library appends to its message (`CUDA kernel errors might be asynchronously
            # reported ...`) does not state the failure: the message does, so it stays innermost.
            notes = [link for link in added if link.entry is not None and link.entry.kind == "symptom"]
            links += notes + own + [link for link in added if link not in notes]
        obs.chain = links
        obs.explained_by = _explaining_link(links)
        primary = obs.primary()
        owner = inner
        # An exception raised while another was handled (a cleanup that failed because the work did
        # not finish) does not state the failure, however well known its message, unless the handler
        # raised it on purpose to say what the first one means (`raise Exception("Unable to unpickle
        # data from other workers ...")`).
        cleanup = (
            i
            for i, exc in enumerate(chain)
            if exc.during_handling and not (exc.frames and (exc.frames[-1].code or "").startswith("raise "))
        )
        handled = chain[: next(cleanup, len(chain))]
        for exc in reversed(handled):
            texts = [exc.text, *(t for _, t, _ in exc.lines)]
            if primary is not None and any(primary.text in t or t in primary.text for t in texts):
                owner = exc
        obs.line = owner.line
        obs.text = owner.text
        if (
            primary is not None
            and primary.entry is not None
            and primary.entry.kind
            != "symptom"  # not a note the library appends (`CUDA kernel errors might be ...`)
            and primary.text not in owner.text
            and owner.text not in primary.text  # not the owner's line joined with the next (a wrap)
        ):
            # The known message is on a continuation line of the exception (a wrapped paste).
            for number, text, _cands in owner.lines:
                if primary.text in text or text in primary.text:
                    obs.line, obs.text = number, text
                    break
        elif (listed := _first_root_error(owner)) is not None:
            # TensorFlow's and XLA's `5 root error(s) found.`: a count; the first error it lists
            # (`(0) Internal: Missing 1-th output from node ...`) is the message.
            obs.line, obs.text = listed
            obs.chain = [Link(None, listed[1])]
            obs.explained_by = None
        elif _bare_type_line(owner) and owner.lines and owner.lines[0][1][:1].isalnum():
            # `ResourceExhaustedError:` and nothing more: the message is on the line under it
            # (PaddlePaddle's error summary, a message that starts with a newline).
            obs.line, obs.text = owner.lines[0][0], owner.lines[0][1]
            said = f"{owner.type}: {obs.text}"
            obs.chain = [
                Link(link.entry, said, link.groups) if link.text.strip() == owner.text.strip() else link
                for link in obs.chain
            ]
        obs.exc_type = owner.type
        if owner.stamp is not None:
            obs.stamp = owner.stamp
        obs.frames = owner.frames or inner.frames or owner.compiled_frames or inner.compiled_frames
        if obs.frames and not any(frame.user for frame in obs.frames):
            # A library caught its own error and raised another (`raise ... from err`): the later
            # traceback's frames lead from the script into the library, where the first one starts.
            reaching = (exc.frames for exc in chain[chain.index(owner) + 1 :])
            path = next((frames for frames in reaching if any(frame.user for frame in frames)), [])
            obs.frames = path + obs.frames
        worker = next((exc for exc in chain if exc.worker_frames or exc.worker_text), None)
        if worker is not None:
            obs.worker_frames = worker.worker_frames
            obs.worker_cut = worker.worker_text is None
            if worker.worker_text and not _BARE_EXCEPTION.match(worker.worker_text):
                # The worker's own exception states the failure; the re-raise only carries it (unless
                # the worker's is a bare type and the re-raise's "Caught X in DataLoader worker" says more).
                # The line stays the re-raise's: the message that carries the worker's starts there.
                obs.text = worker.worker_text
                obs.worker_text = worker.worker_text
        exited = _SPAWN_EXIT.search(obs.text) if "terminated with" in obs.text else None
        if (
            exited is not None
            and len(chain) == 1
            and (owner.type or "").rsplit(".", 1)[-1] in _SPAWN_EXCEPTIONS
        ):
            # torch.multiprocessing.spawn's own report that a process ended (`process 2 terminated with
            # signal SIGFPE`): an exit report raised as an exception, read as the exit it reports.
            self._launcher_line(stream, owner.line, obs.text, frozenset())
            return
        if stream.spawn_rank is None and exited is not None and obs.rank is None:
            # `ProcessExitedException: process 0 terminated with exit code 1`: the process index is the rank.
            _next_traceback_rank(stream, exited.group(1))
        _take_spawn_rank(stream, obs)
        if _BARE_EXCEPTION.match(obs.text) and obs.frames and obs.frames[-1].code:
            # A bare `AssertionError`: the statement that raised it (`assert x % world_size == 0`) is its message.
            said = f"{obs.text.strip()} at `{obs.frames[-1].code}`"
            obs.chain = [
                Link(link.entry, said, link.groups) if link.text == obs.text.strip() else link
                for link in obs.chain
            ]
            obs.text = said
        # A warning printed, not raised (one raised with its traceback, `-W error`, ended the program), or
        # Python's report of an exception it could not raise (in `__del__`, at exit) and ignored.
        obs.warning = (
            bool(owner.type and owner.type.endswith("Warning") and not owner.frames) or stream.ignored
        )
        # A traceback printed under a warning (`WARNING: could not push metrics, continuing`, then
        # `traceback.print_exc()`): the program went on after it.
        obs.logged_as_warning = obs.logged_as_warning or stream.handled
        stream.ignored = stream.handled = False
        _rank_from_chain(obs, named)
        if obs.rank is None:
            _rank_stated_in_message(obs, owner)
        obs.evidence = [(self.label, exc.line, exc.text) for exc in chain]
        for exc in chain:
            obs.evidence += [(self.label, n, t) for n, t, _ in exc.lines[:5]]
        if worker is not None and obs.worker_text is not None:
            # The worker's own exception first, then the re-raise that carried it.
            reported = (self.label, worker.worker_line, obs.worker_text)
            obs.evidence = [reported, *(e for e in obs.evidence if e != reported)]
        self._add(obs)

    def _bare_traceback_head(self, stream: _Stream) -> None:
        """A traceback's head with nothing of it after (the paste, or the log, stops there): a failure
        was being reported, so it is one, known only by that line."""
        assert stream.head is not None
        number, text = stream.head
        obs = self._observe(ExceptionObs, number, text, stream)
        obs.cut_off = True
        obs.chain = [Link(None, text)]
        self._add(obs)

    def _unfinished_traceback(self, stream: _Stream) -> None:
        """A traceback that ends before its exception line: known by its frames, or by its head alone."""
        if not stream.frames and stream.head is not None:
            self._bare_traceback_head(stream)
        self._cut_off_traceback(stream)

    def _cut_off_traceback(self, stream: _Stream) -> None:
        """A traceback whose exception line never came: still a failure, known by its frames."""
        frames, stream.frames = stream.frames, []
        if not frames:
            return
        last = frames[-1]
        glued = _GLUED_EXCEPTION.match(last.code) if last.code else None
        if glued is not None:
            # A flattened paste glued the exception to the last source line: `load(f)MemoryError`.
            last.code = glued.group("code")
            exc = glued.group("exc")
            self._start_exception(
                stream, stream.last_seen, exc, self.matcher.candidates(exc), frames=frames, standalone=False
            )
            self._end_exception(stream)
            self._flush_chain(stream)
            return
        stated = _stated_before_head(stream.head)
        stated_at = stream.head[0] if stream.head else stream.last_seen
        said_before = (
            stream.said_before_head
            if stated is None
            and stream.head is not None
            and stream.said_before_head is not None
            and not any(
                obs.line == stream.said_before_head[0] for obs in self.observations[-_LATEST_OBSERVATIONS:]
            )
            else None
        )
        if said_before is not None and (stated := self._said_just_before(said_before[1])) is not None:
            stated_at = said_before[0]
        else:
            said_before = None
        if stated is None and stream.head is not None and stream.head[1].lstrip().startswith(_INTERRUPT_ECHO):
            # The terminal's echo of Ctrl-C starts the head's line: the user interrupted the program,
            # and the traceback (cut off before it says so) is the KeyboardInterrupt's.
            stated = "KeyboardInterrupt"
        if stated is not None:
            # The exception was stated before its traceback, on the head's line (vLLM's `Exception in
            # worker ... while processing method init_device: NCCL error: ..., Traceback (most recent
            # call last):`), or on the line just before it: the cut-off traceback is that exception's.
            self._start_exception(
                stream,
                stated_at,
                stated,
                self.matcher.candidates(stated),
                frames=frames,
                standalone=False,
            )
            self._end_exception(stream)
            self._flush_chain(stream)
            if said_before is not None:
                # Read from the line before the traceback: that the two belong together is inferred,
                # so the evidence stays as weak as the cut-off traceback it completes.
                for obs in reversed(self.observations[-_LATEST_OBSERVATIONS:]):
                    if isinstance(obs, ExceptionObs) and obs.line == stated_at:
                        obs.cut_off = True
                        break
            return
        text = f"traceback cut off after {last.where()}" + (f": {last.code}" if last.code else "")
        obs = self._observe(ExceptionObs, stream.last_seen, text, stream)
        obs.cut_off = True
        obs.frames = frames
        obs.chain = [Link(None, text)]
        _take_spawn_rank(stream, obs)
        self._add(obs)

    def _said_just_before(self, text: str) -> str | None:
        """The error that a line just before a cut-off traceback states (a logger's `logger.exception(e)`
        prints the message, then the traceback; c10d warns that its socket timed out, then raises): that
        traceback's exception, whose own line the excerpt lost. A header of what follows (`Exception in
        thread Thread-3:`) states none."""
        said = _record_message(text.strip()).strip()
        if len(said) < _MIN_RECORD_MESSAGE or said.endswith(":"):
            return None
        if (
            message_category(said) is not None
            or _TIMED_OUT_AFTER.search(said)
            or _NAMES_AN_ERROR.search(said)
        ):
            return said
        return None

    def _end_line_message(self, message: _Exception, obs: Observation) -> None:
        """A matched line is complete: add what its continuation lines say (`Last error:` ...); a
        line that ends with a colon is stated with the line that completes it (older torch's
        `Watchdog caught collective operation timeout:` then `WorkNCCL(...) ran for ...`)."""
        if message.lines and message.lines[0][0] == obs.line + 1 and obs.text.endswith(":"):
            obs.text = f"{obs.text} {message.lines[0][1]}"
            facts = collective_facts(obs.text) if isinstance(obs, CollectiveObs) else None
            if isinstance(obs, CollectiveObs) and facts is not None:
                obs.op = obs.op or facts.op
                obs.sequence = obs.sequence if obs.sequence is not None else facts.seq
                obs.numel = obs.numel if obs.numel is not None else facts.numel
                obs.timeout_ms = obs.timeout_ms if obs.timeout_ms is not None else facts.timeout_ms
        for number, text, cands in message.lines:
            obs.evidence.append((self.label, number, text))
            if not cands:
                continue
            links = self._links(text, cands, known_only=True)
            obs.chain += _new_links(obs.chain, links)
            _rank_from_chain(obs, links)
        self._add(obs)

    def _on_blank(self, stream: _Stream) -> None:
        if stream.mode == "message" and not _awaits_message(stream.exc):
            self._end_exception(stream)
        elif stream.mode in ("panic", "backtrace"):
            self._end_panic(stream)

    def _close(self, stream: _Stream) -> None:
        if stream.mode == "message":
            self._end_exception(stream)  # also one still waiting for its message
        self._on_blank(stream)
        if stream.mode == "table":
            self._end_table(stream)
        if stream.mode == "traceback":
            self._unfinished_traceback(stream)
        if stream.mode == "dump":
            self._end_dump(stream)
        if stream.mode == "cpp":
            self._cpp_without_message(stream)
        stream.frames = []
        stream.mode = "idle"
        self._flush_chain(stream)

    # --- stack dumps (py-spy, faulthandler) ----------------------------------------------------

    def _start_dump(self, stream: _Stream, number: int, stripped: str) -> bool:
        if stripped.startswith("Timeout (") and _DUMP_TIMEOUT.match(stripped):
            stream.dump_timeout = number
            return True
        if stripped.endswith("(most recent call first):") and (m := _FH_THREAD.match(stripped)):
            current = m.group("current") == "Current thread"
            thread = m.group("name") or ("current thread" if current else "")
            stream.dump = _Dump(number, stripped, "faulthandler", thread, current)
        elif stripped.startswith("Thread ") and (m := _PYSPY_THREAD.match(stripped)):
            stream.dump = _Dump(number, stripped, "py-spy", m.group("name") or "", False)
            stream.dump.active = m.group("state") in ("active", "gil")
        else:
            return False
        stream.mode = "dump"
        return True

    def _dump_line(self, stream: _Stream, number: int, rest: str) -> bool:
        """A frame of the open dump (True), or the line after it (False: the dump has ended)."""
        dump = stream.dump
        assert dump is not None
        m = (_FH_FRAME if dump.tool == "faulthandler" else _PYSPY_FRAME).match(rest)
        if m is not None:
            if len(dump.frames) < _MAX_DUMP_FRAMES:
                dump.frames.append((_frame(m), number, rest.strip()))
            if dump.tool == "py-spy" and len(dump.frames) == 1:
                dump.indent = len(m.group("indent"))
            return True
        if dump.tool == "py-spy" and dump.frames and len(rest) - len(rest.lstrip()) > dump.indent:
            return True  # `py-spy dump --locals`: a frame's arguments and locals, indented under it
        self._end_dump(stream)
        return not rest.strip()

    def _crash_of_thread(self, stream: _Stream, tid: str) -> ExceptionObs | None:
        """The stream's latest crash report that names this thread (`[host:pid:0:tid]`)."""
        latest = stream.fatal.line if stream.fatal is not None else 0
        for obs in reversed(self.observations):
            if latest - obs.line > _FATAL_DUMP_LINES:
                break
            if (
                isinstance(obs, ExceptionObs)
                and obs.origin == "fatal"
                and obs.rank == stream.rank
                and f":{tid}]" in obs.text
            ):
                return obs
        return None

    def _end_dump(self, stream: _Stream) -> None:
        dump, stream.dump, stream.mode = stream.dump, None, "idle"
        if dump is None or not dump.frames:
            return
        frames = [frame for frame, _, _ in reversed(dump.frames)]
        fatal = stream.fatal
        if fatal is not None and 0 < dump.line - fatal.line <= _FATAL_DUMP_LINES:
            # A crash's own dump of its threads: the crashing thread's stack is the crash's traceback.
            if dump.current and not fatal.frames:
                fatal.frames = frames
            return
        # Where the thread was: its innermost frame above the standard library's (a lock's `wait`).
        number, text = next(
            ((n, t) for frame, n, t in dump.frames if not in_standard_library(frame.file)),
            dump.frames[0][1:],
        )
        obs = self._observe(StackDumpObs, number, text, stream)
        obs.tool, obs.thread, obs.frames, obs.active = dump.tool, dump.thread, frames, dump.active
        obs.main = dump.thread == "MainThread" or frames[0].function == "<module>"
        obs.timeout = (
            stream.dump_timeout is not None and 0 < dump.line - stream.dump_timeout <= _FATAL_DUMP_LINES
        )
        obs.evidence.insert(0, (self.label, dump.line, dump.header))
        obs.chain = [Link(None, text)]
        self._add(obs, dedupe=False)

    # --- Rust panics -------------------------------------------------------------------------

    def _start_panic(self, stream: _Stream, number: int, rest: str, cands: frozenset[int]) -> bool:
        if "panicked at" not in rest:
            return False
        m = _PANIC_NEW.search(rest)
        if m:
            self._end_panic(stream)
            loc = f"{m.group('loc')}:{m.group('line')}:{m.group('col')}"
            stream.panic = _Panic(m.group("thread") or "", loc, number, head=(rest, cands))
            stream.mode = "panic"
            return True
        m = _PANIC_OLD.search(rest)
        if not m:
            cut = _PANIC_CUT.search(rest.rstrip())
            if cut is None:
                return False
            self._end_panic(stream)
            stream.panic = _Panic(
                cut.group("thread"), None, number, head=(rest, cands), loc_cut=cut.group("loc")
            )
            stream.mode = "panic"
            return True
        self._end_panic(stream)
        stream.panic = _Panic(m.group("thread"), None, number, open=True)
        stream.mode = "panic"
        self._panic_line(stream, number, m.group("msg"), frozenset())
        return True

    def _panic_line(
        self, stream: _Stream, number: int, rest: str, cands: frozenset[int], stamp: Stamp | None = None
    ) -> bool:
        panic = stream.panic
        if panic is None:
            stream.mode = "idle"
            return False
        stripped = rest.strip()
        if panic.loc_cut is not None:
            cut, panic.loc_cut = panic.loc_cut, None
            if _PANIC_LOC_END.match(stripped):
                panic.loc = cut + stripped[:-1]
                return True
        if panic.open:
            m = _PANIC_OLD_END.match(rest)
            if m:
                panic.open = False
                panic.old = True
                panic.loc = f"{m.group('loc')}:{m.group('line')}:{m.group('col')}"
                rest = m.group("msg")
            panic.lines.append((number, rest, cands))
            return True
        if stripped.startswith(("note: run with `RUST_BACKTRACE", "note: Some details", _DOUBLE_PANIC)):
            if stripped.startswith(_DOUBLE_PANIC):
                panic.aborted = True
            self._end_panic(stream)
            return True
        if stripped == "stack backtrace:":
            self._end_panic(stream)
            stream.mode = "backtrace"
            return True
        if (
            panic.old
            or stamp is not None
            or stripped == "=== PANIC ==="
            or "panicked at" in rest
            or len(panic.lines) >= MAX_PANIC_LINES
        ):
            self._end_panic(stream)
            return False
        panic.lines.append((number, rest.rstrip(), cands))
        return True

    def _end_panic(self, stream: _Stream) -> None:
        panic, stream.panic = stream.panic, None
        if stream.mode in ("panic", "backtrace"):
            stream.mode = "idle"
        if panic is None:
            return
        lines = [(n, t, c) for n, t, c in panic.lines if t.strip()]
        if not lines:
            if not panic.head[0].strip():
                return
            # No message (lost to a panic while panicking, or cut off): the place is all there is.
            lines = [(panic.line, panic.head[0], panic.head[1])]
        number, first, cands = lines[0]
        obs = self._observe(ExceptionObs, number, first.strip(), stream)
        obs.origin = "panic"
        obs.chain = self._links(first.strip(), cands or None)
        for _n, text, extra_cands in lines[1:]:
            if extra_cands:
                obs.chain += _new_links(obs.chain, self._links(text.strip(), extra_cands, known_only=True))
        head, head_cands = panic.head
        if head_cands and not any(link.entry is not None and link.entry.kind == "root" for link in obs.chain):
            # Some panics are known by where they happen (an unwrap at a known place of the strategy).
            obs.chain += _new_links(obs.chain, self._links(head, head_cands, known_only=True))
        obs.thread = panic.thread
        if panic.aborted:
            obs.notes.append(
                "the panic handler panicked again and Rust aborted: the panic's message was lost"
            )
        if panic.loc:
            file, _, _position = panic.loc.rpartition(":")
            file, _, line = file.rpartition(":")
            line_no = bounded_int(line)
            if file and line_no is not None:
                obs.frames = [
                    Frame(file, line_no, f"thread '{panic.thread}'" if panic.thread else "a thread")
                ]
        obs.evidence = [(self.label, panic.line, panic.head[0].strip() or f"panicked at {panic.loc}")]
        obs.evidence += [(self.label, n, t) for n, t, _ in lines[:8]]
        if stream.banner:
            obs.notes.append(f"Burn's file logger has the full experiment log: {stream.banner}")
            stream.banner = None
        self._add(obs)

    # --- torchrun failure table -------------------------------------------------------------

    def _start_table(self, stream: _Stream, number: int, stripped: str) -> None:
        if stream.table is None:
            stream.table = _Table(number)
        stream.table.root = stripped.startswith("Root Cause")
        stream.table.field = None
        stream.mode = "table"

    def _start_loose_table(self, stream: _Stream, number: int, name: str, value: str) -> None:
        """Failure-table fields quoted without the table around them (`rank : 1 (local_rank: 1)`)."""
        self._start_table(stream, number, "Failures:")
        assert stream.table is not None
        failure = _Failure(number, False)
        stream.table.failures.append(failure)
        stream.table.current = failure
        stream.table.field = name
        _table_field(failure, name, value, number)
        if name == "exitcode":
            failure.exit_line = (number, f"exitcode : {value.strip()}")

    def _table_line(self, stream: _Stream, number: int, rest: str) -> bool:
        table = stream.table
        if table is None:
            stream.mode = "idle"
            return False
        stripped = rest.strip()
        current = table.current
        if stripped.startswith("Root Cause (first observed failure)"):
            table.root = True
            table.current = None
            table.field = None
            return True
        if stripped.startswith("=" * 10):
            self._end_table(stream)
            return True
        if stripped.startswith("-" * 10):
            table.current = None
            table.field = None
            return True
        m = _TABLE_ITEM.match(stripped)
        if m:
            table.current = _Failure(number, table.root)
            table.failures.append(table.current)
            table.field = None
            return True
        if stripped in ("<NO_OTHER_FAILURES>", "Failures:"):
            return True
        m = _TABLE_FIELD.match(stripped)
        if m and current is not None and (table.field != "traceback" or m.group(1) == "time"):
            _table_field(current, m.group(1), m.group(2), number)
            if m.group(1) == "exitcode":
                current.exit_line = (number, stripped)
            table.field = m.group(1)
            return True
        if table.field == "traceback" and current is not None:
            if len(current.trace) < MAX_FRAMES:
                current.trace.append((number, rest))
            return True
        self._end_table(stream)
        return False

    def _end_table(self, stream: _Stream) -> None:
        table, stream.table = stream.table, None
        if stream.mode == "table":
            stream.mode = "idle"
        if table is None:
            return
        for failure in table.failures:
            if failure.exit is not None or failure.trace:
                self._table_observations(failure, stream)

    def _table_observations(self, failure: _Failure, stream: _Stream) -> None:
        rank = failure.rank if failure.rank is not None else failure.local
        summary = f"rank {failure.rank} (local_rank {failure.local}) exitcode {failure.exit}"
        head = failure.trace[0][1].strip() if failure.trace else ""
        if failure.exit is not None:
            number, text = failure.exit_line or (failure.line, _exit_text(failure.exit, failure.pid, rank))
            if head.startswith("Signal ") and failure.trace:
                number, text = failure.trace[0][0], head
            exit_obs = self._observe(ExitObs, number, text, stream)
            exit_obs.code = failure.exit
            exit_obs.pid = failure.pid
            exit_obs.reporter = "torchrun-table"
            exit_obs.table_root = failure.root
            exit_obs.error_file = failure.error_file if failure.error_file not in ("", "<N/A>") else None
            exit_obs.rank, exit_obs.local_rank = rank, False
            exit_obs.rank_source = "torchrun failure table"
            if failure.stamp is not None:
                exit_obs.stamp = failure.stamp
                exit_obs.stamp_carried = False
            exit_obs.evidence = [(self.label, number, text), (self.label, failure.line, summary)]
            if head and not head.startswith(("To enable traceback", "Traceback", "Signal ")):
                exit_obs.chain = self._links(head, None, known_only=True)
            self._add(exit_obs, dedupe=False)
        if head.startswith("Traceback") or (head and not head.startswith(("To enable traceback", "Signal "))):
            exc = _traceback_from_lines(failure.trace)
            if exc is None:
                return
            obs = self._observe(ExceptionObs, exc.line, exc.text, stream)
            obs.origin = "table"
            obs.exc_type = exc.type
            obs.frames = exc.frames
            obs.chain = self._links(exc.text, None)
            obs.rank, obs.local_rank = rank, False
            obs.rank_source = "torchrun failure table"
            if failure.stamp is not None:
                obs.stamp = failure.stamp
                obs.stamp_carried = False
            obs.evidence = [(self.label, failure.line, summary), (self.label, exc.line, exc.text)]
            self._add(obs, dedupe=False)

    # --- launchers, C++ and plain lines -----------------------------------------------------

    def _launcher_line(self, stream: _Stream, number: int, rest: str, cands: frozenset[int]) -> bool:
        code: int | None = None
        local: int | None = None
        global_rank: int | None = None
        pid: int | None = None
        reporter = "launcher"
        cut, stream.agent_cut = stream.agent_cut, None
        if cut is not None and cut.line == number - 1 and (m := _AGENT_FAILED_REST.match(rest.strip())):
            cut.rank, cut.local_rank, cut.pid = bounded_rank(m.group(1)), True, bounded_int(m.group(2))
            cut.rank_source = "launcher line (local rank)"
            cut.evidence.append((self.label, number, rest.strip()))
            return True
        if "exitcode" in rest and (m := _AGENT_FAILED.search(rest)):
            code, local, pid = bounded_int(m.group(1)), bounded_rank(m.group(2)), bounded_int(m.group(3))
            reporter = "torchrun-agent"
        elif "exitcode" in rest and (m := _AGENT_FAILED_CUT.search(rest.rstrip())):
            code, reporter = bounded_int(m.group(1)), "torchrun-agent"
        elif "exitcode" in rest and (m := _AGENT_FAILED_COLUMNS.search(rest)):
            code, local, reporter = bounded_int(m.group(1)), bounded_rank(m.group(2)), "torchrun-agent"
        elif "return code" in rest and (m := _DEEPSPEED_EXIT.search(rest)):
            code, reporter = bounded_int(m.group(1)), "deepspeed"
        elif "exit successfully" in rest and (m := _CARGO_EXIT.search(rest)):
            digits = m.group(1)
            code = int(digits, 16) if digits.startswith("0x") else bounded_int(digits)
            reporter = "cargo"
        elif "received by PID" in rest and (m := _SIGNAL_PID.search(rest)):
            signal = bounded_int(m.group(1))
            code, pid, reporter = (
                (-signal if signal is not None else None),
                bounded_int(m.group(3)),
                "torchelastic",
            )
        elif "*** SIG" in rest and (m := _GLOG_SIGNAL.search(rest)):
            signum = _SIGNAL_NUMBERS.get(m.group(1))
            code, pid, reporter = (
                (-signum if signum is not None else None),
                bounded_int(m.group(2)),
                "signal-handler",
            )
            self._check_before_abort(stream, number)
            stream.signal_report = (number, signum)
        elif "*** Process received signal ***" in rest:
            # A signal handler's report (Open MPI's, libSegFault's) starts; a failed check printed just
            # before it is why.
            stream.signal_head = number
            self._check_before_abort(stream, number)
            return False
        elif (
            stream.signal_head is not None
            and stream.signal_head == number - 1
            and (m := _HANDLER_SIGNAL.search(rest)) is not None
        ):
            # `Signal: Aborted (6)` under `*** Process received signal ***`: the process's own report.
            signum = bounded_int(m.group(2))
            code, pid, reporter = (
                (-signum if signum is not None else None),
                bounded_int(m.group(1)),
                "signal-handler",
            )
            stream.signal_report = (number, signum)
        elif "status code" in rest and (m := _HOROVOD_EXIT.search(rest)):
            code, global_rank, reporter = bounded_int(m.group(2)), bounded_rank(m.group(1)), "horovodrun"
        elif "Process name: " in rest and (m := _MPI_PROCESS.search(rest)):
            # Its `Exit code:` follows on the next line; the report is stated at this line.
            stream.mpi_process = (bounded_rank(m.group(1)), number, rest.strip())
            return True
        elif "MPI_ABORT was invoked" in rest and (m := _MPI_ABORT.search(rest)):
            stream.mpi_process = (bounded_rank(m.group(1)), number, rest.strip())
            if (m := _MPI_EXIT_CODE.search(rest.strip())) is None:
                return True  # its error code follows
            code, reporter = bounded_int(m.group(1)), "mpirun"
            global_rank, number, rest = stream.mpi_process
            stream.mpi_process = None
        elif stream.mpi_process is not None and (m := _MPI_EXIT_CODE.match(rest.strip())):
            code, reporter = bounded_int(m.group(1)), "mpirun"
            global_rank, number, rest = stream.mpi_process
            stream.mpi_process = None
        elif "with exit code" in rest and (m := _RANK_CRASHED.search(rest)):
            code, global_rank, reporter = bounded_int(m.group(2)), bounded_rank(m.group(1)), "launcher"
        elif "status failed cmd" in rest and (m := _PADDLE_EXIT.search(rest)):
            code, global_rank, reporter = bounded_int(m.group(2)), bounded_rank(m.group(1)), "paddle"
        elif "srun: error:" in rest and (m := _SRUN_EXIT.search(rest)):
            code = -9 if m.group(3) else bounded_int(m.group(2))
            global_rank, reporter = bounded_rank(m.group(1)), "srun"
        elif "exited on signal" in rest and (m := _MPI_SIGNAL.search(rest)):
            signal = bounded_int(m.group(3))
            code = -signal if signal is not None else None
            pid, global_rank, reporter = bounded_int(m.group(2) or ""), bounded_rank(m.group(1)), "mpirun"
        elif "signaled to shutdown" in rest and (m := _TGI_SHARD_SIGNAL.search(rest)):
            signal = bounded_int(m.group(1))
            code = -signal if signal is not None else None
            global_rank, reporter = bounded_rank(m.group(2) or ""), "text-generation-launcher"
        elif "terminated with" in rest and (m := _SPAWN_EXIT.search(rest)):
            signum = _SIGNAL_NUMBERS.get(m.group(2) or "")
            code = -signum if signum is not None else bounded_int(m.group(3))
            local, reporter = bounded_rank(m.group(1)), "spawn"
        elif "Killed" in rest and _KILLED.match(rest.strip()):
            code, reporter = -9, "shell"
        elif (
            not _raised_line(rest.strip())
            and (m := PROCESS_EXITED.search(rest) or _MAKE_ERROR.search(rest)) is not None
        ):
            # Any other tool's report of a process that ended non-zero (an IDE, a CI runner, make).
            code, reporter = bounded_int(m.group(1)), "process"
            if not code:
                return False
            named = _RANK_NAMED.search(rest[: m.start()])
            global_rank = bounded_rank(named.group(1)) if named is not None else None
        else:
            return False
        if code is None:
            return False
        if code < 0 and (same := self._exit_told_again(number, -code)) is not None:
            # MPICH's banner states the exit code (`EXIT CODE: 9`), then in words the signal that ended the
            # process (`EXIT STRING: Killed (signal 9)`): one death, reported by its signal.
            same.code, same.line, same.text = code, number, rest.strip()
            same.evidence.append((self.label, number, rest.strip()))
            return True
        obs = self._observe(ExitObs, number, rest.strip(), stream)
        obs.code = code
        obs.pid = pid
        obs.reporter = reporter
        if local is None and (lm := _LOCAL_RANK_ARG.search(rest)):
            local = bounded_rank(lm.group(1))
        elif (
            local is None
            and reporter == "deepspeed"
            and stream.before
            and stream.before[0] == number - 1
            and (lm := _LOCAL_RANK_ARG.search(stream.before[1]))
        ):
            # DeepSpeed prints the worker's whole command line before `exits with return code`; a long
            # one is wrapped, and its `--local_rank=N` is on the line before.
            local = bounded_rank(lm.group(1))
        if global_rank is not None:
            obs.rank, obs.rank_source = (
                global_rank,
                f"{reporter} line ({_GLOBAL_RANK_WORD.get(reporter, 'rank')})",
            )
        elif local is not None:
            obs.rank, obs.local_rank = local, reporter != "spawn"
            obs.rank_source = (
                "torch.multiprocessing.spawn (process index)"
                if reporter == "spawn"
                else "launcher line (local rank)"
            )
        if cands:
            obs.chain = self._links(rest.strip(), cands, known_only=True)
        if reporter == "torchrun-agent" and local is None:
            stream.agent_cut = obs  # its local rank may follow on the next line
        if reporter == "signal-handler":
            stream.signal_exit = obs
        self._add(obs)
        if reporter == "torchrun-agent":
            self._attempt_reports += 1
            # The workers it watched ended: a worker's later lines with no time of their own (a restarted
            # worker's traceback) are not dated by the lines it printed before.
            for other in self.streams.values():
                if other is not stream:
                    other.stamp = None
        return True

    def _exit_told_again(self, number: int, signal: int) -> ExitObs | None:
        """The exit this input reported just before (within a banner's lines) as a bare exit code equal to
        `signal` (the status a killed process leaves), with no rank or process id of its own."""
        previous = self.observations[-1] if self.observations else None
        if (
            isinstance(previous, ExitObs)
            and previous.file_index == self.file_index
            and 0 < number - previous.line <= _BANNER_LINES
            and previous.code == signal
            and previous.reporter == "process"
            and previous.pid is None
        ):
            return previous
        return None

    def _check_before_abort(self, stream: _Stream, number: int) -> ExceptionObs | None:
        """A failed C++ check prints its message with its source location just before `abort()`: read
        the line before a signal handler's report (glog's stack trace of the check between them) as
        the error that report is the consequence of, and return it."""
        trace = stream.check_trace
        before = number - 1
        if trace is not None and trace[1] == number - 1:
            before = trace[0] - 1  # the check's message stands before glog's stack trace of it
        previous = self.observations[-1] if self.observations else None
        if (
            previous is not None
            and type(previous) is Observation
            and before - _CHECK_TRACE_GAP <= previous.line <= before
        ):
            # Read as an error-level record (`F tensorflow/...cc:89] Check failed: ...`): it is the
            # abort's cause, an exception of C++, not a line of its own.
            line, text = previous.line, previous.text
            if not _SOURCE_LOCATED.match(text):
                return None
            self.observations.pop()
            self._seen = {key: obs for key, obs in self._seen.items() if obs is not previous}
        elif stream.last_line is not None and stream.last_line[0] == before:
            line, text = stream.last_line
            if not _SOURCE_LOCATED.match(text):
                return None
        else:
            return None
        obs: ExceptionObs = self._observe(ExceptionObs, line, text, stream)
        obs.origin = "cpp"
        obs.chain = self._links(text, None)
        self._add(obs)
        return obs

    def _cpp_without_message(self, stream: _Stream) -> None:
        """`terminate called after throwing ...` with no `what():` after it: the exception's type is
        all there is, and it is still a failure (the process aborts)."""
        if stream.cpp is None:
            return
        exc_type, start = stream.cpp
        stream.cpp = None
        text = f"terminate called after throwing an instance of '{exc_type}'"
        obs = self._observe(ExceptionObs, start, text, stream)
        obs.origin, obs.exc_type = "cpp", exc_type
        obs.cut_off = True  # weaker than any complete report, as a traceback without its exception line
        obs.chain = self._links(text, None)
        self._add(obs)

    def _cpp_observation(self, stream: _Stream, number: int, message: str, cands: frozenset[int]) -> None:
        assert stream.cpp is not None
        exc_type, start = stream.cpp
        stream.cpp = None
        obs = self._observe(ExceptionObs, number, message.strip(), stream)
        obs.origin = "cpp"
        obs.exc_type = exc_type
        obs.chain = self._links(message.strip(), cands or None)
        obs.evidence.insert(
            0, (self.label, start, f"terminate called after throwing an instance of '{exc_type}'")
        )
        # The message may go on over the next lines (a long what() wrapped by the terminal).
        continued = _Exception(None, message.strip(), number, [], cands, stream.stamp)
        continued.max_lines = LINE_MESSAGE_LINES
        continued.observation = obs
        stream.exc = continued
        stream.mode = "message"

    def _line_observation(
        self, stream: _Stream, number: int, rest: str, segment: str, cands: frozenset[int]
    ) -> bool:
        hits = self.matcher.match(segment, cands) if cands else []
        if not hits and cands and (printed := rest.strip()) != segment.strip():
            # A pattern's `^` is the start of the message: behind a rank label or launcher prefix.
            hits = self.matcher.match(printed, cands)
        facts = collective_facts(rest)
        generic = not hits and facts is None
        if generic and not (stream.error_level or _is_error_record(rest)):
            return False
        obs: Observation
        if facts is not None and facts.state != "progress":
            coll = self._observe(CollectiveObs, number, rest.strip(), stream)
            coll.state, coll.op, coll.sequence, coll.numel = facts.state, facts.op, facts.seq, facts.numel
            coll.timeout_ms, coll.last_completed = facts.timeout_ms, facts.last_completed
            coll.named_ranks, coll.named_seq = facts.named_ranks, dict(facts.named_seq)
            if facts.named_ops:
                coll.notes.append(
                    "collectives per rank: "
                    + ", ".join(f"rank {r}: {op}" for r, op in sorted(facts.named_ops.items()))
                )
                coll.named_ranks = sorted(facts.named_ops)
            if coll.rank is None and facts.reporter is not None:
                coll.rank, coll.rank_source = facts.reporter, "message ([Rank N] tag)"
            obs = coll
        else:
            obs = self._observe(Observation, number, rest.strip(), stream)
            if facts is not None:
                obs.notes.append(f"last completed collective: {facts.last_completed}")
        obs.chain = (
            self._chain_from_hits(hits, cands)
            if hits
            else [Link(None, _record_message(clean_line(rest.strip())))]
        )
        obs.warning = not _CUDA_FATAL_WARNING.search(rest) and bool(
            _WARNING_TEXT.search(rest)
            or _FALLING_BACK.search(rest)
            or (hits and all(link.entry is None or link.entry.id.endswith("-warning") for link in obs.chain))
        )
        stated = rest.strip()
        obs.logged_as_warning = bool(_WARNING_LEVEL.match(stated)) and not _NCCL_WARN.search(stated)
        if obs.warning or (generic and not rest.rstrip().endswith(":")):
            self._add(obs)
            return True
        # A known message may go on over the next lines; so does one that ends where its detail
        # starts (gRPC's `failed to connect to all addresses; last error: UNKNOWN:` and the reason).
        message = _Exception(None, rest.strip(), number, [], cands, stream.stamp)
        message.max_lines = LINE_MESSAGE_LINES
        message.observation = obs
        stream.exc = message
        stream.mode = "message"
        return True

    # --- building observations ----------------------------------------------------------------

    def _wrapped_links(self, text: str, following: str) -> list[Link]:
        """The known message of an exception line a terminal wrapped onto the next line: the two
        joined at the break (mid-word, or at a space the wrap dropped)."""
        if len(text) < _WRAP_MIN_CHARS:
            return []
        for joined in (text + following.strip(), f"{text} {following.strip()}"):
            joined = joined[:_WRAP_JOINED_CHARS]
            hits = self.matcher.match(joined, None)
            # Only a message that runs over the break: one wholly on the next line is that line's own.
            if any(hit.start < len(text) < hit.end for hit in hits):
                return self._links(joined, None, known_only=True)
        return []

    def _links(self, text: str, cands: Iterable[int] | None, *, known_only: bool = False) -> list[Link]:
        hits = self.matcher.match(text, cands)
        if not hits:
            return [] if known_only else [Link(None, clean_line(text))]
        links = self._chain_from_hits(hits, cands)
        top = hits[0]
        before = top.text[: top.start].strip()
        if top.entry.kind == "wrapper" and INNER_GROUP not in top.groups and before and len(links) == 1:
            # Two messages ran into one line ("...dense" + "torch...ChildFailedError:"): the text
            # in front of the wrapper is the error it reports.
            m = _EXC_LINE.match(before)
            if m and _ERROR_NAME.match(m.group("type")) and (m.group("msg") or "").strip():
                links.append(Link(None, before))
        return links

    def _chain_from_hits(self, hits: list[Hit], cands: Iterable[int] | None) -> list[Link]:
        chain = self.matcher.unwrap(hits[0], cands)
        links = [Link(h.entry, h.text, h.groups) for h in chain]
        last = chain[-1]
        if last.inner is not None:
            roots = [h for h in hits[1:] if h.entry.kind == "root"]
            if roots:
                links.append(Link(roots[0].entry, roots[0].text, roots[0].groups))
            else:
                links.append(Link(None, last.inner))
        return links

    def _observe(self, kind: type[Any], number: int, text: str, stream: _Stream) -> Any:
        obs = kind(self.label, self.file_index, number, text)
        self._seq += 1
        obs.seq = self._seq
        obs.rank = stream.rank
        obs.local_rank = stream.local
        if stream.rank is not None:
            obs.rank_source = self.default_rank_source if stream.rank == self.default_rank else "line prefix"
        obs.stamp = stream.stamp
        obs.stamp_carried = stream.stamp is not None and stream.stamp_line != number
        obs.evidence = [(self.label, number, text)]
        obs.quoted = stream.quoted_line == number
        return obs

    def _add(self, obs: Observation, *, dedupe: bool = True) -> None:
        if not isinstance(obs, (ExitObs, ProgressObs)):
            _rank_from_chain(obs)
        # A legacy launcher's `Command '[...]' died with ...` names the last command it started,
        # whichever child failed: its --local_rank tells only when it is 0 (one process per node).
        if (
            obs.rank is None
            and (m := _LOCAL_RANK_ARG.search(obs.text))
            and (m.group(1) == "0" or "Command '[" not in obs.text)
        ):
            obs.rank, obs.local_rank = bounded_rank(m.group(1)), True
            obs.rank_source = "--local_rank argument of the launched command"
        known = obs.known()
        key = (
            type(obs).__name__,
            obs.rank,
            known.id if known else None,
            obs.innermost_text()[:300],
            self._attempt_reports,
        )
        if dedupe:
            seen = self._seen.get(key)
            if seen is not None and (
                (obs.file_index == seen.file_index and obs.line < seen.line)
                or (seen.quoted and not obs.quoted)
            ):
                # The same failure read earlier in the input, its block closed later (a rank's chain
                # kept open until the end, after torchrun's table quoted it): it keeps its first place.
                # A sentence that quoted it gives way to the log's own report of it.
                obs.count = seen.count + 1
                if isinstance(seen, ExceptionObs) and isinstance(obs, ExceptionObs):
                    obs.adopt_frames(seen)
                self.observations[self.observations.index(seen)] = obs
                self._seen[key] = obs
                return
            if seen is not None:
                seen.count += 1
                if isinstance(seen, ExceptionObs) and isinstance(obs, ExceptionObs):
                    seen.adopt_frames(obs)
                return
        if len(self.observations) >= MAX_OBSERVATIONS:
            kind = key[:3] if not obs.warning else ("warning",)
            if kind in self._kinds_kept:
                self.dropped += 1
                return
            self._kinds_kept.add(kind)
        elif not obs.warning:
            self._kinds_kept.add(key[:3])
        self._seen[key] = obs
        self.observations.append(obs)


def _rank_from_chain(obs: Observation, links: Iterable[Link] | None = None) -> None:
    """The rank a link of the chain (or of `links`) names, unless the printer's own rank is known."""
    if obs.rank is not None and not obs.local_rank:
        return
    for link in obs.chain if links is None else links:
        if link.entry is None:
            continue
        rank = link.entry.rank_from(link.groups)
        if rank is None:
            continue
        obs.rank, obs.local_rank = rank, False
        obs.rank_source = f"message ({link.entry.id})"
        if link.entry.rank_group == "worker" and link.entry.rank_offset == 1:
            worker = link.groups.get("worker")
            obs.rank_note = (
                f"Burn numbers the secondary workers from 0: worker {worker} runs on devices[{rank}], so its "
                f"rank is {rank}; the main worker is devices[0], rank 0"
            )
        elif link.entry.framework == "burn" and link.entry.rank_fixed == 0:
            obs.rank_note = "the main worker runs on devices[0], rank 0"
        return


def _next_traceback_rank(stream: _Stream, rank: str, source: str = _SPAWN_SOURCE) -> None:
    """The rank a report gives the traceback that follows it, and what gave it."""
    stream.spawn_rank, stream.spawn_source = bounded_rank(rank), source


def _take_spawn_rank(stream: _Stream, obs: Observation) -> None:
    """The process index torch.multiprocessing.spawn's report gave the traceback after it, as its rank."""
    if stream.spawn_rank is not None:
        obs.rank, obs.local_rank = stream.spawn_rank, False
        obs.rank_source = stream.spawn_source
        stream.spawn_rank = None


def _rank_stated_in_message(obs: Observation, exc: _Exception) -> None:
    """The rank an exception's own message says it failed on (`... segment ... on rank 0`), when
    the message names one rank that way and nothing else gave the printer's rank."""
    said = {m.group(1) for text in (exc.text, *(t for _, t, _ in exc.lines)) for m in _ON_RANK.finditer(text)}
    if len(said) == 1 and (rank := bounded_rank(said.pop())) is not None:
        obs.rank, obs.local_rank = rank, False
        obs.rank_source = "the message (`on rank N`)"


def _unbox(segment: str) -> str:
    """A line of an exception group's box drawing, without the box (`  | ValueError: 1` -> `ValueError: 1`)."""
    if _GROUP_SEPARATOR.match(segment):
        return ""
    stripped = segment.lstrip(" \t")
    if stripped.startswith("+ Exception Group Traceback"):
        return TRACEBACK_HEAD
    if stripped[:1] in ("|", "+"):
        body = stripped[1:]
        return body[1:] if body.startswith(" ") else body
    return segment


def _looks_like_exception(text: str) -> bool:
    """`Type: message` or a bare exception type, as Python prints the last line of a traceback."""
    m = _EXC_LINE.match(text)
    if m is None:
        return False
    return m.group("msg") is not None or _ERROR_NAME.match(m.group("type")) is not None


def _collective_hint(text: str) -> bool:
    return "WorkNCCL(" in text or "collective" in text or "Timed out waiting" in text or "ranks" in text


def _carried_exception(exc: _Exception, line: str) -> bool:
    """Whether a line of a wrapper's message is the exception it carries (SageMaker's
    `ErrorMessage "RuntimeError: ...`): that exception is read as one of its own."""
    if exc.type is None or exc.type.rsplit(".", 1)[-1] not in WRAPPER_EXCEPTIONS:
        return False
    return _raised_line(line)


def _launcher_wrapper(line: str) -> bool:
    """Whether a line is a launcher's exception that wraps its workers' failures (torchrun's
    `ChildFailedError:`): another process raised it, so it is never part of the message above it."""
    m = _EXC_LINE.match(line) if "Error" in line or "Exception" in line else None
    return m is not None and m.group("type").rsplit(".", 1)[-1] in WRAPPER_EXCEPTIONS


def _raised_by_statement(text: str) -> str | None:
    """`raise RuntimeError("Distributed package doesn't have NCCL " "built in")` as the exception line it
    raises (`RuntimeError: Distributed package doesn't have NCCL built in`): its string literals joined."""
    m = _RAISE_STATEMENT.match(text)
    if m is None or _ERROR_NAME.match(m.group("type").rsplit(".", 1)[-1]) is None:
        return None
    literals = [a or b for a, b in _STRING_LITERAL.findall(m.group("args"))]
    message = "".join(literals).strip()
    return f"{m.group('type')}: {message}" if message else None


def _raises_the_same(exc: _Exception, text: str) -> bool:
    """Whether a line is the exception line of the type an exception read from a `raise`
    statement names (`AssertionError: ...` under `raise AssertionError(...)`)."""
    if exc.type is None or not _raised_line(text):
        return False
    m = _EXC_LINE.match(text)
    return m is not None and m.group("type").rsplit(".", 1)[-1] == exc.type.rsplit(".", 1)[-1]


def _raised_line(text: str) -> bool:
    """Whether a line is a raised exception's own line: an error type's name (also a built-in one
    typed in lower case, `assertionerror: ...`), a colon, the message."""
    m = _EXC_LINE.match(text)
    return (
        m is not None
        and m.group("msg") is not None
        and (_ERROR_NAME.match(m.group("type")) is not None or m.group("type") in _LOWER_CASE_BUILTINS)
    )


def _behind_a_label(text: str) -> str | None:
    """The exception line behind a label no reader knows, or None.

    The label is a few fields that are not a sentence: it ends in punctuation (`[w2]:`, `>>`, `|`), or
    each of its fields has a digit or a mark in it (`worker_3 ~`); "then I got ValueError: ..." is prose."""
    m = (
        _LABELLED_EXCEPTION.match(text)
        if ("Error" in text or "Exception" in text or "Interrupt" in text)
        else None
    )
    if m is None or not _raised_line(m.group("exc")):
        return None
    label = m.group("label").rstrip()
    if label[-1:] in _LABEL_END or all(not field.isalpha() for field in label.split()):
        return m.group("exc")
    return None


def _frame(m: re.Match[str]) -> Frame:
    return Frame(m.group("file"), bounded_int(m.group("line")) or 0, (m.group("func") or "").strip())


def _new_links(chain: list[Link], extra: list[Link]) -> list[Link]:
    """Links of a continuation line that add an entry the chain does not have yet."""
    present = {link.entry.id for link in chain if link.entry is not None}
    return [link for link in extra if link.entry is not None and link.entry.id not in present]


def _part_way(text: str) -> bool:
    """A count the line shows short of its total by more than a last step (a zero-based count's final
    step reads `9/10`): a run whose output ends there had not finished."""
    m = _PART_WAY_COUNT.search(text)
    return m is not None and int(m[1]) < int(m[2]) - 1


def _is_quiet(text: str) -> bool:
    """Text that may separate chained exceptions (blank lines, separators)."""
    return not text or _SEPARATOR.match(text) is not None


def _is_exit_report(text: str) -> bool:
    """Whether a line is a launcher's report of one process's exit (it ends a message block)."""
    return (
        ("exitcode" in text and _AGENT_FAILED_COLUMNS.search(text) is not None)
        or ("exited on signal" in text and _MPI_SIGNAL.search(text) is not None)
        or ("srun: error:" in text and _SRUN_EXIT.search(text) is not None)
    )


def _exit_text(code: int, pid: int | None, rank: int | None) -> str:
    who = f"rank {rank}" if rank is not None else "a process"
    pid_text = f" (pid {pid})" if pid is not None else ""
    if code < 0:
        name = SIGNAL_NAMES.get(-code, f"signal {-code}")
        return f"{who}{pid_text} was killed by {name} (exit code {code})"
    return f"{who}{pid_text} exited with code {code}"


def _table_field(failure: _Failure, name: str, value: str, number: int) -> None:
    value = value.strip()
    if name == "time":
        failure.stamp = torchrun_stamp(value)
    elif name == "rank":
        m = _TABLE_RANK.match(value)
        if m:
            failure.rank = bounded_rank(m.group(1))
            failure.local = bounded_rank(m.group(2)) if m.group(2) else None
    elif name == "exitcode":
        m = _TABLE_EXIT.match(value)
        if m:
            failure.exit = bounded_int(m.group(1))
            failure.pid = bounded_int(m.group(2)) if m.group(2) else None
    elif name == "error_file":
        failure.error_file = value
    elif name == "traceback":
        failure.trace = [(number, value)]


def _traceback_from_lines(lines: list[tuple[int, str]]) -> _Exception | None:
    frames: list[Frame] = []
    found: _Exception | None = None
    # The table indents the continuation of a multi-line traceback; undo that first.
    rest = [raw for _, raw in lines[1:] if raw.strip()]
    indent = min((len(raw) - len(raw.lstrip(" ")) for raw in rest), default=0)
    for position, (number, raw) in enumerate(lines):
        text = raw if position == 0 else raw[indent:]
        if text.strip().startswith(TRACEBACK_HEAD):
            frames = []
            continue
        if text[:1] in (" ", "\t"):
            m = _FRAME.match(text)
            if m:
                frames.append(_frame(m))
            elif frames and frames[-1].code is None and text.strip():
                frames[-1].code = text.strip()[:400]
            continue
        if text.strip() and found is None:
            m = _EXC_LINE.match(text.strip())
            found = _Exception(m.group("type") if m else None, text.strip(), number, frames, frozenset())
    return found


# --- torchelastic error files -------------------------------------------------------------------


def error_file_observations(
    matcher: FastMatcher, label: str, file_index: int, data: bytes, rank: int | None, rank_source: str | None
) -> list[Observation] | None:
    """Observations from a torchelastic `error.json`; None when the bytes are not such a file."""
    try:
        doc = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or "message" not in doc:
        return None
    message = doc["message"]
    callstack = ""
    stamp_value: Any = doc.get("timestamp")
    code: Any = None
    if isinstance(message, dict):
        extra = message.get("extraInfo")
        extra = extra if isinstance(extra, dict) else {}
        callstack = str(extra.get("py_callstack") or "")
        stamp_value = extra.get("timestamp", stamp_value)
        code = message.get("errorCode")
        text = str(message.get("message") or "")
    else:
        text = str(message)
    if text in ("", "<NONE>") and not callstack:
        return []
    reader = LogReader(matcher, label, file_index, default_rank=rank, rank_source=rank_source)
    lines = callstack.splitlines() if callstack.strip() else [text]
    for number, line in enumerate(lines, 1):
        reader.line(number, line.encode("utf-8", "replace"), matcher.candidates(line))
    found = [o for o in reader.finish(len(lines)) if not isinstance(o, ProgressObs)]
    if not found:
        fallback = ExceptionObs(label, file_index, 1, text)
        fallback.chain = [Link(None, clean_line(text))] if text else []
        found = [fallback]
    stamp = epoch_stamp(stamp_value)
    for obs in found:
        if isinstance(obs, ExceptionObs):
            obs.origin = "error-file"
        obs.rank = rank if obs.rank is None else obs.rank
        obs.rank_source = obs.rank_source or rank_source
        if stamp is not None:
            obs.stamp = stamp
            obs.stamp_carried = False
    if isinstance(code, int) and not isinstance(code, bool) and abs(code) < 1 << 16:
        exit_obs = ExitObs(label, file_index, 1, _exit_text(code, None, rank))
        exit_obs.code, exit_obs.reporter, exit_obs.rank, exit_obs.rank_source = (
            code,
            "error-file",
            rank,
            rank_source,
        )
        exit_obs.stamp = stamp
        found.append(exit_obs)
    return found
