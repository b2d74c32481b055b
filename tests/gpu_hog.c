/* gpu_hog.c: another process that holds a GPU's memory, for tests/gpu_held.sh.
 *
 *     gpu_hog LEAVE_MIB [DEVICE]
 *
 * allocates the device's free memory less LEAVE_MIB MiB (in 1 GiB pieces, then smaller),
 * prints one line "held H MiB, free F MiB" once it holds them, and keeps them until its
 * standard input closes. Built only with CUDA; exits 77 where no device is present. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#define MIB ((size_t)1 << 20)

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: gpu_hog LEAVE_MIB [DEVICE]\n");
		return 2;
	}
	const size_t leave = (size_t)strtoull(argv[1], NULL, 10) * MIB;
	int count = 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
		printf("SKIP: no CUDA device\n");
		return 77;
	}
	if (cudaSetDevice(argc > 2 ? atoi(argv[2]) : 0) != cudaSuccess || cudaFree(0) != cudaSuccess) {
		fprintf(stderr, "gpu_hog: cannot open the device: %s\n", cudaGetErrorString(cudaGetLastError()));
		return 1;
	}
	size_t held = 0, fr = 0, tot = 0;
	for (size_t piece = (size_t)1 << 30; piece >= MIB;) {
		if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) break;
		if (fr < leave + piece) { /* too little left for this piece: a smaller one */
			piece /= 2;
			continue;
		}
		void *p;
		if (cudaMalloc(&p, piece) != cudaSuccess) { /* fragmented, or taken meanwhile */
			(void)cudaGetLastError();
			piece /= 2;
			continue;
		}
		held += piece; /* kept until exit */
	}
	cudaMemGetInfo(&fr, &tot);
	printf("held %zu MiB, free %zu MiB\n", held / MIB, fr / MIB);
	fflush(stdout);
	char buf[256];
	while (fread(buf, 1, sizeof buf, stdin) > 0) {
	}
	return 0;
}
