/* bench/cuda_open.c: the floor under every command that uses the GPU: a process that
 * opens the device (the CUDA runtime's context, as any first runtime call makes it) and
 * exits, releasing it. bench/long_exact.sh builds it with nvcc and times it beside the
 * aligners, so that their wall times can be read against what no aligner can avoid. */
#include <stdio.h>

#include <cuda_runtime.h>

int main(void)
{
	cudaError_t e = cudaFree(0);
	if (e != cudaSuccess) {
		fprintf(stderr, "cuda_open: %s\n", cudaGetErrorString(e));
		return 1;
	}
	return 0;
}
