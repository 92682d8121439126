// SPDX-License-Identifier: GPL-2.0
/*
 * glibc PTHREAD_PRIO_INHERIT mutexes on the pi-futex kernel, KTAP
 * output (kselftest.h).
 *
 *  1. boost: a SCHED_FIFO 50 waiter raises a SCHED_OTHER owner to 50
 *     (/proc/self/task/<tid>/stat field 18), and the owner drops back on
 *     unlock;
 *  2. robust + PI: the owner dies holding the mutex; the next locker gets
 *     EOWNERDEAD, makes it consistent, unlocks and locks it again;
 *  3. robust + PI, not made consistent: the next locker after the unlock
 *     gets ENOTRECOVERABLE;
 *  4. priority inversion on one CPU: low (FIFO 10) holds the mutex for a
 *     critical section CS, high (FIFO 30) blocks on it, medium (FIFO 20)
 *     spins for HOG > CS.  With PTHREAD_PRIO_INHERIT, high waits at most
 *     CS + MARGIN; with PTHREAD_PRIO_NONE in the same run (the negative
 *     control), medium delays high by at least the hog (capped, so the
 *     run ends).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "task-stat.h"

#define CS_MS		50
#define MARGIN_MS	25
#define HOG_MS		400


static void result(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void result(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		printf("# %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	ksft_test_result(ok, "%s\n", name);
}

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

static int set_sched(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return pthread_setschedparam(pthread_self(),
				     prio ? SCHED_FIFO : SCHED_OTHER, &sp);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void spin_ms(double ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end)
		;
}

static void init_mutex(pthread_mutex_t *m, int protocol, int robust)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, protocol);
	if (robust)
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

/* ---- 1. boost ---- */

static pthread_mutex_t boost_m;
static volatile pid_t waiter_tid;
static volatile int waiter_ret = -1;

static void *boost_waiter(void *arg)
{
	set_sched(50);
	waiter_tid = gettid_();
	waiter_ret = pthread_mutex_lock(&boost_m);
	if (!waiter_ret)
		pthread_mutex_unlock(&boost_m);
	return NULL;
}

static void test_boost(void)
{
	pid_t me = gettid_();
	int before, during = 0, after, i;
	pthread_t t;

	init_mutex(&boost_m, PTHREAD_PRIO_INHERIT, 0);
	set_sched(0);
	pthread_mutex_lock(&boost_m);
	before = task_prio(me);
	pthread_create(&t, NULL, boost_waiter, NULL);
	for (i = 0; i < 5000; i++) {
		during = task_prio(me);
		if (waiter_tid && task_state(waiter_tid) == 'S' && during == -51)
			break;
		usleep(1000);
	}
	pthread_mutex_unlock(&boost_m);
	after = task_prio(me);
	pthread_join(t, NULL);
	result(before == 20 && during == -51 && after == 20 && waiter_ret == 0,
	       "prio_inherit_boosts_owner",
	       "owner prio before %d, with FIFO 50 waiter %d, after unlock %d; waiter %d",
	       before, during, after, waiter_ret);
}

/* ---- 2./3. robust + PI ---- */

static pthread_mutex_t robust_m;

static void *die_holding(void *arg)
{
	pthread_mutex_lock(&robust_m);
	return NULL;	/* thread exits holding the mutex */
}

static void test_robust(int make_consistent)
{
	int r1, r2, r3 = -1, r4 = -1;
	pthread_t t;

	init_mutex(&robust_m, PTHREAD_PRIO_INHERIT, 1);
	pthread_create(&t, NULL, die_holding, NULL);
	pthread_join(t, NULL);

	r1 = pthread_mutex_lock(&robust_m);
	if (make_consistent) {
		r2 = pthread_mutex_consistent(&robust_m);
		r3 = pthread_mutex_unlock(&robust_m);
		r4 = pthread_mutex_lock(&robust_m);
		if (!r4)
			pthread_mutex_unlock(&robust_m);
		result(r1 == EOWNERDEAD && r2 == 0 && r3 == 0 && r4 == 0,
		       "robust_pi_owner_dead_then_consistent",
		       "lock %s, consistent %d, unlock %d, relock %d",
		       strerror(r1), r2, r3, r4);
	} else {
		r2 = pthread_mutex_unlock(&robust_m);
		r3 = pthread_mutex_lock(&robust_m);
		result(r1 == EOWNERDEAD && r2 == 0 && r3 == ENOTRECOVERABLE,
		       "robust_pi_not_consistent_unrecoverable",
		       "lock %s, unlock %d, relock %s",
		       strerror(r1), r2, strerror(r3));
	}
}

/* ---- 4. inversion on one CPU ---- */

static pthread_mutex_t inv_m;
static volatile int low_locked, low_go_on;
static volatile double high_wait_ms;
static volatile pid_t high_tid;

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *low_fn(void *arg)
{
	pin_cpu0();
	set_sched(10);
	pthread_mutex_lock(&inv_m);
	low_locked = 1;
	spin_ms(CS_MS);
	pthread_mutex_unlock(&inv_m);
	return NULL;
}

static void *high_fn(void *arg)
{
	double t0;

	pin_cpu0();
	set_sched(30);
	high_tid = gettid_();
	t0 = now_ms();
	pthread_mutex_lock(&inv_m);
	high_wait_ms = now_ms() - t0;
	pthread_mutex_unlock(&inv_m);
	return NULL;
}

static void *medium_fn(void *arg)
{
	pin_cpu0();
	set_sched(20);
	spin_ms(HOG_MS);	/* capped, so the run ends */
	return NULL;
}

static double inversion(int protocol)
{
	pthread_t low, high, med;

	init_mutex(&inv_m, protocol, 0);
	low_locked = 0;
	high_tid = 0;
	high_wait_ms = -1;
	/* The controller runs above all three, on the same CPU. */
	pin_cpu0();
	set_sched(40);
	pthread_create(&low, NULL, low_fn, NULL);
	while (!low_locked)
		usleep(500);
	pthread_create(&high, NULL, high_fn, NULL);
	while (!high_tid || task_state(high_tid) != 'S')
		usleep(500);
	pthread_create(&med, NULL, medium_fn, NULL);
	pthread_join(high, NULL);
	pthread_join(low, NULL);
	pthread_join(med, NULL);
	set_sched(0);
	pthread_mutex_destroy(&inv_m);
	return high_wait_ms;
}

static void test_inversion(void)
{
	double pi = inversion(PTHREAD_PRIO_INHERIT);
	double none = inversion(PTHREAD_PRIO_NONE);

	result(pi >= 0 && pi <= CS_MS + MARGIN_MS, "inversion_bounded_with_prio_inherit",
	       "high waited %.1f ms; bound: critical section %d ms + margin %d ms",
	       pi, CS_MS, MARGIN_MS);
	result(none >= HOG_MS * 0.9, "inversion_unbounded_with_prio_none",
	       "negative control: high waited %.1f ms behind a %d ms medium hog (ratio to PI %.1fx)",
	       none, HOG_MS, pi > 0 ? none / pi : 0.0);
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(5);
	test_boost();
	test_robust(1);
	test_robust(0);
	test_inversion();
	ksft_finished();
}
