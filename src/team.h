/* team.h: one function over n argument blocks at once, a thread each.
 *
 * Block 0 runs on the calling thread, blocks 1..n-1 on threads of their own; a block whose
 * thread cannot start runs on the calling thread after the others have been started, so
 * every block runs once whatever the system allows (only the time differs). Returns when
 * every block is done. stride: the bytes from one block to the next (0: every thread gets
 * the same block, for workers that share out a job by a counter of their own). */
#ifndef NW_TEAM_H
#define NW_TEAM_H

#include <pthread.h>
#include <stddef.h>

static inline void nw_team_run(void *(*fn)(void *), void *blocks, size_t stride, int n)
{
	pthread_t tid[n > 1 ? n : 1];
	int started[n > 1 ? n : 1];
	char *at = blocks;
	for (int k = 1; k < n; k++)
		started[k] = pthread_create(&tid[k], NULL, fn, at + (size_t)k * stride) == 0;
	fn(at);
	for (int k = 1; k < n; k++) {
		if (started[k])
			pthread_join(tid[k], NULL);
		else
			fn(at + (size_t)k * stride);
	}
}

#endif
