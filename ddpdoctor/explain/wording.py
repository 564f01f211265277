"""What an error message says failed, in its own words.

When no knowledge-base entry knows a message, its words still tell the kind of failure, the way an
engineer reads an unfamiliar error: "out of memory" is memory whatever raised it, "Name or service
not known" is an address that does not resolve, `cudaErrorInvalidDevice` or "CUDA error 101" is a
device index that does not exist. Three vocabularies cover most stacks: English statements of
failure, CUDA's error names and numbers (the runtime API's `cudaError_t`, the driver API's
`CUDA_ERROR_*`, cuBLAS/cuDNN statuses), and the canonical status codes that JAX, XLA,
TensorFlow, PaddlePaddle and gRPC share (`RESOURCE_EXHAUSTED`, `DEADLINE_EXCEEDED`, and the
matching `...Error` types).

:data:`MESSAGE_RULES` is tried in order and the first rule that matches decides, so a statement
that names a cause precedes one that names only the layer it surfaced in ("NCCL error ... out of
memory" is memory, "CUDA error: an illegal memory access" is CUDA).
"""

from __future__ import annotations

import re

from ddpdoctor.explain.index import CUDA_RUNTIME_TEXT
from ddpdoctor.matching import LazyRegex
from ddpdoctor.units import GIB, format_size, parse_size

# Words that say a text states an error (not a level word: `[ERROR]` alone states nothing).
NAMES_A_FAILURE = LazyRegex(r"\b(?:[Ee]rror|[Ee]xception|[Ff]ailed|[Ff]ailure)\b")
# A scheduler's or MPI launcher's own status line (`srun: job 34262460 queued and waiting for resources`,
# `slurmstepd-node1: error: pyxis: couldn't start container`): the job's, never a line the script printed.
SCHEDULER_SAYS = LazyRegex(r"(?:srun|salloc|sbatch|slurmstepd(?:-[\w.-]{1,128})?|mpirun|mpiexec|prterun): ")
# Words that say a process waits on something (`waiting for shard-003.ready`, `waits on the writer`).
_WAITS = r"\bwait(?:s|ing)? (?:for|on|until)\b"
WAITS_ON_SOMETHING = LazyRegex(r"(?i)" + _WAITS)
# Words of a wait loop's round (`marker not ready, polling again in 3s`, `lock busy, retry 2`, `server not
# ready, wait 3 sec to retry...`, `file not in inbox yet, polling (attempt 16)`, `forecast not published yet,
# checking again in 5s`, `sheet not published yet, retry in 5s`, `index not published yet, waited 10s`, `not there
# yet (poll 0)`).
_WAIT_LOOP = (
    r"(?i:\b(?:polling|retrying) (?:again|in \d)|\b[a-z]{3,20}ing again in \d|\bretry(?:ing)?(?: ?[#(]?| (?:again )?in )\d"
    r"|\bnot (?:yet )?ready\b|\bnot (?:[\w-]{1,20} ){1,3}yet, (?:polling|retrying|waiting|waited|(?:re)?checking|sleeping)\b"
    # ... a round counted in brackets (`humidity log not there yet (poll 0)`, `waiting for results (try 1)`)
    r"|\((?:poll|try|attempt|retry|check) ?#?\d{1,5}(?: ?(?:/|of) ?\d{1,5})?\))"
)
WAITS_IN_A_LOOP = LazyRegex(_WAIT_LOOP)
# Words in which a process says it ends itself (`..., exiting`, `aborting the run`, `giving up`, `..., leaving`).
_ENDS_ITSELF = r"\b(?:exiting|aborting|quitting|gave up|giving up)\b|, leaving\.?$"
ENDS_ITSELF = LazyRegex(r"(?i)" + _ENDS_ITSELF)
# Words in which a process says it has no work left (`no generating samples in this record, nothing to train
# on`, `no windows for shelves B2, B3, skipping training`, `no dwell records for KXX, skipping`): it goes no
# further, as planned.
_NOTHING_TO_DO = (
    r"\bnothing (?:left |more )?to [a-z]{2,20}\b|\bskipping (?:the )?(?:training|fit)\b"
    r"|, skipping[.!]?$"
)
HAS_NOTHING_TO_DO = LazyRegex(r"(?i)" + _NOTHING_TO_DO)
# Words that say a process stopped going on: it waits, stops, gave up or finished (`waiting for
# ckpt.lock`, `early stopping at epoch 2`, `rank 1 finished the epoch`), not what it was busy with
# (`compiling eval step`, `loading shard 3`); a guard that refuses to go on (`refusing to allocate`).
STATES_A_HALT = LazyRegex(
    r"(?i)"
    + _WAITS
    # a wait loop of the script's own (`marker not ready, polling again in 3s`, `lock busy, retry 2`)
    + r"|"
    + _WAIT_LOOP
    + r"|"
    + _ENDS_ITSELF
    + r"|"
    + _NOTHING_TO_DO
    + r"|\b(?:stopping|stopped|finished|stuck)\b"
    # a wait of the script's own for a thing to appear, counting the wait (`index not published yet, waited 4s`)
    r"|(?i:\bwaited \d{1,9}(?:\.\d+)? ?(?:s|ms|sec|secs|seconds|min|minutes)?\b)"
    # ... that polls a thing or counts its wait (`not final, polling /tmp/w.ready`, `locked, waiting... 3s`)
    r"|(?i:\bpolling (?=[/~.\w-]{0,200}[/.])|\bwaiting(?= ?(?:\.\.\.|…|\(|\[|\d)))"
    # ... or says it waits as its last word (`probe reading is 3604s old, waiting`)
    r"|(?i:, waiting\.?$)"
    # ... or that a wait it counted brought nothing (`no calibration record after 40s`)
    r"|(?i:\bno [a-z][\w-]{0,30}(?: [\w-]{1,30}){0,3} (?:after|within|in) \d{1,6}(?:\.\d+)? ?(?:s|ms|sec|secs|seconds|min|mins|minutes)\b)"
    # ... counted in attempts, or doing a step again after a pause (`(attempt 2/6), re-fetching in 2s`)
    r"|(?i:\battempt \d{1,5} ?(?:/|of) ?\d|\bre-?[a-z]{2,20}ing (?:again )?in \d)"
    # ... or counting its tries so far (`0 positives after 100000 redraws`, `20000 draws so far without`)
    r"|(?i:\bafter \d[\d,]{0,14} (?:re)?(?:draws|tries|attempts|retries|iterations|iters|samples)\b"
    r"|\b\d[\d,]{0,14} (?:re)?(?:draws|tries|attempts|retries|samples)\b[^.;]{0,80}\bso far\b)"
    r"|(?i:\brefus(?:e|es|ed|ing) to [a-z]{2,20}\b)"
    r"|(?i:\bkilling (?:self|itself|myself|(?:this |the )?(?:worker|process|rank))\b)"  # a guard of the script's own
)
# Words that say a process was going to try again (`retrying in 0.5s`, `will retry`): it meant to go on.
TRIES_AGAIN = LazyRegex(r"(?i)\bretrying\b|\bwill retry\b|\btrying again\b")
# Words that say a process ended its work as planned, not that it failed (`early stopping at epoch
# 6`, `training finished`): a rank that left the job this way left its peers waiting.
ENDS_NORMALLY = LazyRegex(
    r"(?i)\b(?:early[- ]stop(?:ping|ped)?|stopp(?:ing|ed) early|finished|done|completed?)\b"
)
# A line that announces a step under way: its first word a verb going on (`gap-filling air_temp ...`,
# `building ray batch: ...`), or it trails off (`saving checkpoint...`).
UNDER_WAY = LazyRegex(r"(?i)^(?!warning|during|nothing|string)[a-z][a-z-]{1,30}ing\b|(?:\.\.\.|\u2026) ?$")
# A message that asks for `find_unused_parameters=True` (DDP's, PaddlePaddle's DataParallel): the
# reduction did not see every parameter.
# (not a call that passed it to a constructor that does not take it: `unexpected keyword argument
# 'find_unused_parameters'` is an older release; nor DDP's warning that it was set and found none unused,
# `find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters`)
_UNUSED_PARAMETERS = LazyRegex(r"(?<!keyword argument ')\bfind_unused_parameters\b(?!=True was specified)")
# Two processes given one rank: NCCL's bootstrap, the old THD backend.
_ALREADY_CHECKED_IN = LazyRegex(
    r"rank \d{1,7} of \d{1,7} ranks has already checked in|(?:have|has|were) assigned (?:the )?same rank"
)
# Ranks that ran different collectives, or values that differ between ranks where they must agree
# (DeepSpeed's `disagreement between rank0 and rank2`).
_MISMATCHED_COLLECTIVE = LazyRegex(
    r"(?i)\bmismatched (?:collective|allreduce|all_reduce|allgather|all_gather|broadcast|alltoall|reducescatter)\b"
    r"|\bdisagreement between rank ?\d{1,7} and rank ?\d{1,7}"
    r"|\bcollective mismatch\b|\blocal size \d{1,19} remote size \d{1,19}|\bnumber of collective participants\b"
    # TensorFlow's collectives: `Shape mismatch in the collective instance 100 ... another member ...`
    r"|(?i:\b(?:shape|size|dtype|type) mismatch in the collective\b)|\banother member in the group expected\b"
    # ... or workers that stopped calling the same collectives (fairseq's `all_gather_list`)
    r"|\b(?:have |has )?(?:fallen|fell|gone|got|get|gets) out of sync\b"
    # ... or TensorFlow's collective groups that disagree (`has group_size 8 ... but that group has size 4`)
    r"|\bjoining a group with incompatible\b|\bhas group_size \d{1,9} .{0,80}but that group has size \d{1,9}"
    r"|\bjoining a group with size ?\d{1,9},? but that group has size \d{1,9}"
    # ... or a ring collective given tensors of other shapes by its peers (`Aborting RingReduce with
    # Internal: Inconsistent output shapes, got [4], but expected is [2]`)
    r"|\bRing\w{0,20} with \w{1,40}: Inconsistent (?:output |input )?shapes?\b"
    # ... a peer's buffer of another size (`RecvBufResponse returned 16 bytes where to_tensor expected
    # 32`), or a broadcast no member sends (`Instance 0 found no source for broadcast`)
    r"|\bRecvBufResponse returned \d{1,19} bytes where \w{1,40} expected \d{1,19}\b"
    r"|\bInstance \d{1,19} found no source for broadcast\b"
    # ... or MPI's receive given a smaller buffer than its peer sent (`MPI_ERR_TRUNCATE: message
    # truncated`): the ranks disagree on a message's size
    r"|\bMPI_ERR_TRUNCATE\b"
    # ... or a check that the ranks agree (FSDP's `Forward order differs across ranks`, a trainer's
    # `Rank 2 has different values for step: ... Other ranks: ...`, `loss log variables are different across gpus`)
    r"|(?i:\b(?:differs?|different) (?:across|between) (?:the |all )?(?:ranks|gpus|processes)\b)"
    r"|\bhas different values? for\b.{0,200}\b[Oo]ther ranks\b"
    # ... or accelerate's check of the shapes it gathers (`All shapes on the devices must be valid`)
    r"|(?i:\bshapes? (?:on|across) (?:the |all )?devices must\b)|\bdue to (?:inadequate shapes|shape mismatches)\b"
)
# A launcher's report of a worker's death that says it now kills the rest (Lightning's `Child process with
# PID 4242 terminated with code -9. Forcefully terminating all other processes to avoid zombies`).
TERMINATES_THE_OTHERS = LazyRegex(r"\bterminating all other processes\b")
# A collective's check that its tensors fit the process group (c10d's `Incorrect input list size 3.
# Input list size should be 4, same as size of the process group`, `Split sizes doesn't match total
# dim 0 size`, `output tensor size must be equal to world_size times input tensor size`): the sizes
# the ranks hand the collective disagree with what the group exchanges.
_COLLECTIVE_SIZE_CHECK = LazyRegex(
    r"\bsame as size of the process group\b|\b(?:input|output) tensor list size \d{1,9} does not match world size\b"
    r"|\bSplit sizes doesn't match total dim 0 size\b|\bNumber of tensor splits not equal to group size\b"
    r"|\bdim 0 does not divide equally across group size\b"
    r"|\b(?:output|input) tensor (?:size )?must be (?:equal to|the same size as) (?:world_size times|output size times world size)\b"
    # ... or XLA's check of the buffers its NCCL all-to-all exchanges (`INVALID_ARGUMENT: All buffers must have
    # the same element type and count`)
    r"|\bAll buffers must have the same element type and count\b"
)
# Two ranks on one device (NCCL's `Duplicate GPU detected`, torch's symmetric memory `detected
# allocations from overlapping devices from different ranks`).
_SHARED_DEVICE = LazyRegex(
    r"\bDuplicate GPU detected\b|(?i:\b(?:overlapping|duplicate|the same) (?:cuda )?(?:devices?|gpus?)"
    r" (?:from|across|by|for|in) (?:different|multiple|several|two|other) (?:ranks|processes)\b)"
    # ... or a device another process holds (libtpu: `The TPU is already in use by process with pid 2718466`)
    r"|\b(?:GPU|TPU|device|accelerator) is already in use by (?:another )?process\b"
    # ... or several processes of one group found on one device (XGBoost's `Multiple processes within
    # communication group running on same CUDA device is not supported`)
    r"|(?i:\b(?:multiple|several) processes\b.{0,80}\bon (?:the )?same (?:CUDA |GPU )?(?:device|GPU)\b)"
    # ... or torch's own check before NCCL's (`Duplicated GPU device is not allowed by NCCL. Rank [0] and rank
    # [8] both attached to GPU device 0`)
    r"|\bDuplicated GPU device is not allowed\b|\bboth attached to (?:the same )?GPU device\b"
)
# An object the program hands to another process (a spawn target, its arguments, an object
# collective's payload) that pickle cannot serialise: a lambda, a local function, a handle.
_UNPICKLABLE = LazyRegex(r"\b(?:Can't|Cannot|cannot|can't) pickle\b|\bPicklingError\b|\bis not picklable\b")
# A shared library the installed packages need is not there (`Unable to load NCCL library`): the cause
# before the layer it surfaced in (the NCCL call that failed for it).
_LIBRARY_MISSING = LazyRegex(
    r"\b[Uu]nable to load (?:the )?\w{2,30} library\b|\bNo module named\b"
    # ... or the Python interpreter a launcher starts on another host is not there (`bash:
    # /home/u/.pyenv/versions/3.7.2/bin/python3.7: No such file or directory`)
    r"|/python[\d.]{0,5}: No such file or directory\b"
    # ... or a library's own binaries for this CUDA (NVRTC's `failed to load builtins for compute_61`)
    r"|\bnvrtc: error: failed to load builtins\b"
    # ... or a package installed without the compiled extensions a class of it needs (apex's
    # `apex.optimizers.FusedAdam requires cuda extensions`: built without `--cuda_ext`)
    r"|\brequires (?:the )?(?:cuda|CUDA|C\+\+|compiled) extensions?\b"
)
# A message that states the version something needs (`Native multi-GPU training requires
# pytorch>=1.9.1`, pip's `xformers 0.0.20 requires torch==2.0.1, but you have torch 2.1.0`).
_VERSION_REQUIRED = LazyRegex(
    r"\brequires? [A-Za-z][\w.-]{1,40} ?(?:>=|==|~=|>) ?\d[\w.]{0,20}"
    r"|\b(?:but you have|you have) [A-Za-z][\w.-]{1,40} [\d][\w.+]{0,30} which is incompatible\b"
    # ... and the one it found (diffusers' `This example requires a source install from HuggingFace
    # diffusers ..., but the version found is 0.32.2`, transformers' `deepspeed>=0.10.0 is required
    # ..., but found deepspeed==0.17.2`)
    r"|\b(?:requires?|is required)\b[^\n]{0,240}\bbut (?:the )?(?:version (?:found|installed) is|found"
    r" [A-Za-z][\w.-]{1,40} ?==) ?v?\d"
)
# The process group's backend lacks the operation (`no support for _allgather_base in MPI process group`).
_BACKEND_LACKS = LazyRegex(
    r"(?i)\b(?:no support for|does not support|doesn't support|not supported (?:by|in|on|for))\b.{0,80}"
    r"\b(?:mpi|gloo|nccl|ucc|xla|hccl|mps|p2p|ib|infiniband|rdma|nvlink)\b"
    r"|\b(?:mpi|gloo|nccl|ucc|smddp)\b (?:process group |backend )?(?:does not support|doesn't support)\b"
    # ... or by its class's name (`ProcessGroupMPI does not support ...`, torch 0.4's `DataChannelNccl`)
    r"|\b(?:DataChannel|ProcessGroup)(?:Mpi|MPI|Gloo|Nccl|NCCL|UCC|Tcp|TCP) (?:does not support|doesn't support)\b"
    # a torch build without the backend or without distributed support, or without the collective
    # library itself (CuPy's `NCCL is not available`); `No rendezvous handler for env://` is a build
    # with no rendezvous at all, Windows' before 1.7
    r"|\b(?:(?:nccl|rccl|hccl|gloo|mpi|ucc)(?: backend)?|distributed backend) is not available\b"
    r"|\bNo rendezvous handler for \w{1,20}://"
    # ... or a backend the device has not (`Your assigned backend nccl is not avaliable, please use hccl`)
    r"|\bbackend\b.{0,60}\bis not (?:avail|avali)able\b"
    # ... or a backend name c10d (or another engine's communicator) does not know (`Unknown c10d
    # backend type CUDA:NCCL`, TurboMind's `Unknown communication backend: nccl` in a build without it)
    r"|\bUnknown c10d backend type\b|\bUnknown (?:communication|comm) backend\b"
    # a data type the device's collective library cannot move (Gaudi's HCCL and a bool tensor)
    r"|\b(?:data ?type|dtype)\b.{0,40}\bis not supported\b"
    # a build without the backend's process group (`module 'paddle.base.libpaddle' has no attribute
    # 'ProcessGroupNCCL'` on Windows, torch's `_distributed_c10d` on macOS)
    r"|\bhas no attribute '_?ProcessGroup(?:NCCL|Nccl|Gloo|MPI|Mpi|UCC|HCCL|XCCL)'"
    # ... or a process group refusing an operation its backend lacks (`ProcessGroupGloo::allreduce:
    # unsupported reduction operation (allreduce of sparse tensors only works with ReduceOp.SUM)`)
    r"|\bProcessGroup\w{1,10}::\w{1,40}: unsupported\b"
)
# Memory the device could not give: CUDA's and the allocators' words, TensorFlow's `OOM when
# allocating`, and the canonical RESOURCE_EXHAUSTED of JAX/XLA/TensorFlow/Paddle.
CUDA_OOM = LazyRegex(
    r"(?i:out of (?:device |gpu |cuda )?memory)(?!: Killed process)|OutOfMemoryError|CUDA_ERROR_OUT_OF_MEMORY|\bOOM when allocating\b"
    r"|(?i:(?:malloc|alloc\w{0,10}) (?:device|gpu|cuda|hbm) memory (?:failed|error))"
    r"|(?i:failed to allocate\b.{0,60}\b(?:device|gpu|cuda|hbm) memory)"
    r"|cudaErrorMemoryAllocation|hipErrorOutOfMemory|CUBLAS_STATUS_ALLOC_FAILED|\bRESOURCE_EXHAUSTED\b|\bResourceExhaustedError\b"
    r"|\bResource exhausted: "  # the same status in TensorFlow's C++ words (a TPU's HBM: `Attempting to allocate ...`)
    r"|\b(?:ZE|UR)_RESULT_ERROR_OUT_OF_DEVICE_MEMORY\b"  # Intel GPUs' Level Zero and Unified Runtime
)
# The caching allocator's account of the device in its out-of-memory message: `GPU 0 has a total
# capacity of 79.10 GiB ... Process 3427 has 5.57 GiB memory in use. Including non-PyTorch memory, this
# process has 384.00 MiB memory in use. Of the allocated memory 10.47 GiB is allocated by PyTorch`.
_SIZE = r"(\d{1,12}(?:\.\d{1,6})? (?:bytes|[KMGT]iB))"
_DEVICE_CAPACITY = LazyRegex(r"\bGPU (\d{1,5}) has a total capacity of " + _SIZE)
_OTHER_PROCESS = LazyRegex(r"\bProcess \d{1,10} has " + _SIZE + " memory in use")
_THIS_PROCESS = LazyRegex(r"\bthis process has " + _SIZE + " memory in use")
_ALLOCATED = LazyRegex(r"\bOf the allocated memory " + _SIZE + " is allocated by PyTorch")
# A process holding this much of a device trains on it; a peer's stray CUDA context holds far less.
_TRAINING_SHARE = 2 * GIB
_SHARERS = 3  # processes training on one device: more than a leftover process beside the job
# Page-locked host memory that CUDA's pinned allocator could not get (`cuda runtime error (2) : out of
# memory at .../THCCachingHostAllocator.cpp:301`): the host's memory, reported with a CUDA error code.
_PINNED_HOST_OOM = LazyRegex(r"(?i)\bout of memory\b.{0,200}CachingHostAllocator\b")
# Memory the host could not give: the kernel's OOM killer, a container's limit, malloc failing.
_HOST_OOM = LazyRegex(
    r"\bCannot allocate memory\b|\bstd::bad_alloc\b|\bENOMEM\b|\bOOMKilled\b|\boom[-_]kill(?:er)?\b"
    r"|Out of memory: Killed process|(?i:exceeded (?:its |the )?memory limit)"
    r"|(?i:\b(?:memory map|mmap)\b.{0,40}\bfailed\b.{0,40}\bshared memory\b)"
    r"|(?i:\bout of (?:host|system|cpu|ram) memory\b)"  # a script's own words (`out of host memory while ...`)
    # ... or its memory guard's (`cache at 9.9 MB exceeds the 8 MB budget`, `64 MB held ... over budget 40 MB`,
    # `needs 55.85 GiB but the host budget is 8.00 GiB`, `needs 143.0 GiB > budget 4.0 GiB`)
    r"|(?i:\b\d{1,9}(?:\.\d{1,3})? ?[KMGT]i?B\b[^;]{0,60}(?:\b(?:over|exceeds?|exceeded|above|but)\b| >)[^;]{0,20}\bbudget\b)"
    # ... or a reading of the process's resident memory over a limit (`rss 903MB > 900MB, killing worker`,
    # `rss 801MB exceeds limit 800MB`, `RSS 602 MiB exceeds pod limit 600 MiB`)
    r"|(?i:\b(?:rss|resident memory|host memory)\b[^;]{0,40}?\b\d{1,9}(?:\.\d{1,3})? ?[KMGT]i?B\b ?(?:>|exceeds?|over)"
    r"(?: (?:[a-z-]{1,12} ){0,2}(?:limit|cap|max(?:imum)?)(?: of)?:?)? ?\d)"
    r"|\bkilled due to memory pressure\b"  # Ray's memory monitor (`2 Workers (tasks / actors) killed due to ...`)
)
_KILLED_BY_SIGKILL = LazyRegex(r"\bkilled by signal: (?:Killed|SIGKILL)\b")
# A CUDA runtime or driver error given by number (`cuda execution failed with error 2`,
# `CUDA error 101`, `cudaError 35`); the numbers are cudaError_t's.
_CUDA_ERROR_NUMBER = LazyRegex(
    r"(?i)\bcuda\w{0,20}(?: \w{1,20}){0,3} (?:failed )?(?:with )?error(?: code)?[ :=]{1,3}(\d{1,3})\b"
    r"|\bcudaError(?:_t)?[ :=]{1,3}(\d{1,3})\b"
    # THC's checks of old releases: `cuda runtime error (101) : ...`, `THCudaCheck FAIL file=... error=600 : ...`
    r"|\bcuda runtime error \((\d{1,3})\)|\bTHCudaCheck FAIL\b.{0,300}? error=(\d{1,3})\b"
)
_CUDA_ERROR_CATEGORY = {
    2: ("oom_gpu", "CUDA error 2 is cudaErrorMemoryAllocation: the device ran out of memory"),
    35: ("version_mismatch", "CUDA error 35: the NVIDIA driver is older than this CUDA runtime needs"),
    98: (
        "version_mismatch",
        "CUDA error 98 is cudaErrorInvalidDeviceFunction: the kernel was not built for this GPU's architecture",
    ),
    100: ("invalid_device", "CUDA error 100: no CUDA device is visible to the process"),
    101: ("invalid_device", "CUDA error 101 is cudaErrorInvalidDevice: no device has that index"),
    209: (
        "version_mismatch",
        "CUDA error 209: no kernel image for this GPU's architecture (built for others)",
    ),
}
# The installed driver or binaries do not fit the GPU or each other, in CUDA's names.
_CUDA_VERSION = LazyRegex(
    r"cudaErrorInsufficientDriver|CUDA_ERROR_NO_BINARY_FOR_GPU|cudaErrorNoKernelImageForDevice"
    r"|\bno kernel image is available\b|(?i:driver version is insufficient)"
    # cudaErrorCallRequiresNewerDriver: the runtime calls an API the installed driver does not have
    r"|cudaErrorCallRequiresNewerDriver|\bAPI call is not supported in the installed CUDA driver\b"
    # cudaErrorSymbolNotFound: a kernel the binary has none of for this GPU's architecture
    r"|\bnamed symbol not found\b|cudaErrorSymbolNotFound"
    # cudaErrorInvalidDeviceFunction: the kernel was not compiled for this GPU's architecture
    r"|\binvalid device function\b|(?:cuda|hip)ErrorInvalidDeviceFunction"
)
# A device named in a form torch cannot parse (`Invalid device string: '0'`, `Expected one of cpu, cuda, ...
# device type at start of device string: 0`): the job's device setting, not the hardware.
_DEVICE_STRING = LazyRegex(r"\bInvalid device string: |\bdevice type at start of device string: ")
_CUDA_NO_DEVICE = LazyRegex(
    r"cudaErrorNoDevice|cudaErrorInvalidDevice\b|CUDA_ERROR_NO_DEVICE|CUDA_ERROR_INVALID_DEVICE|hipErrorNoDevice"
    r"|(?i:invalid device ordinal|no CUDA-capable device)"
    # ... or a native check that a device's index is within the devices it has (XLA's `RET_CHECK failure
    # ... 0 <= local_device_ordinal && local_device_ordinal < gpu_global_device_ids->size()`)
    r"|\b(?:\w{1,30}_)?(?:device_ordinal|device_id|device_index) < \w{1,60}(?:->|\.)(?:size\(\)|count)"
    r"|(?i:\bno visible (?:cuda |gpu |nvidia )?(?:gpu|device)s?\b)"
    r"|(?i:\bno (?:available |matching |suitable |supported )?(?:cuda |gpu |nvidia )?(?:gpu|device)s? (?:found|available|detected)\b)"
    # ... or a launcher that cannot find a device it was asked for (PaddlePaddle's `Device not found 1 from 0,1,2,3`)
    r"|(?i:\b(?:gpu|cuda device|device) (?:\d{1,3} )?not found\b)"
    # DeepSpeed's launcher asked for a GPU slot the host does not have (`--include localhost:4`)
    r"|\bNo slot '\d{1,4}' specified on host\b"
    # TensorFlow placing an op on a GPU the process does not see
    r"|\bexplicitly assigned to /[\w:/]{0,80}device:GPU:\d{1,3} but available devices\b"
    r"|\bdevice specification '[^']{0,80}device:GPU:\d{1,3}' because no devices matching\b"
    # more processes on a node than it has devices (`node-local MPI processes 8cannot be larger than the device count 4`)
    r"|(?i:\b(?:larger|more) than the (?:device|gpu) count\b|\bmore processes than (?:devices|gpus)\b)"
    # torch's check of a device index (`device=7, num_gpus=4`), and PaddlePaddle's (`Invalid CUDAPlace(1), must
    # inside [0, 1), because GPU number on your machine is 1`)
    r"|\bdevice < num_gpus INTERNAL ASSERT FAILED\b"
    # ... a library's (faiss: `'config_.device < getNumDevices()' failed: Invalid GPU device 7`; OneFlow:
    # `Check failed: (dev_phy_id) < (resource_desc.GpuDeviceNum()) (3 vs 2)`)
    r"|(?i:\binvalid (?:gpu|cuda) device \d{1,4}\b)|\bAssertionError: Invalid device id\b"  # (DataParallel's check)
    r"|< \(?[\w.>-]{0,60}(?:GpuDeviceNum|getNumDevices|DeviceCount|device_count|NumDevices)\(\)"
    r"|\bInvalid CUDAPlace\(\d{1,4}\)|\bGPU number on your machine is \d"
    # a runtime refusing the list of visible devices it was given (Ascend: `set ASCEND_RT_VISIBLE_DEVICES:0,2,1
    # error, it must be configured in ascending order`)
    r"|\b(?:CUDA|HIP|ROCR|ASCEND_RT|ASCEND|HABANA)_VISIBLE_(?:DEVICES|MODULES)\b[:= ]?[\d,]{0,80} (?:error|is invalid)\b"
)
# A framework's check that the accelerator it was told to use is there (Lightning's `TPUAccelerator
# can not run on your system since the accelerator is not available`), or that it sees as many
# devices as the job expects (torch-xla's `Cannot replicate if number of devices (1) is different from 8`).
_ACCELERATOR_MISSING = LazyRegex(
    r"\b(?:accelerator|device|GPU|TPU)s? (?:is|are) not available\b|\bcan ?not run on your system\b"
    r"|\bnumber of devices \(\d{1,6}\) is different from \d"
    r"|\bCannot assign a device for operation\b"  # TensorFlow's placement: the device named is not there
)
# The WARN of NCCL before 2.5, without its name (`... ] include/socket.h:194 WARN ...`), also the line
# alone, quoted or not (`'transport/net_ib.cu:781 WARN NET/IB : Got completion with error 12 ...'`).
OLD_NCCL_WARN = r"(?:\] |^[\'\"`]?)[\w./-]{1,200}\.(?:h|cc|cu|cpp):\d{1,6} WARN "
# The AWS OFI network plugin's own WARN record, in its older format (`WARN: Function: ofi_init Line: 686:
# NET/OFI Couldn't open AV ...`): NCCL's network transport speaking.
OFI_PLUGIN_WARN = r"\bWARN: Function: \w{1,80} Line: \d{1,6}: NET/OFI "
# An NCCL call failed, or NCCL itself reports the failure (its WARN and INFO lines speak for its
# transports: a socket that cannot connect, memory it cannot register).
_NCCL_FAILURE = LazyRegex(
    r"\bnccl\w{0,40} failed\b|\bnccl[A-Z]\w{0,40}Error\b|(?i:nccl) (?:error|failure)\b|\bNCCL (?:WARN|INFO)\b|"
    + OLD_NCCL_WARN
    + "|"
    + OFI_PLUGIN_WARN
    + r"|\bNCCL operation nccl\w{1,40}\(|\bunhandled (?:system|cuda) error\b"  # NCCL's result strings
    # libfabric, the network fabric under NCCL's OFI plugin (EFA), naming its provider's error or source
    r"|\bprov_errno\b|\.?/prov/\w{1,20}/src/\S{1,200}:\d{1,6}"
    r"|\bCollective call returned error\b"  # Gaudi's HCCL, in NCCL's place
    # HCCL, Ascend's collective library in NCCL's place (torch_npu, MindSpore)
    r"|\b(?:HCCL|Hccl)\w{0,40}(?: \w{1,20}){0,3} (?:error|failed)\b"
    # ... and torch_npu's report of the operator that was running when the device failed (`The Inner
    # error is reported as above. ... the current working operator name is HcclBroadcast.`)
    r"|\bcurrent working operator name is Hccl\w{0,40}"
    r"|\bNCCL\b.{0,120}?\b(?:unhandled \w{1,20}|internal|invalid usage|system|remote) error"
    # ... or a framework's check of an NCCL call, located in its NCCL code (`invalid usage at [.../nccl_helper.h:70]`)
    r"|\b(?:invalid usage|unhandled (?:system|cuda) error|internal error|remote process exited)\b.{0,40}\bnccl\w{0,40}\.(?:h|cc|cpp|hpp)\b"
    # ... or a failed check of an NCCL call's result (PaddlePaddle's glog `Check failed:
    # dynload::ncclGroupEnd() == ncclSuccess (1 vs. 0)`)
    r"|\bnccl\w{1,40}\(.{0,200}\) == ncclSuccess\b"
)
# A CUDA call failed: runtime, driver, cuBLAS, cuDNN, a kernel's device-side assertion.
_CUDA_FAILURE = LazyRegex(
    r"\bCUDA (?:driver )?(?:[Ee]rror|[Ff]ailure|kernel errors?)\b|\bcudaError\w*|\bCUDA_ERROR_\w+"
    r"|\bcuda runtime error \(\d{1,4}\)|\bTHCudaCheck FAIL\b"  # THC's checks (releases before 1.5)
    # CUDA's libraries: cuBLAS, cuSOLVER, cuSPARSE, cuRAND statuses, cuFFT's results (`cuFFT error: CUFFT_INTERNAL_ERROR`)
    r"|\bCU(?:BLAS|SOLVER|SPARSE|RAND)_STATUS_\w+|\bCUFFT_[A-Z_]{4,40}\b|\bcu(?:FFT|BLAS|SOLVER|SPARSE|RAND) error\b"
    # Intel GPUs' Level Zero and Unified Runtime (`UR_RESULT_ERROR_DEVICE_LOST`)
    r"|\b(?:ZE|UR)_RESULT_ERROR_\w+|\blevel_zero backend failed\b"
    # ... and their kernel driver's report of a page fault on the device (`Segmentation fault from GPU at
    # 0xff00..., ctx_id: 1 (CCS) type: 0 (NotPresent) ..., banned: 1, aborting.`)
    r"|\bSegmentation fault from GPU at\b|(?i:\bGPU page fault\b)"
    r"|\bHIP (?:error|failure)\b|\bhipError\w+|\b(?:Memory access fault|HW Exception) by GPU\b"  # ROCm's HIP in CUDA's place
    # ... its kernel driver's runtime status (`HSA_STATUS_ERROR_OUT_OF_RESOURCES`) and its cuDNN, MIOpen
    r"|\bHSA_STATUS_ERROR_\w+|\bMIOpen Error\b|\bmiopenStatus(?!Success)\w+"
    # a TPU's runtime or driver (`TPU initialization failed: open(/dev/accel0): ...`, `!!!! FATAL ERROR !!!!`)
    r"|\bTPU initiali[sz]ation failed\b|\[/dev/accel\d{1,3}\b[^\]\n]{0,80}\] !+ ?FATAL ERROR\b"
    r"|\b(?:AcceleratorError|CudaError|CUDAError)\b"  # torch's exception types for a device's errors
    r"|\bCUDNN_STATUS_\w+|\bcuDNN error\b|illegal memory access|device-side assert"
    # torch's cuDNN v8 path when cuDNN offers no engine for a convolution (`GET was unable to find an engine`)
    r"|\b(?:GET|FIND) was unable to find an engine to execute this computation\b"
    # a CUDA runtime or driver call named as failing (UCX's `cuCtxGetDevice(&cu_device) is failed`)
    r"|\bcu(?:da)?[A-Z]\w{2,40}\([^)\n]{0,80}\)\s{0,4}(?:is |has )?failed\b"
    r"|\bcu(?:da)?[A-Z][A-Za-z]{2,40} failed\b|\bfailed call to cu(?:da)?[A-Z]\w{2,40}\b"  # ... named alone
    # CUDA set up in a process that then forks (its children cannot use it): MegEngine's, torch's words
    r"|(?i:\bcuda\b.{0,80}\bbefore (?:the )?fork|\bre-?initiali[sz]e cuda in (?:a )?forked)"
    r"|(?i:\bcuda has been initiali[sz]ed before\b.{0,80}\bfork)"  # accelerate's notebook_launcher
    r"|" + CUDA_RUNTIME_TEXT  # the runtime's words for a failure (those of a device or a version come first)
)
PORT_IN_USE = LazyRegex(
    r"Address already in use|\bEADDRINUSE\b|errno: 98\b"
    r"|\bOnly one usage of each socket address\b"  # Windows' words for it (WSAEADDRINUSE)
    # ... or the port could not be opened at all (in use, or below 1024 without root)
    r"|\bserver socket has failed to (?:listen|bind)\b|\bfailed to bind to\b"
    # ... or a launcher's own check (accelerate: `on port `29500`, but another process is utilizing it`)
    r"|(?i:\bport\b.{0,80}\b(?:another process is (?:using|utilizing)|(?:is )?already (?:in use|taken|used))\b)"
    # ... or a server of the job already listens there (`Ray is already running at 10.0.0.1:6888`)
    r"|\balready running at \S{1,100}:\d{2,5}\b"
)
_SETTING_UP = LazyRegex(
    r"(?i)(?<!::)\brendezvous\b(?! '(?!init')\w)|\binitiali[sz]ing (?:torch\.distributed|(?:the )?(?:default )?process group|ddp:|distributed:)"
    r"|\b(?:process group url|dist_url|init_method|master_addr|master_port)\b"
    # JAX's coordination service: the processes did not all reach its start-up or sync barrier.
    r"|DEADLINE_EXCEEDED: Barrier timed out|\bfailed to connect to (?:the )?(?:client )?mesh master\b"
    # ... torch_xla's mesh service, its check that the channel to the mesh master connected in time
    r"|\bmesh_service\.cc:\d{1,6} : Check failed: \w{0,40}->channel->WaitForConnected\b"
    r"|\bcluster registration failed\b|\bWait_for_all_tasks_to_register\b|\bto register with the coordination service\b"
    r"|\bCoordination service agent in error status: DEADLINE_EXCEEDED\b"
    # PMIx's fence that starts an MPI job, between Slurm's step daemons (`pmixp_coll_ring_reset_if_to: ...
    # collective timeout seq=0`)
    r"|\bpmixp?_\w{1,40}\b.{0,200}\btimeout\b"
    r"|\bwithout (?:using )?'?(?:mpirun|torchrun|srun|mpiexec)\b"  # processes started without their launcher
    # a store's client retrying its server (PaddlePaddle's `Retry to connect to 10.0.0.1:6170 while the
    # server is not yet listening.`)
    r"|\b[Rr]etry(?:ing)? to connect to \S{1,200}:\d{1,5}\b"
    # a process that restarted and joined again under a new identity (JAX's coordination service:
    # `/job:jax_worker/replica:0/task:1 unexpectedly tried to connect with a different incarnation`)
    r"|\btried to connect with a different incarnation\b"
    # a rendezvous store's wait for the other processes' keys (Horovod's gloo HTTP store), or c10d's
    # store client's read of one running out of time (`waitForInput: socket SocketImpl(...) timed out after
    # 1800000ms`, warned just before the store's error)
    r"|\b[Ww]ait timeout after \d{1,12} ?(?:s|ms|seconds|milliseconds) for key"
    r"|\bwaitForInput: socket SocketImpl\(.{0,400}?\) timed out after \d{1,12}ms"
    # ... or a launcher's wait for its processes to start (horovodrun: `Timed out waiting for tasks to start`)
    r"|\b[Tt]imed out waiting for (?:all )?(?:tasks|workers|processes|hosts) to (?:start|register|join|connect)\b"
    # ... or TensorFlow's placement on another task of the cluster that never registered (`/job:ps/task:4`)
    r"|\bdevice specification '/job:\w{1,40}/(?:replica:\d{1,5}/)?task:\d{1,7}[^']{0,60}' because no devices"
    r" matching that specification are registered\b"
)
# A process could not take its own address and port (in use, or not an address of this host).
_CANNOT_BIND = LazyRegex(r"(?i)\b(?:cannot|can't|could not|unable to) bind\b|\bfailed bind\b|\bbind failed\b")
# XLA's rendezvous of the threads that drive one process's devices through a collective (`Expected
# 8 threads to join the rendezvous, but not all of them arrived on time`): a collective that waits.
_COLLECTIVE_RENDEZVOUS = LazyRegex(
    r"\bthreads to join the rendezvous\b|\bhas been waiting for `[^`]{1,300}` for \d{1,9} seconds and may be stuck\b"
    # ... as older XLA words it (`This thread has been waiting for 5000ms for and may be stuck: participant
    # AllReduceParticipantData{rank=1, ...}`)
    r"|\bhas been waiting for \d{1,9} ?(?:ms|s|seconds) for .{0,120}\bmay be stuck\b"
)
_REFUSED_WORDS = r"\b(?i:connection) refused\b|\bECONNREFUSED\b|errno: 111\b"
_REFUSED = LazyRegex(_REFUSED_WORDS)
# A connection to another process that could not be made (refused, timed out, no route), in the
# words of sockets, NCCL's bootstrap (`Call to connect returned Connection refused, retrying`,
# `unhandled system error`) and the c10d store.
CONNECT_FAILED = LazyRegex(
    _REFUSED_WORDS + r"|errno: 110\b|\bConnection timed out\b|\bNo route to host\b"
    r"|\bunhandled system error\b|\b[Ss]ocket [Tt]imeout\b|\bfailed to connect\b"
)
# An address that does not resolve or cannot be reached: the job was given a wrong master address
# or interface, or the nodes cannot see each other.
_UNREACHABLE = LazyRegex(
    r"Name or service not known|nodename nor servname|Temporary failure in name resolution"
    r"|No route to host|Network is unreachable|Cannot assign requested address|\bEHOSTUNREACH\b"
    r"|\bgetaddrinfo\b.{0,40}fail|\bfailed to resolve\b|\bunknown host\b"
    r"|\bfailed to connect to\b.{0,300}(?:Connection timed out|errno: 110\b)"
    # gloo's transport made from this host's name or interface (`makeDeviceForHostname(): unsupported
    # gloo device`, `makeUVDevice(): interface or hostname can't be empty`)
    r"|\bmakeDeviceFor(?:Hostname|Interface)\(\)|\bmakeUVDevice\(\)"
)
# The canonical status codes of JAX, XLA, TensorFlow, PaddlePaddle and gRPC, as a code
# (`INTERNAL: ...`, TensorFlow's C++ `Internal: ...`), an exception type (`InvalidArgumentError`)
# or Paddle's `(InvalidArgument)`.
# The most generic words of all: tried last. (UNAVAILABLE and ABORTED, a peer gone, and
# DEADLINE_EXCEEDED, a wait that timed out, are consequences: see analyse.)
_INTERNAL_STATUS = LazyRegex(
    r"\b(?:INTERNAL|Internal): |\bInternalError\b|\(Internal\) "
    r"|\bINTERNAL ASSERT FAILED\b"  # PyTorch's check of its own state (`please report a bug to PyTorch`)
)
_INVALID_ARGUMENT_STATUS = LazyRegex(
    r"\b(?:INVALID_ARGUMENT|Invalid argument): |\bInvalidArgumentError\b|\(InvalidArgument\) "
)
# torch's checks of the tensors a program hands it: their shapes (`mat1 and mat2 shapes cannot be
# multiplied`), dtypes (`expected scalar type Float but found Double`), indices, and how it uses autograd
# (`Trying to backward through the graph a second time`). Not a batch's collation (`stack expects each
# tensor to be equal size`, a `view` of a sample): there the data may be at fault.
_TENSOR_MISUSE = LazyRegex(
    r"\bmat1 and mat2 shapes cannot be multiplied\b|\bindex out of range in self\b|\bGiven groups=\d{1,6}, weight of size\b"
    r"|\bInput type \(.{1,80}?\) and weight type \(.{1,80}?\) should be the same\b"
    r"|\belement \d{1,4} of tensors does not require grad\b|\bresult type \w{1,30} can't be cast to the desired output type\b"
    r"|\bTrying to backward through the graph a second time\b"
    r"|\bThe size of tensor a \(\d{1,12}\) must match the size of tensor b \(\d{1,12}\)"
    r"|\bExpected input batch_size \(\d{1,12}\) to match target batch_size\b"
    r"|\bone of the variables needed for gradient computation has been modified by an inplace operation\b"
    r"|\bexpected scalar type \w{1,30} but found \w{1,30}"
)
_UNIMPLEMENTED_STATUS = LazyRegex(
    r"\b(?:UNIMPLEMENTED|Unimplemented): |\bUnimplementedError\b|\(Unimplemented\) "
)
# A wait for another process that ran out of time: the canonical DEADLINE_EXCEEDED, or the words
# (HCCL's `Remote Rank did not send the data in time`, `timed out waiting for the peer`).
TIMED_OUT = LazyRegex(
    r"\b(?:DEADLINE_EXCEEDED|Deadline exceeded): |\bDeadlineExceededError\b"
    r"|(?i:\b(?:did not|didn't) (?:send|receive|arrive)\b.{0,60}\bin time\b)"
    r"|(?i:\btimed? ?out (?:while )?waiting for (?:the )?(?:peer|remote|other|rank)\w*)"
    # a device's wait for its collective stream (Ascend: `Stream synchronize timeout`, `hccl ... task timeout`)
    r"|(?i:\b(?:stream|synchroni[sz]e|sync|task) time ?out\b)"
    r"|\btimes out\b"  # Ascend's HCCL (`Getting socket times out`, `The wait execution of ... times out`)
    # a barrier of the program's own (over a store, a file) whose wait ran out, an RPC whose remote
    # worker did not answer in time
    r"|(?i:\bbarrier\b.{0,80}\btimed? ?out\b)|\bRPC ran for more than (?:the )?set timeout\b"
    # a step guard of the program's own (`step 16 did not finish within 4.0s`)
    r"|\bdid not (?:finish|complete) within\b"
)
# xformers' dispatch: no kernel of an operator supports the inputs on this device (bf16 on a V100).
_NO_KERNEL_FOR_INPUTS = LazyRegex(
    r"\bNo operator found for `\w{1,100}`"
    # ... or torch's: no kernel for a reduced precision on this device (`"addmm_impl_cpu_" not implemented for
    # 'Half'`; an operator that takes no `Double` or `Long` at all was given the wrong tensor, the script's
    # call) or for the device's backend (`Could not run 'aten::empty_strided' with arguments from the 'CUDA'
    # backend`, `The operator 'aten::_fused_adam_' is not currently implemented for the MPS device`)
    r"|\bnot implemented for '(?:Half|BFloat16|Float8\w{1,12}|ComplexHalf)'"
    # (a collective's for any backend; an operator's for a device's, not for a tensor layout the model chose:
    # `aten::bernoulli_` on a `SparseCsrCPU` tensor is the model's call)
    r"|\bCould not run '(?:c10d::[\w.]{1,200}' with arguments from the '\w{1,60}"
    r"|[\w:.]{1,200}' with arguments from the '(?!Sparse|Quantized|Mkldnn|Nested)\w{1,60})' backend"
    # ... or no handler of a tensor subclass implements a collective (a MaskedTensor in all_reduce)
    r"|\bMultiple dispatch failed for 'torch\._ops\.c10d\."
    r"|\bis not (?:currently )?implemented for the \w{1,20} device\b"
    # ... or a kernel built only for newer GPUs (`FlashAttention only supports Ampere GPUs or newer`,
    # `Bfloat16 is only supported on GPUs with compute capability of at least 8.0`)
    r"|(?i:\bonly supports? (?:\w{1,20} ){0,2}(?:Ampere|Hopper|Turing|Ada|Blackwell|Volta)\b)"
    r"|(?i:\bcompute capability (?:of )?(?:at least|>= ?)\s?\d)"
)
# A check of the job's parallel layout (sizes that must divide the world size, ranks that must fit the
# stages): the configuration's, whichever code raised it.
LAYOUT_CHECK = LazyRegex(
    r"(?i)\b(?:is not|should be|must be) divisible by\b|\bnot divisible by (?:the )?(?:world|tp|pp|dp)"
    r"|\bCheck batch related parameters\b"
    # ... or a model size that must be a multiple of a parallel size (`num_attention_heads (15) must be a
    # multiple of tensor_model_parallel_size (2)`)
    r"|\b(?:is not|should be|must be) a multiple of (?:the )?[\w. ]{0,40}?parallel"
    # ... or the parallel sizes do not multiply to the world size (`world_size (8) is not equal to
    # tensor_model_parallel_size (4) x pipeline_model_parallel_size (1)`)
    r"|\bworld[_ ]size\b.{0,20}\b(?:is not equal to|does not equal|!=)\s.{0,40}parallel"
    # ... or the processes the parallel layout needs are not the world size (`The number of process requires
    # to run all replicas (8) must be equal to the world size (4)`)
    r"|(?i:\b(?:must|should) be equal to (?:the )?world[_ ]size\b)"
    # ... or more ranks than the model has parts for (PiPPy's `Number of ranks is larger than number of stages`)
    r"|(?i:\bnumber of ranks is (?:larger|greater|more) than (?:the )?number of (?:stages|layers|experts)\b)"
)
# A device the library cannot use (`GPU 1 requested. GPUs other than cuda:0 are not currently supported`),
# or a sharding strategy that cannot take the model as it is (`DeepSpeed ZeRO-3 or FSDP is incompatible with
# PTQ-quantized models`).
_UNSUPPORTED_SETUP = LazyRegex(
    r"(?i)\b(?:GPUs?|devices?|cuda:\d{1,3})\b.{0,60}\b(?:is|are) not (?:currently |yet )?supported\b"
    r"|\b(?:FSDP|ZeRO(?:-?[123])?|DeepSpeed)\b.{0,40}\b(?:is|are) (?:incompatible|not compatible) with\b"
    # ... or on this operating system (`process forking is not supported on this platform`)
    r"|\bnot (?:currently |yet )?supported on (?:this platform|Windows|mac ?OS)\b"
)
# The installed build lacks a feature the job uses (`compile with USE_DIST_KVSTORE=1 to use
# dist_sync`, TensorFlow's `No OpKernel was registered to support Op 'NcclAllReduce'`).
_NOT_BUILT_WITH = LazyRegex(
    r"\bcompile (?:it )?with \w{1,60}=(?:1|ON) to use\b|\bNo OpKernel was registered to support Op\b"
    r"|\bNo registered '\w{1,100}' OpKernel for\b"  # ... or for the device XLA compiles for
    r"|\b(?:not|wasn't|was not) (?:built|compiled) with (?:support for )?\w{1,40}"
    r"|\b(?:built|compiled) without (?:\w{1,40} ){0,2}support\b"  # `PyTorch built without distributed support`
)
# CUDA's error 802: the machine's GPU system is not ready (on NVSwitch machines, the fabric manager is
# not running or does not match the driver); a cause of its own, whoever reports it.
CUDA_SYSTEM_NOT_READY = LazyRegex(
    r"\bsystem not yet initialized\b|cudaErrorSystemNotReady|CUDA_ERROR_SYSTEM_NOT_READY"
)
# Open MPI's processes could not read each other's messages: the hosts run different Open MPI releases.
_MPI_RELEASES_DIFFER = LazyRegex(r"\bData unpack would read past end of buffer\b")
# Python's and C++'s words for a thread the system would not create.
_NO_NEW_THREAD = LazyRegex(r"\bcan't start new thread\b|\bResource temporarily unavailable\b.{0,40}\bthread")
# TensorFlow's input pipeline ran out of data inside a step (workers with uneven data).
_END_OF_DATA = LazyRegex(r"\bOutOfRangeError\b.{0,60}\bEnd of sequence\b")
# The processes disagree on the size of the job: they were launched or configured apart.
_WORLD_DISAGREES = LazyRegex(
    r"(?i)\bworld[_ ]size\b.{0,80}\b(?:does not match|doesn't match|do not match|mismatch|differs?)\b"
    r"|\bInvalid rank requested\b"  # NCCL: a rank at or past the number of ranks the others were given
    r"|\brank < size\. \d{1,7} vs \d{1,7}"  # gloo's context: a rank at or past the group's size
)
# A data loader's worker processes died (Paddle's `DataLoader 1 workers exit unexpectedly`).
_LOADER_WORKERS = LazyRegex(
    r"(?i)\bDataLoader\b.{0,60}\bworkers?\b.{0,40}\b(?:exit(?:ed)?|died|killed|crashed)\b"
    # ... or a trainer's own data thread or worker that failed (OLMo's `generator thread data thread 3 failed`)
    r"|\bdata(?: ?loader)? (?:thread|worker|process)(?: \d{1,4})? (?:failed|died|crashed)\b"
)
# A distributed sampler's check of how it split the data between the ranks (`assert self.num_samples >= 1
# or self.total_size == 0`, `assert len(indices) == self.total_size`): its own fields in the assertion.
_SAMPLER_CHECK = LazyRegex(
    r"\bassert\b.{0,80}\bself\.(?:num_samples|total_size|num_replicas)\b"
    # ... or a streaming dataset's refusal to run on several nodes before it is told how to split its
    # shards between them (webdataset's `you need to add an explicit nodesplitter to your input pipeline`)
    r"|(?i:\bnode ?splitter\b|\binput pipeline\b.{0,60}\bmulti-?node\b)"
)
# A C or C++ assertion (glibc's `prog: file:line: function: Assertion `expr' failed.`) in a data loader's
# own source: its file or function names the loader or the dataset (llm.c's `llmc/dataloader.h:186:
# void dataloader_init(...)`).
_NATIVE_LOADER_CHECK = LazyRegex(
    r"(?i)\b[\w./-]{0,200}(?:data_?loader|dataset)[\w.-]{0,60}\.(?:h|hpp|c|cc|cpp|cu):\d{1,7}: .{0,300}\bAssertion `"
    # DALI's readers (`[/opt/dali/dali/pipeline/operators/reader/loader/loader.h:57] Assert on "..." failed`)
    r"|/(?:readers?|loaders?)/[\w./-]{0,200}\.(?:h|hpp|c|cc|cpp|cu):\d{1,7}\] Assert on \""
)
# A connection to a peer that went away: what a rank sees when another one failed.
PEER_LOST = LazyRegex(
    r"Connection (?:closed|reset) by peer|Broken pipe|ECONNRESET|remote process exited|"
    r"peer (?:closed|disconnected|went away)|Socket closed|recvBytes|"
    r"NCCL communicator was aborted|ProcessGroup(?:NCCL|Gloo)? is (?:aborted|shut ?down)|"
    # gRPC's and TensorFlow's words for a peer that went away (`UnavailableError: Socket closed`).
    r"\bUNAVAILABLE: |\bUnavailableError\b|\bAbortedError\b|Collective ops is aborted|"
    # ... and for an operation cancelled because another one failed (`RecvAsync is cancelled`).
    r"\bCancelledError\b|\bCANCELLED: |\bis cancelled\b|\bwith Cancelled: "
)
VERSION_TEXT = LazyRegex(
    r"undefined symbol|(?i:version[ _]?mismatch)|installed with version .{0,60} but found version|"
    # a version bound (`requires torch>=2.1`), not an argument's value (`requires with_stack=True`)
    r"requires [\w.-]+ ?(?:[<>]=?|[=~!]=)|incompatible|"
    # ... `is not compatible with` a version or a release, not a tensor's shape (`view size is not compatible
    # with input tensor's size and stride`)
    r"\bis not compatible with\b.{0,60}?(?:\bversions?\b|\bv?\d{1,4}\.\d{1,4}|\binstalled\b|\breleases?\b)|"
    # ... or a name a release took away (NumPy's `np.float_` was removed in the NumPy 2.0 release`)
    r"\b(?:was|were|has been|have been) removed in (?:the )?(?:[\w.-]{1,40} )?"
    r"(?:v(?:ersion)? ?\d{1,4}(?:\.\d{1,4}){0,3}|\d{1,4}(?:\.\d{1,4}){1,3})\b|"
    r"does not match the version|(?:was|were) compiled (?:with|against)|No module named|version ?>= ?\d|"
    r"(?i:\b(?:minimum|maximum|min|max) (?:supported )?version\b)|\bversion [\d.]{1,20} or (?:higher|newer|later)\b|"
    # a package, a shared library or a build tool missing from the environment
    r"cannot open shared object file|\b[Pp]lease (?:re)?install\b|\bpip install\b|\bis not installed\b|"
    r"\b(?:is|are) required to (?:load|build|compile|use|run)\b|"
    r"\brequires? (?:the )?[\w.-]{1,60} (?:package|library)\b|\b(?:package|library) [\w.'-]{1,60} (?:is )?not (?:found|available)\b|"
    r"module '[\w.]{1,200}' has no attribute"  # the installed package lacks the name
    # ... or torch.ops lacks an extension's operator (fbgemm_gpu, torchvision built for another torch)
    r"|'_OpNamespace' '\w{1,100}' object has no attribute|\bNo such operator [\w:]{1,200}"
)

# Exceptions of launchers and platforms that only carry a child's failure (their message may quote it).
# A program's report that a process it ran ended non-zero (an IDE's `Process finished with exit code
# 137`, a pipeline's `Step 2 exited with non-zero status 247`, a job platform's `return code is -9`): the
# process's own output says why.
PROCESS_EXITED = LazyRegex(
    r"(?i)\b(?:exit(?:ed)?|finished|terminated|returned|ended|died|failed|return)\b[^\n]{0,40}?"
    r"\b(?:exit )?(?:code|status)(?: is |[ :=]{1,3})(-?\d{1,4})\b"
)
# ... or that a process it ran died, with no word of why (`datasets`' `One of the subprocesses has
# abruptly died during map operation`): that process's own output says why.
CHILD_DIED = LazyRegex(
    r"(?i)\bsub-?process(?:es)?\b[^\n]{0,40}?\b(?:has |have )?(?:abruptly |unexpectedly |suddenly )?died\b"
)
# A platform's report that the program it ran failed with an exception (Azure ML's `UserError: User
# program failed with SystemExit: 2`): the program's own output says what.
PROGRAM_FAILED = LazyRegex(r"\bUser program failed with [A-Z]\w{0,100}")
WRAPPER_EXCEPTIONS = (
    "ChildFailedError",
    "CheckpointException",  # torch.distributed.checkpoint: the failed ranks' tracebacks follow it
    "ProcessRaisedException",
    "CalledProcessError",
    "ProcessExitedException",
    "AlgorithmError",  # SageMaker: `AlgorithmError: ExecuteUserScriptError: ExitCode 1`
    "ExecuteUserScriptError",
    "UnexpectedStatusException",  # SageMaker's SDK: the training job failed
    "Py4JJavaError",  # PySpark: a JVM call failed; a Spark job's own error (a Python worker's traceback) follows
)

# An HTTP server's error status, as a client reports it (`Server 1 failed: 500, Internal Server Error`,
# `503 Server Error: Service Unavailable for url: ...`).
_SERVER_ERROR = LazyRegex(
    r"\b5\d\d\b[ ,:-]{0,3}(?:Internal Server Error|Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out)\b"
)

# The trace of a C++ exception that the NCCL process group's watchdog raised (`Exception raised from
# checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 (most recent call first):`,
# its re-throw `from ncclCommWatchdog`), read where the excerpt lost the message above it; or one of its
# frames where the excerpt lost the trace's header too (`frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(`).
_WATCHDOG_TRACE = LazyRegex(
    r"\bException raised from (?:checkTimeout|ncclCommWatchdog|watchdogHandler) at \S{0,300}ProcessGroupNCCL"
    r"|^frame #\d{1,3}: c10d::ProcessGroupNCCL::(?:WorkNCCL::)?(?:checkTimeout|ncclCommWatchdog|watchdogHandler)\("
)

# (pattern, category, reason), in order: the first that matches decides.
MESSAGE_RULES: tuple[tuple[LazyRegex, str, str], ...] = (
    (_ALREADY_CHECKED_IN, "rendezvous", "two processes joined the process group with the same rank"),
    (_SHARED_DEVICE, "duplicate_device", "the message says two ranks use the same device"),
    (
        _UNPICKLABLE,
        "user_code",
        "the program handed another process an object pickle cannot serialise (a lambda, a local"
        " function, an open handle)",
    ),
    (
        _MISMATCHED_COLLECTIVE,
        "collective_mismatch",
        "the message says the ranks called different collectives",
    ),
    (
        _COLLECTIVE_SIZE_CHECK,
        "collective_mismatch",
        "a collective found that the tensors it was given do not fit the process group (a list or a split"
        " per rank, a size times the world size): the ranks' sizes disagree with what the group exchanges",
    ),
    (
        _BACKEND_LACKS,
        "backend_unsupported",
        "the message says the process group's backend lacks the operation",
    ),
    (
        _UNSUPPORTED_SETUP,
        "backend_unsupported",
        "the message says the library, or the way the model is sharded, does not support this device, model or"
        " operating system",
    ),
    (
        _NO_KERNEL_FOR_INPUTS,
        "backend_unsupported",
        "no kernel of the operator supports these inputs on this device (their data type, the device's backend"
        " or its GPU architecture)",
    ),
    (
        _NOT_BUILT_WITH,
        "backend_unsupported",
        "the installed build lacks a feature the job uses (it was compiled without it)",
    ),
    (
        _UNUSED_PARAMETERS,
        "unused_parameters",
        "the message asks for find_unused_parameters: the gradient reduction did not see every parameter",
    ),
    (_LOADER_WORKERS, "dataloader", "the message says the data loader's worker processes died"),
    (
        _SAMPLER_CHECK,
        "dataloader",
        "a check of how the data is split between the ranks failed (a distributed sampler with too few"
        " samples for the number of processes or a dataset whose length changed, a streaming dataset not"
        " told how to split its shards between the nodes)",
    ),
    (
        _NATIVE_LOADER_CHECK,
        "dataloader",
        "a check in the data loader's own native code failed (the data does not fit what it was asked to load)",
    ),
    (_END_OF_DATA, "dataloader", "the input pipeline ran out of data on this worker (End of sequence)"),
    (_WORLD_DISAGREES, "rendezvous", "the processes disagree on the world size: they were launched apart"),
    (CUDA_OOM, "oom_gpu", "the message says a device ran out of memory"),
    (_CUDA_VERSION, "version_mismatch", "the message says the CUDA driver or binaries do not fit this GPU"),
    (_CUDA_NO_DEVICE, "invalid_device", "the message says the CUDA device asked for does not exist"),
    (
        _DEVICE_STRING,
        "invalid_device",
        "the job named its device in a form torch cannot read (`0` for `cuda:0`): its device setting is wrong",
    ),
    (
        _ACCELERATOR_MISSING,
        "invalid_device",
        "the framework does not see the accelerator it was told to use, or not as many devices as the job expects",
    ),
    (
        CUDA_SYSTEM_NOT_READY,
        "cuda_error",
        "CUDA says the GPU system is not ready (error 802): on NVSwitch machines the fabric manager is not"
        " running or does not match the driver",
    ),
    (
        _LIBRARY_MISSING,
        "version_mismatch",
        "a module or shared library the installed packages need could not be loaded (not installed, or another"
        " version)",
    ),
    (
        _MPI_RELEASES_DIFFER,
        "version_mismatch",
        "Open MPI's processes could not read each other's messages: the hosts run different Open MPI"
        " releases (or builds)",
    ),
    (
        _VERSION_REQUIRED,
        "version_mismatch",
        "the message states a version that the installed one does not meet",
    ),
    (_NCCL_FAILURE, "nccl_error", "the message says an NCCL call failed"),
    (_HOST_OOM, "oom_host", "the message says the host ran out of memory (or a process was killed for it)"),
    (
        PORT_IN_USE,
        "rendezvous",
        "the message says a port is already in use: another job or a leftover process holds it",
    ),
    (
        _CANNOT_BIND,
        "rendezvous",
        "a process could not bind its address and port: in use by another process, or not an address"
        " of this host",
    ),
    (
        _COLLECTIVE_RENDEZVOUS,
        "collective_timeout",
        "the threads of one collective did not all arrive: a device or a process is stuck or behind",
    ),
    (_SETTING_UP, "rendezvous", "the message says setting up the process group (the rendezvous) failed"),
    (
        _REFUSED,
        "rendezvous",
        "a connection was refused: nothing listened at that address (a peer or the store had not"
        " started, or the address or port is wrong)",
    ),
    (
        _UNREACHABLE,
        "rendezvous",
        "an address could not be resolved or reached: check MASTER_ADDR, the network interface and"
        " that the nodes see each other",
    ),
    (_CUDA_FAILURE, "cuda_error", "the message says a call to the GPU (or other accelerator) runtime failed"),
    (
        _KILLED_BY_SIGKILL,
        "oom_host",
        "a process was killed by SIGKILL with no error of its own: most likely host memory",
    ),
    (TIMED_OUT, "collective_timeout", "a wait for the other processes ran out of time"),
    (
        PEER_LOST,
        "collective_timeout",
        "the connection to a peer was lost: what a rank sees when another one failed (or the network broke)",
    ),
    (
        _UNIMPLEMENTED_STATUS,
        "backend_unsupported",
        "the runtime does not implement the operation on this backend or device (UNIMPLEMENTED)",
    ),
    (
        _INVALID_ARGUMENT_STATUS,
        "user_code",
        "the library rejected an argument the program gave it (INVALID_ARGUMENT): shapes, types or values",
    ),
    (
        _TENSOR_MISUSE,
        "user_code",
        "torch rejected the tensors the program gave it (their shapes, dtypes or indices) or how it used"
        " autograd: an error of the training code or its data, whichever frames the excerpt kept",
    ),
    (
        _NO_NEW_THREAD,
        "other",
        "the process could not start a thread: it reached a limit on threads or processes (`ulimit -u`, a"
        " container's pids limit) or on memory",
    ),
    (
        _SERVER_ERROR,
        "other",
        "a service the job calls over HTTP answered with a server error (5xx: a rollout or inference server,"
        " a model hub, a tracker): that service failed, not the training code",
    ),
    (
        _INTERNAL_STATUS,
        "other",
        "the runtime reports an internal error (INTERNAL): a fault inside the library, not a wrong call",
    ),
    (
        LAYOUT_CHECK,
        "other",
        "a check of the job's parallel layout failed: the sizes the job was given do not fit its world size",
    ),
    (  # last: a message that states its failure says more than the trace under it
        _WATCHDOG_TRACE,
        "collective_timeout",
        "the trace of an exception of the NCCL watchdog, whose message was lost: it ends the process when a"
        " collective runs past its timeout (or NCCL fails under it)",
    ),
)


_DIGIT_RUN = re.compile(r"(?<! ) *\d+")  # from a run of spaces' start: linear on a line of spaces


# A count of the units of work a rank announces it will run (`5 batches`, `12 steps/epoch`, `6 val steps`).
WORK_COUNT = re.compile(
    r"\b(\d{1,9}) (?:\w{1,12} )?(?:batch(?:es)?|micro-?batch(?:es)?|steps?|iter(?:ation)?s?|samples?|examples?)\b"
)


# A counter of a training loop's progress a rank states (`epoch 3`, `step=120`, `iter: 40`, `round #2`).
PROGRESS_COUNTER = LazyRegex(r"(?i)\b(epoch|step|iter|iteration|round|episode|update)\b ?[:=#]? ?(\d{1,9})\b")


# A native library's failed check as its assert macro prints it: C's `assert` (`prog: x.c:97: f:
# Assertion `p' failed.`), ZeroMQ's and others' (`Assertion failed: p (src/msg.cpp:97)`, its errno check
# `Bad address (src/tcp.cpp:199)`: a message and the C or C++ source line, nothing else).
NATIVE_CHECK = LazyRegex(
    r"\bAssertion `.{1,500}' failed\.|\bAssertion failed: .{1,500}\(\S{1,300}\.(?:c|cc|cpp|cxx|h|hpp):\d{1,6}\)"
    r"|^\S[^()]{1,200} \(\S{1,300}\.(?:c|cc|cpp|cxx|h|hpp):\d{1,6}\)$"
    r"|\bAssertion failure at \S{1,300}\.(?:c|cc|cpp|cxx|h|hpp):\d{1,6}:"  # PSM3's, libfabric providers'
)
# A setting a line states by name, its value a word or a list of words (`bond_features=False`,
# `precision: bf16`, `tasks=cls,reg`).
SETTING = LazyRegex(
    r"\b[A-Za-z_][\w.-]{0,40}['\"]?(?:=|: ?)['\"]?([A-Za-z_][\w.-]{0,40}(?:,[A-Za-z_][\w.-]{0,40}){0,8})\b"
)
# ... its value a number (`trainable params: 5120`, `num_classes=11`, a dict's `'embedding_dim': 96`):
# its key, then its value.
SIZE_SETTING = LazyRegex(r"\b([A-Za-z_][\w.-]{0,40})['\"]?(?:=|: ?)(\d{1,12}(?:\.\d{1,9})?)(?![\w.])")


# A size a progress line reads out (`mask_cache 3.49 GiB`, `rss=12.3GB`, `355,957 MiB`): memory the rank holds.
SIZE_READING = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3}){1,3}(?:\.\d{1,6})?|\d{1,9}(?:\.\d{1,6})?) ?([KMGT]i?B)\b"
)


def numberless(text: str) -> str:
    """The text with every run of digits (and the spaces that pad it to a column) as `#`: what two
    lines that differ only in their numbers (a step, a rank, a time, a port) share."""
    return _DIGIT_RUN.sub("#", text)


# The source location a C++ check prints before its message (gloo's `[/src/gloo/transport/tcp/pair.cc:553] `,
# caffe2's `[enforce fail at socket.cc:24] rv != -1. -1 vs -1. `), at the start or after the exception's name.
_SOURCE_PREAMBLE = re.compile(
    r"^((?:[\w.]{1,200}: )?)\[(?:enforce fail at )?[^\]\s]{1,300}\.(?:cc|cpp|cu|cuh|h|hpp):\d{1,6}\] "
    r"(?:[^.\]]{1,200}\. -?\d{1,20} vs -?\d{1,20}\. )?"
)


def without_source_preamble(text: str) -> str:
    """The message without the source file, line and failed condition a C++ check prints before it."""
    found = _SOURCE_PREAMBLE.search(text)
    if found is None or not text[found.end() :].strip():
        return text
    return text[: found.end(1)] + text[found.end() :]


def message_category(text: str) -> tuple[str, str] | None:
    """What an unknown message says failed, in its own words: (category, reason), or None."""
    if _PINNED_HOST_OOM.search(text):  # CUDA's error 2, from the allocator of the host's memory
        return (
            "oom_host",
            "CUDA's allocator of page-locked host memory ran out: the host's memory, not the GPU's",
        )
    number = _cuda_error_number(text)
    if number is not None and number in _CUDA_ERROR_CATEGORY:
        return _CUDA_ERROR_CATEGORY[number]
    for pattern, category, reason in MESSAGE_RULES:
        if pattern.search(text):
            return category, reason
    return None


def device_shared_by_processes(text: str) -> str | None:
    """Why a CUDA out-of-memory message shows its device shared by several processes training on it
    (the job's ranks placed on one GPU), or None.

    The allocator lists every process on the device. Three or more holding a training share each
    (gigabytes, not a peer's stray context) are several ranks on one GPU. Where the container hides
    their use (each listed with 0 bytes), three or more others beside a process that itself holds
    less than half of the device tell the same."""
    device = _DEVICE_CAPACITY.search(text)
    if device is None or (capacity := parse_size(device.group(2))) is None:
        return None
    others = [parse_size(size) or 0.0 for size in _OTHER_PROCESS.findall(text)]
    own = _THIS_PROCESS.search(text)
    # Without `this process has`, the process is one of those listed.
    held = [*others, parse_size(own.group(1)) or 0.0] if own is not None else others
    training = [size for size in held if size >= _TRAINING_SHARE]
    if len(training) >= _SHARERS:
        return (
            f"the allocator lists {len(training)} processes each holding at least"
            f" {format_size(_TRAINING_SHARE)} of GPU {device.group(1)}: several ranks train on one device"
        )
    allocated = _ALLOCATED.search(text)
    mine = parse_size(allocated.group(1)) if allocated is not None else None
    if len(others) >= _SHARERS and not any(others) and mine is not None and mine < capacity / 2:
        return (
            f"the allocator lists {len(others)} other processes on GPU {device.group(1)} (their use hidden"
            f" from this container) while this process holds {format_size(mine)} of its"
            f" {format_size(capacity)}: several ranks share one device"
        )
    return None


def _cuda_error_number(text: str) -> int | None:
    """The cudaError_t number a message reports, if it gives one."""
    found = _CUDA_ERROR_NUMBER.search(text)
    if found is None:
        return None
    return int(next(group for group in found.groups() if group is not None))
