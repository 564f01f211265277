#!/usr/bin/env bash
# One short GPU check for ddpdoctor on the lent H200: real failures, explained; real probes.
# Run it on a machine with one CUDA GPU from the repository root: OUT=/tmp/out bash scripts/gpu_check.sh
# (needs torch with CUDA, typer, rich and pyyaml; hyperscan is optional). Results land in $OUT/summary.txt.
set -u
: "${OUT:?set OUT to a folder for the logs and summary}"
mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
DD="python3 -m ddpdoctor"
S=$OUT/summary.txt
say() { echo "$*" | tee -a "$S"; }
say "== versions"; python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())' 2>&1 | tee -a "$S"

# 1. a real CUDA out-of-memory error, then explain it
python3 - > "$OUT/oom.log" 2>&1 <<'PY'
import torch
x = torch.empty(int(100e9), dtype=torch.uint8, device="cuda")
y = torch.empty(int(100e9), dtype=torch.uint8, device="cuda")
PY
say "== oom: $($DD explain "$OUT/oom.log" --format json | python3 -c 'import json,sys; r=json.load(sys.stdin)["root_cause"]; print(r["entry"], r["category"], r["rank"])')"

# 2. a real device-side assert (index out of range in a kernel)
python3 - > "$OUT/assert.log" 2>&1 <<'PY'
import torch
t = torch.zeros(4, device="cuda")
i = torch.tensor([7], device="cuda")
print(t[i].sum().item())
PY
say "== assert: $($DD explain "$OUT/assert.log" --format json | python3 -c 'import json,sys; r=json.load(sys.stdin)["root_cause"]; print(r["entry"], r["category"], r["rank"])')"

# 3. two NCCL ranks on one GPU (duplicate device), launched by torchrun, then explain the whole output
cat > /tmp/dup.py <<'PY'
import os, torch, torch.distributed as dist
dist.init_process_group("nccl", device_id=torch.device("cuda", 0))
t = torch.ones(1, device="cuda:0")
dist.all_reduce(t)
torch.cuda.synchronize()
print("sum", t.item())
dist.destroy_process_group()
PY
timeout 60 python3 -m torch.distributed.run --standalone --nproc-per-node 2 /tmp/dup.py > "$OUT/dup.log" 2>&1
say "== duplicate (torchrun exit $?): $($DD explain "$OUT/dup.log" --format json | python3 -c 'import json,sys; r=json.load(sys.stdin)["root_cause"]; print(r and (r["entry"], r["category"], r["rank"]))')"

# 4. check with the real probe (NVML when present): duplicate through an alias, and a memory budget
$DD check --devices cuda:0,0 --min-free 500GiB --format json > "$OUT/check.json" 2>>"$S"
say "== check (exit $?): $(python3 -c 'import json; d=json.load(open("'$OUT'/check.json")); print([(f["id"], f["severity"]) for f in d["findings"] if f["severity"] in ("error","warning")])')"

# 5. check --distributed on NCCL with one rank
timeout 90 python3 -m torch.distributed.run --standalone --nproc-per-node 1 -m ddpdoctor check --distributed --timeout 30 --format json > "$OUT/dist.json" 2>>"$S"
say "== distributed (exit $?): $(python3 -c 'import json; d=json.load(open("'$OUT'/dist.json")); print(d["ok"], [(f["id"], f["severity"]) for f in d["findings"]][:12])')"
