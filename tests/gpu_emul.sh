#!/bin/sh
# gpu_emul.sh: the batch and long kernels' thread logic on the host against the CPU engine
# (gpu_diff --emulated): runs wherever nwalign was built with CUDA, device or not.
exec "${top_builddir:-.}/tests/gpu_diff" --emulated
