"""Small torchrun jobs that fail in known ways, and the harness that captures their logs."""
