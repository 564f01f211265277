"""DataLoader factories for the dataloader checks: one that fails, hangs, crashes or works."""

from __future__ import annotations

import os
import signal
import time

import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class ShardDataset(Dataset):
    """Reads one shard file per item; the files do not exist."""

    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> bytes:
        with open(f"/nonexistent-ddpdoctor-data/shard-{index:05d}.bin", "rb") as handle:
            return handle.read()


class SleepingDataset(Dataset):
    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> torch.Tensor:
        time.sleep(600)
        return torch.zeros(1)


class CrashingDataset(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> torch.Tensor:
        os.kill(os.getpid(), signal.SIGSEGV)
        return torch.zeros(1)


class Ones(Dataset):
    def __init__(self, items: int, width: int = 4) -> None:
        self.items = items
        self.width = width

    def __len__(self) -> int:
        return self.items

    def __getitem__(self, index: int) -> torch.Tensor:
        return torch.ones(self.width)


def missing_shard_in_worker() -> DataLoader:
    return DataLoader(ShardDataset(), batch_size=2, num_workers=1)


def missing_shard_in_main() -> DataLoader:
    return DataLoader(ShardDataset(), batch_size=2, num_workers=0)


def hangs_in_main() -> DataLoader:
    return DataLoader(SleepingDataset(), batch_size=2, num_workers=0)


def hangs_in_worker() -> DataLoader:
    return DataLoader(SleepingDataset(), batch_size=2, num_workers=1)


def crashes() -> DataLoader:
    return DataLoader(CrashingDataset(), batch_size=2, num_workers=0)


def fine() -> DataLoader:
    return DataLoader(Ones(16), batch_size=4, num_workers=0)


def uneven() -> DataLoader:
    """11 items, batch 5: split over 2 devices that is 1 batch against 2."""
    return DataLoader(Ones(11), batch_size=5)


def uneven_drop_last() -> DataLoader:
    return DataLoader(Ones(11), batch_size=5, drop_last=True)


def distributed_sampler() -> DataLoader:
    data = Ones(11)
    return DataLoader(data, batch_size=5, sampler=DistributedSampler(data, num_replicas=2, rank=0))


def big_batches() -> DataLoader:
    """Batches of 1 MiB through 2 workers (for the /dev/shm check)."""
    return DataLoader(Ones(8, width=256 * 1024), batch_size=1, num_workers=2)


def prints_noise() -> DataLoader:
    print("user output on stdout that is not part of the protocol")
    return DataLoader(Ones(4), batch_size=2)


def factory_raises() -> DataLoader:
    raise ValueError("dataset root /data/imagenet is not configured")


class ExitingDataset(Dataset):
    """Ends its own process without a word, as a library calling os._exit(0) would."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> torch.Tensor:
        os._exit(0)


class LoudDataset(Dataset):
    """Raises with a 50 MB message."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> torch.Tensor:
        raise ValueError("corrupt record: " + "x" * 50_000_000)


class HungryDataset(Dataset):
    """Asks for 2 GiB for one item (more than the 512 MiB cap the test gives it)."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> torch.Tensor:
        return torch.ones(1024**3 // 2)


class BrokenLoader:
    """Iterable, but reading its num_workers raises."""

    @property
    def num_workers(self) -> int:
        raise RuntimeError("the loader's settings cannot be read: config file missing")

    def __iter__(self):
        return iter([torch.zeros(1)])


def exits_early() -> DataLoader:
    return DataLoader(ExitingDataset(), batch_size=2, num_workers=0)


def loud() -> DataLoader:
    return DataLoader(LoudDataset(), batch_size=2, num_workers=0)


def hungry() -> DataLoader:
    return DataLoader(HungryDataset(), batch_size=1, num_workers=0)


def property_raises() -> BrokenLoader:
    return BrokenLoader()


def crashes_in_worker() -> DataLoader:
    return DataLoader(CrashingDataset(), batch_size=2, num_workers=1)


def spawns_and_hangs() -> DataLoader:
    """Starts a helper process that sleeps, then hangs itself: both must die with the probe."""
    import subprocess
    import sys

    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(os.environ["DDPD_HELPER_PID_FILE"], "w", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()} {helper.pid}")
    return DataLoader(SleepingDataset(), batch_size=2, num_workers=0)
