"""The knowledge base compiled for `explain`, cached on disk.

Loading the knowledge base means parsing a few hundred YAML files and compiling every pattern;
that alone would blow the cold-start budget of `ddpdoctor explain` on a small log. The first run
validates the knowledge base as usual (the same loader as `kb`), then stores what `explain` needs
in a cache file: the entries' ids, titles, categories, kinds, rank rules, solutions and example
fixes, the pattern sources, their byte prefilters and the compiled hyperscan database, and the
required literals of explain's own structural patterns (their gates: see
:class:`ddpdoctor.matching.LazyRegex`). Later runs read that file with :mod:`marshal` and compile
only the patterns a candidate line needs. The cache
key is the size and modification time of every knowledge file (bundled, `--kb` and
DDPDOCTOR_KB_PATH) and of the index compiler itself, the package and Python versions, the anchors
and the hyperscan installation, so an edited entry is picked up on the next run.
"""

from __future__ import annotations

import _thread
import contextlib
import marshal
import os
import re
import sys
import zlib
from collections.abc import Mapping, Sequence

from ddpdoctor import __version__
from ddpdoctor.errors import InputError
from ddpdoctor.explain.ranks import bounded_rank
from ddpdoctor.folders import stamp, tree_stamp, walk_files
from ddpdoctor.matching import install_gates, lazy_pattern_sources

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import Any

INDEX_FORMAT = 11
ENV_CACHE_DIR = "DDPDOCTOR_CACHE_DIR"
ENV_KB_PATH = "DDPDOCTOR_KB_PATH"  # the loader's variable; repeated here to avoid importing it
_KEEP_CACHE_FILES = 8
_CACHE_MAGIC = b"ddpdoctor-index\n"  # then the CRC-32 of the marshal data, then the data


class Anchor:
    """A structural pattern the block parser needs to see, with how many following lines it needs."""

    __slots__ = ("after", "name", "source")

    def __init__(self, name: str, source: str, after: int) -> None:
        self.name = name
        self.source = source
        self.after = after


# Words of a line that says something failed without an error level (`sudo: torchrun: command not found`).
LEAD_WORDS = (
    r"\b(?:[Ff]ailed|FAILED|[Cc]annot|[Cc]ould not|[Uu]nable to|not found|[Nn]o such file|undefined symbol|"
    r"[Aa]borted|[Tt]imed out|[Rr]efus(?:ed|ing)|[Dd]enied|[Ss]talled|[Cc]rashed|[Dd]ied|[Ee]rror occurred|"
    r"[Rr]etry(?:ing)? to connect|did not (?:finish|complete|respond) (?:with)?in|"
    r"[Mm]ismatch(?:ed|es)?|MISMATCH)\b"  # a check that two things agree (`Global counter mismatch for ...`)
    r"|^Exception raised from \w{1,80} at "  # a C++ exception's trace (c10's), its message above it lost
    r"|^frame #\d{1,3}: c10d::ProcessGroupNCCL::(?:\w{1,40}::)?\w{1,40}\("  # ... the NCCL process group's frames of it
    r"|\b(?:CUDA|Cuda|HIP|NCCL|RCCL|cuDNN|CUDNN|cuBLAS|CUBLAS) failure\b"  # a runtime's check (`Test CUDA failure x.cu:253 '...'`)
    r"|\b(?:cuda|hip)Error\w{0,40}[ :(]"  # a runtime's status by name (`cudaError error: 1 (invalid argument)`)
    r"|\bcompile (?:it )?with \w{1,60}=(?:1|ON) to use\b"  # a build without a feature (MXNet's dist kvstore)
    r"|\brequires [A-Za-z][\w.-]{1,40} ?>= ?\d"  # a version the installed one does not meet
)


# The CUDA runtime's own words for its failures (cudaGetErrorString's texts that nothing else says), as
# an extension prints them with no level (`error in deformable_im2col: invalid device function`).
CUDA_RUNTIME_TEXT = (
    r"\b(?:invalid device function|an illegal (?:memory access|instruction) was encountered"
    r"|no kernel image is available for execution on the device|device-side assert triggered"
    r"|misaligned address|unspecified launch failure|too many resources requested for launch"
    r"|the launch timed out and was terminated|invalid device ordinal|uncorrectable ECC error encountered"
    r"|all CUDA-capable devices are busy or unavailable|no CUDA-capable device is detected"
    r"|CUDA driver version is insufficient for CUDA runtime version)\b"
)


# An operating system's error as Python prints it (`[Errno 2] No such file or directory`).
ERRNO_TEXT = r"\[Errno \d{1,4}\] [A-Z]"


# The canonical status codes of JAX, XLA, TensorFlow and gRPC that stand for a failure.
CANONICAL_STATUS = (
    r"(?:INTERNAL|UNKNOWN|UNAVAILABLE|INVALID_ARGUMENT|FAILED_PRECONDITION|RESOURCE_EXHAUSTED"
    r"|DEADLINE_EXCEEDED|ABORTED|UNIMPLEMENTED|DATA_LOSS|NOT_FOUND|PERMISSION_DENIED|OUT_OF_RANGE|CANCELLED)"
)


# Ascend CANN's error codes, each an error whatever prints it (`EI0006: ... Getting socket times out.`,
# `EZ9999: Inner Error!`): a letter for the module after `E`, then four digits.
CANN_ERROR_CODE = r"E[A-Z]\d{4}: "
# Open MPI's (and PMIx's) error records: `[host:pid] [[50371,0],1] ORTE_ERROR_LOG: Data unpack would ...`.
MPI_ERROR_LOG = r"\b(?:ORTE|OPAL|PMIX|PRTE)_ERROR_LOG: "


# TensorFlow's reports that an op or a collective failed, whatever level it was logged at.
# (`Resource exhausted: ...` is its status of memory an op could not get, in TensorFlow's and XLA's words.)
TF_FAILURE = r"OP_REQUIRES failed at |\bStartAbort [A-Z]|\bNo registered '\w{1,200}' OpKernel for |\bResource exhausted: "


# argparse's rejection of a command line (`train.py: error: unrecognized arguments: --local_rank=0`; a
# parser's `prog` may hold spaces: `SimMIM pre-training script: error: ...`), by its own wording: Slurm's
# and other tools' `srun: error: ...` records are not usage errors.
ARGPARSE_ERROR = (
    r"[\w./-][\w./ -]{0,199}: error: (?:unrecognized arguments|the following arguments are required"
    r"|argument \S{1,100}:|invalid choice|ambiguous option|expected (?:one|at least one) argument|too few arguments)"
)


# The interpreter's own refusal to start a program (`/usr/bin/python: No module named torch.distributed`).
INTERPRETER_REFUSAL = (
    r"python[\d.]{0,5}(?:\.exe)?:? (?:No module named|can't open file|Error while finding module) "
)


# Lines that start or mark a block. They are scanned together with the knowledge-base patterns;
# a hit pulls the line and `after` following lines into the parser.
ANCHORS: tuple[Anchor, ...] = (
    Anchor("traceback", r"Traceback \(most recent call last\)", 400),
    Anchor("panic", r"panicked at ", 120),
    Anchor("panic-banner", r"=== PANIC ===", 8),
    Anchor("table", r"Root Cause \(first observed failure\)|Failures:|ChildFailedError", 300),
    Anchor(
        "exit",
        r"exitcode|exit code|Exit code:|exit status|exits with return code|exit with status code|Process name: |"
        r"received by PID|received at time=|closing signal|death signal|exited on signal|"
        r"terminated with (?:signal|exit code|the following error)|with code -?\d|\] Error \d|status failed cmd|"
        r"MPI_ABORT was invoked",
        3,
    ),
    Anchor("cpp", r"terminate called after throwing|what\(\):", 4),
    Anchor(
        "dump",
        r"\(most recent call first\):|Thread (?:0x[0-9a-fA-F]+|\d+) \((?:idle|active|gil|waiting)|Timeout \(\d+:\d\d:\d\d",
        120,
    ),
    Anchor("source-located", r"\.(?:h|hh|hpp|c|cc|cpp|cu|cuh|cxx):\d{1,6}\] \S", 0),
    Anchor(
        "fatal",
        r"Segmentation fault|Fatal Python error|core dumped|Bus error|Killed|Floating point exception"
        r"|Illegal instruction|Memory access fault by GPU|HW Exception by GPU",
        20,
    ),
    Anchor(
        "nccl",
        r"NCCL WARN|NCCL error in|Watchdog caught|WorkNCCL\(|last enqueued|failed to pass monitoredBarrier"
        r"|\.(?:h|cc|cu|cpp):\d{1,6} WARN ",
        3,
    ),
    Anchor(
        "error-line",
        r"(?:Error|Exception|Exit|Interrupt|Failure|Fault)(?:\[\w+\])?(?::|$)|^\s{0,8}raise \w{1,60}(?:Error|Exception)\("
        r"|^\s{0,8}[a-z]{2,30}error: ",  # a built-in exception retyped in lower case
        6,
    ),
    Anchor(
        "error-level",
        r"(?:^|[\s\[])(?:ERROR|FATAL|CRITICAL)[\]:\s]|\[[EF]\d{3,4} |\[[EF]:\w|retrying \(\d|^(?:/usr)?(?:/bin/)?(?:ba|z|da|k)?sh: "
        r"|\|CCL_(?:ERROR|FATAL)\||\b"
        + CANN_ERROR_CODE
        + "|"
        + MPI_ERROR_LOG
        + "|"
        + TF_FAILURE
        + "|"
        + CUDA_RUNTIME_TEXT
        + "|"
        + ERRNO_TEXT
        + r"|^"
        + CANONICAL_STATUS
        + ": |"
        + INTERPRETER_REFUSAL,
        3,
    ),
    Anchor("lead", LEAD_WORDS, 0),
    Anchor(
        "nccl-interface", r"NCCL INFO (?:Bootstrap|NET/Socket) ?: Using \[\d{1,3}\](?:lo|docker\d|virbr\d)", 0
    ),
    Anchor("frame", r'File "[^"\n]{1,4096}", line \d', 4),
    Anchor("collective", r"Timed out waiting \d|lagging ranks|collective #\d|CollectiveFingerPrint", 3),
    Anchor(
        "world", r"WORLD_SIZE|world_size|[Ww]orld size|n[Rr]anks \d|GLOBAL_RANK: \d|store.based barrier", 0
    ),
    Anchor("usage", r": error: |missing ranks|ready ranks|[Ss]talled ranks|subset of ranks", 3),
    # `tail`/`head` of several files: a file's name, `==> logs/rank_3.log <==` (by its rarer end: a
    # progress bar's `=====> ` holds the start)
    Anchor("file-section", r" <==", 0),
    Anchor("rank-section", r"global rank \d{1,7} STD(?:OUT|ERR)-", 0),  # Composer's per-rank output
)
ANCHOR_DIGEST = repr([(a.name, a.source, a.after) for a in ANCHORS])


class IndexEntry:
    """What `explain` needs of one knowledge-base entry."""

    __slots__ = (
        "category",
        "consequence_of",
        "fix",
        "framework",
        "id",
        "kind",
        "pattern_ids",
        "rank_fixed",
        "rank_group",
        "rank_offset",
        "scope",
        "solutions",
        "status",
        "supersedes",
        "title",
    )

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.id: str = data["id"]
        self.title: str = data["title"]
        self.framework: str = data["framework"]
        self.category: str = data["category"]
        self.kind: str = data["kind"]
        self.status: str = data["status"]
        self.solutions: tuple[str, ...] = tuple(data["solutions"])
        self.fix: dict[str, str] = dict(data["fix"])
        self.rank_group: str | None = data["rank_group"]
        self.rank_offset: int = data["rank_offset"]
        self.rank_fixed: int | None = data["rank_fixed"]
        self.pattern_ids: tuple[int, ...] = tuple(data["pattern_ids"])
        self.supersedes: tuple[str, ...] = tuple(data["supersedes"])
        self.consequence_of: tuple[str, ...] = tuple(data["consequence_of"])
        self.scope: str = data["scope"]

    def rank_from(self, groups: Mapping[str, str]) -> int | None:
        """The rank a match names, by the entry's rank rule (same rule as the knowledge base)."""
        if self.rank_fixed is not None:
            return self.rank_fixed
        value = bounded_rank(groups.get(self.rank_group or "rank"))
        if value is None or value + self.rank_offset < 0:
            return None
        return value + self.rank_offset


class KbIndex:
    """Entries, patterns and prefilters, loaded from the cache or built from the knowledge base."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._entry_data: list[dict[str, Any]] = data["entries"]
        self._entries: dict[int, IndexEntry] = {}
        self.ids: tuple[str, ...] = tuple(e["id"] for e in self._entry_data)
        self.pattern_sources: list[str] = data["pattern_sources"]
        self.pattern_entry: list[int] = data["pattern_entry"]
        self.anchor_base: int = len(self.pattern_sources)
        self.anchors: tuple[Anchor, ...] = ANCHORS
        self.literals: list[list[tuple[bytes, bool]] | None] = data["literals"]
        self.supersets: list[bytes | None] = data["supersets"]
        self.literal_search: list[tuple[bytes, bool]] = data["literal_search"]
        # For each literal of literal_search, the patterns with a required literal that contains it.
        self.literal_owners: list[list[int]] = data["literal_owners"]
        self.hs_blob: bytes | None = data["hs_blob"]
        self.unfiltered: tuple[int, ...] = tuple(data["unfiltered"])
        # Patterns of team entries (--kb, DDPDOCTOR_KB_PATH): they run under a time budget.
        self.team_patterns: frozenset[int] = frozenset(data["team_patterns"])
        # Required literals of explain's own lazy regexes, by source (see matching.LazyRegex).
        self.gates: dict[str, list[tuple[str, bool]]] = dict(data["gates"])
        self._compiled: dict[int, re.Pattern[str]] = {}

    def entry(self, number: int) -> IndexEntry:
        """The entry at this position (built on first use)."""
        found = self._entries.get(number)
        if found is None:
            found = self._entries[number] = IndexEntry(self._entry_data[number])
        return found

    def get(self, entry_id: str) -> IndexEntry | None:
        """The entry with this id, if the knowledge base has it."""
        try:
            return self.entry(self.ids.index(entry_id))
        except ValueError:
            return None

    def regex(self, pattern_id: int) -> re.Pattern[str]:
        """The Python regex of a knowledge-base pattern, compiled on first use."""
        compiled = self._compiled.get(pattern_id)
        if compiled is None:
            compiled = self._compiled[pattern_id] = re.compile(self.pattern_sources[pattern_id])
        return compiled


# --- cache --------------------------------------------------------------------------------------


def cache_dir() -> str:
    """Where the compiled index is kept: DDPDOCTOR_CACHE_DIR, else $XDG_CACHE_HOME/ddpdoctor, else ~/.cache/ddpdoctor."""
    explicit = os.environ.get(ENV_CACHE_DIR)
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ddpdoctor")


def bundled_dir() -> str | None:
    """The bundled knowledge folder when it is a real directory (it is, for normal installs)."""
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_knowledge")
    return here if os.path.isdir(here) else None


def knowledge_dirs(kb_dirs: Sequence[str]) -> list[str]:
    """Team folders from `--kb` and DDPDOCTOR_KB_PATH, checked the way the loader checks them."""
    dirs = [str(d) for d in kb_dirs]
    dirs += [p for p in os.environ.get(ENV_KB_PATH, "").split(os.pathsep) if p]
    for d in dirs:
        if not os.path.isdir(d):
            raise InputError(
                f"knowledge folder not found: {d}", hint=f"pass an existing folder to --kb or {ENV_KB_PATH}"
            )
    return dirs


def hyperscan_version() -> str:
    """Which hyperscan is installed (its location and file stamp), or "none"; it is not imported."""
    from importlib.util import find_spec

    try:
        spec = find_spec("hyperscan")
    except (ImportError, ValueError):
        return "none"
    if spec is None or spec.origin is None:
        return "none"
    try:
        st = os.stat(spec.origin)
    except OSError:
        return "none"
    return f"{spec.origin}:{st.st_size}:{st.st_mtime_ns}"


def index_key(bundled: str | None, extra: Sequence[str], hs_version: str) -> str:
    """Everything the compiled index depends on, as one string."""
    here = os.path.dirname(os.path.abspath(__file__))
    # The compiler of the index, and every module whose patterns it gates (their sources are keys).
    code = [os.stat(os.path.join(here, name)) for name in sorted(os.listdir(here)) if name.endswith(".py")]
    code.append(os.stat(os.path.join(os.path.dirname(here), "matching.py")))
    parts: list[Any] = [
        INDEX_FORMAT,
        __version__,
        sys.version_info[:2],
        hs_version,
        ANCHOR_DIGEST,
        [(st.st_size, st.st_mtime_ns) for st in code],
    ]
    if bundled is not None:
        parts.append((bundled, tree_stamp(bundled, ".yaml")))  # the package's own files
    for root in extra:
        parts.append((os.path.realpath(root), stamp(walk_files(root, ".yaml"))))
    return repr(parts)


def load_index(kb_dirs: Sequence[str] = ()) -> KbIndex:
    """The compiled index for the bundled knowledge base plus team folders, from the cache when fresh."""
    extra = knowledge_dirs(kb_dirs)
    bundled = bundled_dir()
    if bundled is None:
        return _installed(KbIndex(build_index_data(extra, "")))
    key = index_key(bundled, extra, hyperscan_version())
    path = os.path.join(cache_dir(), f"kb-{zlib.crc32(key.encode()):08x}-{len(key)}.idx")
    loaded = _LOADED.get((key, path))
    if loaded is not None:
        return _installed(loaded)
    data = _read_cache(path, key)
    if data is None:
        data = build_index_data(extra, key)
        _write_cache(path, data)
    index = KbIndex(data)
    _LOADED.clear()  # one index kept: a long-lived process that changes its team folders does not grow
    _LOADED[(key, path)] = index
    return _installed(index)


# The index this process loaded last, by its key and cache file: a library caller (guard, an
# integration, a test suite) explaining many logs reads and checks the cache file once.
_LOADED: dict[tuple[str, str], KbIndex] = {}


def _installed(index: KbIndex) -> KbIndex:
    install_gates(index.gates)
    return index


def _read_cache(path: str, key: str) -> dict[str, Any] | None:
    """The cached index data when the file is intact and current; None (rebuild) for anything else."""
    try:
        with open(path, "rb") as fh:
            blob = fh.read()
    except OSError:
        return None
    if len(blob) < len(_CACHE_MAGIC) + 4 or not blob.startswith(_CACHE_MAGIC):
        return None
    body = blob[len(_CACHE_MAGIC) + 4 :]
    if zlib.crc32(body) != int.from_bytes(blob[len(_CACHE_MAGIC) : len(_CACHE_MAGIC) + 4], "big"):
        return None  # damaged: a torn write, a full disk, a flipped bit
    try:
        data = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("key") != key or data.get("format") != INDEX_FORMAT:
        return None
    try:
        KbIndex(data)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return data


def _write_cache(path: str, data: Mapping[str, Any]) -> None:
    folder = os.path.dirname(path)
    tmp = f"{path}.{os.getpid()}-{_thread.get_ident()}.tmp"
    body = marshal.dumps(dict(data))
    try:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(_CACHE_MAGIC + zlib.crc32(body).to_bytes(4, "big") + body)
        os.replace(tmp, path)
        names = [
            os.path.join(folder, n) for n in os.listdir(folder) if n.startswith("kb-") and n.endswith(".idx")
        ]
        names.sort(key=os.path.getmtime, reverse=True)
        for stale in names[_KEEP_CACHE_FILES:]:
            os.unlink(stale)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return  # a read-only home still works, just without the cache


# --- building -----------------------------------------------------------------------------------


def _usable_superset(source: str) -> bytes | None:
    from ddpdoctor.explain.prefilter import PrefilterError, superset_regex

    try:
        body = superset_regex(source)
        compiled = re.compile(body)
    except (PrefilterError, re.error, RecursionError):
        return None
    return None if compiled.search(b"") else body


def _literals(source: str) -> list[tuple[bytes, bool]] | None:
    from ddpdoctor.explain.prefilter import PrefilterError, required_literals

    try:
        found = required_literals(source)
    except PrefilterError:
        return None
    if found is None:
        return None
    return [(text.encode("utf-8"), caseless) for text, caseless in found.options]


def _gates() -> dict[str, list[tuple[str, bool]]]:
    """The required literals of every structural lazy regex created so far (see LazyRegex)."""
    from ddpdoctor.explain.prefilter import PrefilterError, required_literals

    gates = {}
    for source in lazy_pattern_sources():
        try:
            found = required_literals(source)
        except PrefilterError:
            continue
        if found is not None:
            gates[source] = list(found.options)
    return gates


def _compile_hyperscan(expressions: Sequence[bytes], ids: Sequence[int]) -> Any:
    import hyperscan

    flags = hyperscan.HS_FLAG_PREFILTER
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(expressions=list(expressions), ids=list(ids), elements=len(ids), flags=flags)
    return db


def _hyperscan_blob(
    supersets: Sequence[bytes | None], literals: Sequence[Sequence[tuple[bytes, bool]] | None]
) -> tuple[bytes | None, list[int]]:
    """Compile every prefilter into one database; (blob, ids left unfiltered)."""
    try:
        import hyperscan
    except ImportError:
        return None, list(range(len(supersets)))
    exprs: dict[int, bytes] = {}
    for pid, body in enumerate(supersets):
        if body is not None:
            exprs[pid] = body
        elif literals[pid]:
            exprs[pid] = b"|".join(_literal_regex(text, caseless) for text, caseless in literals[pid] or ())
    try:
        db = _compile_hyperscan(list(exprs.values()), list(exprs))
    except hyperscan.error:
        for pid in list(exprs):
            try:
                _compile_hyperscan([exprs[pid]], [pid])
            except hyperscan.error:
                del exprs[pid]
        db = _compile_hyperscan(list(exprs.values()), list(exprs))
    unfiltered = [pid for pid in range(len(supersets)) if pid not in exprs]
    return bytes(hyperscan.dumpb(db)), unfiltered


def _literal_regex(text: bytes, caseless: bool) -> bytes:
    body = b"".join(b"\\x%02x" % b for b in text)
    return b"(?i:" + body + b")" if caseless else body


def _entry_data(entry: Any, pattern_ids: list[int]) -> dict[str, Any]:
    fix = entry.example_fix
    return {
        "id": entry.id,
        "title": entry.title,
        "framework": entry.framework,
        "category": entry.category,
        "kind": entry.kind,
        "status": entry.status,
        "solutions": list(entry.solutions_for("runtime")),
        "fix": {
            "language": fix.language,
            "before": fix.before,
            "after": fix.after,
            **({"note": fix.note} if fix.note else {}),
        },
        "rank_group": entry.rank.group,
        "rank_offset": entry.rank.offset,
        "rank_fixed": entry.rank.fixed,
        "pattern_ids": pattern_ids,
        "supersedes": list(entry.supersedes),
        "consequence_of": list(entry.consequence_of),
        "scope": entry.scope,
    }


def build_index_data(extra: Sequence[str], key: str) -> dict[str, Any]:
    """Validate the knowledge base with the regular loader and compile its prefilters (and hyperscan database, when installed)."""
    from pathlib import Path

    from ddpdoctor.kb import load_knowledge_base
    from ddpdoctor.kb.loader import BUNDLED_LABEL

    kb = load_knowledge_base([Path(d) for d in extra])
    entries: list[dict[str, Any]] = []
    sources: list[str] = []
    owner: list[int] = []
    team: list[int] = []
    for index, entry in enumerate(kb.entries):
        ids = []
        for pattern in entry.patterns:
            ids.append(len(sources))
            sources.append(pattern.source)
            owner.append(index)
        if not entry.path.startswith(BUNDLED_LABEL + "/"):
            team += ids
        entries.append(_entry_data(entry, ids))
    all_sources = [*sources, *(a.source for a in ANCHORS)]
    supersets = [_usable_superset(s) for s in all_sources]
    literals = [_literals(s) for s in all_sources]
    blob, unfiltered = _hyperscan_blob(supersets, literals)
    search = _minimal({(t.lower() if c else t, c) for lits in literals if lits for t, c in lits})
    return {
        "format": INDEX_FORMAT,
        "key": key,
        "entries": entries,
        "pattern_sources": sources,
        "pattern_entry": owner,
        "literals": literals,
        "literal_search": search,
        "literal_owners": _owners(search, literals),
        "supersets": supersets,
        "hs_blob": blob,
        "unfiltered": unfiltered,
        "team_patterns": team,
        "gates": _gates(),
    }


def _contains(text: bytes, caseless: bool, short: bytes, short_caseless: bool) -> bool:
    """Whether every line holding the literal `text` also holds the literal `short`."""
    return short in text.lower() if short_caseless else short in text and not caseless


def _minimal(literals: set[tuple[bytes, bool]]) -> list[tuple[bytes, bool]]:
    """The literals that contain no other literal (a line with a longer one contains the shorter one)."""
    ordered = sorted(literals, key=lambda lit: (len(lit[0]), lit))
    kept: list[tuple[bytes, bool]] = []
    for text, caseless in ordered:
        if any(_contains(text, caseless, short, short_caseless) for short, short_caseless in kept):
            continue
        kept.append((text, caseless))
    return kept


def _owners(
    search: Sequence[tuple[bytes, bool]], literals: Sequence[Sequence[tuple[bytes, bool]] | None]
) -> list[list[int]]:
    """For each minimal literal, the patterns with a required literal containing it: a line can only
    pass a pattern's literal check if it holds one of the minimal literals that pattern is listed under."""
    owners: list[list[int]] = [[] for _ in search]
    for pid, lits in enumerate(literals):
        for at, (short, short_caseless) in enumerate(search):
            if any(_contains(text, caseless, short, short_caseless) for text, caseless in lits or ()):
                owners[at].append(pid)
    return owners
