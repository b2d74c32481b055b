/* parts.h: a loop over records cut into parts of about equal residues, the parts run on
 * threads of their own (the reader's encoding and the batch's packing, for inputs read
 * before any alignment can start). */
#ifndef NW_PARTS_H
#define NW_PARTS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define NW_PARTS_MAX 64

/* Parts for n records on up to threads threads: at least 1, at most NW_PARTS_MAX and n. */
static inline int nw_parts_count(int threads, int64_t n)
{
	int parts = threads < 1 ? 1 : threads > NW_PARTS_MAX ? NW_PARTS_MAX : threads;
	return n > 0 && n < parts ? (int)n : parts;
}

/* bound[0..parts]: records [bound[t], bound[t + 1]) make part t, cut where the residues
 * before (len(i) of record i) pass t / parts of the total. */
static inline void nw_parts_cut(int64_t n, uint64_t (*len)(const void *, int64_t), const void *arg,
				int parts, int64_t *bound)
{
	uint64_t total = 0, sum = 0;
	int64_t i;
	int t = 1;

	for (i = 0; i < n; i++)
		total += len(arg, i);
	bound[0] = 0;
	for (i = 0; i < n && t < parts; i++) {
		sum += len(arg, i);
		while (t < parts && sum * (uint64_t)parts >= total * (uint64_t)t)
			bound[t++] = i + 1;
	}
	while (t <= parts)
		bound[t++] = n;
}

/* fn on each of n parts (part t at (char *)parts + t * size): parts 1.. on threads of their
 * own, part 0 on the caller's, then every part whose thread did not start; returns when
 * all are done. */
static inline void nw_parts_run(void *(*fn)(void *), void *parts, size_t size, int n)
{
	pthread_t tid[NW_PARTS_MAX];
	int started[NW_PARTS_MAX] = {0};
	int t;

	for (t = 1; t < n && t < NW_PARTS_MAX; t++)
		started[t] = pthread_create(&tid[t], NULL, fn, (char *)parts + (size_t)t * size) == 0;
	fn(parts);
	for (t = 1; t < n && t < NW_PARTS_MAX; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			fn((char *)parts + (size_t)t * size);
	}
}

#endif
