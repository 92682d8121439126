// SPDX-License-Identifier: GPL-2.0
/*
 * pi-bench: the three claims of the 2006 PI-futex cover letter, measured
 * side by side in one run.
 *
 *  fastpath   uncontended lock+unlock, ns/op (median of REPS runs after a
 *             warm-up run), for a plain futex mutex (0/1/2), a raw PI
 *             futex (0 <-> TID by cmpxchg), glibc PTHREAD_PRIO_NONE and
 *             PTHREAD_PRIO_INHERIT mutexes;
 *  handoff    THREADS threads taking one lock in turn for a fixed number
 *             of acquisitions: throughput, hand-off latency percentiles
 *             (release by one thread -> acquisition by another) and
 *             voluntary context switches per hand-off (getrusage);
 *  inversion  low (FIFO 10) holds the lock for CS ms, high (FIFO 30)
 *             blocks on it, medium (FIFO 20) spins for HOG ms, all on
 *             CPU 0: high's wait per iteration, with and without PI.
 *
 * Clock: CLOCK_MONOTONIC.  Output: a readable table on stderr-free stdout
 * lines starting with "#", and one machine-readable line per figure:
 *   BENCH <section> <kind> <metric> <value>
 * Absolute times under QEMU TCG mean little; compare ratios within a run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum kind { K_FUTEX, K_PIFUTEX, K_NONE, K_INHERIT, NKINDS };
static const char *const kind_name[NKINDS] = {
	"futex", "pi-futex", "glibc-none", "glibc-inherit"
};

struct lock {
	enum kind kind;
	uint32_t word;
	pthread_mutex_t m;
};

static long futex(uint32_t *u, int op, uint32_t val)
{
	return syscall(SYS_futex, u, op, val, NULL, NULL, 0);
}

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

static __thread pid_t my_tid;

/* Plain futex mutex: 0 free, 1 locked, 2 locked with waiters. */
static void futex_lock(uint32_t *w)
{
	uint32_t c = 0;

	if (__atomic_compare_exchange_n(w, &c, 1, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE);
	while (c) {
		futex(w, FUTEX_WAIT_PRIVATE, 2);
		c = __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE);
	}
}

static void futex_unlock(uint32_t *w)
{
	if (__atomic_fetch_sub(w, 1, __ATOMIC_RELEASE) != 1) {
		__atomic_store_n(w, 0, __ATOMIC_RELEASE);
		futex(w, FUTEX_WAKE_PRIVATE, 1);
	}
}

static void pi_lock(uint32_t *w)
{
	uint32_t z = 0;

	if (__atomic_compare_exchange_n(w, &z, my_tid, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return;
	while (futex(w, FUTEX_LOCK_PI_PRIVATE, 0) && errno == EINTR)
		;
}

static void pi_unlock(uint32_t *w)
{
	uint32_t t = my_tid;

	if (__atomic_compare_exchange_n(w, &t, 0, false, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED))
		return;
	futex(w, FUTEX_UNLOCK_PI_PRIVATE, 0);
}

static void lock_init(struct lock *l, enum kind k)
{
	pthread_mutexattr_t a;

	memset(l, 0, sizeof(*l));
	l->kind = k;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, k == K_INHERIT ?
				      PTHREAD_PRIO_INHERIT : PTHREAD_PRIO_NONE);
	pthread_mutex_init(&l->m, &a);
	pthread_mutexattr_destroy(&a);
}

static inline void do_lock(struct lock *l)
{
	switch (l->kind) {
	case K_FUTEX:
		futex_lock(&l->word);
		break;
	case K_PIFUTEX:
		pi_lock(&l->word);
		break;
	default:
		pthread_mutex_lock(&l->m);
	}
}

static inline void do_unlock(struct lock *l)
{
	switch (l->kind) {
	case K_FUTEX:
		futex_unlock(&l->word);
		break;
	case K_PIFUTEX:
		pi_unlock(&l->word);
		break;
	default:
		pthread_mutex_unlock(&l->m);
	}
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
	int i = (int)(p / 100.0 * (n - 1) + 0.5);

	return n ? v[i < n ? i : n - 1] : 0;
}

static void emit(const char *sec, const char *kind, const char *metric,
		 double v)
{
	printf("BENCH %s %s %s %.3f\n", sec, kind, metric, v);
}

/* ---- fast path ---- */

static void bench_fastpath(long iters, int reps)
{
	double med[NKINDS];
	int k, r;

	printf("# fastpath: uncontended lock+unlock, %ld ops x %d reps after 1 warm-up, median\n",
	       iters, reps);
	for (k = 0; k < NKINDS; k++) {
		double t[64];
		struct lock l;

		lock_init(&l, k);
		for (r = -1; r < reps; r++) {
			double t0 = now_ns();
			long i;

			for (i = 0; i < iters; i++) {
				do_lock(&l);
				do_unlock(&l);
			}
			if (r >= 0)
				t[r] = (now_ns() - t0) / iters;
		}
		qsort(t, reps, sizeof(double), cmp_double);
		med[k] = t[reps / 2];
		printf("#   %-14s %8.2f ns/op (min %.2f, max %.2f)\n",
		       kind_name[k], med[k], t[0], t[reps - 1]);
		emit("fastpath", kind_name[k], "ns_per_op", med[k]);
	}
	printf("#   ratio pi-futex/futex %.2f, glibc inherit/none %.2f\n",
	       med[K_PIFUTEX] / med[K_FUTEX], med[K_INHERIT] / med[K_NONE]);
	emit("fastpath", "pi-futex", "ratio_vs_futex",
	     med[K_PIFUTEX] / med[K_FUTEX]);
	emit("fastpath", "glibc-inherit", "ratio_vs_none",
	     med[K_INHERIT] / med[K_NONE]);
}

/* ---- contended hand-off ---- */

struct handoff {
	struct lock l;
	long per_thread;
	int owner;		/* id of the last owner */
	double released;	/* when it released */
	double *lat;		/* hand-off latencies, ns */
	long nlat;
	long handoffs;
};

struct hthread {
	struct handoff *h;
	int id;
	pthread_t t;
};

static void *handoff_fn(void *arg)
{
	struct hthread *ht = arg;
	struct handoff *h = ht->h;
	long i;

	my_tid = gettid_();
	for (i = 0; i < h->per_thread; i++) {
		do_lock(&h->l);
		if (h->owner != ht->id && h->owner >= 0) {
			if (h->nlat < 200000)
				h->lat[h->nlat++] = now_ns() - h->released;
			h->handoffs++;
		}
		h->owner = ht->id;
		/* A short critical section, so that others queue up. */
		for (volatile int s = 0; s < 200; s++)
			;
		h->released = now_ns();
		do_unlock(&h->l);
		/* As much work outside, so the others get their turn. */
		for (volatile int s = 0; s < 200; s++)
			;
	}
	return NULL;
}

static void bench_handoff(int nthreads, long per_thread)
{
	int k, i;

	printf("# handoff: %d threads x %ld acquisitions of one lock\n",
	       nthreads, per_thread);
	for (k = 0; k < NKINDS; k++) {
		struct handoff h = { .per_thread = per_thread, .owner = -1 };
		struct hthread ht[16];
		struct rusage r0, r1;
		double t0, secs;
		char name[48];
		long csw;

		lock_init(&h.l, k);
		h.lat = calloc(200000, sizeof(double));
		getrusage(RUSAGE_SELF, &r0);
		t0 = now_ns();
		for (i = 0; i < nthreads; i++) {
			ht[i].h = &h;
			ht[i].id = i;
			pthread_create(&ht[i].t, NULL, handoff_fn, &ht[i]);
		}
		for (i = 0; i < nthreads; i++)
			pthread_join(ht[i].t, NULL);
		secs = (now_ns() - t0) / 1e9;
		getrusage(RUSAGE_SELF, &r1);
		csw = r1.ru_nvcsw - r0.ru_nvcsw;
		qsort(h.lat, h.nlat, sizeof(double), cmp_double);
		snprintf(name, sizeof(name), "%s/%dt", kind_name[k], nthreads);
		printf("#   %-18s %10.0f ops/s  handoffs %6ld  p50 %8.0f ns  p99 %9.0f ns  max %10.0f ns  vcsw/handoff %.2f\n",
		       name, nthreads * per_thread / secs, h.handoffs,
		       pct(h.lat, h.nlat, 50), pct(h.lat, h.nlat, 99),
		       pct(h.lat, h.nlat, 100),
		       h.handoffs ? (double)csw / h.handoffs : 0.0);
		emit("handoff", name, "ops_per_s", nthreads * per_thread / secs);
		emit("handoff", name, "handoffs", h.handoffs);
		emit("handoff", name, "lat_p50_ns", pct(h.lat, h.nlat, 50));
		emit("handoff", name, "lat_p99_ns", pct(h.lat, h.nlat, 99));
		emit("handoff", name, "lat_max_ns", pct(h.lat, h.nlat, 100));
		emit("handoff", name, "vcsw_per_handoff",
		     h.handoffs ? (double)csw / h.handoffs : 0.0);
		free(h.lat);
	}
}

/* ---- inversion ---- */

static struct lock inv;
static int low_locked, high_started;
static double high_wait;
static double cs_ms, hog_ms;

static void pin_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (pthread_setschedparam(pthread_self(), prio ? SCHED_FIFO : SCHED_OTHER,
				  &sp))
		fprintf(stderr, "pi-bench: SCHED_FIFO %d refused\n", prio);
}

static void spin_ms(double ms)
{
	double end = now_ns() + ms * 1e6;

	while (now_ns() < end)
		;
}

static void *low_fn(void *a)
{
	pin_fifo(10);
	my_tid = gettid_();
	do_lock(&inv);
	__atomic_store_n(&low_locked, 1, __ATOMIC_RELEASE);
	spin_ms(cs_ms);
	do_unlock(&inv);
	return NULL;
}

static void *high_fn(void *a)
{
	double t0;

	pin_fifo(30);
	my_tid = gettid_();
	__atomic_store_n(&high_started, 1, __ATOMIC_RELEASE);
	t0 = now_ns();
	do_lock(&inv);
	high_wait = (now_ns() - t0) / 1e6;
	do_unlock(&inv);
	return NULL;
}

static void *medium_fn(void *a)
{
	pin_fifo(20);
	spin_ms(hog_ms);	/* capped */
	return NULL;
}

static double inversion_once(enum kind k)
{
	pthread_t lo, hi, me;

	lock_init(&inv, k);
	low_locked = high_started = 0;
	pthread_create(&lo, NULL, low_fn, NULL);
	while (!__atomic_load_n(&low_locked, __ATOMIC_ACQUIRE))
		usleep(200);
	pthread_create(&hi, NULL, high_fn, NULL);
	while (!__atomic_load_n(&high_started, __ATOMIC_ACQUIRE))
		usleep(200);
	usleep(1000);	/* high is blocked on the lock by now */
	pthread_create(&me, NULL, medium_fn, NULL);
	pthread_join(hi, NULL);
	pthread_join(lo, NULL);
	pthread_join(me, NULL);
	return high_wait;
}

static void bench_inversion(int iters_pi, int iters_none)
{
	static const enum kind kinds[2] = { K_INHERIT, K_NONE };
	double maxw[2];
	int j, i;

	printf("# inversion: CPU 0, low FIFO 10 holds %.0f ms, high FIFO 30 blocks, medium FIFO 20 spins %.0f ms\n",
	       cs_ms, hog_ms);
	pin_fifo(40);	/* the controller stays above all three */
	for (j = 0; j < 2; j++) {
		int n = j ? iters_none : iters_pi;
		double w[256];
		char name[32];

		for (i = 0; i < n; i++) {
			w[i] = inversion_once(kinds[j]);
			snprintf(name, sizeof(name), "%s", kind_name[kinds[j]]);
			printf("BENCHITER inversion %s %d %.3f\n", name, i, w[i]);
		}
		qsort(w, n, sizeof(double), cmp_double);
		maxw[j] = w[n - 1];
		printf("#   %-14s %3d iterations: high waited median %.1f ms, p99 %.1f ms, max %.1f ms (%.2f x CS)\n",
		       kind_name[kinds[j]], n, pct(w, n, 50), pct(w, n, 99),
		       maxw[j], maxw[j] / cs_ms);
		emit("inversion", kind_name[kinds[j]], "wait_median_ms", pct(w, n, 50));
		emit("inversion", kind_name[kinds[j]], "wait_p99_ms", pct(w, n, 99));
		emit("inversion", kind_name[kinds[j]], "wait_max_ms", maxw[j]);
		emit("inversion", kind_name[kinds[j]], "max_over_cs", maxw[j] / cs_ms);
	}
	pin_fifo(0);
	printf("#   max wait without PI / with PI: %.1fx\n", maxw[1] / maxw[0]);
	emit("inversion", "none-vs-inherit", "max_ratio", maxw[1] / maxw[0]);
}

int main(int argc, char **argv)
{
	/* pi-bench [scale]: scale 1 = full, smaller for smoke runs. */
	double scale = argc > 1 ? atof(argv[1]) : 1.0;

	my_tid = gettid_();
	setvbuf(stdout, NULL, _IOLBF, 0);
	cs_ms = 10;
	hog_ms = 300;
	bench_fastpath((long)(1000000 * scale) + 1000, 7);
	bench_handoff(2, (long)(100000 * scale) + 100);
	bench_handoff(4, (long)(50000 * scale) + 100);
	bench_inversion((int)(30 * scale) + 3, (int)(5 * scale) + 2);
	return 0;
}
