"""torch.distributed jobs that the torch scenarios start with torchrun, one script per failure."""
