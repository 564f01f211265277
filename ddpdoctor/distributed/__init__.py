"""`ddpdoctor check --distributed`: a pre-flight of the whole job on torch.distributed.

Started on every rank by torchrun (or srun with env:// variables), it runs the single-node checks
per rank, compares the ranks on rank 0, tests all_reduce, broadcast and barrier on the real
backend (gloo on CPU, NCCL on GPU), measures all_reduce bandwidth, and names any rank that never
arrives, every step bounded by a timeout. Entry point:
:func:`~ddpdoctor.distributed.runner.run_distributed_check`.
"""
