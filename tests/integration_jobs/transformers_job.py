"""A Hugging Face Trainer run on 2 CPU processes (torchrun) with DdpDoctorTrainerCallback and guard().

argv: the folder with the shards (also the report folder). A tiny GPT-2 built from a config (no
download); rank 1's second shard part is missing. A TrainerCallback cannot see exceptions, so
`trainer.train()` is wrapped in `guard()`.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from shards import Shard
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

from ddpdoctor import guard
from ddpdoctor.integrations.transformers import DdpDoctorTrainerCallback

VOCAB = 64


class Tokens(Shard):
    """Token ids made from the regression inputs, labelled with themselves (language modelling)."""

    def item(self, index: int) -> Any:
        ids = (self.inputs[index].abs() * 10).long().clamp(max=VOCAB - 1)
        return {"input_ids": ids, "labels": ids}


class PrintPreflight(DdpDoctorTrainerCallback):
    """The ddpdoctor callback, printing its report so the test sees that every rank ran it."""

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        super().on_train_begin(args, state, control, **kwargs)
        assert self.preflight_report is not None
        print(f"rank {args.process_index}: preflight {self.preflight_report.summary()}", flush=True)


def main() -> None:
    folder = sys.argv[1]
    model = GPT2LMHeadModel(
        GPT2Config(
            vocab_size=VOCAB, n_positions=8, n_embd=16, n_layer=1, n_head=2, bos_token_id=0, eos_token_id=0
        )
    )
    args = TrainingArguments(
        output_dir=os.path.join(folder, "out"),
        use_cpu=True,
        per_device_train_batch_size=4,
        max_steps=4,
        report_to=[],
        save_strategy="no",
        logging_strategy="no",
        dataloader_num_workers=0,
        disable_tqdm=True,
        ddp_find_unused_parameters=False,
    )
    dataset = Tokens(folder, int(os.environ["RANK"]))
    trainer = Trainer(model=model, args=args, train_dataset=dataset, callbacks=[PrintPreflight()])
    with guard(report_dir=folder):
        trainer.train()


if __name__ == "__main__":
    main()
