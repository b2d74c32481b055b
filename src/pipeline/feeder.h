/* feeder.h: query batches (and, for zip, the matching reference batches) read and packed
 * on a thread of their own, one batch ahead of the engine, so that reading FASTA overlaps
 * aligning and writing (src/write_stage.h). */
#ifndef NW_FEEDER_H
#define NW_FEEDER_H

#include <pthread.h>

#include "nwalign.h"

typedef struct {
	nw_batch_t q;       /* queries */
	nw_batch_t q_rc;    /* their reverse complements (--strand both) */
	nw_batch_t r;       /* zip: the references paired with q, record by record */
} nw_batch_set_t;

/* The set being read, the engine's, and the one whose results may still be written. */
#define NW_FEEDER_SETS 3

typedef struct {
	nw_reader_t *qr, *rr;        /* rr: zip only (NULL for all vs all) */
	nw_alphabet_t alphabet;
	int both_strands;
	int64_t batch_records;
	uint64_t batch_residues;
	int64_t ramp_records;        /* the last set's record limit: it doubles a set
				      * from the first one's up to batch_records */
	nw_batch_set_t set[NW_FEEDER_SETS]; /* the engine's, the next (being read), the last */
	int cur;
	pthread_t thread;
	int running;
	int started;                 /* the first set is read (nw_feeder_first) */
	int first_ret;               /* its outcome */
	int ret;                     /* of the last read */
	char err[512];
} nw_feeder_t;

/* The first set's records when the CPU engine aligns it: a small first set starts the
 * engine (and the write stage) while the next, larger, sets are read, where one full set
 * would be read alone. The CPU engine for certain starts after NW_FIRST_SET_CPU records;
 * while the GPU opens (--backend auto, nw_may_share_while_opening) after
 * NW_FIRST_SET_OPENING, so that the ramp reaches the GPU's set sizes in fewer steps. A run
 * that waits for the GPU takes full sets from the start (first 0): there small sets would
 * only add calls. */
#define NW_FIRST_SET_CPU 1024
#define NW_FIRST_SET_OPENING 4096
static inline int64_t nw_first_set_records(int64_t batch_records, int64_t first)
{
	return first > 0 && batch_records > first ? first : batch_records;
}

/* Takes the readers (not their ownership). The records already pending in them (read for
 * the alphabet guess: nq queries, at most nw_first_set_records, and for zip as many
 * references or fewer where the file ends) make the first set; sets after it double from
 * first_records up to batch_records. */
void nw_feeder_init(nw_feeder_t *f, nw_reader_t *qr, nw_reader_t *rr, nw_alphabet_t a,
		    int both_strands, int64_t batch_records, uint64_t batch_residues,
		    int64_t first_records);
/* The first set, packed by the first call, the next one starts reading behind it; later
 * calls return the same set. nw_run calls it as soon as the alphabet is known, so that the
 * packing runs while the GPU opens. NULL on error. */
nw_batch_set_t *nw_feeder_first(nw_feeder_t *f, int64_t nq, char *err, size_t errlen);
/* The next set once the engine is done with the current one; a set with q.n == 0 marks
 * the end of the input. NULL on error (message in err). The set returned two calls before
 * this one is filled again from here on: its results must be written by now (the one
 * returned by the call before may still be in the write stage). */
nw_batch_set_t *nw_feeder_next(nw_feeder_t *f, char *err, size_t errlen);
/* Waits for the read ahead, if one runs: after this no thread touches f (nw_run calls it
 * on every path, also where it leaves f's memory to the process's end). */
void nw_feeder_join(nw_feeder_t *f);
/* Waits for a read in flight and frees the sets. */
void nw_feeder_free(nw_feeder_t *f);

#endif
