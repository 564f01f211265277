"""Who printed a line: rank prefixes, per-file ranks and bounded rank numbers.

Launchers label lines in different ways, and a line may carry more than one label:

- torchrun `--tee` / PyTorch's rank-prefixed logging: `[rank3]: ...`;
- torchrun `--role`: `[default3]: ...` (the local rank), also under TorchX's replica label
  (`trainer/0 [3]:...`, `i.pretrain/0 [default3]:...`; a `[rankN]:` after it is the global rank);
- `srun --label`: `3: ...` (only trusted when most lines of the file look like that, because a
  Rust backtrace frame `  3: std::panicking` has the same shape);
- Open MPI `--tag-output`: `[1,3]<stderr>: ...` (job 1, rank 3); horovodrun: `[3]<stderr>: ...`;
- Lightning: `[rank: 3] ...`; Determined: `[2024-02-27T21:35:28Z] fa88a9df [rank=5] || ...`;
- `kubectl logs --prefix`: `[pod/train-worker-3/pytorch] ...` (Kubeflow numbering: with a
  `master-0` pod in the job it is rank 0 and `worker-N` is rank N+1, otherwise `worker-N` is rank N;
  a global rank label the program printed after it, `[rankN]:`, says more and wins);
- pdsh/DeepSpeed host labels (`worker-1: [rank3]: ...`, or `worker-1: ...` alone when most lines of
  the file carry one) and process-id labels (`[80746] `).
- with none of those, a logger's rank field among the fields its format puts before the message:
  `2024-01-01 10:00:00,123 - [rank 3] - ...`, `... | ERROR | rank 3 | ...`, `[node1:rank3]: ...`,
  `(TrainWorker rank=3 pid=12) ...`, `Rank 3: ...`, `[RANK 3/8] ...` (torch's own `[Rank 3]` tag
  is part of its message and is left to the analysers).

Every number is read with a bounded count of digits, and ranks above MAX_RANK are ignored, so a
hostile log cannot make ddpdoctor allocate or compute in proportion to a number it contains.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ddpdoctor.matching import LazyRegex
from ddpdoctor.records import Record, field

MAX_RANK = 1 << 20  # more ranks than any job has; larger numbers are not ranks
_MAX_PREFIXES = 4

# `[80746] ` process ids, Ray's `(WorkerDict pid=231421) ` / `(pid=123, ip=10.0.0.1) ` labels (SkyPilot's
# `(task-name, pid=18593) ` too, and `(head, rank=0, pid=5634) `, whose rank is the node's, not a process's),
# and a platform's channel label (`[stderr]`, glued to the text on Azure ML).
_PID_LABEL = LazyRegex(
    r"\[\d{1,10}\] |\((?:[\w.-]{1,64}, rank=\d{1,7}, |[\w.-]{1,64},? )?pid=\d{1,10}(?:, ip=[\d.]{1,40})?\) "
    r"|\[std(?:out|err)\] ?"
)
_HOST_LABEL = LazyRegex(r"[\w.-]{1,128}: (?=\[)")
# The reporter's own heading glued before a pasted line (`报错信息：[rank4]: ...`, `Error log: [rank1]: ...`).
_HEADING = LazyRegex(r"[^\[\](){}:：\t]{1,40}[：:] ?(?=\[)")
# A progress bar whose carriage return the paste lost, glued before the next line's label
# (`  0%|          | 0/60 [00:00<?, ?it/s][rank0]:[E ...`): tqdm's `desc: NN%|bar| n/total [time, rate]`.
_PROGRESS_BAR = LazyRegex(
    r"(?:[^|\n]{0,80}:)? {0,4}\d{1,3}%\|[^|\n]{0,200}\| ?[\d.?]{1,12}[kMG]?/[\d.?]{1,12}[kMG]? \[[^\]\n]{0,120}\](?=\[)"
)
# TorchX's label of a role's replica and the local rank after it (`trainer/0 [1]:...`, or with torchrun's
# role name, `i.pretrain/0 [default2]:...`).
_REPLICA_LABEL = LazyRegex(r"[A-Za-z_][\w.-]{0,63}/\d{1,5} \[(?:[A-Za-z_][\w-]{0,63}?)?(\d{1,7})\]:[ \t]?")
_RANK_LABELS: tuple[tuple[LazyRegex, str], ...] = (
    (LazyRegex(r"\[rank(\d{1,7})\]:[ \t]?"), "rank"),
    (LazyRegex(r"\[RANK (\d{1,7})\][ \t]?"), "rank"),
    (LazyRegex(r"\[(?:\d{1,7},)?(\d{1,7})\]<std(?:out|err)>:[ \t]?"), "rank"),
    (LazyRegex(r"\[rank: ?(\d{1,7})\][ \t]?"), "rank"),
    (LazyRegex(r"\[[A-Za-z_][\w-]{0,64}?(\d{1,7})\]:[ \t]?"), "local"),
    (LazyRegex(r"\[[^\]]{10,40}\] [0-9a-f]{8} \[rank=(\d{1,7})\] \|\|[ \t]?"), "rank"),
)
_LEADING_TIME = LazyRegex(
    r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?:? {1,4}(?=\[)"
    # `mpirun --timestamp-output`: `Wed Sep 20 23:55:19 2017[1,68]<stderr>:`
    r"|[A-Z][a-z]{2} [A-Z][a-z]{2} {1,2}\d{1,2} \d\d:\d\d:\d\d \d{4} {0,4}(?=\[)"
)
# What a log collector puts before every line it stores: Docker Compose's service label (`trainer-1  | `),
# Determined's trial id (`13047a84-...-6475139b76b3 || `) and an RFC 3339 time (`kubectl logs
# --timestamps`, `docker logs -t`, CI runners, cloud log exports).
_COLLECTOR_LABEL = LazyRegex(
    r"[\w.-]{1,64} {1,20}\|(?: |$)"
    r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} \|\|(?: |$)"  # Determined's trial logs
)
# (A blank line under a collector's prefix is the prefix alone, its trailing space stripped.)
_COLLECTOR_TIME = LazyRegex(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d)(?: |$)")
# ... or a date and time in brackets (Jenkins' timestamper, `ts '[%Y-%m-%d %H:%M:%S]'`), in a file whose lines
# nearly all carry one (see collector_bracketed): elsewhere it is a program's logger's (DeepSpeed's `[2023-04-14
# 13:11:21,054] [INFO] ...`), which starts a record of its own.
_BRACKETED_TIME = LazyRegex(
    r"\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\](?: |$)"
)
# What follows a collector's time, never a logger's: a traceback's lines and indented ones (under torch's
# `[rank1]: ` and torchrun's `[default1]:` too), torchrun's own record.
_NOT_A_RECORD = LazyRegex(
    r"(?:\[\w{1,40}\]: ?)?(?:Traceback \(most recent call last\):|  |\t)|[IWEF]\d{4} \d\d:\d\d:\d\d"
)
# syslog's and journald's record header (`journalctl -u train`): `Dec 02 06:51:34 gpu-node07 torchrun[27700]: `,
# or with an RFC 3339 time (`journalctl -o short-iso`).
_SYSLOG_HEADER = LazyRegex(
    r"(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d))"
    r" [\w.-]{1,64} [\w./-]{1,64}\[\d{1,10}\]:(?: |$)"
)
_KUBECTL = LazyRegex(r"\[pod/[\w.-]{0,200}?-(master|worker|launcher)-(\d{1,7})/[\w.-]{0,100}\][ \t]?")
# ... which, for a pod whose name gives no role and index (`[pod/trainer-7f9c4-xk2p/pytorch] `), is a log
# collector's label alone.
_POD_LABEL = LazyRegex(r"\[pod/[\w.-]{1,253}/[\w.-]{1,100}\](?: |$)")
SRUN_LABEL = LazyRegex(r"(\d{1,5}): ")
_HOST_LINE = LazyRegex(r"([A-Za-z][\w.-]{0,127}|\d{1,3}(?:\.\d{1,3}){3}):(?: |$)")
_HOSTISH = LazyRegex(r"[\d.-]")
_EXCEPTION_START = LazyRegex(r"(?:[A-Za-z_]\w{0,60}\.){0,6}[A-Z]\w{0,60}(?:Error|Exception)\w{0,60}: ")
_NOT_A_HOST = LazyRegex(
    r"(?i)error|exception|warning|fault|info|debug|critical|traceback|https?$"
    r"|^(?:local[_-]?)?rank[_-]?\d{1,7}$"  # `rank3: ...` is a rank label, read as one
    # a program's name, as argparse and shells put it before their messages (`launch.py: error: ...`)
    r"|\.(?:py|sh|bash|exe|pl|rb|js)$"
    # Slurm's step daemon on a node (`slurmstepd-node01: error: ...`): the job's scheduler, not a host label
    r"|^slurmstepd-"
    # an error code, as Ascend's CANN puts one before each of its messages (`EI0006: ...`, `EE9999: ...`)
    r"|^(?-i:[A-Z]{1,3}\d{4,6})$"
)

# Rank fields of loggers' own line formats, read when no launcher label is found (see _logger_label).
_FIELD_RANK = LazyRegex(
    r"(?i)(?<![a-z])(local[_ ]?)?rank[ :=_#]{0,2}(\d{1,7})(?:\s{0,2}/\s{0,2}\d{1,7})?(?!\w)"
)
# ... or a bracketed `[N/M]` alone, in a file whose lines count ranks so from 0 (see counted_ranks); its first
# group, as _FIELD_RANK's, would say the rank is node-local.
_COUNTED_RANK = LazyRegex(r"(local_)?(\d{1,5})/(?=\d{1,5}$)")
_COUNTED_LINE = LazyRegex(r"(?:\[[A-Za-z_][\w-]{0,64}?\d{1,7}\]:)?\[(\d{1,5})/(\d{1,5})\] ")
# ... or, as a bracketed label's word, short for it (`[search r0]`, `[BA-WEST r2]`, `[r1]`), also before a
# part of the label of the rank's own (`[fab r2/GC-C]`, `[r1 north]`).
_SHORT_FIELD_RANK = LazyRegex(r"(?<![\w.-])(local_)?r(\d{1,5})(?=$|[/ ])")
# (`rank 3 | `, `rank 2/4: `, a `key=value` field: `rank=3 trainer: `, `rank=1/4 stats: `, and one word: `INFO rank0 MainThread `,
# `INFO ... rank0/4 triage.encoder - `, a rank of a count before the message: `[INFO] rank 0/4 north_block: `, and
# a rank before one name and a colon: `rank 1 nieuwpoort_coast: `)
_BARE_FIELD_RANK = LazyRegex(
    r"(?i)(local[_ ]?)?rank(?:[ _#]?(\d{1,7})(?:/\d{1,7})?(?=\s{0,4}[:|\]-])|=(\d{1,7})(?:/\d{1,7})?(?=[\s,;|])"
    r"|(\d{1,7})(?:/\d{1,7})?(?=\s)| (\d{1,7})/\d{1,7}(?=\s)| (\d{1,7})(?= [\w.-]{1,40}: ))"
)
# ... or, in lower case, before a word of the message (`rank 2 using 8 buckets`), in a file whose lines start
# so for two ranks or more with one word (see worded_ranks): one line alone (`rank 3 failed to join`) may
# name another rank, and torch's own messages say `Rank 0 using best-guess GPU 0`.
_WORDED_RANK = LazyRegex(r"(local_)?rank (\d{1,7})(?= [a-z][\w-]{0,40} )")
_WORDED_LINE = LazyRegex(r"(?<![\w.-])rank (\d{1,7}) ([a-z][\w-]{0,40}) ")
# ... or a tag of the script's own first on the line, a number alone or after a word or two, in brackets, as a
# `key=value` or `key[value]` field or run into its word (`[2] `, MPICH's `-prepend-rank`; `<tower1> `, `[worker
# 3] `, `(gpu 2) `, `[tg-bench ch1] `, `[heater dining/1] `, `tower=2 `, `region[2] `, `stand2 day 3: `), in a file whose lines start
# with that tag for two numbers or more, 0 among them (see tagged_ranks). A part of the rank's own may follow the
# number (`<zone 2:airport_link> `, `[rebal 2/3] `). The first group, as _FIELD_RANK's, would say the rank is
# node-local; the second is the tag's word.
_TAGGED_LINE = LazyRegex(r"([\[(<])([^\[\](){}<>]{1,40})([\])>]) ")
_TAG_RANK = LazyRegex(
    r"(local_)?((?:[A-Za-z][A-Za-z_-]{0,30}[ _#:=/-]?){0,2})(\d{1,4})(?=(?:[:/][\w./-]{1,40})?$)"
)
_KEYED_RANK = LazyRegex(
    r"(local_)?([A-Za-z][A-Za-z_]{0,30}[=\[]|[A-Za-z][A-Za-z_]{1,30})(\d{1,4})\]?(?=[ ,;|:])"
)
# Words whose numbers count the steps of one process, not processes (`[epoch 0] `, `[chunk 2] `).
_COUNTER_WORDS = frozenset(
    [
        "attempt",
        "batch",
        "chunk",
        "cycle",
        "epoch",
        "fold",
        "iter",
        "iteration",
        "it",
        "page",
        "part",
        "pass",
        "retry",
        "round",
        "run",
        "step",
        "trial",
        "try",
        "v",
        "version",
    ]
)
# torch's own tags in its messages (`[Rank 3] Watchdog ...`, `[PG ID 0 PG GUID 0(default_pg) Rank 3] ...`):
# part of the message, which the analysers read.
_TORCH_TAG = LazyRegex(r"\[(?:PG [^\]]{0,80})?Rank \d{1,7}\] ")
_LOG_TIME = LazyRegex(
    r"(?:(?:\d{4}-)?\d\d-\d\d[ T])?\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?(?!\d)"
)
_ERROR_LEVELS = frozenset(("ERROR", "FATAL", "CRITICAL"))
_WARNING_LEVELS = frozenset(("WARNING", "WARN"))
_LEVELS = _ERROR_LEVELS | _WARNING_LEVELS | {"INFO", "DEBUG"}  # the levels _LOG_LEVEL reads
# A level field, with the spaces a padded format adds (`%(levelname)-8s`: `INFO     rank=3 ...`).
_LOG_LEVEL = LazyRegex(r"(ERROR|WARNING|WARN|INFO|DEBUG|CRITICAL|FATAL)(?= )(?: {1,4}(?= ))?")
# Python logging's default record (`basicConfig()`: `%(levelname)s:%(name)s:%(message)s`), a logger named
# for its rank (`ERROR:rank1:ewc: anchor not found`).
_DEFAULT_RECORD = LazyRegex(r"(ERROR|WARNING|WARN|INFO|DEBUG|CRITICAL|FATAL):([\w.<>-]{1,60}):")
_LOG_FIELD = LazyRegex(r"[\w.<>-]{1,60}(?= {1,4}[|-] )")  # a level or a logger's name between separators
# ... or a name first on the line before a parenthesized rank field (`bench-b (rank 1): logs synced`)
# (not an exception's name: `RuntimeError (rank 3): ...` is a message)
_NAME_BEFORE_RANK = LazyRegex(
    r"(?![\w.]{0,40}(?:Error|Exception|Warning|Interrupt) )[A-Za-z][\w.-]{0,40} (?=\((?i:rank)[ _#=]?\d{1,7}\): )"
)
# ... or a `key=value` field of a logfmt line before its rank field (`wing=night_spa rank=2 epoch=0 ...`)
_LOGFMT_FIELD = LazyRegex(r"[A-Za-z_][\w.-]{0,30}=[^\s=\[\]()]{1,60}(?= )")
# ... or a logger's name after a record's time or level, with a colon, before a bracketed field or a bare
# rank field (`%(asctime)s %(levelname)s %(name)s: [RANK 1] ...`, `INFO lens_cleaning: rank 2: district ...`)
_LOGGER_NAME = LazyRegex(r"[\w.<>-]{1,60}:(?= ?(?:[\[(]|(?i:rank)[ _#=]?\d))")
# ... or a logger's name after a record's time or level whose last part is the rank (`%(name)s` of
# `logging.getLogger(f"frost.rank{rank}")`: `INFO frost.rank2: ...`, `trainer-rank_3: `).
_NAMED_RANK = LazyRegex(r"[A-Za-z_][\w-]{0,40}(?:\.[\w-]{1,40}){0,4}[._-](local_)?(?i:rank)_?(\d{1,7}):? ")
# A process or thread id after the record's time or level, before a bracketed field (`%(process)d [rank 0]`).
_PROCESS_FIELD = LazyRegex(r"\d{1,10}(?= {1,4}[\[(])")
# A field's separator, and one space: more is the message's own indentation (a traceback's frames).
_FIELD_SEPARATOR = LazyRegex(r"(?:[ \t]{0,4}[|:-](?![\w/]))?[ \t]?")
_CLOSERS = {"[": "]", "(": ")", "<": ">"}
_LABEL_SPAN = 200  # a line's label region is within its first characters

# NCCL's own label of a record: `host:pid:tid [device] ` (a source location may follow) before `NCCL`.
NCCL_PROCESS = LazyRegex(
    r"(?P<host>[^\s:\[\]]{1,200}):(?P<pid>\d{1,10}):\d{1,10} \[(?P<dev>\d{1,4})\] (?:\S{1,200} )?NCCL "
)
_TORCHRUN_FILE = LazyRegex(r"attempt_\d{1,7}$")
# How a rank read from torchrun's `--log-dir` layout (`attempt_0/<local_rank>/stdout.log`) is told.
TORCHRUN_FOLDER = "torchrun log folder (local rank)"
# `rank3.log`, `train_rank-3.txt`, `log.rank3.err.gz`, a folder `rank3`, a script's own `worker-3.log`
# per process: the rank ends the name.
_RANK_IN_NAME = LazyRegex(
    r"(?:^|.*[_.-])(?:local_)?(?:rank|worker)[-_]?(\d{1,5})(?:\.(?:log|txt|out|err|json))*(?:\.gz)?$",
    re.IGNORECASE,
)


def bounded_rank(digits: str | None) -> int | None:
    """A rank read from text: ASCII digits of a plausible size, else None."""
    if digits is None:
        return None
    digits = digits.strip()
    if not digits.isascii() or not digits.isdigit() or len(digits) > 7:
        return None
    value = int(digits)
    return value if value < MAX_RANK else None


def rank_list(ranks: Sequence[int], limit: int = 16) -> str:
    """`0, 1, 3`, or past `limit` ranks `0, 1, ..., 15 and 4079 more`: output stays short for any job."""
    if len(ranks) > limit:
        return ", ".join(map(str, ranks[:limit])) + f" and {len(ranks) - limit} more"
    return ", ".join(map(str, ranks))


def bounded_int(text: str | None, *, limit: int = 1 << 62) -> int | None:
    """A signed integer read from text (at most 19 digits, |value| < limit), else None."""
    if text is None:
        return None
    text = text.strip()
    body = text[1:] if text[:1] in "+-" else text
    if not body.isascii() or not body.isdigit() or len(body) > 19:
        return None
    value = int(text)
    return value if -limit < value < limit else None


class LabelFormats(Record, frozen=True):
    """A file's own ways of labelling its lines with a rank, read from its first lines (label_formats)."""

    counted: frozenset[int] = frozenset()  # world sizes M whose `[N/M]` labels are ranks (counted_ranks)
    worded: bool = False  # lines start `rank N <word>` for several ranks (worded_ranks)
    tagged: frozenset[str] = frozenset()  # the tags (bracket and word) whose numbers are ranks (tagged_ranks)
    named: dict[str, int] = field(default_factory=dict)  # name tags that stand for a rank (named_ranks)


NO_FORMATS = LabelFormats()  # a file that labels no line in a way of its own


class Prefix:
    """The labels found at the start of a line."""

    __slots__ = ("level", "local", "local_label", "rank", "rest")

    def __init__(
        self,
        rank: int | None,
        local: bool,
        rest: str,
        local_label: int | None = None,
        *,
        level: str | None = None,
    ) -> None:
        self.rank = rank
        self.local = local
        self.rest = rest
        # A node-local label the global one after it refines (`[default1]:[rank9]:` -> 1).
        self.local_label = local_label
        # The level the logger's fields peeled with the rank gave the record (`[CRITICAL][RANK 0] ...`).
        self.level = level

    @property
    def error_level(self) -> bool:
        """Whether the logger's fields said the record is an error."""
        return self.level in _ERROR_LEVELS

    @property
    def warning_level(self) -> bool:
        """Whether the logger's fields said the record is a warning."""
        return self.level in _WARNING_LEVELS


def split_prefix(
    line: str,
    *,
    srun: bool = False,
    kube_master: bool = False,
    hosts: frozenset[str] = frozenset(),
    formats: LabelFormats = NO_FORMATS,
) -> Prefix:
    """Peel the rank labels off a line whose log collector's label and time (`collector_end`) are
    already off; `rest` is the text the program printed.

    `kube_master`: the job has a Kubeflow `master` pod, so `worker-N` pods are rank N+1.
    `hosts`: the pdsh-style host labels (`worker-1: `) this file's lines start with.
    `formats`: the file's own rank labels that a line alone does not show to be one (see label_formats).
    """
    for _ in range(2 if hosts else 0):  # pdsh under pdsh labels twice (`10.0.0.7: 10.0.0.7: ...`)
        host = _HOST_LINE.match(line)
        if host is None or host.group(1) not in hosts:
            break
        line = line[host.end() :]
    host = _HOST_LINE.match(line) if line[:1].isalnum() else None
    if (
        host is not None
        and _HOSTISH.search(host.group(1))
        and not _NOT_A_HOST.search(host.group(1))
        and _EXCEPTION_START.match(line, host.end())
    ):
        line = line[host.end() :]  # a host's label, on too few lines for `hosts`, before an exception
    rest = line.lstrip(" \t")
    stamp = _LEADING_TIME.match(rest) if rest[:1].isalnum() else None
    if stamp is not None:
        rest = rest[stamp.end() :]  # `2024-11-20 14:37:16 [rank3]: ...`: a logger's time before the label
    if rest[:1].isalpha() and (replica := _REPLICA_LABEL.match(rest)) is not None:
        rest = rest[replica.end() :]
        found = _rank_label(rest, kube_master)
        if found is not None and found[0] is not None and not found[1]:
            return Prefix(found[0], False, rest[found[2] :])  # the program's global `[rank2]:` says more
        return Prefix(bounded_rank(replica.group(1)), True, rest)
    if (
        rest[:1] not in ("[", "(")
        and (heading := _HEADING.match(rest) or _PROGRESS_BAR.match(rest)) is not None
        and (found := _rank_label(rest[heading.end() :], kube_master)) is not None
        and found[0] is not None
    ):
        rest = rest[heading.end() :]
    if rest[:1] not in ("[", "(") and not (srun and rest[:1].isdigit()) and not _HOST_LABEL.match(rest):
        # No launcher label: keep the indentation (traceback frames need it).
        return _logger_prefix(line, formats)
    rank: int | None = None
    local = False
    local_label: int | None = None
    # The rank so far is srun's task number or a pod's index (one per node when a pod runs several
    # ranks): a launcher's own label after it says more.
    task = False
    for _ in range(_MAX_PREFIXES):
        m = _PID_LABEL.match(rest)
        tag = _leading_tag(rest) if m and formats.tagged else None
        if m and not (tag and _tag_rank(tag.group(1), tag.group(2), formats)):  # (a rank's tag, not a pid)
            rest = rest[m.end() :]
            continue
        found = _rank_label(rest, kube_master)
        if found is None:
            host = _HOST_LABEL.match(rest)
            found = _rank_label(rest[host.end() :], kube_master) if host else None
            if found is not None and host is not None:
                rest = rest[host.end() :]
        from_srun = False
        if found is None and srun and rank is None:
            m = SRUN_LABEL.match(rest)
            if m:
                found, from_srun = (bounded_rank(m.group(1)), False, m.end()), True
        if found is None:
            break
        value, is_local, end = found
        if value is not None and (rank is None or task or (local and not is_local)):
            if local and not is_local and not task:
                local_label = rank
            rank, local, task = value, is_local, from_srun or rest.startswith("[pod/")
        rest = rest[end:]
    if rank is None:
        unlabelled = stamp is not None or rest == line.lstrip(" \t")
        return _logger_prefix(line, formats) if unlabelled else Prefix(None, False, rest)
    logged = _logger_label(rest, formats) if rest[:1].isalnum() or rest[:1] in _CLOSERS else None
    if logged is None:
        return Prefix(rank, local, rest, local_label)
    # The program's logger wrote fields of its own after the launcher's label (`[default2]:2026-... |
    # rank 2/4 | ERROR | ...`): its level says whether the record is an error, its global rank says more
    # than a node-local label.
    logged_rank, logged_local, end, level = logged
    if local and not logged_local:
        local_label, rank, local = rank, logged_rank, False
    return Prefix(rank, local, rest[end:], local_label, level=level)


def collector_end(line: str, bracketed: bool = False) -> int:
    """Where a log collector's label and time in front of a line end (0 when there are none).

    Collectors stack in any order (a Compose label before a journald record, a time before a label).
    `bracketed`: the file's collector puts its time in brackets (see collector_bracketed)."""
    end = 0
    for _ in range(3):
        start = end
        if line[end : end + 1].isalnum() and (header := _SYSLOG_HEADER.match(line, end)) is not None:
            end = header.end()
        first = line[end : end + 1]
        if first.isdigit():
            time = _COLLECTOR_TIME.match(line, end)
        else:
            time = _BRACKETED_TIME.match(line, end) if bracketed and first == "[" else None
        if time is not None:
            end = time.end()
        pod = _POD_LABEL.match(line, end) if line.startswith("[pod/", end) else None
        if pod is not None and not _KUBECTL.match(line, end):
            end = pod.end()
        label = _COLLECTOR_LABEL.match(line, end) if line[end : end + 1].isalnum() else None
        if label is not None and not (end and label.group().split()[0].isupper()):
            end = label.end()  # after a time, not a logger's level field (`ERROR    | ...`)
        if end == start:
            break
    return end


def _logger_prefix(line: str, formats: LabelFormats) -> Prefix:
    """A logger's rank field in front of the message, else the line as it is."""
    text = line.lstrip(" \t")
    if not text[:1].isalnum() and text[:1] not in _CLOSERS:
        return Prefix(None, False, line)
    found = _logger_label(text, formats)
    if found is None:
        return Prefix(None, False, line)
    rank, local, end, level = found
    return Prefix(rank, local, text[end:], level=level)


def _logger_label(text: str, formats: LabelFormats) -> tuple[int, bool, int, str | None] | None:
    """(rank, local, end of the labels, the level a field gave, the most severe) from a logger's fields
    in front of the message.

    Reads the bracketed, parenthesized and pipe- or dash-separated fields a logging format puts first
    (`2024-01-01 10:00:00,123 - [rank 3] - `, `... | ERROR | rank 3 | `, `[node1:rank3]: `,
    `(VllmWorker rank=3 pid=12) ERROR 09-09 02:24:28 [executor.py:522] `, `Rank 3: `); it stops at the first thing that is not such a field,
    so a rank named inside the message (`ValueError: rank 3 ...`) is not taken as the printer."""
    pos, found, end, level = 0, None, 0, None
    limit = min(len(text), _LABEL_SPAN)
    while pos < limit:
        opener = text[pos]
        if opener in _CLOSERS:
            close = text.find(_CLOSERS[opener], pos + 1, pos + 100)
            if close < 0 or (pos > 0 and _TORCH_TAG.match(text, pos)):
                break  # torch's tag after a record's fields is its message's; first on the line it is a label
            inside = text[pos + 1 : close]
            for part in inside.replace("|", " ").replace(":", " ").split():  # (`[ERROR|rank1|resume]`)
                level = _severer(level, part)
            # A label, not a printed list or command line (`['python', 'train.py', '--local_rank=1']`).
            labelish = found is None and not any(mark in inside for mark in ("'", '"', "--"))
            field = (
                (
                    _FIELD_RANK.search(inside)
                    or _SHORT_FIELD_RANK.search(inside)
                    or _counted_rank(inside, formats.counted)
                    or _tag_rank(opener, inside, formats)
                )
                if labelish
                else None
            )
            if labelish and formats.named and (named := formats.named.get(text[pos : close + 1])) is not None:
                found = (named, False)
            pos = close + 1
        elif pos == 0 and (m := _NAME_BEFORE_RANK.match(text)):
            field, pos = None, m.end()
        elif pos == 0 and (m := _DEFAULT_RECORD.match(text)):
            level = _severer(level, m.group(1))
            field, pos = _FIELD_RANK.search(m.group(2)), m.end()
        elif (m := _LOG_TIME.match(text, pos)) or (m := _LOG_LEVEL.match(text, pos)):
            level = _severer(level, m.group(m.lastindex or 0))
            field, pos = None, m.end()
        elif pos and found is None and (m := _NAMED_RANK.match(text, pos)):
            field, pos = m, m.end()
        elif pos and (
            (m := _PROCESS_FIELD.match(text, pos)) or (found is None and (m := _LOGGER_NAME.match(text, pos)))
        ):
            field, pos = None, m.end()
        elif found is None and (
            (m := _BARE_FIELD_RANK.match(text, pos))
            or (formats.worded and (m := _WORDED_RANK.match(text, pos)))
            or (formats.tagged and (m := _KEYED_RANK.match(text, pos)) and m.group(2) in formats.tagged)
        ):
            field, pos = m, m.end()
        elif (m := _LOG_FIELD.match(text, pos)) or (found is None and (m := _LOGFMT_FIELD.match(text, pos))):
            field, pos = None, m.end()
        else:
            break
        if field is not None:
            rank = bounded_rank(field.group(field.lastindex or 0))  # the number is the last group
            if rank is not None:
                found = (rank, field.group(1) is not None)
        separator = _FIELD_SEPARATOR.match(text, pos)
        pos = separator.end() if separator else pos
        if found is not None:
            end = pos  # the labels go on over the record's other fields (`ERROR 09-09 02:24:28 [x.py:522] `)
    return (found[0], found[1], end, level) if found is not None else None


def _severer(level: str | None, field: str) -> str | None:
    """The more severe of a level already read and a field, when the field is a level of its own."""
    if field in _ERROR_LEVELS:
        return field
    if field in _WARNING_LEVELS and level not in _ERROR_LEVELS:
        return field
    return level


def _rank_label(text: str, kube_master: bool) -> tuple[int | None, bool, int] | None:
    if not text.startswith("["):
        return None
    for regex, kind in _RANK_LABELS:
        m = regex.match(text)
        if m:
            return bounded_rank(m.group(1)), kind == "local", m.end()
    m = _KUBECTL.match(text)
    if m:
        index = bounded_rank(m.group(2))
        role = m.group(1)
        if index is None or role == "launcher":
            return None, False, m.end()
        rank = 0 if role == "master" else index + (1 if kube_master else 0)
        return rank, False, m.end()
    return None


def looks_srun_labelled(lines: list[str]) -> bool:
    """Whether a file's first lines (`program_lines`) carry `srun --label` numbers: at column 0, or
    after the one space srun pads a shorter task number with (` 4: ` among `12: `; a Rust backtrace's
    `   3: std::...` frames are indented further), on a good share of them."""
    if len(lines) < 3:
        return False
    labelled = sum(1 for line in lines if SRUN_LABEL.match(line.removeprefix(" ")))
    return labelled >= 3 and labelled >= 0.4 * len(lines)


def head_lines(head: bytes) -> list[str]:
    """The first non-blank lines of a file's first bytes, as text."""
    return [line for raw in head.split(b"\n")[:200] if (line := raw.decode("utf-8", "replace").rstrip())]


def collector_bracketed(lines: list[str]) -> bool:
    """Whether a log collector put a bracketed date and time before nearly every one of a file's first
    lines (`head_lines`), a traceback's or an indented line's among them (no program's logger stamps
    those)."""
    rests = [line[m.end() :] for line in lines if (m := _BRACKETED_TIME.match(line))]
    return (
        len(rests) >= 3
        and len(rests) >= 0.9 * len(lines)
        and any(_NOT_A_RECORD.match(rest) for rest in rests)
    )


def program_lines(lines: list[str], bracketed: bool = False) -> list[str]:
    """A file's first lines (`head_lines`) as the program printed them: a log collector's label and time
    taken off (`bracketed`: see collector_bracketed), lines left blank by that dropped."""
    return [line for whole in lines if (line := whole[collector_end(whole, bracketed) :]).strip()]


def common_margin(head: bytes) -> bytes:
    """The whitespace every line of a file's first bytes starts with (a paste indented as a whole: a
    Markdown code block, a quoted log), to be taken off each line; empty when there is none."""
    lines = [line.rstrip(b"\r") for line in head.split(b"\n")[:200] if line.strip()]
    if not lines:
        return b""
    margins = [line[: len(line) - len(line.lstrip(b" \t"))] for line in lines]
    shortest = min(margins, key=len)
    if not shortest or any(not margin.startswith(shortest) for margin in margins):
        return b""
    # A paste of a line or two is a code block only when indented as one (four spaces or a tab):
    # a shallower indent is a traceback's own (an excerpt of a frame and its code line).
    if len(lines) < 3 and not (shortest.startswith(b"\t") or len(shortest) >= 4):
        return b""
    return shortest


def host_labels(lines: list[str]) -> frozenset[str]:
    """The pdsh-style host labels (`worker-1: ...`) that start a good share of a file's first lines
    (`program_lines`).

    A label must look like a host name (a digit, `-` or `.` in it) and not like an exception, a log
    level (`RuntimeError: ...`) or a program's name (`launch.py: error: ...`), and appear on at least
    three lines."""
    counts: dict[str, int] = {}
    for line in lines:
        m = _HOST_LINE.match(line)
        if m is not None and _HOSTISH.search(m.group(1)) and not _NOT_A_HOST.search(m.group(1)):
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    labelled = sum(counts.values())
    if labelled < 3 or labelled < 0.4 * len(lines):
        return frozenset()
    return frozenset(label for label, count in counts.items() if count >= 3)


def counted_ranks(lines: list[str]) -> frozenset[int]:
    """The world sizes M for which a file's lines start with `[N/M]` labels that count ranks (`[0/4] field
    673: ...`, also behind torchrun's `[default0]:`): two or more numbers below M, 0 among them (a
    progress counter, `[1/4] Building ...`, starts at 1)."""
    seen: dict[int, set[int]] = {}
    for line in lines:
        if line[:1] == "[" and (m := _COUNTED_LINE.match(line)) is not None:
            seen.setdefault(int(m.group(2)), set()).add(int(m.group(1)))
    return frozenset(
        world for world, ranks in seen.items() if 0 in ranks and len(ranks) >= 2 and max(ranks) < world
    )


def label_formats(lines: list[str]) -> LabelFormats:
    """The rank labels of a file's own (`[N/M]`, `rank N <word>`, `[N] `, a name tag) that its first lines show,
    also behind a launcher's label (`[default1]:[lanes 1] ...`, torchrun's `--tee`)."""
    lines = [_behind_launcher_labels(line) for line in lines]
    return LabelFormats(counted_ranks(lines), worded_ranks(lines), tagged_ranks(lines), named_ranks(lines))


def _behind_launcher_labels(line: str) -> str:
    """A line's text after the launchers' rank labels in front of it (`[default1]:`, `[rank1]:`)."""
    for _ in range(_MAX_PREFIXES):
        found = _rank_label(line, False) if line[:1] == "[" else None
        if found is None or found[0] is None:
            break
        line = line[found[2] :]
    return line


def named_ranks(lines: list[str]) -> dict[str, int]:
    """The name tags a script's lines start with (`<aws_conduit_AG3> `) that a line of theirs once followed with
    the rank (`<aws_conduit_AG3> rank=2 rows=256`), or that end in a number after a word of each tag's own
    (`<roman:0> `, `<italic:1> `, `[sectorC:2] `): each stands for that rank on the lines it starts alone,
    where two tags or more do so for ranks of their own, 0 among the numbers a tag carries (a tag seen with
    two ranks, two tags with one rank, or a word seen with two numbers, stand for none)."""
    seen: dict[str, set[int]] = {}
    numbered: dict[str, tuple[str, int]] = {}
    words: dict[str, set[str]] = {}
    for line in lines:
        if (
            (m := _leading_tag(line)) is None
            or m.group(2).upper() in _LEVELS  # (a level every rank's records carry)
            or _logger_label(line[: m.end()], NO_FORMATS) is not None  # (a rank label itself)
        ):
            continue
        tag = line[: m.end() - 1]
        if (after := _logger_label(line[m.end() :], NO_FORMATS)) is not None:
            seen.setdefault(tag, set()).add(after[0])
        elif (own := _TAG_RANK.match(m.group(2))) is not None and own.group(2).strip(" _#:=/-"):
            numbered[tag] = (own.group(2), int(own.group(3)))
            words.setdefault(own.group(2), set()).add(own.group(3))
    named = {tag: next(iter(ranks)) for tag, ranks in seen.items() if len(ranks) == 1}
    if not named and any(rank == 0 for _, rank in numbered.values()):
        named = {
            tag: rank
            for tag, (word, rank) in numbered.items()
            if len(words[word]) == 1 and not _counts_steps(word)
        }
    if len(named) < 2 or len(set(named.values())) < len(named):
        return {}
    return named


def tagged_ranks(lines: list[str]) -> frozenset[str]:
    """The tags of a script's own that start a file's lines with the rank (`[0] loader ready`, `<tower2> ...`,
    `tower=1 epoch=0 ...`, `stand0 day 0: ...`), each as its bracket and word (`[`, `<tower`, `tower=`, `region[`,
    `stand`): the same tag with two numbers or more, 0 among them, and a word that does not count steps (`[epoch
    0]`)."""
    seen: dict[str, set[str]] = {}
    for line in lines:
        if line[:1] in _CLOSERS:
            if (bracketed := _leading_tag(line)) is None:
                continue
            m = _TAG_RANK.match(bracketed.group(2))
            tag = bracketed.group(1) + m.group(2) if m is not None else ""
        elif line[:1].isalpha():
            m = _KEYED_RANK.match(line)
            tag = m.group(2) if m is not None else ""
        else:
            continue
        if m is not None and not _counts_steps(tag):
            seen.setdefault(tag, set()).add(m.group(3))
    return frozenset(tag for tag, numbers in seen.items() if "0" in numbers and len(numbers) >= 2)


def _counts_steps(tag: str) -> bool:
    """Whether a tag's word counts the steps of one process, not processes (`[epoch `, `fold:`)."""
    words = tag.strip("[(<= _#:/-").lower().split()
    return bool(words) and words[-1] in _COUNTER_WORDS


def _leading_tag(line: str) -> re.Match[str] | None:
    """The bracketed tag a line starts with, its brackets a pair (`<tower1> `, `[2] `): opener, inside, closer."""
    tag = _TAGGED_LINE.match(line) if line[:1] in _CLOSERS else None
    return tag if tag is not None and _CLOSERS[tag.group(1)] == tag.group(3) else None


def _tag_rank(opener: str, inside: str, formats: LabelFormats) -> re.Match[str] | None:
    """A bracket's tag as the rank, when the file tags its ranks so (see tagged_ranks)."""
    found = _TAG_RANK.match(inside) if opener in _CLOSERS else None
    return found if found is not None and opener + found.group(2) in formats.tagged else None


def worded_ranks(lines: list[str]) -> bool:
    """Whether a file's lines start their message `rank N <word>` (`rank 0 step 4 loss ...`) for two ranks
    or more with the same word: the rank that printed it, as a label of the script's own."""
    seen: dict[str, set[str]] = {}
    for line in lines:
        if "rank " in line and (m := _WORDED_LINE.search(line[:_LABEL_SPAN])) is not None:
            ranks = seen.setdefault(m.group(2), set())
            ranks.add(m.group(1))
            if len(ranks) >= 2:
                return True
    return False


def _counted_rank(inside: str, counted: frozenset[int]) -> re.Match[str] | None:
    """A bracket's `N/M` as a rank field, when the file counts its ranks so (M in `counted`)."""
    found = _COUNTED_RANK.match(inside) if counted else None
    return found if found is not None and int(inside[found.end() :]) in counted else None


def has_kube_master(head: bytes) -> bool:
    """Whether a `kubectl logs --prefix` capture includes a Kubeflow master pod."""
    return b"[pod/" in head and re.search(rb"\[pod/[\w.-]*-master-\d+/", head) is not None


def rank_from_path(path: str) -> tuple[int | None, str | None]:
    """(rank, how it was read) from a file path: torchrun's log-dir layout or a `rank3` in a name."""
    parts = [part for part in path.replace("\\", "/").split("/") if part]
    if len(parts) >= 3 and _TORCHRUN_FILE.match(parts[-3]):
        rank = bounded_rank(parts[-2])
        if rank is not None:
            return rank, TORCHRUN_FOLDER
    for part in reversed(parts[-3:]):
        m = _RANK_IN_NAME.match(part)
        if m:
            rank = bounded_rank(m.group(1))
            if rank is not None:
                return rank, f"file name {part!r}"
    return None, None
