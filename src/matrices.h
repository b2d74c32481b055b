/* matrices.h: lookup of the built-in substitution matrices. */
#ifndef NW_MATRICES_H
#define NW_MATRICES_H

#include "nwalign.h"

typedef struct {
	const char *name;          /* lower case, as given to --matrix */
	nw_alphabet_t alphabet;
	const char *text;          /* NCBI format */
} nw_builtin_matrix_t;

/* The built-in matrix called name (exact, lower case), or NULL. */
const nw_builtin_matrix_t *nw_builtin_matrix(const char *name);

#endif
