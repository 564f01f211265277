"""What the machine has, for the checks: the inventory model, inventory files and the real probes.

:mod:`~ddpdoctor.hardware.inventory` (the model and CUDA_VISIBLE_DEVICES),
:mod:`~ddpdoctor.hardware.inventory_file` (reading `--inventory` files with limits) and
:mod:`~ddpdoctor.hardware.probes` (torch and NVML). Sizes live in :mod:`ddpdoctor.units`.
"""
