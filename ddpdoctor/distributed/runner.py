"""`check --distributed`: every rank checks itself, rank 0 checks the job, all of it bounded in time.

The steps, each bounded by the timeout:

1. every rank reads its launch variables, resolves its device from the template and runs the
   single-node checks on it (:func:`ddpdoctor.check.runner.run_checks`);
2. every rank joins the rendezvous store and publishes its facts; rank 0 gathers them, names the
   ranks that never came, and compares the rest (:mod:`~ddpdoctor.distributed.analysis`);
3. when nothing so far is an error, every rank initialises the process group and runs the
   collective tests (:mod:`~ddpdoctor.distributed.collectives`) and sends its results to rank 0;
4. rank 0 builds the report, hands it to `on_report` (the CLI prints it), then releases the
   other ranks with its verdict, so that no rank exits (and no launcher tears the job down)
   before the report is out. The other ranks hand `on_report` their own report (the CLI prints
   only its errors) and, when failing, linger a moment so that rank 0 exits first.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ddpdoctor.check import registry
from ddpdoctor.check.backend import choose_backend
from ddpdoctor.check.base import finding
from ddpdoctor.check.devices import parse_device_list
from ddpdoctor.check.runner import CHECK_SCHEMA, CheckOptions, link_findings, run_checks, validated
from ddpdoctor.distributed.analysis import analyse
from ddpdoctor.distributed.collectives import (
    CPU_SIZES,
    GPU_SIZES,
    TARGET_SECONDS,
    TEST_IDS,
    TESTS,
    BandwidthRow,
    CollectiveResult,
    run_collectives,
)
from ddpdoctor.distributed.facts import RankFacts, gather_facts
from ddpdoctor.distributed.launch import (
    DEFAULT_CPU_TEMPLATE,
    DEFAULT_CUDA_TEMPLATE,
    LaunchInfo,
    expand_device_template,
    launch_from_env,
)
from ddpdoctor.distributed.rendezvous import Coordinator, StoreUnavailable, open_store
from ddpdoctor.distributed.report import DistributedCheckReport
from ddpdoctor.distributed.wording import ranks_phrase
from ddpdoctor.environment import collect_versions
from ddpdoctor.errors import InputError
from ddpdoctor.findings import Finding, Severity
from ddpdoctor.hardware.inventory import DeviceProbe, Inventory, SimulatedProbe, visible_mapping
from ddpdoctor.hardware.probes import probe_from_spec

registry.declare(
    "dist.rendezvous",
    category="rendezvous",
    title="every rank reaches the rendezvous store within --timeout; missing ranks are named",
    entries=("dist-store-timeout",),
)
registry.declare(
    "dist.rank-lost",
    category="collective_timeout",
    title="every rank reports back after the collective tests",
    entries=("nccl-watchdog-timeout",),
)
# A rank waits at least this long for rank 0's store, however long its own start took.
MIN_STORE_WAIT_S = 2.0
# How long rank 0 waits for the other ranks' results once its own collective tests failed.
BROKEN_GROUP_SECONDS = 5.0
# How long rank 0 waits for the other ranks' goodbyes before it closes a store it hosts.
BYE_SECONDS = 10.0
# Extra seconds a non-zero rank grants rank 0 on top of its own bounded steps.
FOLLOW_SLACK_SECONDS = 30.0
# A failing non-zero rank waits this long after its release, so that rank 0 (the one with the
# report) exits first and a launcher such as torchrun names it as the root cause.
EXIT_GRACE_SECONDS = 2.0


@dataclass(frozen=True)
class DistributedOptions:
    """What `check --distributed` does on each rank.

    `checks` are the single-node options, applied to each rank's one device (their `devices` is
    replaced by the device `device_template` gives the rank; their `timeout` bounds every step).
    """

    checks: CheckOptions = field(default_factory=CheckOptions)
    device_template: str | None = None
    bandwidth_sizes: Sequence[int] | None = None
    bandwidth_target_s: float = TARGET_SECONDS

    @property
    def timeout(self) -> float:
        """Seconds each step may take."""
        return self.checks.timeout


def _import_torch() -> Any:
    """torch, without the NumPy-missing warning some builds print on import (ranks must stay quiet).

    torch's C++ log level is set to FATAL unless the user chose one (TORCH_CPP_LOG_LEVEL), so that
    a rendezvous that times out is one line of ours, not pages of C++ frames from c10d.
    """
    os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "FATAL")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Failed to initialize NumPy.*")
        import torch

    return torch


def default_template(probe: DeviceProbe, environ: Mapping[str, str]) -> str:
    """`cuda:{local_rank}` when this machine (or the simulated one) has a usable GPU, `cpu` otherwise."""
    if isinstance(probe, SimulatedProbe):
        inventory = probe.inventory()
        has_gpu = bool(visible_mapping(inventory, inventory.environ(environ)).ordinals)
    else:
        torch = _import_torch()
        has_gpu = bool(torch.cuda.is_available() and torch.cuda.device_count() > 0)
    return DEFAULT_CUDA_TEMPLATE if has_gpu else DEFAULT_CPU_TEMPLATE


def merge_rank_findings(ranks: Sequence[RankFacts]) -> list[Finding]:
    """The ranks' own findings, folded: passes by check id, other findings when identical across ranks."""
    groups: dict[tuple[str, ...], list[Finding]] = {}
    for facts in ranks:
        for f in facts.findings:
            key = (f.id, "ok") if f.severity is Severity.OK else (f.id, f.severity.value, f.title, f.message)
            groups.setdefault(key, []).append(f)
    out = []
    for members in groups.values():
        first = members[0]
        numbers = sorted({m.rank for m in members if m.rank is not None})
        if len(numbers) < 2:
            out.append(first)
        elif first.severity is Severity.OK:
            same = len({m.title for m in members}) == 1
            title = first.title if same else f"{registry.get(first.id).title} (every rank)"
            out.append(first._replace(rank=None, title=title, message=title, data={"ranks": numbers}))
        elif first.severity is Severity.INFO:
            out.append(first._replace(rank=None, data={**first.data, "ranks": numbers}))
        else:
            message = f"{first.message} (on {ranks_phrase(numbers)})"
            out.append(
                first._replace(rank=numbers[0], message=message, data={**first.data, "ranks": numbers})
            )
    return out


def drop_superseded_passes(findings: Sequence[Finding]) -> list[Finding]:
    """Leave out a check's pass when the same check also reported a problem (e.g. across ranks)."""
    flagged = {f.id for f in findings if f.severity in (Severity.ERROR, Severity.WARNING)}
    return [f for f in findings if not (f.severity is Severity.OK and f.id in flagged)]


def _rendezvous_finding(missing: list[int], world_size: int, timeout: float, launch: LaunchInfo) -> Finding:
    if not missing:
        return finding(
            "dist.rendezvous",
            Severity.OK,
            f"all {world_size} ranks joined the rendezvous",
            data={"missing": [], "store": f"{launch.master_addr}:{launch.master_port}"},
        )
    return finding(
        "dist.rendezvous",
        Severity.ERROR,
        f"{ranks_phrase(missing)} never joined the rendezvous",
        f"{len(missing)} of {world_size} ranks did not reach the store at {launch.master_addr}:{launch.master_port} "
        f"within {timeout:g}s: {ranks_phrase(missing)} never started, crashed before joining, or waits on "
        "another MASTER_ADDR/MASTER_PORT. A training job would hang in init_process_group here.",
        rank=missing[0],
        solutions=(
            f"Look at the log of {ranks_phrase(missing)} (or its node): it failed before it could join.",
            "Check that every node got the same MASTER_ADDR, MASTER_PORT and WORLD_SIZE, and can reach rank 0's host.",
            "If the node is just slow to start, give it more time with --timeout.",
        ),
        entry="dist-store-timeout",
        data={"missing": missing, "store": f"{launch.master_addr}:{launch.master_port}"},
    )


def _store_failure(problem: str, launch: LaunchInfo) -> Finding:
    hosted = launch.rank == 0 and not launch.use_agent_store
    if hosted:
        title, cause = "rank 0 could not open the rendezvous store", ""
    elif launch.use_agent_store:
        title = f"rank {launch.rank} could not reach the torchrun agent's store"
        cause = ". The agent on the first node stopped, or MASTER_ADDR/MASTER_PORT do not point at it."
    else:
        title = f"rank 0 never answered rank {launch.rank}"
        cause = ". Rank 0 never started, crashed, or MASTER_ADDR/MASTER_PORT do not point at it."
    return finding(
        "dist.rendezvous",
        Severity.ERROR,
        title,
        problem.rstrip(".") + (cause or "."),
        rank=0 if not launch.use_agent_store else launch.rank,
        solutions=(
            "Pick a free MASTER_PORT (torchrun --master-port) and make sure no earlier run still holds it."
            if hosted
            else "Check that rank 0 is running and that MASTER_ADDR:MASTER_PORT reaches it from this node.",
        ),
        entry="address-already-in-use" if hosted else "store-connection-refused",
        data={"store": f"{launch.master_addr}:{launch.master_port}", "problem": problem},
    )


_OK_TITLES = {
    "process_group": "init_process_group({backend}) succeeded on all {n} ranks",
    "barrier": "all {n} ranks passed the barrier",
    "all_reduce": "all_reduce returned the correct sum on all {n} ranks",
    "broadcast": "broadcast from rank 0 arrived intact on all {n} ranks",
    "bandwidth": "all_reduce bandwidth measured on all {n} ranks",
}


def _peak(rows: Sequence[BandwidthRow]) -> BandwidthRow:
    return max(rows, key=lambda r: r.busbw)


def collective_findings(
    results: Mapping[int, Sequence[CollectiveResult]],
    lost: Sequence[int],
    bandwidth: Sequence[BandwidthRow],
    *,
    backend: str,
    timeout: float,
) -> list[Finding]:
    """Rank 0's findings from every rank's collective results (and the ranks that never reported)."""
    out: list[Finding] = []
    heard = sorted(results)
    for test in TESTS:
        by_rank = {r: next((x for x in results[r] if x.test == test), None) for r in heard}
        failed = {r: x for r, x in by_rank.items() if x is not None and x.status == "failed"}
        check_id = TEST_IDS[test]
        if failed:
            missing = sorted({m for x in failed.values() for m in x.data.get("missing", [])})
            details = sorted({x.detail for x in failed.values()})
            who = ranks_phrase(missing) if missing else ranks_phrase(list(failed))
            title = (
                f"{who} never reached the barrier"
                if test == "barrier" and missing
                else f"{test} failed on {ranks_phrase(list(failed))}"
            )
            out.append(
                finding(
                    check_id,
                    Severity.ERROR,
                    title,
                    "; ".join(details) + (f" (waited {timeout:g}s)" if test == "barrier" else "") + ".",
                    rank=missing[0] if missing else min(failed),
                    solutions=(
                        "Run again with NCCL_DEBUG=INFO (NCCL) or TORCH_DISTRIBUTED_DEBUG=DETAIL and read the "
                        "failing rank's log.",
                        "Check the network between the nodes (NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME) and "
                        "that no firewall blocks the ranks' ports.",
                    ),
                    data={"failed": sorted(failed), "missing": missing, "backend": backend},
                )
            )
        elif test == "bandwidth" and bandwidth:
            peak = _peak(bandwidth)
            out.append(
                finding(
                    check_id,
                    Severity.INFO,
                    f"all_reduce bus bandwidth up to {peak.busbw:.3f} GB/s ({backend}, {len(heard)} ranks)",
                    f"Peak at {peak.size} bytes: algbw {peak.algbw:.3f} GB/s, busbw {peak.busbw:.3f} GB/s "
                    "(busbw = algbw x 2(n-1)/n, as nccl-tests reports it).",
                    data={"rows": [b.to_dict() for b in bandwidth]},
                )
            )
        elif heard and all(x is not None and x.status == "ok" for x in by_rank.values()):
            out.append(
                finding(
                    check_id,
                    Severity.OK,
                    _OK_TITLES[test].format(backend=backend, n=len(heard)),
                    data={"ranks": heard},
                )
            )
        elif heard and all(x is not None and x.status == "skipped" for x in by_rank.values()):
            reason = next(x.detail for x in by_rank.values() if x is not None)
            out.append(finding(check_id, Severity.INFO, f"{test} skipped: {reason}"))
    if lost:
        out.append(
            finding(
                "dist.rank-lost",
                Severity.ERROR,
                f"{ranks_phrase(list(lost))} never reported after the collective tests",
                f"{ranks_phrase(list(lost))} joined the rendezvous but sent no results within {2 * timeout:g}s: "
                "it crashed or hangs inside a collective.",
                rank=lost[0],
                solutions=(
                    f"Read the log of {ranks_phrase(list(lost))}; a hang there also stalls training.",
                ),
                entry="nccl-watchdog-timeout",
                data={"lost": list(lost)},
            )
        )
    return out


def _results_json(results: Sequence[CollectiveResult]) -> str:
    return json.dumps([r.to_dict() for r in results])


def _results_from_json(text: str) -> list[CollectiveResult]:
    return [CollectiveResult.from_dict(d) for d in json.loads(text)]


@dataclass
class _Rank:
    """The state of one rank through the steps; `run` returns its report."""

    options: DistributedOptions
    launch: LaunchInfo
    facts: RankFacts
    device: str
    backend: str
    inventory: Inventory | None
    on_report: Callable[[DistributedCheckReport], None] | None
    # Seconds this rank spent starting (torch's import); they count against the wait for the store.
    startup_s: float = 0.0

    @property
    def timeout(self) -> float:
        return self.options.timeout

    def report(
        self,
        findings: list[Finding],
        ranks: list[RankFacts],
        bandwidth: Sequence[BandwidthRow] = (),
        job_ok: bool | None = None,
    ) -> DistributedCheckReport:
        return DistributedCheckReport(
            schema=CHECK_SCHEMA,
            findings=findings,
            inventory=self.inventory,
            rank=self.launch.rank,
            world_size=self.launch.world_size,
            backend=self.backend,
            timeout_s=self.timeout,
            ranks=ranks,
            bandwidth=list(bandwidth),
            job_ok=job_ok,
        )

    def sizes(self) -> Sequence[int]:
        if self.options.bandwidth_sizes is not None:
            return self.options.bandwidth_sizes
        return GPU_SIZES if self.device.startswith("cuda") else CPU_SIZES

    def collectives(self, coordinator: Coordinator) -> tuple[list[CollectiveResult], list[BandwidthRow]]:
        run = run_collectives(
            self.backend,
            self.device,
            coordinator,
            self.timeout,
            sizes=self.sizes(),
            target_s=self.options.bandwidth_target_s,
        )
        return run.results, run.bandwidth

    def run(self) -> DistributedCheckReport:
        try:
            wait = max(min(self.timeout, MIN_STORE_WAIT_S), self.timeout - self.startup_s)
            store = open_store(self.launch, self.timeout, wait)
        except StoreUnavailable as exc:
            failure = _store_failure(str(exc), self.launch)
            findings = [*self.facts.findings, failure]
            if self.launch.rank == 0:
                findings = self._linked(findings)  # only rank 0 prints a full report
            return self.deliver(self.report(findings, [self.facts]), linger=False)
        coordinator = Coordinator(store, self.launch.rank, self.launch.world_size)
        coordinator.publish("facts", self.facts.to_json())
        if self.launch.rank == 0:
            return self.lead(coordinator)
        return self.follow(coordinator)

    def deliver(self, report: DistributedCheckReport, *, linger: bool = True) -> DistributedCheckReport:
        """Hand the report to `on_report`; a failing non-zero rank then lingers so rank 0 exits first.

        `linger` False: rank 0 is unreachable, so there is nothing to let it go first.
        """
        if self.on_report is not None:
            self.on_report(report)
        if linger and not report.is_reporter and report.exit_code():
            time.sleep(min(EXIT_GRACE_SECONDS, self.timeout))
        return report

    def _linked(self, findings: list[Finding]) -> list[Finding]:
        return link_findings(findings, burn=False, kb_dirs=self.options.checks.kb_dirs)

    def lead(self, coordinator: Coordinator) -> DistributedCheckReport:
        """Rank 0: gather, analyse, decide, test, report, release."""
        world_size = self.launch.world_size
        joined = coordinator.gather("facts", self.timeout)
        ranks = [RankFacts.from_json(joined.payloads[r]) for r in sorted(joined.payloads)]
        findings = [
            _rendezvous_finding(joined.missing, world_size, self.timeout, self.launch),
            *merge_rank_findings(ranks),
            *analyse(ranks, world_size),
        ]
        go = not any(f.severity is Severity.ERROR for f in findings)
        coordinator.announce("verdict", "go" if go else "stop")
        bandwidth: list[BandwidthRow] = []
        if go:
            own, bandwidth = self.collectives(coordinator)
            coordinator.publish("results", _results_json(own))
            # When this rank's own tests failed the group is broken: the others fail as fast, and a
            # rank that does not report by then is frozen or gone.
            broken = any(r.status == "failed" for r in own)
            gathered = coordinator.gather("results", BROKEN_GROUP_SECONDS if broken else 2 * self.timeout)
            results = {r: _results_from_json(p) for r, p in gathered.payloads.items()}
            findings += collective_findings(
                results, gathered.missing, bandwidth, backend=self.backend, timeout=self.timeout
            )
        else:
            findings.append(
                finding(
                    "dist.process-group",
                    Severity.INFO,
                    "collective tests skipped: fix the errors above first",
                    "The process group was not started, so that a broken setup cannot hang the check.",
                )
            )
        report = self.deliver(self.report(self._linked(drop_superseded_passes(findings)), ranks, bandwidth))
        coordinator.announce("closed", "ok" if report.ok else "error")
        coordinator.gather("bye", BYE_SECONDS, expect=len(ranks) - 1)
        return report

    def follow(self, coordinator: Coordinator) -> DistributedCheckReport:
        """Other ranks: wait for rank 0's verdict, test, send results, wait to be released."""
        own: list[Finding] = list(self.facts.findings)
        patience = 2 * self.timeout + FOLLOW_SLACK_SECONDS
        try:
            verdict = coordinator.await_announcement("verdict", patience)
            if verdict == "go":
                results, _ = self.collectives(coordinator)
                coordinator.publish("results", _results_json(results))
                own += collective_findings(
                    {self.launch.rank: results}, [], [], backend=self.backend, timeout=self.timeout
                )
            closed = coordinator.await_announcement("closed", 3 * self.timeout + FOLLOW_SLACK_SECONDS)
            coordinator.publish("bye")
        except StoreUnavailable as exc:
            own.append(
                finding(
                    "dist.rendezvous",
                    Severity.ERROR,
                    f"rank {self.launch.rank} lost contact with rank 0",
                    f"{str(exc).rstrip('.')}. Rank 0 crashed, hangs, or was stopped before it could report.",
                    rank=0,
                    solutions=("Read rank 0's log: it failed before printing the report.",),
                    data={"problem": str(exc)},
                )
            )
            return self.deliver(self.report(own, [self.facts]), linger=False)
        mine = [f._replace(rank=self.launch.rank) if f.rank is None else f for f in own]
        return self.deliver(self.report(mine, [self.facts], job_ok=closed == "ok"))


def _prepare(
    options: DistributedOptions, probe: DeviceProbe | None, environ: Mapping[str, str]
) -> tuple[LaunchInfo, DeviceProbe, str, str]:
    """Launch variables, the probe, this rank's device text and backend (InputError on bad input)."""
    launch = launch_from_env(environ)
    chosen = probe or probe_from_spec(None, environ)
    template = options.device_template or default_template(chosen, environ)
    device_text = expand_device_template(template, launch)
    specs = parse_device_list(device_text)
    if len(specs) != 1 or specs[0].type == "all":
        raise InputError(
            f"device template {template!r} gives {device_text!r} on rank {launch.rank}, not one device",
            hint="each rank checks one device: write e.g. --device 'cuda:{local_rank}' or --device cpu",
        )
    return launch, chosen, device_text, choose_backend(options.checks.backend, specs[0].type)


def run_distributed_check(
    options: DistributedOptions,
    *,
    probe: DeviceProbe | None = None,
    on_report: Callable[[DistributedCheckReport], None] | None = None,
) -> DistributedCheckReport:
    """Run `check --distributed` on this rank; rank 0's report covers the job, the others' only themselves.

    `on_report` receives the report on every rank before the rank is released (rank 0: before
    the other ranks are).

    Every step is bounded by `options.timeout`; the wait for rank 0's store counts from this call,
    so that a missing rank 0 is reported about `timeout` after the start. Bad launch variables or options raise InputError
    (exit 2); everything that goes wrong in the job itself becomes a finding.
    """
    started = time.monotonic()
    options = replace(options, checks=validated(options.checks))
    environ = dict(os.environ if options.checks.environ is None else options.checks.environ)
    launch, chosen, device_text, backend = _prepare(options, probe, environ)
    torch = _import_torch()
    startup_s = time.monotonic() - started
    local = run_checks(
        replace(options.checks, devices=device_text, backend=backend, environ=environ, link_kb=False), chosen
    )
    device = local.devices[0]
    inventory = local.inventory
    simulated = inventory is not None and inventory.simulated
    facts = gather_facts(
        launch,
        device,
        environ=inventory.environ(environ) if inventory is not None else environ,
        inventory_source=inventory.source if inventory is not None else "torch",
        versions=collect_versions(
            torch=torch, driver=device.gpu is not None and not simulated, packages=False
        ),
        findings=tuple(f._replace(rank=launch.rank) for f in local.findings),
    )
    rank = _Rank(options, launch, facts, device.label, backend, inventory, on_report, startup_s)
    return rank.run()
