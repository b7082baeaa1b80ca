// SPDX-License-Identifier: BSD-2-Clause
/*
 * ntprof's native SQL functions. ntp_dist(x1, ...), ntp_dist_ci(x1, ...),
 * ntp_bands(...), ntp_cdf(x1, ...), ntp_dist_cdf(x1, ...) and
 * ntp_series(...) are the aggregates behind sql/native.sql: the pure-SQL
 * views rank every row with window functions, which sorts; these collect
 * the values and select the ranks wanted in O(n), or band the rows in one
 * pass.
 *
 * Built twice from this file: linked into ntprof and ntprof-shell, and with
 * -DNTP_EXTENSION as .output/ntprof_sqlite.so, loadable into plain sqlite3.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef NTP_EXTENSION
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#else
#include <sqlite3.h>
#endif

#include "native.h"

/* Ranges this short are insertion sorted: cheaper than partitioning them. */
#define NTP_SMALL 16

/* p50, p90, p99, p99.9 in units of 1/100000, ascending. */
#define NTP_NQ 4
static const uint32_t ntp_q[NTP_NQ] = { 50000, 90000, 99000, 99900 };

/* 0-based index of nearest rank Q/100000 among N (>= 1) values. */
static size_t rank_index(size_t n, uint32_t q)
{
	return (size_t)(((uint64_t)n * q + 99999) / 100000) - 1;
}

static unsigned int ilog2(size_t n)
{
	return n > 1 ? 63u - (unsigned int)__builtin_clzll((unsigned long long)n) : 0;
}

/*
 * The selection code, stamped out once per element type: the int32_t copy
 * lets the common case (every duration under 2.1 s) be searched in the array
 * it was collected in, half the memory traffic of widening it first.
 */
#define NTP_DEFINE_SELECT(T, SFX)						\
static void swap_##SFX(T *a, T *b)						\
{										\
	T t = *a;								\
										\
	*a = *b;								\
	*b = t;									\
}										\
										\
static void isort_##SFX(T *v, size_t n)						\
{										\
	for (size_t i = 1; i < n; i++) {					\
		T x = v[i];							\
		size_t j = i;							\
										\
		for (; j > 0 && v[j - 1] > x; j--)				\
			v[j] = v[j - 1];					\
		v[j] = x;							\
	}									\
}										\
										\
static void sift_##SFX(T *v, size_t root, size_t n)				\
{										\
	T x = v[root];								\
	size_t c;								\
										\
	while ((c = 2 * root + 1) < n) {					\
		if (c + 1 < n && v[c + 1] > v[c])				\
			c++;							\
		if (v[c] <= x)							\
			break;							\
		v[root] = v[c];							\
		root = c;							\
	}									\
	v[root] = x;								\
}										\
										\
/* The fallback when partitioning keeps going badly: O(n log n) always. */	\
static void hsort_##SFX(T *v, size_t n)						\
{										\
	for (size_t i = n / 2; i-- > 0;)					\
		sift_##SFX(v, i, n);						\
	for (size_t i = n; i-- > 1;) {						\
		swap_##SFX(&v[0], &v[i]);					\
		sift_##SFX(v, 0, i);						\
	}									\
}										\
										\
/*										\
 * Hoare partition of V (N >= 3) around the median of first, middle and last;	\
 * returns the pivot's final index p: v[0..p) <= v[p] <= v(p..n). Stopping	\
 * on equal keys on both sides splits runs of duplicates in the middle, so	\
 * all-equal input still halves each round.					\
 */										\
static size_t partition_##SFX(T *v, size_t n)					\
{										\
	size_t mid = n / 2, hi = n - 1, i = 0, j = hi - 1;			\
	T p;									\
										\
	if (v[mid] < v[0])							\
		swap_##SFX(&v[mid], &v[0]);					\
	if (v[hi] < v[0])							\
		swap_##SFX(&v[hi], &v[0]);					\
	if (v[hi] < v[mid])							\
		swap_##SFX(&v[hi], &v[mid]);					\
	/* v[0] <= p <= v[hi] now stop both scans without bounds checks. */	\
	swap_##SFX(&v[mid], &v[hi - 1]);					\
	p = v[hi - 1];								\
	for (;;) {								\
		while (v[++i] < p)						\
			;							\
		while (p < v[--j])						\
			;							\
		if (i >= j)							\
			break;							\
		swap_##SFX(&v[i], &v[j]);					\
	}									\
	swap_##SFX(&v[i], &v[hi - 1]);						\
	return i;								\
}										\
										\
void ntp_nth##SFX(T *v, size_t n, size_t k, unsigned int depth)		\
{										\
	while (n > NTP_SMALL) {							\
		size_t p;							\
										\
		if (depth-- == 0) {						\
			hsort_##SFX(v, n);					\
			return;							\
		}								\
		p = partition_##SFX(v, n);					\
		if (k == p)							\
			return;							\
		if (k < p) {							\
			n = p;							\
		} else {							\
			v += p + 1;						\
			n -= p + 1;						\
			k -= p + 1;						\
		}								\
	}									\
	isort_##SFX(v, n);							\
}										\
										\
/*										\
 * The values at the 0-based ranks K[0..NK) (ascending; K[NK-1] < N; V is	\
 * the values of ranks BASE to BASE + N) into OUT: the middle rank first,	\
 * then the lower ranks within the values below it and the higher ones	\
 * within those above, so that many ranks (a CDF's 201) cost about N times	\
 * log2(NK) steps, not N per rank. Equal ranks take the same value.		\
 */										\
static void mselect_##SFX(T *v, size_t n, size_t base, const size_t *k, int nk, \
			  int64_t *out)						\
{										\
	while (nk > 0) {							\
		int mid = nk / 2, lo = mid, hi = mid + 1;			\
		size_t r = k[mid] - base;					\
										\
		ntp_nth##SFX(v, n, r, 2 * ilog2(n));				\
		out[mid] = v[r];						\
		while (lo > 0 && k[lo - 1] == k[mid])				\
			out[--lo] = v[r];					\
		while (hi < nk && k[hi] == k[mid])				\
			out[hi++] = v[r];					\
		mselect_##SFX(v, r, base, k, lo, out);				\
		v += r + 1, n -= r + 1, base += r + 1;				\
		k += hi, out += hi, nk -= hi;					\
	}									\
}										\
										\
static void select_##SFX(T *v, size_t n, const size_t *k, int nk, int64_t *out) \
{										\
	mselect_##SFX(v, n, 0, k, nk, out);					\
}										\
										\
static int quantiles_##SFX(T *v, size_t n, int64_t out[NTP_NQ])		\
{										\
	size_t k[NTP_NQ];							\
										\
	if (!n)									\
		return -1;							\
	for (int i = 0; i < NTP_NQ; i++)					\
		k[i] = rank_index(n, ntp_q[i]);					\
	select_##SFX(v, n, k, NTP_NQ, out);					\
	return 0;								\
}

NTP_DEFINE_SELECT(int32_t, 32)
NTP_DEFINE_SELECT(int64_t, 64)

int ntp_select_quantiles(int64_t *v, size_t n, int64_t out[4])
{
	return quantiles_64(v, n, out);
}

int ntp_select_quantiles32(int32_t *v, size_t n, int64_t out[4])
{
	return quantiles_32(v, n, out);
}

/*
 * The distribution-free 95 % intervals of the median, p99 and p90, by the rule
 * of sql/compare.sql (docs/sql.md, Percentiles): for the quantile
 * q = Q / 100000 of n values, h is the least h >= 0 with D h^2 >= C n, where
 * C / D = 1.96^2 q (1 - q), and the interval is [x_(l), x_(u)] with
 * l = floor(n q) - h and u = ceil(n q) + h + 1.
 */
static const struct {
	uint32_t q;
	int64_t c, d;
} ntp_ci[NTP_CI_N] = {
	{ 50000, 9604, 10000 },         /* 0.9604 */
	{ 99000, 3803184, 100000000 },  /* 0.03803184 */
	{ 90000, 345744, 1000000 },     /* 0.345744 */
};

/* Beyond this C n might overflow; no group holds that many values. */
#define NTP_CI_MAX_N (1ULL << 40)

int ntp_ci_ranks(size_t n, int which, size_t *l, size_t *u)
{
	int64_t c, d, cn, h;
	uint64_t nq;

	if (which < 0 || which >= NTP_CI_N || n < 1 || n > NTP_CI_MAX_N)
		return -1;
	c = ntp_ci[which].c;
	d = ntp_ci[which].d;
	cn = c * (int64_t)n;
	/* a floating-point start, then exact integers decide */
	h = (int64_t)sqrt((double)cn / (double)d);
	while (h > 0 && d * (h - 1) * (h - 1) >= cn)
		h--;
	while (d * h * h < cn)
		h++;
	nq = (uint64_t)n * ntp_ci[which].q;
	if (nq / 100000 < (uint64_t)h + 1 || (nq + 99999) / 100000 + (uint64_t)h + 1 > n)
		return -1;
	*l = (size_t)(nq / 100000 - (uint64_t)h);
	*u = (size_t)((nq + 99999) / 100000 + (uint64_t)h + 1);
	return 0;
}

/*
 * ntp_quantiles(x) state. Values are kept as int32_t until one does not fit:
 * 10 million per call times ~13 aggregates in one query is what the report
 * runs, and nearly every nanosecond duration fits in 32 bits.
 *
 * The array comes from sqlite3_realloc64 so that sqlite3_hard_heap_limit64
 * bounds it like any other query memory. SQLite refuses single allocations
 * of 2 GiB, so an array holds at most ~536 million narrow or ~268 million
 * wide values; under the budget below, no array comes near that.
 *
 * Memory is bounded: the arrays of all aggregates of the process together
 * hold at most ntp_budget bytes (NTPROF_SELECT_MEMORY MiB, default 128). An
 * aggregate that would grow past it writes its values to an unnamed
 * temporary file instead (in $TMPDIR, else /tmp), and from then on holds a
 * buffer of at most QAGG_SPILL_BUF values, written out whenever it is full.
 * Its ranks are then selected from the file, exactly (spill_select).
 */
struct qchunk {
	off_t off;      /* where its values start in the file */
	size_t n;       /* values */
	int wide;       /* written as int64_t, else as int32_t */
};

struct qagg {
	void *v;        /* int32_t[cap], or int64_t[cap] once wide */
	size_t n;       /* values collected in v */
	size_t cap;     /* values v has room for */
	int wide;       /* v is int64_t[] */
	int failed;     /* an error was reported; xFinal only frees */
	int spilled;    /* values are in the file fd too */
	int sorted;     /* v[0..n) is in ascending order (qagg_select) */
	int fd;
	struct qchunk *chunk;
	size_t nchunk, capchunk;
	size_t total;   /* values written */
	int64_t min, max; /* of the values written */
};

#define QAGG_MIN_CAP 64
/* Just under what sqlite3_realloc64 refuses (0x7fffff00 bytes and up). */
#define QAGG_MAX_BYTES 0x7fff0000u
/* Fewer values than this are never written out; more stay in the buffer. */
#define QAGG_SPILL_MIN 256
#define QAGG_SPILL_BUF 65536

/* The join's tap holds every joined command's components and stages
 * together: 17 arrays of 4 MiB at 1 M commands. */
#define NTP_BUDGET_MIB 128
static size_t ntp_budget = (size_t)NTP_BUDGET_MIB << 20;
static size_t ntp_held; /* bytes of all qaggs' arrays */
static size_t ntp_spills; /* qaggs that wrote their values out */

size_t ntp_native_spills(void)
{
	return __atomic_load_n(&ntp_spills, __ATOMIC_RELAXED);
}

size_t ntp_native_held(void)
{
	return __atomic_load_n(&ntp_held, __ATOMIC_RELAXED);
}

/* NTPROF_SELECT_MEMORY, MiB; a value that is not a number keeps the default. */
static void budget_from_env(void)
{
	const char *v = getenv("NTPROF_SELECT_MEMORY");
	char *end;
	unsigned long long mib;

	ntp_budget = (size_t)NTP_BUDGET_MIB << 20;
	if (!v || !*v || *v == '-')
		return;
	errno = 0;
	mib = strtoull(v, &end, 10);
	if (!*end && !errno && mib <= (SIZE_MAX >> 21))
		ntp_budget = (size_t)mib << 20;
}

static void held_add(size_t bytes)
{
	__atomic_fetch_add(&ntp_held, bytes, __ATOMIC_RELAXED);
}

static void held_sub(size_t bytes)
{
	__atomic_fetch_sub(&ntp_held, bytes, __ATOMIC_RELAXED);
}

static size_t qagg_size(const struct qagg *a)
{
	return a->wide ? sizeof(int64_t) : sizeof(int32_t);
}

/* Values collected, in memory and written. */
static size_t qagg_count(const struct qagg *a)
{
	return a->total + a->n;
}

/* An unnamed file of the caller's alone: O_TMPFILE, else one unlinked at once. */
static int spill_open(void)
{
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if ((size_t)snprintf(path, sizeof(path), "%s/ntprof-values-XXXXXX", dir) >= sizeof(path))
		return -1;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static int write_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t w = pwrite(fd, p, len, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w, len -= (size_t)w, off += w;
	}
	return 0;
}

/* P, an array of *CAP elements of SIZE bytes of which N are used, with
 * room for one more: P itself, or P grown to twice its size (FIRST
 * elements at first) and *CAP set. NULL: out of memory (P kept). */
static void *room(void *p, size_t n, size_t *cap, size_t size, size_t first)
{
	size_t c = *cap ? 2 * *cap : first;

	if (n < *cap)
		return p;
	p = sqlite3_realloc64(p, (sqlite3_uint64)c * size);
	if (p)
		*cap = c;
	return p;
}

/* Write the buffer's values out as one chunk; on the first write, open the
 * file and shrink the buffer. Returns 0, -1 out of memory, -2 a file error. */
static int qagg_spill(struct qagg *a)
{
	size_t size = qagg_size(a), len = a->n * size;
	const struct qchunk *last = a->nchunk ? &a->chunk[a->nchunk - 1] : NULL;
	struct qchunk *chunk;
	/* the file's end: where the last chunk's values end */
	off_t end = last ? last->off + (off_t)(last->n * (last->wide ? 8 : 4)) : 0;

	if (!a->spilled) {
		a->fd = spill_open();
		if (a->fd < 0)
			return -2;
		a->spilled = 1;
		__atomic_fetch_add(&ntp_spills, 1, __ATOMIC_RELAXED);
	}
	if (!(chunk = room(a->chunk, a->nchunk, &a->capchunk, sizeof(*chunk), 16)))
		return -1;
	a->chunk = chunk;
	for (size_t i = 0; i < a->n; i++) {
		int64_t x = a->wide ? ((int64_t *)a->v)[i] : ((int32_t *)a->v)[i];

		if (!a->total && !i)
			a->min = a->max = x;
		else if (x < a->min)
			a->min = x;
		else if (x > a->max)
			a->max = x;
	}
	if (write_all(a->fd, a->v, len, end))
		return -2;
	a->chunk[a->nchunk++] = (struct qchunk){ .off = end, .n = a->n, .wide = a->wide };
	a->total += a->n, a->n = 0;
	if (a->cap > QAGG_SPILL_BUF) {
		void *v = sqlite3_realloc64(a->v, (sqlite3_uint64)QAGG_SPILL_BUF * size);

		if (v) {
			held_sub((a->cap - QAGG_SPILL_BUF) * size);
			a->v = v, a->cap = QAGG_SPILL_BUF;
		}
	}
	return 0;
}

static void qagg_free(struct qagg *a)
{
	held_sub(a->cap * qagg_size(a));
	sqlite3_free(a->v);
	sqlite3_free(a->chunk);
	if (a->spilled)
		close(a->fd);
	a->v = NULL, a->chunk = NULL;
	a->cap = a->n = a->nchunk = a->capchunk = 0;
	a->spilled = 0;
}

/* Past this many values an array grows by a quarter, not twice: an array
 * not given its count (the join's tap) holds at most a quarter more than
 * its values, not twice as much, against the budget. */
#define QAGG_GROW_QUARTER ((size_t)1 << 20)

/* The capacity A grows to next. */
static size_t qagg_next_cap(const struct qagg *a)
{
	return !a->cap ? QAGG_MIN_CAP :
	       a->cap < QAGG_GROW_QUARTER ? 2 * a->cap : a->cap + a->cap / 4;
}

static int qagg_grow(struct qagg *a)
{
	size_t size = qagg_size(a);
	size_t cap = qagg_next_cap(a);
	void *v;

	/* The last step before the limit takes what is left, not a refusal. */
	if (cap > QAGG_MAX_BYTES / size)
		cap = QAGG_MAX_BYTES / size;
	if (cap <= a->cap)
		return -1;
	v = sqlite3_realloc64(a->v, (sqlite3_uint64)cap * size);
	if (!v)
		return -1;
	held_add((cap - a->cap) * size);
	a->v = v;
	a->cap = cap;
	return 0;
}

/* Room for N values in A's array, new and narrow, where the budget has it
 * (else it grows as values come). */
static void qagg_reserve(struct qagg *a, int64_t n)
{
	size_t held = __atomic_load_n(&ntp_held, __ATOMIC_RELAXED);
	void *v;

	if (n <= 0 || a->wide || a->v || (uint64_t)n > QAGG_MAX_BYTES / sizeof(int32_t) ||
	    held + (size_t)n * sizeof(int32_t) > ntp_budget)
		return;
	v = sqlite3_malloc64((sqlite3_uint64)n * sizeof(int32_t));
	if (!v)
		return;
	held_add((size_t)n * sizeof(int32_t));
	a->v = v;
	a->cap = (size_t)n;
}

/* Room for one more value: grow the buffer, or write it out when all the
 * buffers together would hold more than the budget (or it was written out
 * before). */
static int qagg_room(struct qagg *a)
{
	size_t size = qagg_size(a);
	size_t held = __atomic_load_n(&ntp_held, __ATOMIC_RELAXED);

	if (a->spilled ||
	    (a->n >= QAGG_SPILL_MIN && held + (qagg_next_cap(a) - a->cap) * size > ntp_budget))
		return qagg_spill(a);
	return qagg_grow(a);
}

/*
 * Switch to int64_t in place: realloc to twice the bytes, then convert from
 * the end down. Element i (bytes 8i..8i+8) only overwrites narrow elements
 * 2i and 2i+1, which are >= i and so already converted (or i itself, read
 * first), so no copy of the array is ever needed.
 */
static int qagg_widen(struct qagg *a)
{
	size_t cap = a->cap < QAGG_MAX_BYTES / 8 ? a->cap : QAGG_MAX_BYTES / 8;
	int64_t *w;
	const int32_t *s;

	if (a->n > cap)
		return -1;
	if (cap) {
		w = sqlite3_realloc64(a->v, (sqlite3_uint64)cap * sizeof(*w));
		if (!w)
			return -1;
		held_add(cap * sizeof(*w) - a->cap * sizeof(int32_t));
		s = (const int32_t *)w;
		for (size_t i = a->n; i-- > 0;)
			w[i] = s[i];
		a->v = w;
		a->cap = cap;
	}
	a->wide = 1;
	return 0;
}

/* Returns 0, -1 out of memory, -2 a file error. */
static int qagg_add(struct qagg *a, int64_t x)
{
	int rc;

	if (!a->wide && (x < INT32_MIN || x > INT32_MAX) && qagg_widen(a))
		return -1;
	if (a->n == a->cap && (rc = qagg_room(a)))
		return rc;
	a->sorted = 0;
	if (a->wide)
		((int64_t *)a->v)[a->n++] = x;
	else
		((int32_t *)a->v)[a->n++] = (int32_t)x;
	return 0;
}

/* The error of qagg_add's or spill_select's RC (not 0), named for FN. */
static void qagg_error(sqlite3_context *ctx, const char *fn, int rc)
{
	if (rc == -2) {
		char msg[200];

		snprintf(msg, sizeof(msg), "%s: cannot keep the values in a temporary file: %s",
			 fn, strerror(errno ? errno : EIO));
		sqlite3_result_error(ctx, msg, -1);
	} else {
		sqlite3_result_error_nomem(ctx);
	}
}

/*
 * Reading a written qagg back: its chunks in order, each value as int64_t.
 */
#define QREAD_BUF 16384

struct qread {
	const struct qagg *a;
	size_t c, pos;  /* chunk, values of it read */
	int64_t buf[QREAD_BUF];
};

/* Up to QREAD_BUF values into r->buf; their count, 0 at the end, -1 on error. */
static ssize_t qread_next(struct qread *r)
{
	const struct qchunk *c;
	size_t m, size, len, got = 0;
	char *p = (char *)r->buf;

	while (r->c < r->a->nchunk && r->pos == r->a->chunk[r->c].n)
		r->c++, r->pos = 0;
	if (r->c == r->a->nchunk)
		return 0;
	c = &r->a->chunk[r->c];
	m = c->n - r->pos < QREAD_BUF ? c->n - r->pos : QREAD_BUF;
	size = c->wide ? sizeof(int64_t) : sizeof(int32_t);
	len = m * size;
	while (got < len) {
		ssize_t n = pread(r->a->fd, p + got, len - got,
				  c->off + (off_t)((r->pos * size) + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			return -1;
		}
		got += (size_t)n;
	}
	if (!c->wide) /* widen in place from the end down, as qagg_widen */
		for (size_t i = m; i-- > 0;)
			r->buf[i] = ((const int32_t *)r->buf)[i];
	r->pos += m;
	return (ssize_t)m;
}

/*
 * The values at the 0-based ranks K[0..NK) (ascending, each < the count)
 * of a written qagg, into OUT, exactly: passes over the file that count
 * the values in each range known to hold a wanted rank into SEL_BINS bins,
 * so that the next range is the bin holding it, until the range's values
 * fit in memory (collected, then selected) or it holds one value. A range
 * starts as [min, max]; its bins are 2^shift wide, as few as cover it and
 * no more than SEL_BINS (a value's bin is a subtraction and a shift: a
 * division per value cost most of a pass), so each pass divides its width
 * by at least SEL_BINS / 2 and no rank takes more than ceil(64 / 11) + 1
 * passes. Returns 0, -1 out of memory, -2 a file error.
 */
#define SEL_BINS 4096
#define SEL_BITS 12 /* log2(SEL_BINS) */

struct srange {
	int64_t lo, hi;   /* inclusive */
	int shift;        /* its bins are 2^shift wide (sel_bins) */
	size_t below;     /* values < lo */
	size_t cnt;       /* values in [lo, hi] */
	uint32_t *hist;   /* SEL_BINS counts; NULL while collecting */
	int64_t *got;     /* the values in the range, when collecting */
	size_t ngot;
};

struct srank {
	size_t k;
	int64_t lo, hi;
	size_t below, cnt;
	int done;
	int64_t v;
	int range;
};

/* The least shift with W >> shift < 2^BITS. */
static int high_shift(uint64_t w, int bits)
{
	int have = w ? 64 - __builtin_clzll(w) : 0;

	return have > bits ? have - bits : 0;
}

/*
 * Where M ascending KEYS (at most 65535) start for each value's high bits
 * over [lo, KEYS[M - 1]]: the first key at or above a value is then a
 * subtraction, a shift and a step or two, not a binary search (once per
 * value of a pass over a written qagg, where the search cost most of it).
 * Indexes the selected values (shape_count) and the ends of a pass's
 * ranges (sel_pass).
 */
#define HIX_BITS 12
struct hindex {
	int64_t lo;
	int shift;                      /* bin b holds lo + [b, b + 1) << shift */
	uint16_t first[1u << HIX_BITS]; /* the first key not below bin b */
};

static void hindex_init(struct hindex *ix, const int64_t *key, size_t m, int64_t lo)
{
	size_t j = 0;

	ix->lo = lo;
	ix->shift = high_shift((uint64_t)key[m - 1] - (uint64_t)lo, HIX_BITS);
	for (uint64_t b = 0; b < 1u << HIX_BITS; b++) {
		while (j < m && (uint64_t)key[j] - (uint64_t)lo < b << ix->shift)
			j++;
		ix->first[b] = (uint16_t)j;
	}
}

/* The first of KEYS at or above X, for lo <= X <= the last key. */
static inline size_t hindex_find(const struct hindex *ix, const int64_t *key, int64_t x)
{
	size_t j = ix->first[((uint64_t)x - (uint64_t)ix->lo) >> ix->shift];

	while (key[j] < x)
		j++;
	return j;
}

/* R's bin width: the least 2^shift with (hi - lo) >> shift < SEL_BINS. */
static void sel_bins(struct srange *r)
{
	r->shift = high_shift((uint64_t)r->hi - (uint64_t)r->lo, SEL_BITS);
}

/* The offset in [lo, hi] where bin B starts. */
static uint64_t bin_start(const struct srange *r, unsigned int b)
{
	return (uint64_t)b << r->shift;
}

static unsigned int bin_of(const struct srange *r, int64_t x)
{
	return (unsigned int)(((uint64_t)x - (uint64_t)r->lo) >> r->shift);
}

/* The range holding X, or NULL: ranges are ascending and disjoint. */
static struct srange *range_of(struct srange *r, int nr, int64_t x)
{
	int lo = 0, hi = nr;

	while (lo < hi) { /* the first range with hi >= x */
		int mid = (lo + hi) / 2;

		if (r[mid].hi < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nr && r[lo].lo <= x ? &r[lo] : NULL;
}

/* The ranges' ends, R's his, and their index (hindex). */
struct rindex {
	struct hindex ix;
	int64_t hi[];
};

/* range_of by IX: the range holding X, or NULL. */
static inline struct srange *rindex_find(const struct rindex *ix, struct srange *r, int nr,
					 int64_t x)
{
	size_t j;

	if (x < r[0].lo || x > r[nr - 1].hi)
		return NULL;
	j = hindex_find(&ix->ix, ix->hi, x);
	return r[j].lo <= x ? &r[j] : NULL;
}

static int sel_pass(struct qagg *a, struct srange *r, int nr, struct qread *rd)
{
	struct rindex *ix = nr <= UINT16_MAX ?
		sqlite3_malloc64(sizeof(*ix) + (size_t)nr * sizeof(int64_t)) : NULL;
	ssize_t m;

	if (ix) {
		for (int i = 0; i < nr; i++)
			ix->hi[i] = r[i].hi;
		hindex_init(&ix->ix, ix->hi, (size_t)nr, r[0].lo);
	}
	rd->a = a, rd->c = 0, rd->pos = 0;
	while ((m = qread_next(rd)) > 0) {
		for (ssize_t i = 0; i < m; i++) {
			int64_t x = rd->buf[i];
			struct srange *s = ix ? rindex_find(ix, r, nr, x) : range_of(r, nr, x);

			if (!s)
				continue;
			if (s->hist) {
				s->hist[bin_of(s, x)]++;
			} else {
				if (s->ngot == s->cnt) { /* the file changed under us */
					sqlite3_free(ix);
					errno = EIO;
					return -2;
				}
				s->got[s->ngot++] = x;
			}
		}
	}
	sqlite3_free(ix);
	return m < 0 ? -2 : 0;
}

static int sel_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Settle the ranks of range R (index RI) after a pass. A collected range
 * with a few ranks is searched for each; with more, it is sorted once. */
static void sel_settle(struct srange *r, struct srank *k, int nk, int ri)
{
	int many = 0;

	for (int i = 0; i < nk; i++)
		many += !k[i].done && k[i].range == ri;
	many = many > 8;
	if (many && !r->hist)
		qsort(r->got, r->ngot, sizeof(*r->got), sel_cmp);
	for (int i = 0; i < nk; i++) {
		size_t c;

		if (k[i].done || k[i].range != ri)
			continue;
		if (!r->hist) {
			if (!many)
				ntp_nth64(r->got, r->ngot, k[i].k - r->below, 2 * ilog2(r->ngot));
			k[i].v = r->got[k[i].k - r->below];
			k[i].done = 1;
			continue;
		}
		c = r->below;
		for (unsigned int b = 0; b < SEL_BINS; b++) {
			if (k[i].k < c + r->hist[b]) {
				/* the bin's first and last offsets, the last one's
				 * up to the range's end (no sum past 64 bits: the
				 * bin's bits, or'ed) */
				uint64_t first = bin_start(r, b),
					 last = first | ((1ULL << r->shift) - 1);

				if (last > (uint64_t)r->hi - (uint64_t)r->lo)
					last = (uint64_t)r->hi - (uint64_t)r->lo;
				k[i].lo = (int64_t)((uint64_t)r->lo + first);
				k[i].hi = (int64_t)((uint64_t)r->lo + last);
				k[i].below = c;
				k[i].cnt = r->hist[b];
				k[i].done = k[i].lo == k[i].hi;
				k[i].v = k[i].lo;
				break;
			}
			c += r->hist[b];
		}
	}
}

static int spill_select(struct qagg *a, const size_t *kk, int nk, int64_t *out)
{
	size_t collect = ntp_budget / (2 * sizeof(int64_t));
	struct srank *k = sqlite3_malloc64((sqlite3_uint64)nk * sizeof(*k));
	struct srange *r = sqlite3_malloc64((sqlite3_uint64)nk * sizeof(*r));
	struct qread *rd = sqlite3_malloc64(sizeof(*rd));
	int rc = k && r && rd ? 0 : -1;

	if (collect < 64)
		collect = 64;
	for (int i = 0; !rc && i < nk; i++)
		k[i] = (struct srank){ .k = kk[i], .lo = a->min, .hi = a->max,
				       .cnt = a->total, .done = a->min == a->max,
				       .v = a->min };
	while (!rc) {
		size_t left = collect;
		int nr = 0;

		for (int i = 0; i < nk; i++) {
			if (k[i].done)
				continue;
			if (!nr || r[nr - 1].lo != k[i].lo)
				r[nr++] = (struct srange){ .lo = k[i].lo, .hi = k[i].hi,
							   .below = k[i].below, .cnt = k[i].cnt };
			k[i].range = nr - 1;
		}
		if (!nr)
			break;
		for (int i = 0; !rc && i < nr; i++) {
			if (r[i].cnt <= left) {
				left -= r[i].cnt;
				r[i].got = sqlite3_malloc64((sqlite3_uint64)(r[i].cnt ? r[i].cnt : 1) *
							    sizeof(int64_t));
				rc = r[i].got ? 0 : -1;
			} else {
				sel_bins(&r[i]);
				r[i].hist = sqlite3_malloc64(SEL_BINS * sizeof(uint32_t));
				rc = r[i].hist ? 0 : -1;
				if (r[i].hist)
					memset(r[i].hist, 0, SEL_BINS * sizeof(uint32_t));
			}
		}
		if (!rc)
			rc = sel_pass(a, r, nr, rd);
		for (int i = 0; !rc && i < nr; i++)
			sel_settle(&r[i], k, nk, i);
		for (int i = 0; i < nr; i++) {
			sqlite3_free(r[i].hist);
			sqlite3_free(r[i].got);
		}
	}
	for (int i = 0; !rc && i < nk; i++)
		out[i] = k[i].v;
	sqlite3_free(k);
	sqlite3_free(r);
	sqlite3_free(rd);
	return rc;
}

/* Fewer values than this are selected, not sorted (qagg_select). */
#define QAGG_SORT_MIN 4096
#define RADIX_BITS 11
#define RADIX_N (1u << RADIX_BITS)

/*
 * Sort V[0..N) ascending by an LSD radix sort of the 32 bits with the sign
 * bit flipped (three passes of 11 bits, counted in one), through a buffer
 * of N values; a pass whose digit is the same in every value is skipped.
 * 0, or -1 when the buffer would take the selection's memory budget
 * (NTPROF_SELECT_MEMORY) or cannot be had: V is then untouched.
 */
static int radix_sort32(int32_t *v, size_t n)
{
	size_t held = __atomic_load_n(&ntp_held, __ATOMIC_RELAXED);
	uint32_t (*count)[RADIX_N];
	uint32_t *src = (uint32_t *)v, *dst, *t;

	if (held + n * sizeof(*v) > ntp_budget)
		return -1;
	dst = sqlite3_malloc64((sqlite3_uint64)n * sizeof(*dst));
	count = sqlite3_malloc64(3 * sizeof(*count));
	if (!dst || !count) {
		sqlite3_free(dst);
		sqlite3_free(count);
		return -1;
	}
	held_add(n * sizeof(*v));
	memset(count, 0, 3 * sizeof(*count));
	for (size_t i = 0; i < n; i++) {
		uint32_t x = src[i] ^ 0x80000000u;

		count[0][x & (RADIX_N - 1)]++;
		count[1][(x >> RADIX_BITS) & (RADIX_N - 1)]++;
		count[2][x >> 2 * RADIX_BITS]++;
	}
	for (int d = 0; d < 3; d++) {
		unsigned int shift = d * RADIX_BITS;
		uint32_t sum = 0, *c = count[d];

		if (c[((src[0] ^ 0x80000000u) >> shift) & (RADIX_N - 1)] == n)
			continue; /* one digit: this pass would change nothing */
		for (size_t b = 0; b < RADIX_N; b++) {
			uint32_t m = c[b];

			c[b] = sum;
			sum += m;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[((src[i] ^ 0x80000000u) >> shift) & (RADIX_N - 1)]++] = src[i];
		t = src, src = dst, dst = t;
	}
	if (src != (uint32_t *)v) {
		memcpy(v, src, n * sizeof(*v));
		dst = src;
	}
	held_sub(n * sizeof(*v));
	sqlite3_free(dst);
	sqlite3_free(count);
	return 0;
}

/* Ranks K[0..NK) (ascending) of A's values into OUT, in memory or from its
 * file. Returns 0, -1 out of memory, -2 a file error. Many values of 32
 * bits in memory are sorted once instead (a radix sort is a few passes;
 * selecting a CDF's 300 ranks is about nine), and every later selection
 * of the same values reads its ranks off them. */
static int qagg_select(struct qagg *a, const size_t *k, int nk, int64_t *out)
{
	if (a->spilled) {
		int rc = a->n ? qagg_spill(a) : 0;

		return rc ? rc : spill_select(a, k, nk, out);
	}
	if (!a->wide && !a->sorted && a->n >= QAGG_SORT_MIN && !radix_sort32(a->v, a->n))
		a->sorted = 1;
	if (a->sorted) {
		for (int i = 0; i < nk; i++)
			out[i] = a->wide ? ((const int64_t *)a->v)[k[i]] : ((const int32_t *)a->v)[k[i]];
		return 0;
	}
	if (a->wide)
		select_64(a->v, a->n, k, nk, out);
	else
		select_32(a->v, a->n, k, nk, out);
	return 0;
}

static void quantiles_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct qagg *a;
	int rc;

	(void)argc;
	switch (sqlite3_value_type(argv[0])) {
	case SQLITE_NULL:
		return;
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		break;
	default:
		sqlite3_result_error(ctx, "ntp_quantiles: integer expected", -1);
		a = sqlite3_aggregate_context(ctx, 0);
		if (a)
			a->failed = 1;
		return;
	}
	a = sqlite3_aggregate_context(ctx, sizeof(*a));
	if (!a) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	/* For a REAL this is CAST(x AS INTEGER): truncated, clamped to int64. */
	if (!a->failed && (rc = qagg_add(a, sqlite3_value_int64(argv[0])))) {
		a->failed = 1;
		qagg_error(ctx, "ntp_quantiles", rc);
	}
}

static void result_quantiles(sqlite3_context *ctx, struct qagg *a)
{
	size_t k[NTP_NQ], n = qagg_count(a);
	int64_t q[NTP_NQ];
	char buf[3 * 21 + 4];
	int rc;

	for (int i = 0; i < NTP_NQ; i++)
		k[i] = rank_index(n, ntp_q[i]);
	rc = qagg_select(a, k, NTP_NQ, q);
	if (rc) {
		qagg_error(ctx, "ntp_quantiles", rc);
		return;
	}
	snprintf(buf, sizeof(buf), "[%" PRId64 ",%" PRId64 ",%" PRId64 "]", q[0], q[2], q[3]);
	sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

/* Also runs when the statement is aborted after an error in xStep. */
static void quantiles_final(sqlite3_context *ctx)
{
	struct qagg *a = sqlite3_aggregate_context(ctx, 0);

	if (!a || !qagg_count(a))
		sqlite3_result_null(ctx);
	else if (!a->failed)
		result_quantiles(ctx, a);
	if (a)
		qagg_free(a);
}

/*
 * ntp_dist(x1, ..., xN), N <= NTP_DIST_MAX: the distribution of each
 * argument in one pass, for reports that need count, sum and percentiles of
 * many components of the same rows. Result: the JSON array
 * [[n, sum, p50, p99, p999, p90], ...] with one entry per argument (NULLs
 * ignored; n = 0 gives [0,null,null,null,null,null]). The percentiles are
 * ntp_quantiles', and p90 by the same rule (after the others, so that the
 * entries of the first three keep their places); sum is exact or an
 * "integer overflow" error, like SQL's sum(). One call per row instead of
 * four aggregates per component.
 *
 * ntp_dist_ci(x1, ..., xN), for ntprof compare: the same without p90, each
 * entry followed by the 95 % intervals of the median and p99
 * (ntp_ci_ranks) and the sum of the squares: [n, sum, p50, p99, p999,
 * p50_lo, p50_hi, p99_lo, p99_hi, sq], an interval null when its ranks fall
 * outside 1..n, sq summed exactly and given as the nearest double (the
 * variance's, which a sum of doubles in SQL gets wrong in its last digits
 * over millions of commands).
 */
#define NTP_DIST_MAX 16

/* A 128-bit sum in memory that SQLite aligns to 8 bytes (an aggregate's
 * context): the compiler then loads and stores it as such. */
typedef __int128 sum128 __attribute__((aligned(8)));

struct dagg {
	int nargs;                 /* arguments, fixed by the first row */
	int failed;                /* an error was reported; xFinal only frees */
	int64_t sum[NTP_DIST_MAX]; /* per argument */
	sum128 sq[NTP_DIST_MAX];   /* the sums of their squares, exact */
	struct qagg q[NTP_DIST_MAX];
};

static int dist_add(sqlite3_context *ctx, struct dagg *d, int i, sqlite3_value *v)
{
	int64_t x;
	int rc;

	switch (sqlite3_value_type(v)) {
	case SQLITE_NULL:
		return 0;
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		break;
	default:
		sqlite3_result_error(ctx, sqlite3_user_data(ctx) ? "ntp_dist_ci: integer expected" :
				     "ntp_dist: integer expected", -1);
		return -1;
	}
	x = sqlite3_value_int64(v);
	if (__builtin_add_overflow(d->sum[i], x, &d->sum[i])) {
		sqlite3_result_error(ctx, "integer overflow", -1);
		return -1;
	}
	d->sq[i] += (__int128)x * x; /* 2^126 holds 2^62 squares of 2^32 */
	if ((rc = qagg_add(&d->q[i], x))) {
		qagg_error(ctx, sqlite3_user_data(ctx) ? "ntp_dist_ci" : "ntp_dist", rc);
		return -1;
	}
	return 0;
}

/* One row's ARGC values into D. 0, or -1 with the error reported. */
static int dist_row(sqlite3_context *ctx, struct dagg *d, int argc, sqlite3_value **argv)
{
	d->nargs = argc;
	for (int i = 0; i < argc; i++)
		if (dist_add(ctx, d, i, argv[i]))
			return -1;
	return 0;
}

static void dist_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct dagg *d = sqlite3_aggregate_context(ctx, sizeof(*d));

	if (!d) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (!d->failed && dist_row(ctx, d, argc, argv))
		d->failed = 1;
}

/* Append argument A's entry to OUT: n, sum, p50, p99, p999 and then p90,
 * or with CI the intervals of p50 and p99 instead of p90. With CIOUT
 * (ntp_dist_cdf's fifth array), the ranks are selected with the intervals
 * too, and CIOUT gets [SQ as a double, p50_lo, p50_hi, p99_lo, p99_hi]
 * (nulls where ntp_dist_ci has them). Returns 0, or qagg_select's error. */
static int dist_entry_sq(sqlite3_str *out, sqlite3_str *ciout, struct qagg *a, int64_t sum,
			 __int128 sq, int ci);

static int dist_entry(sqlite3_str *out, struct qagg *a, int64_t sum, __int128 sq, int ci)
{
	return dist_entry_sq(out, NULL, a, sum, sq, ci);
}

static int dist_entry_sq(sqlite3_str *out, sqlite3_str *ciout, struct qagg *a, int64_t sum,
			 __int128 sq, int ci)
{
	size_t n = qagg_count(a);
	/* the entry's place of each of ntp_q's quantiles: p50, p90, p99, p999 */
	static const int place[NTP_NQ] = { 0, 3, 1, 2 };
	size_t k[NTP_NQ + 2 * NTP_CI_DIST];
	int64_t v[NTP_NQ + 2 * NTP_CI_DIST];
	int slot[NTP_NQ + 2 * NTP_CI_DIST], nk = 0, has[NTP_CI_DIST] = { 0 };

	if (!n) {
		sqlite3_str_appendall(out, ci ? "[0,null,null,null,null,null,null,null,null,null]" :
				      "[0,null,null,null,null,null]");
		if (ciout)
			sqlite3_str_appendall(ciout, "[null,null,null,null,null]");
		return 0;
	}
	for (int i = 0; i < NTP_NQ; i++) {
		if (ci && place[i] == 3) /* no p90 beside the intervals */
			continue;
		k[nk] = rank_index(n, ntp_q[i]);
		slot[nk++] = place[i];
	}
	for (int i = 0; (ci || ciout) && i < NTP_CI_DIST; i++) {
		size_t l, u;

		if (ntp_ci_ranks(n, i, &l, &u))
			continue;
		has[i] = 1;
		k[nk] = l - 1, slot[nk] = NTP_NQ + 2 * i, nk++;
		k[nk] = u - 1, slot[nk] = NTP_NQ + 1 + 2 * i, nk++;
	}
	/* ascending ranks, each with its place in the entry */
	for (int i = 1; i < nk; i++)
		for (int j = i; j > 0 && k[j - 1] > k[j]; j--) {
			size_t t = k[j];
			int s = slot[j];

			k[j] = k[j - 1], slot[j] = slot[j - 1];
			k[j - 1] = t, slot[j - 1] = s;
		}
	{
		int64_t got[NTP_NQ + 2 * NTP_CI_DIST];
		int rc = qagg_select(a, k, nk, got);

		if (rc)
			return rc;
		for (int i = 0; i < nk; i++)
			v[slot[i]] = got[i];
	}
	sqlite3_str_appendf(out, "[%lld,%lld,%lld,%lld,%lld", (long long)n, (long long)sum,
			    (long long)v[0], (long long)v[1], (long long)v[2]);
	if (!ci)
		sqlite3_str_appendf(out, ",%lld", (long long)v[3]);
	for (int i = 0; ci && i < NTP_CI_DIST; i++) {
		if (has[i])
			sqlite3_str_appendf(out, ",%lld,%lld", (long long)v[NTP_NQ + 2 * i],
					    (long long)v[NTP_NQ + 1 + 2 * i]);
		else
			sqlite3_str_appendall(out, ",null,null");
	}
	if (ci)
		sqlite3_str_appendf(out, ",%!.17g", (double)sq);
	sqlite3_str_appendchar(out, 1, ']');
	if (ciout) {
		sqlite3_str_appendf(ciout, "[%!.17g", (double)sq);
		for (int i = 0; i < NTP_CI_DIST; i++) {
			if (has[i])
				sqlite3_str_appendf(ciout, ",%lld,%lld", (long long)v[NTP_NQ + 2 * i],
						    (long long)v[NTP_NQ + 1 + 2 * i]);
			else
				sqlite3_str_appendall(ciout, ",null,null");
		}
		sqlite3_str_appendchar(ciout, 1, ']');
	}
	return 0;
}

/* OUT, built, as the function's text result (out of memory if building it
 * failed); frees OUT. */
static void result_str(sqlite3_context *ctx, sqlite3_str *out)
{
	if (sqlite3_str_errcode(out))
		sqlite3_result_error_nomem(ctx);
	else
		sqlite3_result_text(ctx, sqlite3_str_value(out), -1, SQLITE_TRANSIENT);
	sqlite3_free(sqlite3_str_finish(out));
}

typedef int dagg_entry(sqlite3_str *, struct qagg *, int64_t, __int128, int);

/* Append ENTRY of each of D's arguments to OUT, in a JSON array. */
static int dagg_entries(sqlite3_str *out, struct dagg *d, dagg_entry *entry, int ci)
{
	int rc = 0;

	sqlite3_str_appendchar(out, 1, '[');
	for (int i = 0; i < d->nargs && !rc; i++) {
		if (i)
			sqlite3_str_appendchar(out, 1, ',');
		rc = entry(out, &d->q[i], d->sum[i], d->sq[i], ci);
	}
	sqlite3_str_appendchar(out, 1, ']');
	return rc;
}

/* The aggregate's state at its end, or NULL when it has nothing to return
 * (no row: the result is NULL; an error was reported: its values freed). */
static struct dagg *dagg_state(sqlite3_context *ctx)
{
	struct dagg *d = sqlite3_aggregate_context(ctx, 0);

	if (!d) {
		sqlite3_result_null(ctx);
		return NULL;
	}
	if (d->failed) {
		for (int i = 0; i < NTP_DIST_MAX; i++)
			qagg_free(&d->q[i]);
		return NULL;
	}
	return d;
}

/* The aggregate NAME's result: ENTRY of each argument, in a JSON array;
 * with ENTRY2 too, [the array of ENTRY's, the array of ENTRY2's]. */
static void dagg_final(sqlite3_context *ctx, const char *name, dagg_entry *entry,
		       dagg_entry *entry2)
{
	struct dagg *d = dagg_state(ctx);
	int ci = sqlite3_user_data(ctx) != NULL, rc = 0;
	sqlite3_str *out;

	if (!d)
		return;
	out = sqlite3_str_new(NULL);
	if (entry2)
		sqlite3_str_appendchar(out, 1, '[');
	rc = dagg_entries(out, d, entry, ci);
	if (entry2 && !rc) {
		sqlite3_str_appendchar(out, 1, ',');
		rc = dagg_entries(out, d, entry2, ci);
		sqlite3_str_appendchar(out, 1, ']');
	}
	for (int i = 0; i < d->nargs; i++)
		qagg_free(&d->q[i]);
	if (rc) {
		qagg_error(ctx, name, rc);
		sqlite3_free(sqlite3_str_finish(out));
		return;
	}
	result_str(ctx, out);
}

static void dist_final(sqlite3_context *ctx)
{
	dagg_final(ctx, sqlite3_user_data(ctx) ? "ntp_dist_ci" : "ntp_dist", dist_entry, NULL);
}

/*
 * ntp_bands(n, v50, v90, v99, v999, e2e, ht, x1, ..., xM), M <= NTP_BAND_MAX:
 * the tail bands of stats.sql's _ntp_tail_band in one scan, given the end
 * to end's exact p50, p90, p99 and p99.9 (V50 ...) of the N rows
 * aggregated (ntp_dist's). The rows ranked by (e2e, ht) are cut at the
 * nearest ranks k of those percentiles, (N q' + 99999) / 100000: band 1
 * holds ranks 1 to k50, band 2 up to k90, then up to k99, up to k999, and
 * band 5 the rest. A row whose e2e is none of the cut values is banded by
 * value at once (its rank is on the same side of every k as its value of
 * every cut value); a row whose e2e equals one is kept, with its
 * arguments, until the end, where the rows of each such value are ranked
 * by ht after the rows below it: memory for ties at the cut values only.
 *
 * Result: the JSON array of the bands that hold a row, in order, each
 * [band, n, e2e min, e2e max, e2e sum, sum x1, ..., sum xM], a sum null
 * when its x was NULL in every row of the band. Errors: the sums overflow
 * ("integer overflow", as SQL's sum()); e2e or ht NULL or not an integer;
 * the cut values differ between rows, or are not the percentiles of these
 * rows (the rows are not N, or fewer than k rows are at or below a cut
 * value, or k or more below it).
 */
#define NTP_BAND_MAX 16
#define NTP_BAND_FIXED 7 /* n, four cut values, e2e, ht */
#define NTP_BANDS 5

struct band {
	int64_t n, min, max, sum;
	int64_t s[NTP_BAND_MAX];
	uint32_t has; /* bit i: some row's x(i+1) was not NULL */
};

struct tie {
	int64_t e2e, ht;
	int64_t x[NTP_BAND_MAX];
	uint32_t has;
};

struct bagg {
	int m;                   /* M, fixed by the first row */
	int failed;              /* an error was reported; xFinal only frees */
	int64_t n;               /* N as given */
	int64_t cut[NTP_NQ];     /* v50, v90, v99, v999 */
	int64_t seen;            /* rows aggregated */
	int64_t lt[NTP_NQ];      /* rows with e2e < cut[q] */
	int64_t eq[NTP_NQ];      /* rows with e2e = cut[q] */
	struct band b[NTP_BANDS];
	struct tie *tie;
	size_t ntie, tiecap;
};

static int band_add(struct band *b, int64_t e2e, const int64_t *x, uint32_t has, int m)
{
	if (__builtin_add_overflow(b->sum, e2e, &b->sum))
		return -1;
	for (int i = 0; i < m; i++)
		if (has & (1u << i) && __builtin_add_overflow(b->s[i], x[i], &b->s[i]))
			return -1;
	if (!b->n || e2e < b->min)
		b->min = e2e;
	if (!b->n || e2e > b->max)
		b->max = e2e;
	b->n++;
	b->has |= has;
	return 0;
}

static int int_arg(sqlite3_value *v, int64_t *out)
{
	int t = sqlite3_value_type(v);

	if (t != SQLITE_INTEGER && t != SQLITE_FLOAT)
		return -1;
	*out = sqlite3_value_int64(v);
	return 0;
}

/* Out of memory, as bands_row reports it. */
static const char bands_nomem[] = "";

static const char *bands_put(struct bagg *a, const int64_t h[NTP_BAND_FIXED],
			     const int64_t x[NTP_BAND_MAX], uint32_t has, int m);

/* The M values XS into X, bit i of *HAS set where XS[i] is not NULL: NULL,
 * or what is wrong. */
static const char *bands_xs(sqlite3_value **xs, int m, int64_t x[NTP_BAND_MAX], uint32_t *has)
{
	*has = 0;
	for (int i = 0; i < m; i++) {
		if (sqlite3_value_type(xs[i]) == SQLITE_NULL)
			continue;
		if (int_arg(xs[i], &x[i]))
			return "ntp_bands: integer expected";
		*has |= 1u << i;
	}
	return NULL;
}

/* An aggregate's error WHY (bands_nomem: out of memory) reported, once:
 * the aggregate then only frees (*FAILED). */
static void fail_why(sqlite3_context *ctx, int *failed, const char *why)
{
	*failed = 1;
	if (why == bands_nomem)
		sqlite3_result_error_nomem(ctx);
	else
		sqlite3_result_error(ctx, why, -1);
}

/* One row into A: NULL, or what is wrong (bands_nomem: out of memory). */
static const char *bands_row(struct bagg *a, int argc, sqlite3_value **argv)
{
	int64_t h[NTP_BAND_FIXED], x[NTP_BAND_MAX] = { 0 };
	uint32_t has = 0;
	int m = argc - NTP_BAND_FIXED;
	const char *why;

	if (m < 0 || m > NTP_BAND_MAX)
		return "ntp_bands: 7 to 23 arguments expected";
	for (int i = 0; i < NTP_BAND_FIXED; i++)
		if (int_arg(argv[i], &h[i]))
			return "ntp_bands: integer expected";
	if ((why = bands_xs(argv + NTP_BAND_FIXED, m, x, &has)))
		return why;
	return bands_put(a, h, x, has, m);
}

/* One row into A: N, the cut values, e2e and ht in H, M values X (bit i of
 * HAS: X[i] is not NULL). As bands_row. */
static const char *bands_put(struct bagg *a, const int64_t h[NTP_BAND_FIXED],
			     const int64_t x[NTP_BAND_MAX], uint32_t has, int m)
{
	int band = 1, tie = 0;
	struct tie *t;

	if (!a->seen) {
		a->m = m;
		a->n = h[0];
		memcpy(a->cut, h + 1, sizeof(a->cut));
	} else if (a->n != h[0] || memcmp(a->cut, h + 1, sizeof(a->cut)))
		return "ntp_bands: the cut values differ between rows";
	a->seen++;
	for (int q = 0; q < NTP_NQ; q++) {
		a->lt[q] += h[5] < a->cut[q];
		if (h[5] == a->cut[q]) {
			a->eq[q]++;
			tie = 1;
		}
		band += h[5] > a->cut[q];
	}
	if (!tie)
		return band_add(&a->b[band - 1], h[5], x, has, m) ? "integer overflow" : NULL;
	if (!(t = room(a->tie, a->ntie, &a->tiecap, sizeof(*t), 16)))
		return bands_nomem;
	a->tie = t;
	a->tie[a->ntie].e2e = h[5];
	a->tie[a->ntie].ht = h[6];
	memcpy(a->tie[a->ntie].x, x, sizeof(a->tie[a->ntie].x));
	a->tie[a->ntie].has = has;
	a->ntie++;
	return NULL;
}

static void bands_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct bagg *a = sqlite3_aggregate_context(ctx, sizeof(*a));
	const char *why;

	if (!a) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (!a->failed && (why = bands_row(a, argc, argv)))
		fail_why(ctx, &a->failed, why);
}

static int tie_cmp(const void *pa, const void *pb)
{
	const struct tie *a = pa, *b = pb;

	if (a->e2e != b->e2e)
		return a->e2e < b->e2e ? -1 : 1;
	return a->ht < b->ht ? -1 : a->ht > b->ht;
}

/* The rows kept for ties, banded by rank. 0, or the error message. */
static const char *bands_ties(struct bagg *a)
{
	int64_t k[NTP_NQ];

	for (int q = 0; q < NTP_NQ; q++) {
		k[q] = (int64_t)rank_index((size_t)a->n, ntp_q[q]) + 1;
		/* the cut value is the one at rank k: k - 1 rows or fewer below
		 * it, k or more at or below it */
		if (a->lt[q] >= k[q] || a->lt[q] + a->eq[q] < k[q])
			return "ntp_bands: the cut values are not these rows' percentiles";
	}
	qsort(a->tie, a->ntie, sizeof(*a->tie), tie_cmp);
	for (size_t i = 0, run = 0; i < a->ntie; i++) {
		int64_t below = 0, rank;
		int band = 1;

		if (i && a->tie[i].e2e != a->tie[i - 1].e2e)
			run = i;
		for (int q = 0; q < NTP_NQ; q++)
			if (a->cut[q] == a->tie[i].e2e)
				below = a->lt[q];
		rank = below + (int64_t)(i - run) + 1;
		for (int q = 0; q < NTP_NQ; q++)
			band += rank > k[q];
		if (band_add(&a->b[band - 1], a->tie[i].e2e, a->tie[i].x, a->tie[i].has, a->m))
			return "integer overflow";
	}
	return NULL;
}

/* A's bands appended to OUT, A's rows kept for ties freed: NULL, or what
 * is wrong. */
static const char *bands_json(struct bagg *a, sqlite3_str *out)
{
	const char *why;

	if (a->seen != a->n)
		why = "ntp_bands: the cut values are not of these rows (another count)";
	else
		why = bands_ties(a);
	sqlite3_free(a->tie);
	a->tie = NULL;
	if (why)
		return why;
	sqlite3_str_appendchar(out, 1, '[');
	for (int i = 0, first = 1; i < NTP_BANDS; i++) {
		const struct band *b = &a->b[i];

		if (!b->n)
			continue;
		sqlite3_str_appendf(out, "%s[%d,%lld,%lld,%lld,%lld", first ? "" : ",", i + 1,
				    (long long)b->n, (long long)b->min, (long long)b->max,
				    (long long)b->sum);
		for (int j = 0; j < a->m; j++) {
			if (b->has & (1u << j))
				sqlite3_str_appendf(out, ",%lld", (long long)b->s[j]);
			else
				sqlite3_str_appendall(out, ",null");
		}
		sqlite3_str_appendchar(out, 1, ']');
		first = 0;
	}
	sqlite3_str_appendchar(out, 1, ']');
	return NULL;
}

static void bands_final(sqlite3_context *ctx)
{
	struct bagg *a = sqlite3_aggregate_context(ctx, 0);
	const char *why;
	sqlite3_str *out;

	if (!a || a->failed) {
		if (!a)
			sqlite3_result_null(ctx);
		if (a)
			sqlite3_free(a->tie);
		return;
	}
	out = sqlite3_str_new(NULL);
	if ((why = bands_json(a, out))) {
		sqlite3_free(sqlite3_str_finish(out));
		sqlite3_result_error(ctx, why, -1);
		return;
	}
	result_str(ctx, out);
}

/*
 * ntp_cdf(x1, ..., xN), N <= NTP_DIST_MAX: plot.sql's thinned CDF lines
 * (_ntp_plot_cdf_line over stats.sql's ntp_report_cdf) in one scan, and
 * per argument a selection of the points and a pass to count them, no
 * sort (cdf_entry). NULLs are left out, as the view leaves them out.
 * Result: the JSON array of the arguments' lines, each [total, point, ...]
 * with a point [ns, n, cum] for every distinct value (n of them equal, cum
 * at or below it) that the view keeps: the last one (cum = total), one
 * with every value at or below it (cum = n: the first), and one where
 * cum x 200 / total steps past (cum - n) x 200 / total, in integers. An
 * argument without a value is [0].
 */
/* Emit the point of value X if the view keeps it (see above). */
static void cdf_point(sqlite3_str *out, int64_t x, int64_t eq, int64_t cum, int64_t total)
{
	/* cum x 200 fits: cum is under 2^55 */
	if (cum == total || cum == eq || cum * 200 / total > (cum - eq) * 200 / total)
		sqlite3_str_appendf(out, ",[%lld,%lld,%lld]", (long long)x, (long long)eq,
				    (long long)cum);
}

/*
 * A distribution's shape, without sorting its values (written out or in
 * memory): one selection of the values at the ranks wanted, then one pass
 * that counts each selected value's n and cum (a binary search among them
 * per value; a sort of a million values cost several times that) and, for
 * the histogram, each value's bucket. Three results, each written when its
 * output is not NULL:
 * - LINE, the plot's CDF line (ntp_cdf, above): ranks 1 and
 *   ceil(s T / 200), s = 1 .. 200;
 * - POINTS, the shell's thinned CDF (stats.sql's _ntp_report_cdf_point),
 *   [T, [ns, n, cum], ...]: the values holding rank 1 or a rank
 *   ceil(m T / 1000) for m = 10, 20, .. 990 and 991 .. 1000, which are
 *   those whose 1000 cum / T steps past a multiple of 10 above
 *   1000 (cum - n) / T, or past any integer at 990 and above;
 * - HIST, ntp_report_hist's counts, [[k, count], ...] for each bucket
 *   with values in ascending k: k = floor(log2(ns / 1000)) from 1 us,
 *   -1 below it, -2 below 0.
 */
#define CDF_RANKS 201
#define SCDF_RANKS 110
#define HIST_KS 66 /* k = -2 .. 63 */

struct shape_out {
	sqlite3_str *line;   /* ntp_cdf's line, or NULL */
	sqlite3_str *points; /* the shell's CDF points, or NULL */
	sqlite3_str *hist;   /* the histogram's counts, or NULL */
};

/* The histogram's bucket of X, from -2. */
static inline int hist_k(int64_t x)
{
	if (x < 0)
		return -2;
	if (x < 1000)
		return -1;
	return 63 - __builtin_clzll((uint64_t)(x / 1000));
}

static int size_cmp(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	return a < b ? -1 : a > b;
}

/* Count X among the M values IX indexes: EQ[j] if it is V[j], else LT[j]
 * for the first V[j] above it; and its histogram bucket. Returns -1 when X
 * lies outside [V[0], V[M - 1]], the least and greatest value selected: a
 * file that changed under us. */
static inline int shape_count(const struct hindex *ix, const int64_t *v, size_t m, int64_t x,
			      int64_t *eq, int64_t *lt, int64_t *hist)
{
	size_t j;

	if (x < v[0] || x > v[m - 1])
		return -1;
	j = hindex_find(ix, v, x);
	if (v[j] == x)
		eq[j]++;
	else
		lt[j]++;
	if (hist)
		hist[hist_k(x) + 2]++;
	return 0;
}

/* The first of the N ascending values S above X (ABOVE), or at or above it. */
static size_t bound32(const int32_t *s, size_t n, int64_t x, int above)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid] < x || (above && s[mid] == x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* What shape_count counts, over the N ascending values S (qagg_select
 * sorted them), from bounds: each of the M selected values' equal values
 * and those between it and the one before it, and each histogram bucket's
 * values, by binary searches instead of a look at every value. */
static void shape_sorted32(const int32_t *s, size_t n, const int64_t *v, size_t m, int64_t *eq,
			   int64_t *lt, int64_t *hist)
{
	size_t at = 0;

	for (size_t j = 0; j < m; j++) {
		size_t lo = bound32(s, n, v[j], 0), hi = bound32(s, n, v[j], 1);

		lt[j] += (int64_t)(lo - at);
		eq[j] += (int64_t)(hi - lo);
		at = hi;
	}
	if (!hist)
		return;
	/* hist_k's buckets: below 0, below 1000, then [1000 2^k, 1000 2^(k+1)) */
	at = bound32(s, n, 0, 0);
	hist[0] += (int64_t)at;
	for (int64_t end = 1000, i = 1; at < n; end *= 2, i++) {
		size_t e = bound32(s, n, end, 0);

		hist[i] += (int64_t)(e - at);
		at = e;
	}
}

static int shape_entry(const struct shape_out *o, struct qagg *a)
{
	size_t k[CDF_RANKS + SCDF_RANKS], nk = 0, m = 0, n = qagg_count(a);
	int64_t v[CDF_RANKS + SCDF_RANKS], eq[CDF_RANKS + SCDF_RANKS] = { 0 };
	int64_t lt[CDF_RANKS + SCDF_RANKS] = { 0 }, hist[HIST_KS] = { 0 }, cum = 0;
	int64_t total = (int64_t)n, *h = o->hist ? hist : NULL;
	uint64_t t = n;
	int rc;

	if (o->line)
		sqlite3_str_appendf(o->line, "[%lld", (long long)total);
	if (o->points)
		sqlite3_str_appendf(o->points, "[%lld", (long long)total);
	if (o->hist)
		sqlite3_str_appendchar(o->hist, 1, '[');
	if (!n)
		goto close;
	k[nk++] = 0;
	for (int s = 1; o->line && s <= 200; s++)
		k[nk++] = (size_t)((s * t + 199) / 200) - 1;
	for (int s = 10; o->points && s <= 1000; s += s < 990 ? 10 : 1)
		k[nk++] = (size_t)((s * t + 999) / 1000) - 1;
	qsort(k, nk, sizeof(*k), size_cmp);
	rc = qagg_select(a, k, (int)nk, v);
	if (rc)
		return rc;
	for (size_t i = 0; i < nk; i++) /* distinct values, ascending */
		if (!m || v[m - 1] != v[i])
			v[m++] = v[i];
	if (a->sorted && !a->wide) {
		shape_sorted32(a->v, n, v, m, eq, lt, h);
	} else {
		/* ranks 0 and n - 1 are among k: every value lies in [v[0],
		 * v[m - 1]] */
		struct hindex *ix = sqlite3_malloc64(sizeof(*ix));
		int bad = 0;

		if (!ix)
			return -1;
		hindex_init(ix, v, m, v[0]);
		if (a->spilled) {
			struct qread *rd = sqlite3_malloc64(sizeof(*rd));
			ssize_t got;

			if (!rd) {
				sqlite3_free(ix);
				return -1;
			}
			rd->a = a, rd->c = 0, rd->pos = 0;
			while (!bad && (got = qread_next(rd)) > 0)
				for (ssize_t i = 0; !bad && i < got; i++)
					bad = shape_count(ix, v, m, rd->buf[i], eq, lt, h);
			sqlite3_free(rd);
			if (got < 0) { /* qread_next's errno */
				sqlite3_free(ix);
				return -2;
			}
		} else if (a->wide) {
			for (size_t i = 0; !bad && i < n; i++)
				bad = shape_count(ix, v, m, ((const int64_t *)a->v)[i], eq, lt, h);
		} else {
			for (size_t i = 0; !bad && i < n; i++)
				bad = shape_count(ix, v, m, ((const int32_t *)a->v)[i], eq, lt, h);
		}
		sqlite3_free(ix);
		if (bad) { /* a value outside the selected ones': changed */
			errno = EIO;
			return -2;
		}
	}
	for (size_t j = 0; j < m; j++) {
		/* cum x 1000 fits: cum is under 2^55 */
		int64_t before = cum + lt[j], pa, pb;

		cum = before + eq[j];
		pa = before * 1000 / total, pb = cum * 1000 / total;
		if (o->line)
			cdf_point(o->line, v[j], eq[j], cum, total);
		if (o->points && (!before || pb / 10 > pa / 10 || (pb > pa && pb >= 990)))
			sqlite3_str_appendf(o->points, ",[%lld,%lld,%lld]", (long long)v[j],
					    (long long)eq[j], (long long)cum);
	}
	for (int i = 0, first = 1; o->hist && i < HIST_KS; i++)
		if (hist[i]) {
			sqlite3_str_appendf(o->hist, "%s[%d,%lld]", first ? "" : ",", i - 2,
					    (long long)hist[i]);
			first = 0;
		}
close:
	if (o->line)
		sqlite3_str_appendchar(o->line, 1, ']');
	if (o->points)
		sqlite3_str_appendchar(o->points, 1, ']');
	if (o->hist)
		sqlite3_str_appendchar(o->hist, 1, ']');
	return 0;
}

static int cdf_entry(sqlite3_str *out, struct qagg *a, int64_t sum, __int128 sq, int ci)
{
	struct shape_out o = { out, NULL, NULL };

	(void)sum, (void)sq, (void)ci;
	return shape_entry(&o, a);
}

static void cdf_final(sqlite3_context *ctx)
{
	dagg_final(ctx, "ntp_cdf", cdf_entry, NULL);
}

/* D's result appended to ALL, D's values freed: 0, or qagg_select's
 * error (-1: out of memory). */
static int dist_cdf_json(struct dagg *d, sqlite3_str *all)
{
	sqlite3_str *out[5];
	int rc = 0;

	for (int j = 0; j < 5; j++)
		out[j] = sqlite3_str_new(NULL);
	for (int i = 0; i < d->nargs && !rc; i++) {
		struct shape_out o = { out[1], out[2], out[3] };

		for (int j = 0; j < 5; j++)
			sqlite3_str_appendchar(out[j], 1, i ? ',' : '[');
		rc = dist_entry_sq(out[0], out[4], &d->q[i], d->sum[i], d->sq[i], 0);
		if (!rc)
			rc = shape_entry(&o, &d->q[i]);
	}
	for (int i = 0; i < d->nargs; i++)
		qagg_free(&d->q[i]);
	for (int j = 0; j < 5; j++) {
		sqlite3_str_appendf(all, "%c%s]", j ? ',' : '[',
				    sqlite3_str_errcode(out[j]) ? "" : sqlite3_str_value(out[j]));
		if (sqlite3_str_errcode(out[j]) && !rc)
			rc = -1;
		sqlite3_free(sqlite3_str_finish(out[j]));
	}
	sqlite3_str_appendchar(all, 1, ']');
	return rc;
}

/*
 * ntp_dist_cdf(x1, ..., xN), N <= NTP_DIST_MAX: from one scan of the same
 * rows, [ntp_dist's array, ntp_cdf's array, the arguments' shell CDF
 * points, their histograms' counts (shape_entry), their sums of squares
 * and intervals]: the report's statistics, the plot's CDF lines, .cdf's
 * and .hist's rows, and ntprof compare's statistics of a group read its
 * commands once. The arrays have an entry per argument, in order; the
 * fifth's entries are [sum of x^2, p50_lo, p50_hi, p99_lo, p99_hi]: the
 * sum computed exactly and given as the nearest double, the intervals
 * ntp_dist_ci's.
 */
static void dist_cdf_final(sqlite3_context *ctx)
{
	struct dagg *d = dagg_state(ctx);
	sqlite3_str *all;
	int rc;

	if (!d)
		return;
	all = sqlite3_str_new(NULL);
	rc = dist_cdf_json(d, all);
	if (rc) {
		qagg_error(ctx, "ntp_dist_cdf", rc);
		sqlite3_free(sqlite3_str_finish(all));
		return;
	}
	result_str(ctx, all);
}

/*
 * ntp_dist_by(GROUPS, db, grp, x1, ..., xN), ntp_dist_cdf_by(GROUPS, db,
 * grp, x1, ..., xN) and ntp_bands_by(GROUPS, db, grp, e2e, ht, x1, ...,
 * xM): ntp_dist, ntp_dist_cdf and ntp_bands of each group GROUPS lists,
 * over that group's rows, from one scan of the rows of all of them (a
 * subquery per group scans every row once per group). GROUPS,
 * the same text in every row, lists the groups with ';' between them,
 * each "I HEX G N", and for ntp_bands_by then "V50 V90 V99 V999" (N and
 * these: its first five arguments for the group), separated by spaces: I
 * the group's number in the result, HEX its database's name as hex()
 * writes it, G its grp.id, N its rows. The rows of a group not listed are
 * left out. Result: the JSON array [[I, the group's result], ...] of the
 * groups with a row, by I; NULL without a row.
 *
 * Each group's values count against the budget as the ungrouped
 * aggregate's do, all the groups' at once. ntp_dist_by and
 * ntp_dist_cdf_by give each argument of a group room for N values at its
 * first row, where the budget has it: arrays grown by doubling would hold
 * up to twice the values, and the groups together pass the budget sooner
 * than one.
 */
#define NTP_GROUP_PARAMS 5

struct group {
	int64_t idx, grp;                 /* I, G */
	unsigned char *db;                /* the database's name, decoded */
	size_t dblen;
	int64_t param[NTP_GROUP_PARAMS];  /* N, V50, V90, V99, V999 */
	void *state;                      /* its struct dagg or bagg, from its first row */
};

struct gagg {
	int failed;         /* an error was reported; xFinal only frees */
	int parsed;         /* GROUPS read */
	size_t n, last;     /* groups; the one the last row was of */
	struct group *g;
	int bands;          /* ntp_bands_by */
	int dist;           /* ntp_dist_by */
};

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A number of GROUPS at *P, and the space or end after it. 0 or -1. */
static int group_num(const char **p, int64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoll(*p, &end, 10);
	if (end == *p || errno || (*end && *end != ' ' && *end != ';'))
		return -1;
	*p = end + (*end == ' ');
	return 0;
}

/* Read GROUPS into A: NULL, or what is wrong (bands_nomem: no memory). */
static const char *groups_parse(struct gagg *a, const char *t)
{
	size_t cap = 1;
	const char *p;

	for (p = t; *p; p++)
		cap += *p == ';';
	a->g = sqlite3_malloc64((sqlite3_uint64)cap * sizeof(*a->g));
	if (!a->g)
		return bands_nomem;
	memset(a->g, 0, cap * sizeof(*a->g));
	for (p = t; *p;) {
		struct group *g = &a->g[a->n];
		const char *h;
		size_t len;

		if (group_num(&p, &g->idx))
			return "ntp_*_by: a group's number expected";
		for (h = p; hexval(*p) >= 0; p++)
			;
		len = (size_t)(p - h);
		if (len % 2 || *p != ' ')
			return "ntp_*_by: a database's name in hex expected";
		p++;
		a->n++; /* its name is freed with the rest */
		g->db = sqlite3_malloc64(len / 2 + 1);
		if (!g->db)
			return bands_nomem;
		for (size_t i = 0; i < len / 2; i++)
			g->db[i] = (unsigned char)(hexval(h[2 * i]) << 4 | hexval(h[2 * i + 1]));
		g->dblen = len / 2;
		if (group_num(&p, &g->grp))
			return "ntp_*_by: a group id expected";
		for (int i = 0; i < (a->bands ? NTP_GROUP_PARAMS : 1); i++)
			if (group_num(&p, &g->param[i]))
				return a->bands ? "ntp_bands_by: a group's count and cut values expected" :
				       a->dist ? "ntp_dist_by: a group's count expected" :
						 "ntp_dist_cdf_by: a group's count expected";
		if (*p == ';')
			p++;
		else if (*p)
			return "ntp_*_by: ';' between groups expected";
	}
	a->parsed = 1;
	return NULL;
}

/* The group of a row's DB and GRP in A, NULL if A does not list it. */
static struct group *group_of(struct gagg *a, sqlite3_value *db, sqlite3_value *grp)
{
	int64_t id = sqlite3_value_int64(grp);
	const unsigned char *name = sqlite3_value_text(db);
	size_t len = (size_t)sqlite3_value_bytes(db);

	for (size_t k = 0; k < a->n; k++) {
		size_t i = (a->last + k) % a->n; /* rows of one group come in runs */
		struct group *g = &a->g[i];

		if (g->grp == id && g->dblen == len && name && !memcmp(g->db, name, len)) {
			a->last = i;
			return g;
		}
	}
	return NULL;
}

static void group_free(struct gagg *a)
{
	for (size_t i = 0; i < a->n; i++) {
		struct group *g = &a->g[i];

		if (g->state && a->bands) {
			sqlite3_free(((struct bagg *)g->state)->tie);
		} else if (g->state) {
			for (int j = 0; j < NTP_DIST_MAX; j++)
				qagg_free(&((struct dagg *)g->state)->q[j]);
		}
		sqlite3_free(g->state);
		sqlite3_free(g->db);
	}
	sqlite3_free(a->g);
	a->g = NULL;
	a->n = 0;
}

/* The group of this row (NULL: none, or an error reported and *FAILED). */
static struct group *group_row(sqlite3_context *ctx, struct gagg *a, int argc,
			       sqlite3_value **argv, int bands, int fixed)
{
	const char *why = NULL;
	struct group *g;

	if (a->failed)
		return NULL;
	a->bands = bands;
	if (argc < fixed || sqlite3_value_type(argv[0]) != SQLITE_TEXT)
		why = "ntp_*_by: the groups' text, a database and a group expected";
	else if (!bands && (argc == fixed || argc - fixed > NTP_DIST_MAX))
		why = a->dist ? "ntp_dist_by: 4 to 19 arguments expected" :
				"ntp_dist_cdf_by: 4 to 19 arguments expected";
	else if (!a->parsed)
		why = groups_parse(a, (const char *)sqlite3_value_text(argv[0]));
	if (why) {
		fail_why(ctx, &a->failed, why);
		return NULL;
	}
	g = group_of(a, argv[1], argv[2]);
	if (g && !g->state) {
		size_t size = bands ? sizeof(struct bagg) : sizeof(struct dagg);

		g->state = sqlite3_malloc64(size);
		if (!g->state) {
			fail_why(ctx, &a->failed, bands_nomem);
			return NULL;
		}
		memset(g->state, 0, size);
		for (int i = 0; !bands && i < argc - fixed; i++)
			qagg_reserve(&((struct dagg *)g->state)->q[i], g->param[0]);
	}
	return g;
}

/* A row of ntp_dist_by (DIST) or ntp_dist_cdf_by. */
static void dist_by_row(sqlite3_context *ctx, int argc, sqlite3_value **argv, int dist)
{
	struct gagg *a = sqlite3_aggregate_context(ctx, sizeof(*a));
	struct group *g;

	if (!a) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	a->dist = dist;
	g = group_row(ctx, a, argc, argv, 0, 3);
	if (g && dist_row(ctx, g->state, argc - 3, argv + 3))
		a->failed = 1;
}

static void dist_cdf_by_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	dist_by_row(ctx, argc, argv, 0);
}

static void dist_by_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	dist_by_row(ctx, argc, argv, 1);
}

static void bands_by_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct gagg *a = sqlite3_aggregate_context(ctx, sizeof(*a));
	int64_t h[NTP_BAND_FIXED], x[NTP_BAND_MAX] = { 0 };
	int m = argc - 5;
	const char *why = NULL;
	uint32_t has = 0;
	struct group *g;

	if (!a) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (!(g = group_row(ctx, a, argc, argv, 1, 5)))
		return;
	memcpy(h, g->param, sizeof(g->param));
	if (m > NTP_BAND_MAX)
		why = "ntp_bands_by: 5 to 21 arguments expected";
	else if (int_arg(argv[3], &h[5]) || int_arg(argv[4], &h[6]))
		why = "ntp_bands: integer expected";
	else
		why = bands_xs(argv + 5, m, x, &has);
	if (!why)
		why = bands_put(g->state, h, x, has, m);
	if (why)
		fail_why(ctx, &a->failed, why);
}

static int group_idx_cmp(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;

	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static void group_final(sqlite3_context *ctx)
{
	struct gagg *a = sqlite3_aggregate_context(ctx, 0);
	const char *why = NULL;
	sqlite3_str *out;
	int rc = 0, first = 1;

	if (!a) {
		sqlite3_result_null(ctx);
		return;
	}
	if (a->failed) {
		group_free(a);
		return;
	}
	qsort(a->g, a->n, sizeof(*a->g), group_idx_cmp);
	out = sqlite3_str_new(NULL);
	sqlite3_str_appendchar(out, 1, '[');
	for (size_t i = 0; i < a->n && !rc && !why; i++) {
		struct group *g = &a->g[i];

		if (!g->state)
			continue;
		sqlite3_str_appendf(out, "%s[%lld,", first ? "" : ",", (long long)g->idx);
		first = 0;
		if (a->bands)
			why = bands_json(g->state, out);
		else if (a->dist)
			rc = dagg_entries(out, g->state, dist_entry, 0);
		else
			rc = dist_cdf_json(g->state, out);
		sqlite3_str_appendchar(out, 1, ']');
	}
	sqlite3_str_appendchar(out, 1, ']');
	group_free(a);
	if (why || rc) {
		sqlite3_free(sqlite3_str_finish(out));
		if (why)
			sqlite3_result_error(ctx, why, -1);
		else
			qagg_error(ctx, a->dist ? "ntp_dist_by" : "ntp_dist_cdf_by", rc);
		return;
	}
	if (first) { /* rows, none of a listed group */
		sqlite3_free(sqlite3_str_finish(out));
		sqlite3_result_null(ctx);
		return;
	}
	result_str(ctx, out);
}

/* After an aggregate's row: WHY is "" (the row counted), an error message
 * or NULL (out of memory). An error is reported once; the aggregate then
 * only frees (*FAILED). */
static void row_done(sqlite3_context *ctx, int *failed, const char *why)
{
	if (why && *why == '\0')
		return;
	*failed = 1;
	if (why)
		sqlite3_result_error(ctx, why, -1);
	else
		sqlite3_result_error_nomem(ctx);
}

/*
 * ntp_series(bucket, e2e, x1, ..., xM), M <= NTP_SERIES_MAX: stats.sql's
 * time series rows (_ntp_series_row: per bucket its commands, the sum and
 * the exact nearest-rank p99 of their end to end, and the sum of each
 * component) in one scan, without sorting the rows. BUCKET and E2E are
 * integers in every row; an x NULL in every row of a bucket sums to null,
 * as SQL's sum(). Result: the JSON array of the buckets with a row, in
 * ascending order, each [bucket, n, e2e sum, p99, sum x1, ..., sum xM].
 *
 * The end-to-end values are kept (8 bytes a row). Rows that come bucket by
 * bucket, as a recording's commands do in time order, are selected in
 * place; otherwise each row's bucket is noted too (4 bytes more) and the
 * values are gathered per bucket at the end.
 */
#define NTP_SERIES_MAX 16

struct sbucket {
	int64_t bucket;               /* its number */
	int64_t n, sum;               /* rows, sum of their e2e */
	int64_t x[NTP_SERIES_MAX];    /* sums of the x's */
	uint32_t has;                 /* bit i: some x(i+1) was not NULL */
	size_t start;                 /* its first value's index, rows in order */
};

struct sagg {
	int m;                        /* x arguments, fixed by the first row */
	int failed;                   /* an error was reported; xFinal only frees */
	struct sbucket *b;            /* the buckets, in the order first seen */
	size_t nb, capb;
	uint32_t *slot;               /* hash of bucket -> index + 1; 0: empty */
	size_t capslot;               /* a power of 2, over twice nb */
	int64_t *v;                   /* e2e of every row, in arrival order */
	uint32_t *of;                 /* each row's bucket index, once out of order */
	size_t n, capv;
};

static size_t series_hash(int64_t bucket, size_t cap)
{
	return (size_t)(((uint64_t)bucket * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static int series_rehash(struct sagg *a)
{
	size_t cap = a->capslot ? 2 * a->capslot : 64;
	uint32_t *slot = sqlite3_malloc64((sqlite3_uint64)cap * sizeof(*slot));

	if (!slot)
		return -1;
	memset(slot, 0, cap * sizeof(*slot));
	for (size_t i = 0; i < a->nb; i++) {
		size_t h = series_hash(a->b[i].bucket, cap);

		while (slot[h])
			h = (h + 1) & (cap - 1);
		slot[h] = (uint32_t)(i + 1);
	}
	sqlite3_free(a->slot);
	a->slot = slot;
	a->capslot = cap;
	return 0;
}

/* BUCKET's index in a->b, added if new; -1: out of memory. */
static long series_bucket(struct sagg *a, int64_t bucket)
{
	struct sbucket *b;
	size_t h;

	if (a->nb && a->b[a->nb - 1].bucket == bucket)
		return (long)(a->nb - 1);
	if (2 * (a->nb + 1) > a->capslot && series_rehash(a))
		return -1;
	for (h = series_hash(bucket, a->capslot); a->slot[h]; h = (h + 1) & (a->capslot - 1))
		if (a->b[a->slot[h] - 1].bucket == bucket)
			return (long)(a->slot[h] - 1);
	if (a->nb == UINT32_MAX - 1)
		return -1;
	if (!(b = room(a->b, a->nb, &a->capb, sizeof(*b), 16)))
		return -1;
	a->b = b;
	memset(&a->b[a->nb], 0, sizeof(a->b[a->nb]));
	a->b[a->nb].bucket = bucket;
	a->b[a->nb].start = a->n;
	a->slot[h] = (uint32_t)(a->nb + 1);
	return (long)a->nb++;
}

/* Room for one more value (and its bucket index, once out of order). */
static int series_room(struct sagg *a)
{
	size_t cap;
	int64_t *v;

	if (a->n < a->capv)
		return 0;
	cap = a->capv ? 2 * a->capv : 256;
	if (cap > QAGG_MAX_BYTES / sizeof(*v))
		return -1;
	v = sqlite3_realloc64(a->v, (sqlite3_uint64)cap * sizeof(*v));
	if (!v)
		return -1;
	a->v = v;
	if (a->of) {
		uint32_t *of = sqlite3_realloc64(a->of, (sqlite3_uint64)cap * sizeof(*of));

		if (!of)
			return -1;
		a->of = of;
	}
	a->capv = cap;
	return 0;
}

/* Rows no longer come bucket by bucket: note every row's bucket so far. */
static int series_unordered(struct sagg *a)
{
	a->of = sqlite3_malloc64((sqlite3_uint64)(a->capv ? a->capv : 1) * sizeof(*a->of));
	if (!a->of)
		return -1;
	for (size_t i = 0; i < a->nb; i++)
		for (int64_t r = 0; r < a->b[i].n; r++)
			a->of[a->b[i].start + (size_t)r] = (uint32_t)i;
	return 0;
}

static void series_free(struct sagg *a)
{
	sqlite3_free(a->b);
	sqlite3_free(a->slot);
	sqlite3_free(a->v);
	sqlite3_free(a->of);
	a->b = NULL, a->slot = NULL, a->v = NULL, a->of = NULL;
}

/* One row's BUCKET and E2E into A, its bucket's record into *OUT: "" or
 * the error (NULL: out of memory). */
static const char *series_add(struct sagg *a, int64_t bucket, int64_t e2e, struct sbucket **out)
{
	struct sbucket *b;
	long i = series_bucket(a, bucket);

	if (i < 0)
		return NULL;
	b = &a->b[i];
	/* a bucket seen before, not the last one: out of order from here */
	if (!a->of && b->n && b->start + (size_t)b->n != a->n && series_unordered(a))
		return NULL;
	if (series_room(a))
		return NULL;
	if (__builtin_add_overflow(b->sum, e2e, &b->sum))
		return "integer overflow";
	if (a->of)
		a->of[a->n] = (uint32_t)i;
	a->v[a->n++] = e2e;
	b->n++;
	*out = b;
	return "";
}

static const char *series_row(struct sagg *a, int argc, sqlite3_value **argv)
{
	struct sbucket *b;
	const char *why;

	if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER ||
	    sqlite3_value_type(argv[1]) != SQLITE_INTEGER)
		return "ntp_series: bucket and e2e must be integers";
	if (argc - 2 > NTP_SERIES_MAX)
		return "ntp_series: too many arguments";
	if (a->n && a->m != argc - 2)
		return "ntp_series: the arguments changed";
	a->m = argc - 2;
	why = series_add(a, sqlite3_value_int64(argv[0]), sqlite3_value_int64(argv[1]), &b);
	if (!why || *why)
		return why;
	for (int k = 0; k < a->m; k++) {
		sqlite3_value *x = argv[2 + k];

		if (sqlite3_value_type(x) == SQLITE_NULL)
			continue;
		if (sqlite3_value_type(x) != SQLITE_INTEGER)
			return "ntp_series: integer expected";
		if (__builtin_add_overflow(b->x[k], sqlite3_value_int64(x), &b->x[k]))
			return "integer overflow";
		b->has |= 1u << k;
	}
	return "";
}

static void series_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sagg *a = sqlite3_aggregate_context(ctx, sizeof(*a));

	if (!a) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (!a->failed)
		row_done(ctx, &a->failed, series_row(a, argc, argv));
}

static int sbucket_cmp(const void *pa, const void *pb)
{
	int64_t x = ((const struct sbucket *)pa)->bucket, y = ((const struct sbucket *)pb)->bucket;

	return (x > y) - (x < y);
}

/* Each bucket's values together, from b->start on: rows out of order are
 * gathered into a new array, in the buckets' order of a->b. */
static int series_gather(struct sagg *a)
{
	int64_t *w;
	size_t at = 0;

	if (!a->of)
		return 0;
	w = sqlite3_malloc64((sqlite3_uint64)(a->n ? a->n : 1) * sizeof(*w));
	if (!w)
		return -1;
	for (size_t i = 0; i < a->nb; i++) {
		a->b[i].start = at;
		at += (size_t)a->b[i].n;
	}
	/* start advances as values land, then steps back */
	for (size_t r = 0; r < a->n; r++)
		w[a->b[a->of[r]].start++] = a->v[r];
	for (size_t i = 0; i < a->nb; i++)
		a->b[i].start -= (size_t)a->b[i].n;
	sqlite3_free(a->v);
	sqlite3_free(a->of);
	a->v = w, a->of = NULL;
	return 0;
}

/* A's result, as ntp_series returns it, into OUT; A freed. -1: out of
 * memory. */
static int series_json(struct sagg *a, sqlite3_str *out)
{
	if (series_gather(a)) {
		series_free(a);
		return -1;
	}
	/* a bucket's values stay where start says: sorting moves only the
	 * bucket records */
	qsort(a->b, a->nb, sizeof(*a->b), sbucket_cmp);
	sqlite3_str_appendchar(out, 1, '[');
	for (size_t i = 0; i < a->nb; i++) {
		struct sbucket *b = &a->b[i];
		size_t n = (size_t)b->n, k = rank_index(n, 99000);
		int64_t *v = a->v + b->start;

		ntp_nth64(v, n, k, 2 * ilog2(n));
		sqlite3_str_appendf(out, "%s[%lld,%lld,%lld,%lld", i ? "," : "",
				    (long long)b->bucket, (long long)b->n, (long long)b->sum,
				    (long long)v[k]);
		for (int x = 0; x < a->m; x++) {
			if (b->has & (1u << x))
				sqlite3_str_appendf(out, ",%lld", (long long)b->x[x]);
			else
				sqlite3_str_appendall(out, ",null");
		}
		sqlite3_str_appendchar(out, 1, ']');
	}
	sqlite3_str_appendchar(out, 1, ']');
	series_free(a);
	return 0;
}

static void series_final(sqlite3_context *ctx)
{
	struct sagg *a = sqlite3_aggregate_context(ctx, 0);
	sqlite3_str *out;

	if (!a || a->failed) {
		if (!a)
			sqlite3_result_text(ctx, "[]", -1, SQLITE_STATIC);
		if (a)
			series_free(a);
		return;
	}
	out = sqlite3_str_new(NULL);
	if (series_json(a, out)) {
		sqlite3_free(sqlite3_str_finish(out));
		sqlite3_result_error_nomem(ctx);
		return;
	}
	result_str(ctx, out);
}

struct ntp_series {
	struct sagg a;
};

struct ntp_series *ntp_series_new(void)
{
	struct ntp_series *s = sqlite3_malloc(sizeof(*s));

	if (s)
		memset(s, 0, sizeof(*s));
	return s;
}

const char *ntp_series_push(struct ntp_series *s, int64_t bucket, int64_t e2e)
{
	struct sbucket *b;

	return series_add(&s->a, bucket, e2e, &b);
}

char *ntp_series_json(struct ntp_series *s)
{
	sqlite3_str *out = sqlite3_str_new(NULL);

	if (series_json(&s->a, out)) {
		sqlite3_free(sqlite3_str_finish(out));
		return NULL;
	}
	return sqlite3_str_finish(out);
}

void ntp_series_free(struct ntp_series *s)
{
	if (s)
		series_free(&s->a);
	sqlite3_free(s);
}

/*
 * ntp_tally(k1, ..., kN), N <= NTP_TALLY_MAX: GROUP BY k1, ..., kN with
 * count(*), in one scan and no sort, for the few keys of a large table (the
 * join's host groups and targets). Keys are integers, text or NULL. Result:
 * the JSON array of the distinct keys in SQLite's order (NULL, then
 * integers, then text by its bytes), each [k1, ..., kN, count].
 */
#define NTP_TALLY_MAX 4

struct tkey {
	unsigned char *key;           /* the keys serialized: a type byte, then the value */
	size_t len;
	uint64_t hash;
	int64_t n;                    /* rows with these keys */
};

struct tagg {
	int nargs;                    /* fixed by the first row */
	int failed;
	struct tkey *e;               /* the distinct keys */
	size_t ne, cape;
	uint32_t *slot;               /* hash -> index + 1; 0: empty */
	size_t capslot;               /* a power of 2, over twice ne */
};

static uint64_t tally_hash(const unsigned char *b, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static int tally_rehash(struct tagg *a)
{
	size_t cap = a->capslot ? 2 * a->capslot : 16;
	uint32_t *slot = sqlite3_malloc64((sqlite3_uint64)cap * sizeof(*slot));

	if (!slot)
		return -1;
	memset(slot, 0, cap * sizeof(*slot));
	for (size_t i = 0; i < a->ne; i++) {
		size_t h = (size_t)a->e[i].hash & (cap - 1);

		while (slot[h])
			h = (h + 1) & (cap - 1);
		slot[h] = (uint32_t)(i + 1);
	}
	sqlite3_free(a->slot);
	a->slot = slot;
	a->capslot = cap;
	return 0;
}

/* Count the row of keys B (N bytes). NULL: out of memory. */
static const char *tally_add(struct tagg *a, const unsigned char *b, size_t n)
{
	uint64_t hash = tally_hash(b, n);
	struct tkey *e;
	size_t h;

	if (2 * (a->ne + 1) > a->capslot && tally_rehash(a))
		return NULL;
	for (h = (size_t)hash & (a->capslot - 1); a->slot[h]; h = (h + 1) & (a->capslot - 1)) {
		e = &a->e[a->slot[h] - 1];
		if (e->hash == hash && e->len == n && !memcmp(e->key, b, n)) {
			e->n++;
			return "";
		}
	}
	if (a->ne == UINT32_MAX - 1)
		return NULL;
	if (!(e = room(a->e, a->ne, &a->cape, sizeof(*e), 8)))
		return NULL;
	a->e = e;
	a->e[a->ne].key = sqlite3_malloc64(n);
	if (!a->e[a->ne].key)
		return NULL;
	memcpy(a->e[a->ne].key, b, n);
	a->e[a->ne].len = n;
	a->e[a->ne].hash = hash;
	a->e[a->ne].n = 1;
	a->slot[h] = (uint32_t)(a->ne + 1);
	a->ne++;
	return "";
}

/* The serialized keys: 'n' (NULL), 'i' and 8 bytes, most significant
 * first with the sign bit flipped (so that bytes compare as integers), or
 * 't', 4 bytes of length and the bytes. In a buffer on the stack when
 * they fit (every row of the join's keys), else on the heap. */
static const char *tally_row(struct tagg *a, int argc, sqlite3_value **argv)
{
	unsigned char small[256], *k = small;
	size_t n = 0, need = 0;
	const char *why;

	if (argc > NTP_TALLY_MAX)
		return "ntp_tally: too many arguments";
	if (a->nargs && a->nargs != argc)
		return "ntp_tally: the arguments changed";
	a->nargs = argc;
	for (int i = 0; i < argc; i++)
		switch (sqlite3_value_type(argv[i])) {
		case SQLITE_NULL: need += 1; break;
		case SQLITE_INTEGER: need += 9; break;
		case SQLITE_TEXT: need += 5 + (size_t)sqlite3_value_bytes(argv[i]); break;
		default: return "ntp_tally: integer, text or NULL expected";
		}
	if (need > sizeof(small) && !(k = sqlite3_malloc64(need)))
		return NULL;
	for (int i = 0; i < argc; i++) {
		switch (sqlite3_value_type(argv[i])) {
		case SQLITE_NULL:
			k[n++] = 'n';
			break;
		case SQLITE_INTEGER: {
			uint64_t v = (uint64_t)sqlite3_value_int64(argv[i]) ^ (1ull << 63);

			k[n++] = 'i';
			for (int b = 7; b >= 0; b--)
				k[n++] = (unsigned char)(v >> (8 * b));
			break;
		}
		default: { /* text */
			const unsigned char *t = sqlite3_value_text(argv[i]);
			uint32_t len = (uint32_t)sqlite3_value_bytes(argv[i]);

			k[n++] = 't';
			for (int b = 3; b >= 0; b--)
				k[n++] = (unsigned char)(len >> (8 * b));
			if (len)
				memcpy(k + n, t, len);
			n += len;
			break;
		}
		}
	}
	why = tally_add(a, k, n);
	if (k != small)
		sqlite3_free(k);
	return why;
}

static void tally_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct tagg *a = sqlite3_aggregate_context(ctx, sizeof(*a));

	if (!a) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (!a->failed)
		row_done(ctx, &a->failed, tally_row(a, argc, argv));
}

/* SQLite's order of the keys: their serialized bytes compare as the values
 * do, key by key, but for text, whose length comes first: compared here. */
static int tkey_cmp(const void *pa, const void *pb)
{
	const struct tkey *x = pa, *y = pb;
	size_t i = 0, j = 0;

	while (i < x->len && j < y->len) {
		unsigned char tx = x->key[i], ty = y->key[j];
		int c;

		if (tx != ty) /* 'i' < 'n' < 't' as bytes; NULL sorts first */
			return (tx == 'n' ? 0 : tx == 'i' ? 1 : 2) - (ty == 'n' ? 0 : ty == 'i' ? 1 : 2);
		if (tx == 'n') {
			i++, j++;
		} else if (tx == 'i') {
			c = memcmp(x->key + i + 1, y->key + j + 1, 8);
			if (c)
				return c;
			i += 9, j += 9;
		} else {
			uint32_t lx = 0, ly = 0;

			for (int b = 1; b <= 4; b++) {
				lx = lx << 8 | x->key[i + b];
				ly = ly << 8 | y->key[j + b];
			}
			c = memcmp(x->key + i + 5, y->key + j + 5, lx < ly ? lx : ly);
			if (c)
				return c;
			if (lx != ly)
				return lx < ly ? -1 : 1;
			i += 5 + lx, j += 5 + ly;
		}
	}
	return 0;
}

/* TEXT (LEN bytes) as a JSON string. */
static void json_string(sqlite3_str *out, const unsigned char *t, uint32_t len)
{
	sqlite3_str_appendchar(out, 1, '"');
	for (uint32_t i = 0; i < len; i++) {
		unsigned char c = t[i];

		if (c == '"' || c == '\\')
			sqlite3_str_appendf(out, "\\%c", c);
		else if (c < 0x20)
			sqlite3_str_appendf(out, "\\u%04x", c);
		else
			sqlite3_str_appendchar(out, 1, (char)c);
	}
	sqlite3_str_appendchar(out, 1, '"');
}

static void tally_final(sqlite3_context *ctx)
{
	struct tagg *a = sqlite3_aggregate_context(ctx, 0);
	sqlite3_str *out;

	if (a && !a->failed) {
		qsort(a->e, a->ne, sizeof(*a->e), tkey_cmp);
		out = sqlite3_str_new(NULL);
		sqlite3_str_appendchar(out, 1, '[');
		for (size_t e = 0; e < a->ne; e++) {
			const unsigned char *k = a->e[e].key;
			size_t i = 0;

			sqlite3_str_appendall(out, e ? ",[" : "[");
			while (i < a->e[e].len) {
				if (k[i] == 'n') {
					sqlite3_str_appendall(out, "null,");
					i++;
				} else if (k[i] == 'i') {
					uint64_t v = 0;

					for (int b = 1; b <= 8; b++)
						v = v << 8 | k[i + b];
					sqlite3_str_appendf(out, "%lld,", (long long)(int64_t)(v ^ (1ull << 63)));
					i += 9;
				} else {
					uint32_t len = 0;

					for (int b = 1; b <= 4; b++)
						len = len << 8 | k[i + b];
					json_string(out, k + i + 5, len);
					sqlite3_str_appendchar(out, 1, ',');
					i += 5 + len;
				}
			}
			sqlite3_str_appendf(out, "%lld]", (long long)a->e[e].n);
		}
		sqlite3_str_appendchar(out, 1, ']');
		result_str(ctx, out);
	} else if (!a) {
		sqlite3_result_text(ctx, "[]", -1, SQLITE_STATIC);
	}
	if (a) {
		for (size_t e = 0; e < a->ne; e++)
			sqlite3_free(a->e[e].key);
		sqlite3_free(a->e);
		sqlite3_free(a->slot);
	}
}

/*
 * The join's tap: what the native _ntp_joined_count, _ntp_component_dist,
 * _ntp_stage_dist and _ntp_tail_band (sql/native.sql) compute over the
 * joined commands, ntp_tally's counts, ntp_dist_cdf_by's statistics and
 * ntp_bands_by's tail bands of each group, taken from ntp_pair's rows
 * (lib/pair.c) while the preparation writes ntp_joined's table. Those
 * scans of the table cost about a bare scan of a recording each, most of
 * it SQLite's calls per column, for values the pairing computed a moment
 * before.
 *
 * ntp_tap_arm(COMPONENTS, STAGES, BANDS), before the table is written,
 * empties the tap and has every ntp_pair cursor filtered from then on
 * feed it. COMPONENTS names _ntp_component_dist's arguments, ntp_joined's
 * columns (ntp_pair's value columns of the same names), separated by
 * spaces; STAGES _ntp_stage_dist's, each the sum of such columns, a name
 * ending in '?' counting 0 where NULL, ';' between stages (an empty
 * stage: NULL); BANDS ntp_bands_by's e2e and values to sum, components
 * or '-' for NULL, separated by spaces (empty: no bands).
 * ntp_tap_disarm(N) after, N the rows of the table written: the tap is
 * complete when it was fed N rows
 * (a join that unions a merged file's rows with ntp_pair's has rows it
 * did not see), every cursor that fed it read to its end, none of its
 * values overflowed or failed, and there was a cursor. Then, and only
 * then, ntp_tap_tally() returns what ntp_tally(hdb, grp, tdb) over the
 * rows would, and ntp_tap_take(GROUPS, WHICH) what ntp_dist_cdf_by(GROUPS,
 * hdb, grp, ...) over them would, of the components (WHICH 0) or stages
 * (1); each answers once (a group's values are freed as they are given),
 * else NULL, and the caller scans the table as before. The bands need
 * the end to end's percentiles, known only once every row is in: while
 * the budget has room and no array is written out, the tap keeps each
 * row's ht and which components it has (10 bytes a row), and
 * ntp_tap_take(GROUPS, 0) bands each group's rows from its components'
 * arrays before it selects from them (tap_band); ntp_tap_bands(GROUPS)
 * then answers ntp_bands_by(GROUPS, hdb, grp, e2e, ht, ...) for groups
 * banded with the cut values GROUPS gives, else NULL. ntp_tap_reset()
 * frees what is left; ntp_tap_served() counts the answers given since the
 * connection opened (for the tests: that the tap is used).
 */
struct tap_count {
	char *tdb;
	int64_t n;
};

struct tap_group {
	char *hdb;
	int64_t grp;
	struct dagg *d[2];          /* the components', the stages'; NULL once given */
	struct tap_count *c;        /* rows per target */
	size_t nc, capc;
	/* per row, while rows are kept: its ht, and bit i set where component
	 * i is not NULL (the row's place in each component's array); both in
	 * one mapping, has after ht's caprow */
	int64_t *ht;
	uint16_t *has;
	size_t nrow, caprow;
	char *bands;                /* ntp_bands' result, once banded */
	int64_t bcut[NTP_BAND_FIXED - 2]; /* its N and cut values */
};

struct tap_stage {
	int n;                      /* terms */
	int col[NTP_PAIR_NV];
	int opt[NTP_PAIR_NV];       /* NULL counts 0 */
};

struct ntp_tap {
	int armed, broken, feeds, open, complete, tallied;
	int64_t rows;               /* rows fed */
	int ncomp, nstage;
	int comp[NTP_DIST_MAX];
	struct tap_stage stage[NTP_DIST_MAX];
	int nband;                  /* the bands' values, 0: no bands */
	int band[NTP_BAND_MAX + 1]; /* each one's component, -1: NULL; e2e first */
	int keep;                   /* rows kept for the bands */
	size_t spills;              /* ntp_spills when armed */
	struct tap_group *g;
	size_t ng, capg;
	int64_t served;
};

struct ntp_tap_feed {
	struct ntp_tap *t;
	char *hdb, *tdb;
	size_t last;                /* the group of the last row + 1; 0: none */
	size_t lastc;               /* its count of tdb + 1 (reset with last); 0: none */
};

/*
 * The tap's own large arrays, which it frees while the preparation goes on
 * (the rows once the bands no longer need them, the end to end's copy), are
 * mapped, not malloc'd: malloc's threshold for mapping an allocation rises
 * to the size of a mapped block freed, so that freeing one of tens of MB
 * would leave every later array up to that size in the heap, which does not
 * give memory back (two runs prepared by one compare at 10 M commands a side
 * peaked at twice the RSS).
 */
/* P, mapped with OLD bytes (NULL: none), with NEW bytes; NULL: no memory (P kept). */
static void *map_grow(void *p, size_t old, size_t new)
{
	void *q = p ? mremap(p, old, new, MREMAP_MAYMOVE) :
		      mmap(NULL, new, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return q == MAP_FAILED ? NULL : q;
}

static void map_free(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

/* The bytes of a row kept for the bands. */
#define TAP_ROW_BYTES (sizeof(int64_t) + sizeof(uint16_t))

/* Group G's rows, kept for the bands, freed. */
static void tap_rows_free(struct tap_group *g)
{
	held_sub(g->caprow * TAP_ROW_BYTES);
	map_free(g->ht, g->caprow * TAP_ROW_BYTES);
	g->ht = NULL;
	g->has = NULL;
	g->nrow = g->caprow = 0;
}

/* No more rows kept: the bands are scanned. */
static void tap_unkeep(struct ntp_tap *t)
{
	for (size_t i = 0; i < t->ng; i++)
		tap_rows_free(&t->g[i]);
	t->keep = 0;
}

static void tap_clear(struct ntp_tap *t)
{
	for (size_t i = 0; i < t->ng; i++) {
		struct tap_group *g = &t->g[i];

		for (int k = 0; k < 2; k++) {
			if (!g->d[k])
				continue;
			for (int j = 0; j < NTP_DIST_MAX; j++)
				qagg_free(&g->d[k]->q[j]);
			sqlite3_free(g->d[k]);
		}
		for (size_t j = 0; j < g->nc; j++)
			sqlite3_free(g->c[j].tdb);
		sqlite3_free(g->c);
		sqlite3_free(g->hdb);
		sqlite3_free(g->bands);
	}
	tap_unkeep(t);
	sqlite3_free(t->g);
	t->g = NULL;
	t->ng = t->capg = 0;
	t->complete = t->tallied = 0;
}

struct ntp_tap *ntp_tap_new(void)
{
	struct ntp_tap *t = sqlite3_malloc(sizeof(*t));

	if (t)
		memset(t, 0, sizeof(*t));
	return t;
}

void ntp_tap_free(void *p)
{
	struct ntp_tap *t = p;

	if (t)
		tap_clear(t);
	sqlite3_free(t);
}

/* The value of ntp_pair named by the LEN bytes at P, or -1. */
static int tap_col(const char *p, size_t len)
{
	for (int i = 0; i < NTP_PAIR_NV; i++) {
		const char *n = ntp_pair_value_name(i);

		if (strlen(n) == len && !memcmp(n, p, len))
			return i;
	}
	return -1;
}

/* COMPONENTS, STAGES and BANDS into T: NULL, or what is wrong. */
static const char *tap_spec(struct ntp_tap *t, const char *comp, const char *stages,
			    const char *bands)
{
	const char *p;

	t->ncomp = t->nstage = 0;
	for (p = comp; *p;) {
		size_t len = strcspn(p, " ");

		if (len && t->ncomp == NTP_DIST_MAX)
			return "ntp_tap_arm: too many components";
		if (len && (t->comp[t->ncomp++] = tap_col(p, len)) < 0)
			return "ntp_tap_arm: no such column of ntp_joined";
		p += len + (p[len] == ' ');
	}
	for (p = stages;; p++) {
		struct tap_stage *s;

		if (t->nstage == NTP_DIST_MAX)
			return "ntp_tap_arm: too many stages";
		s = &t->stage[t->nstage++];
		s->n = 0;
		while (*p && *p != ';') {
			size_t len = strcspn(p, " ;");
			int opt = len && p[len - 1] == '?';

			if (len) {
				if (s->n == NTP_PAIR_NV ||
				    (s->col[s->n] = tap_col(p, len - (size_t)opt)) < 0)
					return "ntp_tap_arm: no such column of ntp_joined";
				s->opt[s->n++] = opt;
			}
			p += len + (p[len] == ' ');
		}
		if (!*p)
			break;
	}
	if (!t->ncomp)
		return "ntp_tap_arm: components expected";
	t->nband = 0;
	for (p = bands; *p;) {
		size_t len = strcspn(p, " ");
		int k = -1;

		if (t->nband == NTP_BAND_MAX + 1)
			return "ntp_tap_arm: too many values to band";
		/* '-': NULL, but not for the end to end, the first */
		if (!(len == 1 && *p == '-' && t->nband)) {
			int col = tap_col(p, len);

			for (int i = 0; col >= 0 && i < t->ncomp; i++)
				if (t->comp[i] == col)
					k = i;
			if (k < 0)
				return "ntp_tap_arm: a value to band is no component";
		}
		t->band[t->nband++] = k;
		p += len + (p[len] == ' ');
	}
	return NULL;
}

struct ntp_tap_feed *ntp_tap_begin(struct ntp_tap *t, const char *hdb, const char *tdb)
{
	struct ntp_tap_feed *f;

	if (!t || !t->armed || t->broken)
		return NULL;
	f = sqlite3_malloc(sizeof(*f));
	if (f) {
		memset(f, 0, sizeof(*f));
		f->t = t;
		f->hdb = sqlite3_mprintf("%s", hdb ? hdb : "");
		f->tdb = sqlite3_mprintf("%s", tdb ? tdb : "");
	}
	if (!f || !f->hdb || !f->tdb || !hdb || !tdb) {
		t->broken = 1;
		if (f) {
			sqlite3_free(f->hdb);
			sqlite3_free(f->tdb);
		}
		sqlite3_free(f);
		return NULL;
	}
	t->feeds++;
	t->open++;
	return f;
}

void ntp_tap_end(struct ntp_tap_feed *f, int at_end)
{
	if (!f)
		return;
	if (f->t && f->t->open) {
		f->t->open--;
		if (!at_end)
			f->t->broken = 1;
	}
	sqlite3_free(f->hdb);
	sqlite3_free(f->tdb);
	sqlite3_free(f);
}

/* The group of F's host and GRP, made if new: its index, or -1 (no memory). */
static ptrdiff_t tap_group(struct ntp_tap_feed *f, int64_t grp)
{
	struct ntp_tap *t = f->t;
	struct tap_group *g;

	if (f->last && t->g[f->last - 1].grp == grp)
		return (ptrdiff_t)f->last - 1;
	for (size_t i = 0; i < t->ng; i++)
		if (t->g[i].grp == grp && !strcmp(t->g[i].hdb, f->hdb)) {
			f->last = i + 1;
			f->lastc = 0;
			return (ptrdiff_t)i;
		}
	if (!(g = room(t->g, t->ng, &t->capg, sizeof(*g), 8)))
		return -1;
	t->g = g;
	g = &t->g[t->ng];
	memset(g, 0, sizeof(*g));
	g->grp = grp;
	g->hdb = sqlite3_mprintf("%s", f->hdb);
	g->d[0] = sqlite3_malloc(sizeof(struct dagg));
	g->d[1] = sqlite3_malloc(sizeof(struct dagg));
	t->ng++; /* freed with the rest, made or not */
	if (!g->hdb || !g->d[0] || !g->d[1])
		return -1;
	memset(g->d[0], 0, sizeof(struct dagg));
	memset(g->d[1], 0, sizeof(struct dagg));
	g->d[0]->nargs = t->ncomp;
	g->d[1]->nargs = t->nstage;
	f->last = t->ng;
	f->lastc = 0;
	return (ptrdiff_t)t->ng - 1;
}

/* X into argument I of D, as dist_add: 0, or -1 (an overflow or an
 * aggregate's error: the tap is broken, and the scan says why). */
static int tap_add(struct dagg *d, int i, int64_t x)
{
	if (__builtin_add_overflow(d->sum[i], x, &d->sum[i]))
		return -1;
	d->sq[i] += (__int128)x * x;
	return qagg_add(&d->q[i], x) ? -1 : 0;
}

/* A count of F's target in group G: 0 or -1 (no memory). */
static int tap_count(struct ntp_tap_feed *f, struct tap_group *g)
{
	/* the feed's target never changes, and lastc is reset with the
	 * group: the count it names is the feed's target's */
	if (f->lastc) {
		g->c[f->lastc - 1].n++;
		return 0;
	}
	for (size_t j = 0; j < g->nc; j++)
		if (!strcmp(g->c[j].tdb, f->tdb)) {
			g->c[j].n++;
			f->lastc = j + 1;
			return 0;
		}
	struct tap_count *c = room(g->c, g->nc, &g->capc, sizeof(*c), 4);

	if (!c)
		return -1;
	g->c = c;
	c[g->nc].tdb = sqlite3_mprintf("%s", f->tdb);
	c[g->nc].n = 1;
	if (!c[g->nc].tdb)
		return -1;
	f->lastc = ++g->nc;
	return 0;
}

/* Row HT, HAS of group G kept: 0, or -1 (no room within the budget, or
 * no memory). */
static int tap_keep(struct tap_group *g, int64_t ht, uint16_t has)
{
	if (g->nrow == g->caprow) {
		size_t cap = g->caprow ? 2 * g->caprow : 1024;
		size_t held = __atomic_load_n(&ntp_held, __ATOMIC_RELAXED);
		char *p;

		if (held + (cap - g->caprow) * TAP_ROW_BYTES > ntp_budget ||
		    !(p = map_grow(g->ht, g->caprow * TAP_ROW_BYTES, cap * TAP_ROW_BYTES)))
			return -1;
		/* the masks after the ht's new room */
		memmove(p + cap * sizeof(*g->ht), p + g->caprow * sizeof(*g->ht),
			g->nrow * sizeof(*g->has));
		g->ht = (int64_t *)p;
		g->has = (uint16_t *)(p + cap * sizeof(*g->ht));
		held_add((cap - g->caprow) * TAP_ROW_BYTES);
		g->caprow = cap;
	}
	g->ht[g->nrow] = ht;
	g->has[g->nrow++] = has;
	return 0;
}

void ntp_tap_row(struct ntp_tap_feed *f, int64_t grp, const int64_t *ht, const int64_t *v,
		 uint32_t null, int over)
{
	struct ntp_tap *t = f->t;
	struct tap_group *g;
	uint16_t has = 0;
	ptrdiff_t gi;

	if (t->broken)
		return;
	if (over || (gi = tap_group(f, grp)) < 0 || tap_count(f, &t->g[gi])) {
		t->broken = 1;
		return;
	}
	t->rows++;
	g = &t->g[gi];
	for (int i = 0; i < t->ncomp; i++) {
		int k = t->comp[i];

		if ((null >> k) & 1)
			continue;
		has |= (uint16_t)(1u << i);
		if (tap_add(g->d[0], i, v[k])) {
			t->broken = 1;
			return;
		}
	}
	for (int i = 0; i < t->nstage; i++) {
		const struct tap_stage *s = &t->stage[i];
		int64_t sum = 0;
		int isnull = s->n == 0;

		for (int j = 0; j < s->n && !isnull; j++) {
			int k = s->col[j];

			if ((null >> k) & 1)
				isnull = !s->opt[j];
			else if (__builtin_add_overflow(sum, v[k], &sum))
				over = 1;
		}
		/* SQLite's sum that overflows is a REAL: the scan's to compute */
		if (over || (!isnull && tap_add(g->d[1], i, sum))) {
			t->broken = 1;
			return;
		}
	}
	/* the bands need every component's array in memory, in the rows'
	 * order: none written out; and each row's ht */
	if (t->keep && (!ht || ntp_native_spills() != t->spills || tap_keep(g, *ht, has)))
		tap_unkeep(t);
}

static void tap_arm(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct ntp_tap *t = sqlite3_user_data(ctx);
	const char *comp = (const char *)sqlite3_value_text(argv[0]);
	const char *stages = (const char *)sqlite3_value_text(argv[1]);
	const char *bands = (const char *)sqlite3_value_text(argv[2]);
	const char *why;

	(void)argc;
	tap_clear(t);
	t->armed = t->broken = t->feeds = t->open = 0;
	t->rows = 0;
	why = comp && stages && bands ? tap_spec(t, comp, stages, bands) :
					"ntp_tap_arm: text expected";
	if (why) {
		sqlite3_result_error(ctx, why, -1);
		return;
	}
	t->armed = 1;
	t->keep = t->nband > 0;
	t->spills = ntp_native_spills();
	sqlite3_result_int(ctx, 1);
}

static void tap_disarm(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct ntp_tap *t = sqlite3_user_data(ctx);

	(void)argc;
	/* every row of the table fed, not only those of ntp_pair's arms (a
	 * merged file's join is read from its tables) */
	t->complete = t->armed && !t->broken && !t->open && t->feeds > 0 &&
		      sqlite3_value_type(argv[0]) == SQLITE_INTEGER &&
		      sqlite3_value_int64(argv[0]) == t->rows;
	t->armed = 0;
	if (!t->complete)
		tap_clear(t);
	sqlite3_result_int(ctx, t->complete);
}

static void tap_reset(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct ntp_tap *t = sqlite3_user_data(ctx);

	(void)argc, (void)argv;
	tap_clear(t);
	t->armed = 0;
	sqlite3_result_null(ctx);
}

static void tap_served(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc, (void)argv;
	sqlite3_result_int64(ctx, ((struct ntp_tap *)sqlite3_user_data(ctx))->served);
}

static int tap_count_cmp(const void *pa, const void *pb)
{
	const struct tap_count *const *a = pa, *const *b = pb;
	const struct tap_group *ga = (const void *)a[1], *gb = (const void *)b[1];
	/* BINARY's order: strcmp's, the names holding no NUL */
	int c = strcmp(ga->hdb, gb->hdb);

	if (c)
		return c;
	if (ga->grp != gb->grp)
		return ga->grp < gb->grp ? -1 : 1;
	return strcmp(a[0]->tdb, b[0]->tdb);
}

/* ntp_tally(hdb, grp, tdb)'s JSON: [[hdb, grp, tdb, n], ...] in its order. */
static void tap_tally(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct ntp_tap *t = sqlite3_user_data(ctx);
	const void **e = NULL; /* pairs: the count, its group */
	size_t n = 0;
	sqlite3_str *out;

	(void)argc, (void)argv;
	if (!t->complete || t->tallied)
		return; /* NULL */
	for (size_t i = 0; i < t->ng; i++)
		n += t->g[i].nc;
	if (n && !(e = sqlite3_malloc64((sqlite3_uint64)n * 2 * sizeof(*e)))) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	n = 0;
	for (size_t i = 0; i < t->ng; i++)
		for (size_t j = 0; j < t->g[i].nc; j++) {
			e[2 * n] = &t->g[i].c[j];
			e[2 * n + 1] = &t->g[i];
			n++;
		}
	qsort(e, n, 2 * sizeof(*e), tap_count_cmp);
	out = sqlite3_str_new(NULL);
	sqlite3_str_appendchar(out, 1, '[');
	for (size_t i = 0; i < n; i++) {
		const struct tap_count *c = e[2 * i];
		const struct tap_group *g = e[2 * i + 1];

		sqlite3_str_appendall(out, i ? ",[" : "[");
		json_string(out, (const unsigned char *)g->hdb, (uint32_t)strlen(g->hdb));
		sqlite3_str_appendf(out, ",%lld,", (long long)g->grp);
		json_string(out, (const unsigned char *)c->tdb, (uint32_t)strlen(c->tdb));
		sqlite3_str_appendf(out, ",%lld]", (long long)c->n);
	}
	sqlite3_str_appendchar(out, 1, ']');
	sqlite3_free(e);
	t->tallied = 1;
	t->served++;
	result_str(ctx, out);
}

/* A's groups freed, their states the tap's. */
static void tap_list_free(struct gagg *a)
{
	for (size_t i = 0; i < a->n; i++)
		a->g[i].state = NULL;
	group_free(a);
}

/* The tapped group listed as LG, or NULL. */
static struct tap_group *tap_find(struct ntp_tap *t, const struct group *lg)
{
	for (size_t j = 0; j < t->ng; j++) {
		struct tap_group *g = &t->g[j];

		if (g->grp == lg->grp && strlen(g->hdb) == lg->dblen &&
		    !memcmp(g->hdb, lg->db, lg->dblen))
			return g;
	}
	return NULL;
}

/* Each group A lists with its tapped group as state (NULL: none), in the
 * order of their numbers: 0; or -1, A freed, where USABLE(tapped group,
 * listed group, WHICH) refuses one (the scan answers). */
static int tap_listed(struct ntp_tap *t, struct gagg *a,
		      int (*usable)(const struct tap_group *, const struct group *, int), int which)
{
	for (size_t i = 0; i < a->n; i++) {
		struct tap_group *g = tap_find(t, &a->g[i]);

		if (g && !usable(g, &a->g[i], which)) {
			tap_list_free(a);
			return -1;
		}
		a->g[i].state = g;
	}
	qsort(a->g, a->n, sizeof(*a->g), group_idx_cmp);
	return 0;
}

/* Its components' (WHICH 0) or stages' values not given yet. */
static int take_usable(const struct tap_group *g, const struct group *lg, int which)
{
	(void)lg;
	return g->d[which] != NULL;
}

/* Banded, with the listed group's count and cut values. */
static int bands_usable(const struct tap_group *g, const struct group *lg, int which)
{
	(void)which;
	return g->bands && !memcmp(g->bcut, lg->param, sizeof(g->bcut));
}

/* Value I of A, in memory. */
static inline int64_t qagg_at(const struct qagg *a, size_t i)
{
	return a->wide ? ((const int64_t *)a->v)[i] : ((const int32_t *)a->v)[i];
}

/*
 * Group G's tail bands, as ntp_bands_by over its rows would give them with
 * its end to end's exact percentiles, into g->bands (and its N and cut
 * values into g->bcut), from the rows kept (their ht and which components
 * each has) and the components' arrays, which hold each row's values in
 * the rows' order until they are selected: so before. None (the scan
 * computes them) where an array was written out, a row has no end to end,
 * or ntp_bands finds something wrong (the scan says what). The rows freed.
 */
static void tap_band(struct ntp_tap *t, struct tap_group *g)
{
	const struct dagg *d = g->d[0];
	const struct qagg *e = &d->q[t->band[0]];
	size_t n = g->nrow, at[NTP_DIST_MAX] = { 0 }, bytes = n * qagg_size(e);
	int m = t->nband - 1, bad = !n || qagg_count(e) != n;
	int64_t h[NTP_BAND_FIXED];
	struct bagg *a = NULL;
	void *copy = NULL;
	sqlite3_str *out;

	for (int i = 0; i < t->ncomp; i++)
		bad |= d->q[i].spilled || d->q[i].sorted;
	if (bad || !(copy = map_grow(NULL, 0, bytes)) || !(a = sqlite3_malloc(sizeof(*a))))
		goto done;
	held_add(bytes);
	memcpy(copy, e->v, bytes);
	bad = e->wide ? ntp_select_quantiles(copy, n, h + 1) :
			ntp_select_quantiles32(copy, n, h + 1);
	held_sub(bytes);
	memset(a, 0, sizeof(*a));
	h[0] = (int64_t)n;
	for (size_t r = 0; r < n && !bad; r++) {
		int64_t c[NTP_DIST_MAX], x[NTP_BAND_MAX] = { 0 };
		uint32_t has = 0;

		for (int i = 0; i < t->ncomp; i++)
			if ((g->has[r] >> i) & 1)
				c[i] = qagg_at(&d->q[i], at[i]++);
		h[5] = c[t->band[0]]; /* every row has one: there are n */
		h[6] = g->ht[r];
		for (int j = 0; j < m; j++) {
			int k = t->band[j + 1];

			if (k >= 0 && (g->has[r] >> k) & 1) {
				x[j] = c[k];
				has |= 1u << j;
			}
		}
		bad = bands_put(a, h, x, has, m) != NULL;
	}
	if (!bad) {
		out = sqlite3_str_new(NULL);
		if (!bands_json(a, out) && !sqlite3_str_errcode(out)) {
			g->bands = sqlite3_str_finish(out);
			memcpy(g->bcut, h, sizeof(g->bcut));
		} else {
			sqlite3_free(sqlite3_str_finish(out));
		}
	}
done:
	map_free(copy, bytes);
	if (a)
		sqlite3_free(a->tie);
	sqlite3_free(a);
	tap_rows_free(g);
}

/* ntp_bands_by(GROUPS, hdb, grp, e2e, ht, ...)'s result over the tapped
 * rows, the values ntp_tap_arm named: each listed group's bands, as
 * ntp_tap_take(GROUPS, 0) made them, if it did with the same count and
 * cut values (else NULL: the scan answers). */
static void tap_bands(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct ntp_tap *t = sqlite3_user_data(ctx);
	const unsigned char *list = sqlite3_value_text(argv[0]);
	struct gagg a;
	sqlite3_str *out;
	int first = 1;

	(void)argc;
	if (!t->complete || !list)
		return; /* NULL */
	memset(&a, 0, sizeof(a));
	a.bands = 1;
	if (groups_parse(&a, (const char *)list)) { /* the scan says what */
		tap_list_free(&a);
		return;
	}
	if (tap_listed(t, &a, bands_usable, 0))
		return;
	out = sqlite3_str_new(NULL);
	sqlite3_str_appendchar(out, 1, '[');
	for (size_t i = 0; i < a.n; i++) {
		const struct tap_group *g = a.g[i].state;

		if (!g)
			continue;
		sqlite3_str_appendf(out, "%s[%lld,%s]", first ? "" : ",", (long long)a.g[i].idx,
				    g->bands);
		first = 0;
	}
	sqlite3_str_appendchar(out, 1, ']');
	tap_list_free(&a);
	if (first) {
		sqlite3_free(sqlite3_str_finish(out));
		return;
	}
	t->served++;
	result_str(ctx, out);
}

/* ntp_dist_cdf_by(GROUPS, hdb, grp, ...)'s result over the tapped rows. */
static void tap_take(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct ntp_tap *t = sqlite3_user_data(ctx);
	int which = sqlite3_value_int(argv[1]) == 1, rc = 0, first = 1;
	const unsigned char *list = sqlite3_value_text(argv[0]);
	struct gagg a;
	const char *why;
	sqlite3_str *out;

	(void)argc;
	if (!t->complete || !list)
		return; /* NULL */
	memset(&a, 0, sizeof(a));
	why = groups_parse(&a, (const char *)list);
	if (why) {
		group_free(&a);
		if (why == bands_nomem)
			sqlite3_result_error_nomem(ctx);
		else
			sqlite3_result_error(ctx, why, -1);
		return;
	}
	/* each listed group's values, all still there */
	if (tap_listed(t, &a, take_usable, which))
		return;
	out = sqlite3_str_new(NULL);
	sqlite3_str_appendchar(out, 1, '[');
	for (size_t i = 0; i < a.n && !rc; i++) {
		struct tap_group *g = a.g[i].state;

		if (!g)
			continue;
		sqlite3_str_appendf(out, "%s[%lld,", first ? "" : ",", (long long)a.g[i].idx);
		first = 0;
		if (!which && g->ht)
			tap_band(t, g);
		rc = dist_cdf_json(g->d[which], out);
		sqlite3_free(g->d[which]);
		g->d[which] = NULL;
		sqlite3_str_appendchar(out, 1, ']');
	}
	sqlite3_str_appendchar(out, 1, ']');
	tap_list_free(&a);
	if (rc) {
		sqlite3_free(sqlite3_str_finish(out));
		qagg_error(ctx, "ntp_tap_take", rc);
		return;
	}
	t->served++;
	if (first) {
		sqlite3_free(sqlite3_str_finish(out));
		sqlite3_result_null(ctx);
		return;
	}
	result_str(ctx, out);
}

int ntp_tap_register(sqlite3 *db, struct ntp_tap *t)
{
	static const struct {
		const char *name;
		int nargs;
		void (*fn)(sqlite3_context *, int, sqlite3_value **);
	} f[] = {
		{ "ntp_tap_arm", 3, tap_arm },       { "ntp_tap_disarm", 1, tap_disarm },
		{ "ntp_tap_reset", 0, tap_reset },   { "ntp_tap_served", 0, tap_served },
		{ "ntp_tap_tally", 0, tap_tally },   { "ntp_tap_take", 2, tap_take },
		{ "ntp_tap_bands", 1, tap_bands },
	};
	int rc = SQLITE_OK;

	/* side effects: not deterministic; from the session's SQL only */
	for (size_t i = 0; rc == SQLITE_OK && i < sizeof(f) / sizeof(f[0]); i++)
		rc = sqlite3_create_function_v2(db, f[i].name, f[i].nargs,
						SQLITE_UTF8 | SQLITE_DIRECTONLY, t, f[i].fn, NULL,
						NULL, NULL);
	return rc;
}

/* ntp_select_budget(): the bytes the aggregates' arrays may hold together
 * (NTPROF_SELECT_MEMORY), for SQL that sizes its scans by it. */
static void select_budget(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc, (void)argv;
	sqlite3_result_int64(ctx, (sqlite3_int64)ntp_budget);
}

/* Returns SQLITE_OK or the SQLite error code (the extension entry points
 * return it as is). */
int ntp_native_register(sqlite3 *db)
{
	/* INNOCUOUS: the shell runs with trusted_schema off, and the report
	 * views call this. */
	const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
	int rc;

	budget_from_env();
	rc = sqlite3_create_function_v2(db, "ntp_quantiles", 1, flags, NULL, NULL, quantiles_step,
					quantiles_final, NULL);

	static int ci = 1; /* ntp_dist_ci's user data: not NULL */

	for (int n = 1; rc == SQLITE_OK && n <= NTP_DIST_MAX; n++)
		rc = sqlite3_create_function_v2(db, "ntp_dist", n, flags, NULL, NULL, dist_step,
						dist_final, NULL);
	for (int n = 1; rc == SQLITE_OK && n <= NTP_DIST_MAX; n++)
		rc = sqlite3_create_function_v2(db, "ntp_dist_ci", n, flags, &ci, NULL, dist_step,
						dist_final, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "ntp_bands", -1, flags, NULL, NULL, bands_step,
						bands_final, NULL);
	for (int n = 1; rc == SQLITE_OK && n <= NTP_DIST_MAX; n++)
		rc = sqlite3_create_function_v2(db, "ntp_cdf", n, flags, NULL, NULL, dist_step,
						cdf_final, NULL);
	for (int n = 1; rc == SQLITE_OK && n <= NTP_DIST_MAX; n++)
		rc = sqlite3_create_function_v2(db, "ntp_dist_cdf", n, flags, NULL, NULL, dist_step,
						dist_cdf_final, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "ntp_dist_cdf_by", -1, flags, NULL, NULL,
						dist_cdf_by_step, group_final, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "ntp_select_budget", 0, flags, NULL,
						select_budget, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "ntp_dist_by", -1, flags, NULL, NULL,
						dist_by_step, group_final, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "ntp_bands_by", -1, flags, NULL, NULL,
						bands_by_step, group_final, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "ntp_series", -1, flags, NULL, NULL,
						series_step, series_final, NULL);
	for (int n = 1; rc == SQLITE_OK && n <= NTP_TALLY_MAX; n++)
		rc = sqlite3_create_function_v2(db, "ntp_tally", n, flags, NULL, NULL, tally_step,
						tally_final, NULL);
	if (rc == SQLITE_OK)
		rc = ntp_pair_register(db);
	return rc;
}

#ifdef NTP_EXTENSION
/* The entry point sqlite3 derives from the file name ntprof_sqlite.so. */
int sqlite3_ntprofsqlite_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api)
{
	(void)errmsg;
	SQLITE_EXTENSION_INIT2(api);
	return ntp_native_register(db);
}

/* The generic name, for `.load FILE sqlite3_extension_init` or renamed copies. */
int sqlite3_extension_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api)
{
	(void)errmsg;
	SQLITE_EXTENSION_INIT2(api);
	return ntp_native_register(db);
}
#endif
