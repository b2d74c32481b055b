/* dp_full.c: the full-matrix oracle described in dp_full.h. Obvious code on purpose: it
 * must be easy to convince oneself that it is right, not fast. */
#include "dp_full.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Minus infinity that survives a few thousand subtractions of gap costs. */
#define NEG_INF (INT64_MIN / 4)

static int64_t max2(int64_t a, int64_t b) { return a > b ? a : b; }

const char *dpf_mode_name(nw_mode_t mode)
{
	return mode == NW_MODE_GLOBAL ? "global" : mode == NW_MODE_LOCAL ? "local"
		: mode == NW_MODE_SEMIGLOBAL ? "semiglobal" : "?";
}

/* The three Gotoh matrices, cell (i, j) at [i * (n + 1) + j].
 * H: best score of an alignment of q[..i) x r[..j) (in the mode's sense) in any state;
 * E: ... that ends with a deletion (r[j-1] against a gap, a horizontal step);
 * F: ... that ends with an insertion (q[i-1] against a gap, a vertical step). */
typedef struct {
	int64_t m, n;
	int64_t *H, *E, *F;
} tables_t;

static int tables_alloc(tables_t *t, int64_t m, int64_t n)
{
	size_t cells = (size_t)(m + 1) * (size_t)(n + 1);
	t->m = m;
	t->n = n;
	t->H = malloc(cells * sizeof(int64_t));
	t->E = malloc(cells * sizeof(int64_t));
	t->F = malloc(cells * sizeof(int64_t));
	if (!t->H || !t->E || !t->F) {
		free(t->H);
		free(t->E);
		free(t->F);
		return -1;
	}
	return 0;
}

static void tables_free(tables_t *t)
{
	free(t->H);
	free(t->E);
	free(t->F);
	t->H = t->E = t->F = NULL;
}

/* Fill the tables for q[0..m) x r[0..n) in mode. */
static void fill(nw_mode_t mode, const nw_scoring_t *sc, const uint8_t *q, const uint8_t *r,
		 tables_t *t)
{
	int64_t m = t->m, n = t->n, W = n + 1;
	int64_t O = sc->gap_open, X = sc->gap_extend;
	int64_t *H = t->H, *E = t->E, *F = t->F;

	/* Row 0: only reference residues consumed so far. */
	H[0] = 0;
	E[0] = NEG_INF;
	F[0] = NEG_INF;
	for (int64_t j = 1; j <= n; j++) {
		F[j] = NEG_INF;
		if (mode == NW_MODE_GLOBAL) {
			H[j] = -(O + j * X);   /* a leading deletion of length j */
			E[j] = H[j];
		} else {
			H[j] = 0;              /* local start / free leading reference overhang */
			E[j] = NEG_INF;
		}
	}
	/* Column 0: only query residues consumed so far. */
	for (int64_t i = 1; i <= m; i++) {
		E[i * W] = NEG_INF;
		if (mode == NW_MODE_LOCAL) {
			H[i * W] = 0;
			F[i * W] = NEG_INF;
		} else {
			H[i * W] = -(O + i * X); /* a leading insertion of length i */
			F[i * W] = H[i * W];
		}
	}
	for (int64_t i = 1; i <= m; i++) {
		for (int64_t j = 1; j <= n; j++) {
			int64_t c = i * W + j;
			int64_t left = c - 1, up = c - W, diag = c - W - 1;
			E[c] = max2(H[left] - (O + X), E[left] - X);
			F[c] = max2(H[up] - (O + X), F[up] - X);
			int64_t h = H[diag] + sc->score[q[i - 1]][r[j - 1]];
			h = max2(h, E[c]);
			h = max2(h, F[c]);
			if (mode == NW_MODE_LOCAL)
				h = max2(h, 0);
			H[c] = h;
		}
	}
}

int64_t dpf_global_score(const nw_scoring_t *sc, const uint8_t *q, int64_t m,
			 const uint8_t *r, int64_t n)
{
	tables_t t;
	if (tables_alloc(&t, m, n) < 0)
		return INT64_MIN;
	fill(NW_MODE_GLOBAL, sc, q, r, &t);
	int64_t s = t.H[m * (n + 1) + n];
	tables_free(&t);
	return s;
}

/* Is (i0, j0) a start the mode allows? */
static int start_allowed(nw_mode_t mode, int64_t i0, int64_t j0)
{
	if (mode == NW_MODE_GLOBAL)
		return i0 == 0 && j0 == 0;
	if (mode == NW_MODE_SEMIGLOBAL)
		return i0 == 0;
	return 1;
}

/* Brute force: candidates in the order of the rule (largest j0, then largest i0), one
 * global DP over q[i0..qend) x r[j0..rend) each; the first that reaches the score wins. */
static int start_brute(nw_mode_t mode, const nw_scoring_t *sc, const uint8_t *q,
		       const uint8_t *r, dpf_result_t *out)
{
	for (int64_t j0 = out->rend; j0 >= 0; j0--) {
		for (int64_t i0 = out->qend; i0 >= 0; i0--) {
			if (!start_allowed(mode, i0, j0))
				continue;
			int64_t s = dpf_global_score(sc, q + i0, out->qend - i0, r + j0,
						     out->rend - j0);
			if (s == INT64_MIN)
				return -1;
			if (s == out->score) {
				out->qstart = i0;
				out->rstart = j0;
				return 0;
			}
		}
	}
	return -2;
}

/* The same numbers from one DP: a global alignment score does not change when both
 * sequences are reversed, so cell (a, b) of the global DP over the reversed prefixes
 * q[0..qend) and r[0..rend) is the global score of q[qend-a..qend) x r[rend-b..rend). */
static int start_reverse(nw_mode_t mode, const nw_scoring_t *sc, const uint8_t *q,
			 const uint8_t *r, dpf_result_t *out)
{
	int64_t m = out->qend, n = out->rend;
	uint8_t *qr = calloc((size_t)m + 1, 1), *rr = calloc((size_t)n + 1, 1);
	tables_t t = { 0, 0, NULL, NULL, NULL };
	int ret = -1;
	if (!qr || !rr || tables_alloc(&t, m, n) < 0)
		goto done;
	for (int64_t i = 0; i < m; i++)
		qr[i] = q[m - 1 - i];
	for (int64_t j = 0; j < n; j++)
		rr[j] = r[n - 1 - j];
	fill(NW_MODE_GLOBAL, sc, qr, rr, &t);
	ret = -2;
	/* b = rend - j0 ascending is j0 descending; a = qend - i0 ascending is i0 descending. */
	for (int64_t b = 0; b <= n && ret == -2; b++) {
		for (int64_t a = 0; a <= m; a++) {
			int64_t i0 = m - a, j0 = n - b;
			if (!start_allowed(mode, i0, j0))
				continue;
			if (t.H[a * (n + 1) + b] == out->score) {
				out->qstart = i0;
				out->rstart = j0;
				ret = 0;
				break;
			}
		}
	}
done:
	tables_free(&t);
	free(qr);
	free(rr);
	return ret;
}

int dpf_align(nw_mode_t mode, const nw_scoring_t *sc, const uint8_t *q, int64_t m,
	      const uint8_t *r, int64_t n, int start_method, dpf_result_t *out)
{
	tables_t t;
	int64_t W = n + 1;
	memset(out, 0, sizeof(*out));
	if (tables_alloc(&t, m, n) < 0)
		return -1;
	fill(mode, sc, q, r, &t);

	if (mode == NW_MODE_GLOBAL) {
		out->score = t.H[m * W + n];
		out->qend = m;
		out->rend = n;
	} else if (mode == NW_MODE_SEMIGLOBAL) {
		/* Last query row, smallest reference end of maximum score. */
		out->score = t.H[m * W + 0];
		out->qend = m;
		out->rend = 0;
		for (int64_t j = 1; j <= n; j++) {
			if (t.H[m * W + j] > out->score) {
				out->score = t.H[m * W + j];
				out->rend = j;
			}
		}
	} else {
		/* Every cell; smallest reference end, then smallest query end. */
		out->score = 0;
		for (int64_t j = 0; j <= n; j++) {
			for (int64_t i = 0; i <= m; i++) {
				if (t.H[i * W + j] > out->score) {
					out->score = t.H[i * W + j];
					out->qend = i;
					out->rend = j;
				}
			}
		}
	}
	tables_free(&t);

	if (mode == NW_MODE_LOCAL && out->score == 0) {
		out->qstart = out->qend = out->rstart = out->rend = 0;
		return 0;
	}
	if (start_method == DPF_START_AUTO)
		start_method = out->qend * out->rend <= 900 ? DPF_START_BRUTE : DPF_START_REVERSE;
	if (start_method == DPF_START_BRUTE)
		return start_brute(mode, sc, q, r, out);
	return start_reverse(mode, sc, q, r, out);
}

int dpf_align_lin(nw_mode_t mode, const nw_scoring_t *sc, const uint8_t *q, int64_t m,
		  const uint8_t *r, int64_t n, dpf_result_t *out)
{
	int64_t O = sc->gap_open, X = sc->gap_extend;
	int64_t w = (m > n ? m : n) + 1;
	int64_t *Hp = malloc(w * sizeof(int64_t)), *Hc = malloc(w * sizeof(int64_t));
	int64_t *Fp = malloc(w * sizeof(int64_t)), *Fc = malloc(w * sizeof(int64_t)), *t;
	uint8_t *qr = calloc((size_t)m + 1, 1), *rr = calloc((size_t)n + 1, 1);
	int ret = -1;
	memset(out, 0, sizeof(*out));
	if (!Hp || !Hc || !Fp || !Fc || !qr || !rr)
		goto done;

	/* Forward: rows are query positions i, columns reference positions j. */
	int64_t best = 0, bi = 0, bj = 0; /* local: the empty alignment at (0,0) */
	Hp[0] = 0;
	Fp[0] = NEG_INF;
	for (int64_t j = 1; j <= n; j++) {
		Hp[j] = mode == NW_MODE_GLOBAL ? -(O + j * X) : 0;
		Fp[j] = NEG_INF;
	}
	for (int64_t i = 1; i <= m; i++) {
		int64_t e = NEG_INF;
		Hc[0] = mode == NW_MODE_LOCAL ? 0 : -(O + i * X);
		Fc[0] = mode == NW_MODE_LOCAL ? NEG_INF : Hc[0];
		for (int64_t j = 1; j <= n; j++) {
			e = max2(Hc[j - 1] - (O + X), e - X);
			Fc[j] = max2(Hp[j] - (O + X), Fp[j] - X);
			int64_t h = Hp[j - 1] + sc->score[q[i - 1]][r[j - 1]];
			h = max2(h, e);
			h = max2(h, Fc[j]);
			if (mode == NW_MODE_LOCAL)
				h = max2(h, 0);
			Hc[j] = h;
		}
		if (mode == NW_MODE_LOCAL) {
			for (int64_t j = 0; j <= n; j++) {
				/* higher score, or equal with smaller j, or equal j with smaller i */
				if (Hc[j] > best || (Hc[j] == best && (j < bj || (j == bj && i < bi)))) {
					best = Hc[j];
					bi = i;
					bj = j;
				}
			}
		}
		t = Hp, Hp = Hc, Hc = t;
		t = Fp, Fp = Fc, Fc = t;
	}
	/* Hp is now the last query row. */
	if (mode == NW_MODE_GLOBAL) {
		out->score = Hp[n];
		out->qend = m;
		out->rend = n;
		ret = 0;
		goto done;
	}
	if (mode == NW_MODE_SEMIGLOBAL) {
		best = Hp[0];
		bj = 0;
		for (int64_t j = 1; j <= n; j++)
			if (Hp[j] > best)
				best = Hp[j], bj = j;
		bi = m;
	}
	out->score = best;
	out->qend = bi;
	out->rend = bj;
	if (mode == NW_MODE_LOCAL && best == 0) {
		out->qend = out->rend = 0;
		ret = 0;
		goto done;
	}

	/* Start: global DP of rev(r[0..rend)) (rows b) x rev(q[0..qend)) (columns a); cell
	 * (b, a) is the global score of q[qend-a..qend) x r[rend-b..rend). */
	int64_t M = out->qend, N = out->rend;
	for (int64_t i = 0; i < M; i++)
		qr[i] = q[M - 1 - i];
	for (int64_t j = 0; j < N; j++)
		rr[j] = r[N - 1 - j];
	ret = -2;
	for (int64_t b = 0; b <= N && ret == -2; b++) {
		if (b == 0) {
			Hc[0] = 0;
			Fc[0] = NEG_INF;
			for (int64_t a = 1; a <= M; a++) {
				Hc[a] = -(O + a * X);
				Fc[a] = NEG_INF;
			}
		} else {
			int64_t e = NEG_INF;
			Hc[0] = -(O + b * X);
			Fc[0] = Hc[0];
			for (int64_t a = 1; a <= M; a++) {
				e = max2(Hc[a - 1] - (O + X), e - X);
				Fc[a] = max2(Hp[a] - (O + X), Fp[a] - X);
				int64_t h = Hp[a - 1] + sc->score[qr[a - 1]][rr[b - 1]];
				h = max2(h, e);
				h = max2(h, Fc[a]);
				Hc[a] = h;
			}
		}
		for (int64_t a = 0; a <= M; a++) { /* a ascending: query start descending */
			if (mode == NW_MODE_SEMIGLOBAL && a != M)
				continue;
			if (Hc[a] == out->score) {
				out->qstart = M - a;
				out->rstart = N - b;
				ret = 0;
				break;
			}
		}
		t = Hp, Hp = Hc, Hc = t;
		t = Fp, Fp = Fc, Fc = t;
	}
done:
	free(Hp);
	free(Hc);
	free(Fp);
	free(Fc);
	free(qr);
	free(rr);
	return ret;
}

int dpf_check_path(const uint32_t *cigar, int64_t n_cigar, const nw_scoring_t *sc,
		   const uint8_t *q, int64_t m, const uint8_t *r, int64_t n, int64_t qstart,
		   int64_t qend, int64_t rstart, int64_t rend, int64_t *score, char *msg,
		   size_t msglen)
{
	int64_t i = qstart, j = rstart, total = 0;
	int prev = -1;
	if (qstart < 0 || qstart > qend || qend > m || rstart < 0 || rstart > rend || rend > n) {
		snprintf(msg, msglen, "span q[%lld,%lld) r[%lld,%lld) outside %lld x %lld",
			 (long long)qstart, (long long)qend, (long long)rstart, (long long)rend,
			 (long long)m, (long long)n);
		return -1;
	}
	if (n_cigar > 0 && !cigar) {
		snprintf(msg, msglen, "n_cigar %lld but no CIGAR", (long long)n_cigar);
		return -1;
	}
	for (int64_t k = 0; k < n_cigar; k++) {
		int op = (int)(cigar[k] & 0xf);
		int64_t len = (int64_t)(cigar[k] >> 4);
		if (len == 0) {
			snprintf(msg, msglen, "run %lld has length 0", (long long)k);
			return -1;
		}
		if (op == prev) {
			snprintf(msg, msglen, "runs %lld and %lld share op %d (not merged)",
				 (long long)k - 1, (long long)k, op);
			return -1;
		}
		prev = op;
		if (op == NW_CIGAR_EQ || op == NW_CIGAR_X) {
			if (i + len > qend || j + len > rend) {
				snprintf(msg, msglen, "run %lld (%lld%c) runs past the span at q %lld r %lld",
					 (long long)k, (long long)len, op == NW_CIGAR_EQ ? '=' : 'X',
					 (long long)i, (long long)j);
				return -1;
			}
			for (int64_t t = 0; t < len; t++, i++, j++) {
				int same = q[i] == r[j];
				if (same != (op == NW_CIGAR_EQ)) {
					snprintf(msg, msglen, "'%c' at q %lld r %lld joins codes %d and %d",
						 op == NW_CIGAR_EQ ? '=' : 'X', (long long)i,
						 (long long)j, q[i], r[j]);
					return -1;
				}
				total += sc->score[q[i]][r[j]];
			}
		} else if (op == NW_CIGAR_I) {
			if (i + len > qend) {
				snprintf(msg, msglen, "run %lld (%lldI) runs past qend %lld",
					 (long long)k, (long long)len, (long long)qend);
				return -1;
			}
			i += len;
			total -= sc->gap_open + len * sc->gap_extend;
		} else if (op == NW_CIGAR_D) {
			if (j + len > rend) {
				snprintf(msg, msglen, "run %lld (%lldD) runs past rend %lld",
					 (long long)k, (long long)len, (long long)rend);
				return -1;
			}
			j += len;
			total -= sc->gap_open + len * sc->gap_extend;
		} else {
			snprintf(msg, msglen, "run %lld has op %d (only I, D, =, X allowed)",
				 (long long)k, op);
			return -1;
		}
	}
	if (i != qend || j != rend) {
		snprintf(msg, msglen, "path ends at q %lld r %lld, span ends at q %lld r %lld",
			 (long long)i, (long long)j, (long long)qend, (long long)rend);
		return -1;
	}
	*score = total;
	return 0;
}
