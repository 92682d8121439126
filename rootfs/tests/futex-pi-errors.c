// SPDX-License-Identifier: GPL-2.0
/*
 * The refusals of the PI futex and requeue-PI code that upstream added
 * as fixes, each checked by its errno (or by the futex word it must leave
 * alone), so that undoing the fix fails a test.  The tests/inject/ entry
 * each case is for is named above it.  Then what the ABI promises beyond
 * those fixes: the argument checks of the PI operations, the restart of
 * an interrupted FUTEX_LOCK_PI, the order of waiters that are not
 * real-time tasks, and the robust-list walk at exit.
 *
 * Needs no privilege; the first case needs kthreadd at TID 2 (the
 * initial PID namespace) and is skipped otherwise.  A case that must not
 * block bounds the failure with a FUTEX_LOCK_PI or FUTEX_WAIT_REQUEUE_PI
 * timeout of 200 ms: the fixed kernel answers at once, and the timeout
 * only ends the broken case.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "taint.h"
#include "task-stat.h"

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

static long futex(uint32_t *uaddr, int op, uint32_t val,
		  const struct timespec *ts, uint32_t *uaddr2, uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, ts, uaddr2, val3) < 0 ?
	       errno : 0;
}

/* The raw return value (a count) or -errno. */
static long futex_ret(uint32_t *uaddr, int op, uint32_t val, long val2,
		      uint32_t *uaddr2, uint32_t val3)
{
	long r = syscall(SYS_futex, uaddr, op, val, (void *)val2, uaddr2, val3);

	return r < 0 ? -errno : r;
}

/* An absolute time @ms from now on @clock. */
static struct timespec time_in(clockid_t clock, int ms)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	ts.tv_nsec += (ms % 1000) * 1000000L;
	ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

/* FUTEX_LOCK_PI's clock. */
#define realtime_in(ms)		time_in(CLOCK_REALTIME, ms)
/* FUTEX_WAIT_REQUEUE_PI's clock without FUTEX_CLOCK_REALTIME. */
#define monotonic_in(ms)	time_in(CLOCK_MONOTONIC, ms)

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Wait up to 5 s for @tid (once known) to sleep. */
static int wait_asleep(pid_t *tid)
{
	int i;

	for (i = 0; i < 5000; i++) {
		if (LOAD(*tid) && task_state(LOAD(*tid)) == 'S')
			return 1;
		sleep_ms(1);
	}
	return 0;
}

/* attach-to-kernel-thread: a word naming a kernel thread is refused. */
TEST(lock_pi_owner_is_kernel_thread)
{
	struct timespec ts = realtime_in(200);
	char comm[32] = "";
	uint32_t f = 2;
	FILE *c;

	c = fopen("/proc/2/comm", "r");
	if (!c || !fgets(comm, sizeof(comm), c) || strcmp(comm, "kthreadd\n")) {
		if (c)
			fclose(c);
		SKIP(return, "TID 2 is not kthreadd here");
	}
	fclose(c);
	/* The word gets FUTEX_WAITERS on the way; only the errno counts. */
	ASSERT_EQ(EPERM, futex(&f, FUTEX_LOCK_PI, 0, &ts, NULL, 0));
}

struct pair {
	uint32_t lock;
	pid_t owner_tid, waiter_tid;
	int release, waiter_err;
};

static void *owner_fn(void *arg)
{
	struct pair *p = arg;

	STORE(p->owner_tid, gettid());
	futex(&p->lock, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	while (!LOAD(p->release))
		sleep_ms(1);
	futex(&p->lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	return NULL;
}

static void *waiter_fn(void *arg)
{
	struct pair *p = arg;

	STORE(p->waiter_tid, gettid());
	p->waiter_err = futex(&p->lock, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	if (!p->waiter_err)
		futex(&p->lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	return NULL;
}

/*
 * attach-to-wrong-owner-tid: with kernel state for the futex, a word
 * whose TID is not the owner's is refused.
 */
TEST(lock_pi_word_names_other_owner)
{
	struct pair p = { 0 };
	struct timespec ts;
	pthread_t o, w;
	uint32_t word;

	ASSERT_EQ(0, pthread_create(&o, NULL, owner_fn, &p));
	while (!(LOAD(p.lock) & FUTEX_TID_MASK))
		sleep_ms(1);
	ASSERT_EQ(0, pthread_create(&w, NULL, waiter_fn, &p));
	ASSERT_TRUE(wait_asleep(&p.waiter_tid));
	word = LOAD(p.lock);
	ASSERT_EQ(p.owner_tid | FUTEX_WAITERS, word);

	/* The word now names the waiter; the pi_state still names owner. */
	STORE(p.lock, p.waiter_tid | FUTEX_WAITERS);
	ts = realtime_in(200);
	EXPECT_EQ(EINVAL, futex(&p.lock, FUTEX_LOCK_PI, 0, &ts, NULL, 0));

	STORE(p.lock, word);
	STORE(p.release, 1);
	pthread_join(o, NULL);
	pthread_join(w, NULL);
	EXPECT_EQ(0, p.waiter_err);
}

/* lock-own-futex-not-refused: the word is left as it was. */
TEST(lock_pi_own_futex_leaves_word)
{
	uint32_t f = 0;

	ASSERT_EQ(0, futex(&f, FUTEX_LOCK_PI, 0, NULL, NULL, 0));
	ASSERT_EQ(gettid(), f);
	EXPECT_EQ(EDEADLK, futex(&f, FUTEX_LOCK_PI, 0, NULL, NULL, 0));
	EXPECT_EQ(gettid(), f);
	ASSERT_EQ(0, futex(&f, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
	EXPECT_EQ(0, f);
}

/*
 * The PI operations take the futex key before they touch the word, and
 * get_futex_key() refuses an address that is not 4-byte aligned with
 * EINVAL; FUTEX_UNLOCK_PI reads the owner first, so its word holds the
 * caller's TID here.  Each word is left as it was.
 */
TEST(pi_ops_refuse_unaligned_word)
{
	uint32_t buf[2] = { 0, 0 }, tid = gettid(), v;
	uint32_t *f = (uint32_t *)((char *)buf + 1);

	EXPECT_EQ(EINVAL, futex(f, FUTEX_LOCK_PI, 0, NULL, NULL, 0));
	EXPECT_EQ(EINVAL, futex(f, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0));
	memcpy(&v, f, sizeof(v));
	EXPECT_EQ(0, v);

	memcpy(f, &tid, sizeof(tid));
	EXPECT_EQ(EINVAL, futex(f, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
	memcpy(&v, f, sizeof(v));
	EXPECT_EQ(tid, v);
}

/* requeue-negative-counts */
TEST(cmp_requeue_negative_counts)
{
	uint32_t a = 0, b = 0;

	EXPECT_EQ(-EINVAL, futex_ret(&a, FUTEX_CMP_REQUEUE, 1, -1, &b, 0));
	EXPECT_EQ(-EINVAL, futex_ret(&a, FUTEX_CMP_REQUEUE, -1, 1, &b, 0));
}

/* requeue-pi-same-futex: CVE-2014-3153's first step. */
TEST(cmp_requeue_pi_onto_same_futex)
{
	uint32_t a = 0;

	EXPECT_EQ(-EINVAL, futex_ret(&a, FUTEX_CMP_REQUEUE_PI, 1, 0, &a, 0));
}

/*
 * wait-requeue-pi-same-futex.  Without that check, futex_wait_setup()
 * still refuses equal keys with EINVAL, but only after the value check:
 * a stale expected value tells the two apart (EAGAIN without it).
 */
TEST(wait_requeue_pi_onto_same_futex)
{
	struct timespec ts = monotonic_in(200);
	uint32_t a = 0;

	EXPECT_EQ(EINVAL, futex(&a, FUTEX_WAIT_REQUEUE_PI, 0, &ts, &a, 0));
	EXPECT_EQ(EINVAL, futex(&a, FUTEX_WAIT_REQUEUE_PI, 1, &ts, &a, 0));
}

struct requeue {
	uint32_t a, b, c;
	pid_t tid[3];
	int ret[3];
	int go;
	int timeout_ms;		/* of the waiter the requeue refuses */
};

/*
 * The requeue-PI waiters: wait on a, to be requeued to b.  A waiter the
 * requeue refuses stays queued on a (the kernel leaves "the mess" to user
 * space), so it waits with a timeout.
 */
static int wait_requeue(struct requeue *r, int i, int timeout_ms)
{
	struct timespec ts = monotonic_in(timeout_ms);

	STORE(r->tid[i], gettid());
	return futex(&r->a, FUTEX_WAIT_REQUEUE_PI, 0,
		     timeout_ms ? &ts : NULL, &r->b, 0);
}

/* First waiter: takes b when it gets it, and lets it go. */
static void *first_fn(void *arg)
{
	struct requeue *r = arg;

	r->ret[0] = wait_requeue(r, 0, 0);
	if (!r->ret[0])
		futex(&r->b, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	return NULL;
}

/* Second waiter: owns b itself before it waits to be requeued to it. */
static void *owns_target_fn(void *arg)
{
	struct requeue *r = arg;

	futex(&r->b, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	r->ret[1] = wait_requeue(r, 1, r->timeout_ms);
	futex(&r->b, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	return NULL;
}

/*
 * remove-waiter-never-enqueued: a requeued waiter that owns the target
 * futex is refused with EDEADLK before it is queued on its rt_mutex.
 * The first waiter is requeued behind it and gets b when the refused
 * one, timed out, unlocks it.  Returns 0 when the refused waiter's
 * timeout expired before the requeue (a loaded machine): try again.
 */
static int waiter_owns_target(struct __test_metadata *_metadata,
			      int timeout_ms, long taint)
{
	struct requeue r = { .timeout_ms = timeout_ms };
	pthread_t t0, t1;
	long n;

	(void)taint;
	ASSERT_EQ(0, pthread_create(&t0, NULL, first_fn, &r));
	ASSERT_TRUE(wait_asleep(&r.tid[0]));
	ASSERT_EQ(0, pthread_create(&t1, NULL, owns_target_fn, &r));
	ASSERT_TRUE(wait_asleep(&r.tid[1]));
	ASSERT_EQ(r.tid[1], LOAD(r.b) & FUTEX_TID_MASK);

	/* Requeue the first onto b, then the second: refused. */
	n = futex_ret(&r.a, FUTEX_CMP_REQUEUE_PI, 1, 1, &r.b, 0);
	pthread_join(t1, NULL);
	pthread_join(t0, NULL);
	if (n == 1 && r.ret[1] == ETIMEDOUT)
		return 0;
	EXPECT_EQ(-EDEADLK, n);
	EXPECT_EQ(ETIMEDOUT, r.ret[1]);
	EXPECT_EQ(0, r.ret[0]);
	return 1;
}

/*
 * Run @attempt with the refused waiter's timeout at 2, 4 and 8 s until
 * one requeue came before that timeout.
 */
static void with_timeouts(struct __test_metadata *_metadata,
			  int (*attempt)(struct __test_metadata *, int, long),
			  long taint)
{
	int ms;

	for (ms = 2000; ms <= 8000; ms *= 2)
		if (attempt(_metadata, ms, taint))
			return;
	ASSERT_TRUE(0)
		TH_LOG("the refused waiter timed out before every requeue");
}

TEST(requeue_pi_waiter_owns_target)
{
	with_timeouts(_metadata, waiter_owns_target, 0);
}

/* Second waiter: waits on a for b, gets b after the first let it go. */
static void *second_fn(void *arg)
{
	struct requeue *r = arg;

	r->ret[1] = wait_requeue(r, 1, 0);
	if (!r->ret[1])
		futex(&r->b, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	return NULL;
}

/*
 * requeue-atomic-acquire-without-pi-state: FUTEX_CMP_REQUEUE_PI of two
 * waiters onto a free PI futex.  The requeuer takes b for the first
 * (futex_lock_pi_atomic() on its behalf, FUTEX_WAITERS set as more
 * follow) and must attach the pi_state the second is requeued onto:
 * the call returns 2, and both waiters get b in turn.
 */
TEST(cmp_requeue_pi_two_waiters_onto_free_futex)
{
	struct requeue r = { 0 };
	pthread_t t0, t1;

	ASSERT_EQ(0, pthread_create(&t0, NULL, first_fn, &r));
	ASSERT_TRUE(wait_asleep(&r.tid[0]));
	ASSERT_EQ(0, pthread_create(&t1, NULL, second_fn, &r));
	ASSERT_TRUE(wait_asleep(&r.tid[1]));
	EXPECT_EQ(2, futex_ret(&r.a, FUTEX_CMP_REQUEUE_PI, 1, 1, &r.b, 0));
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	EXPECT_EQ(0, r.ret[0]);
	EXPECT_EQ(0, r.ret[1]);
	EXPECT_EQ(0, LOAD(r.b));
}

/* Holds c, blocks on b's owner chain: see requeue_pi_closes_cycle. */
static void *holds_b_wants_c_fn(void *arg)
{
	struct requeue *r = arg;

	futex(&r->b, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	STORE(r->tid[2], gettid());
	r->ret[2] = futex(&r->c, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	if (!r->ret[2])
		futex(&r->c, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	futex(&r->b, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	return NULL;
}

/* Holds c, waits on a to be requeued to b. */
static void *holds_c_fn(void *arg)
{
	struct requeue *r = arg;

	futex(&r->c, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	r->ret[0] = wait_requeue(r, 0, r->timeout_ms);
	if (!r->ret[0])
		futex(&r->b, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	futex(&r->c, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	return NULL;
}

/*
 * remove-waiter-of-current (GhostLock): T holds c and waits on a for b;
 * O holds b and waits for c.  Requeueing T onto b would close the cycle
 * T -> b -> O -> c -> T: the requeue fails with EDEADLK and leaves T
 * queued on a, where it times out.  The refusal must clear T's
 * blocked-on state, not the requeuer's: with CONFIG_DEBUG_RT_MUTEXES a
 * stale one WARNs when T locks again or exits.  Returns 0 when T's
 * timeout expired before the requeue: try again.
 */
static int closes_cycle(struct __test_metadata *_metadata, int timeout_ms,
			long taint)
{
	struct requeue r = { .timeout_ms = timeout_ms };
	pthread_t t, o;
	long n;

	ASSERT_EQ(0, pthread_create(&t, NULL, holds_c_fn, &r));
	ASSERT_TRUE(wait_asleep(&r.tid[0]));
	ASSERT_EQ(0, pthread_create(&o, NULL, holds_b_wants_c_fn, &r));
	ASSERT_TRUE(wait_asleep(&r.tid[2]));

	n = futex_ret(&r.a, FUTEX_CMP_REQUEUE_PI, 1, 0, &r.b, 0);
	pthread_join(t, NULL);
	pthread_join(o, NULL);
	if (n == 0 && r.ret[0] == ETIMEDOUT)
		return 0;
	EXPECT_EQ(-EDEADLK, n);
	EXPECT_EQ(ETIMEDOUT, r.ret[0]);
	EXPECT_EQ(0, r.ret[2]);
	EXPECT_EQ(0, taint_flags() & TAINT_WARN)
		TH_LOG("the kernel WARNed (tainted %ld -> %ld)", taint,
		       taint_flags());
	return 1;
}

TEST(requeue_pi_closes_cycle)
{
	long taint = taint_flags();

	if (taint < 0)
		SKIP(return, "/proc/sys/kernel/tainted unreadable");
	if (taint & TAINT_WARN)
		SKIP(return, "the kernel WARNed before: TAINT_WARN set already");
	with_timeouts(_metadata, closes_cycle, taint);
}

static void *hold_20ms_fn(void *arg)
{
	struct pair *p = arg;

	STORE(p->owner_tid, gettid());
	futex(&p->lock, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	while (!LOAD(p->release))
		sleep_ms(1);
	sleep_ms(20);
	futex(&p->lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	return NULL;
}

/*
 * lock-pi-timer-not-cancelled: a timed FUTEX_LOCK_PI that gets the lock
 * before its timeout must cancel its on-stack hrtimer.  The lock comes
 * after about 20 ms, the timeout is 300 ms away; the test then keeps
 * calling into the kernel past the timeout, over the dead frame the
 * timer would fire on.  The kernel must survive, and the lock be held.
 */
TEST(lock_pi_timeout_after_success)
{
	struct pair p = { 0 };
	struct timespec ts;
	pthread_t o;
	int i, ret;

	ASSERT_EQ(0, pthread_create(&o, NULL, hold_20ms_fn, &p));
	while (!(LOAD(p.lock) & FUTEX_TID_MASK))
		sleep_ms(1);
	STORE(p.release, 1);
	ts = realtime_in(300);
	ret = futex(&p.lock, FUTEX_LOCK_PI, 0, &ts, NULL, 0);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(gettid(), LOAD(p.lock) & FUTEX_TID_MASK);
	for (i = 0; i < 60; i++) {
		uint32_t w = 0;

		futex(&w, FUTEX_WAKE, 1, NULL, NULL, 0);
		sleep_ms(10);
	}
	EXPECT_EQ(0, futex(&p.lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
	pthread_join(o, NULL);
}

/*
 * The argument checks of the PI operations that no fix added but the
 * ABI documents (do_futex() and futex_requeue()): FUTEX_CLOCK_REALTIME
 * is only for FUTEX_LOCK_PI2 among the PI lock operations (ENOSYS), a
 * requeue-PI wakes exactly one waiter (nr_wake 1, else EINVAL), and a
 * changed *uaddr fails CMP_REQUEUE_PI with EAGAIN before any waiter is
 * looked at.
 */
TEST(pi_ops_clock_realtime_enosys)
{
	struct timespec ts = realtime_in(200);
	uint32_t f = 0;

	EXPECT_EQ(ENOSYS, futex(&f, FUTEX_LOCK_PI | FUTEX_CLOCK_REALTIME, 0,
				&ts, NULL, 0));
	EXPECT_EQ(0, f);
	EXPECT_EQ(ENOSYS, futex(&f, FUTEX_TRYLOCK_PI | FUTEX_CLOCK_REALTIME,
				0, NULL, NULL, 0));
	EXPECT_EQ(ENOSYS, futex(&f, FUTEX_UNLOCK_PI | FUTEX_CLOCK_REALTIME,
				0, NULL, NULL, 0));
	EXPECT_EQ(0, f);
	/* LOCK_PI2 takes it: the free futex is locked. */
	EXPECT_EQ(0, futex(&f, FUTEX_LOCK_PI2 | FUTEX_CLOCK_REALTIME, 0, &ts,
			   NULL, 0));
	EXPECT_EQ((uint32_t)gettid(), f);
	EXPECT_EQ(0, futex(&f, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
}

TEST(cmp_requeue_pi_wakes_exactly_one)
{
	uint32_t a = 0, b = 0;

	EXPECT_EQ(-EINVAL, futex_ret(&a, FUTEX_CMP_REQUEUE_PI, 0, 1, &b, 0));
	EXPECT_EQ(-EINVAL, futex_ret(&a, FUTEX_CMP_REQUEUE_PI, 2, 1, &b, 0));
	/* nr_wake 1 and nobody waiting: nothing woken or requeued. */
	EXPECT_EQ(0, futex_ret(&a, FUTEX_CMP_REQUEUE_PI, 1, 1, &b, 0));
	EXPECT_EQ(0, b);
}

TEST(cmp_requeue_pi_value_changed)
{
	uint32_t a = 1, b = 0;

	EXPECT_EQ(-EAGAIN, futex_ret(&a, FUTEX_CMP_REQUEUE_PI, 1, 1, &b, 0));
	EXPECT_EQ(-EAGAIN, futex_ret(&a, FUTEX_CMP_REQUEUE, 1, 1, &b, 0));
	EXPECT_EQ(0, b);
}

/*
 * FUTEX_WAIT_REQUEUE_PI and FUTEX_CMP_REQUEUE_PI pair only with each
 * other: a plain FUTEX_WAKE or FUTEX_CMP_REQUEUE that meets a requeue-PI
 * waiter fails with EINVAL and leaves it queued (futex_wake(),
 * futex_requeue()), and so does a CMP_REQUEUE_PI that meets a plain
 * FUTEX_WAIT waiter.  Each waiter is then woken by its own kind of
 * operation: the requeue-PI one gets the free PI futex b.
 */
struct plain {
	uint32_t a, b;
	pid_t tid;
	int ret, done;
};

static void *requeue_pi_waiter_fn(void *arg)
{
	struct plain *w = arg;

	STORE(w->tid, gettid());
	w->ret = futex(&w->a, FUTEX_WAIT_REQUEUE_PI, 0, NULL, &w->b, 0);
	if (!w->ret && (LOAD(w->b) & FUTEX_TID_MASK) != (uint32_t)gettid())
		w->ret = -1;
	if (!w->ret)
		futex(&w->b, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	STORE(w->done, 1);
	return NULL;
}

/* A FUTEX_WAIT on a, for the value a holds when it starts. */
static void *plain_waiter_fn(void *arg)
{
	struct plain *w = arg;

	STORE(w->tid, gettid());
	w->ret = futex(&w->a, FUTEX_WAIT, LOAD(w->a), NULL, NULL, 0);
	STORE(w->done, 1);
	return NULL;
}

TEST(plain_ops_refuse_requeue_pi_waiter)
{
	struct plain w = { 0 };
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, requeue_pi_waiter_fn, &w));
	ASSERT_TRUE(wait_asleep(&w.tid));
	EXPECT_EQ(-EINVAL, futex_ret(&w.a, FUTEX_WAKE, 1, 0, NULL, 0));
	EXPECT_EQ(-EINVAL, futex_ret(&w.a, FUTEX_CMP_REQUEUE, 1, 1, &w.b, 0));
	EXPECT_EQ(-EINVAL, futex_ret(&w.a, FUTEX_CMP_REQUEUE, 0, 1, &w.b, 0));
	EXPECT_EQ(0, LOAD(w.done));
	EXPECT_EQ(0, LOAD(w.b));
	/* Still queued on a: the requeue-PI op wakes it owning b. */
	EXPECT_EQ(1, futex_ret(&w.a, FUTEX_CMP_REQUEUE_PI, 1, 0, &w.b, 0));
	pthread_join(t, NULL);
	EXPECT_EQ(0, w.ret);
	EXPECT_EQ(0, LOAD(w.b));
}

TEST(cmp_requeue_pi_refuses_plain_waiter)
{
	struct plain w = { 0 };
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, plain_waiter_fn, &w));
	ASSERT_TRUE(wait_asleep(&w.tid));
	EXPECT_EQ(-EINVAL, futex_ret(&w.a, FUTEX_CMP_REQUEUE_PI, 1, 1, &w.b,
				     0));
	EXPECT_EQ(0, LOAD(w.done));
	EXPECT_EQ(0, LOAD(w.b));
	EXPECT_EQ(1, futex_ret(&w.a, FUTEX_WAKE, 1, 0, NULL, 0));
	pthread_join(t, NULL);
	EXPECT_EQ(0, w.ret);
}

/*
 * FUTEX_UNLOCK_PI of a word that holds the caller's TID but whose futex
 * has a plain FUTEX_WAIT waiter: the top waiter has no pi_state, and
 * __futex_unlock_pi() refuses with EINVAL, leaving word and waiter alone.
 */
TEST(unlock_pi_refuses_plain_waiter)
{
	struct plain w = { 0 };
	pthread_t t;

	w.a = gettid();
	ASSERT_EQ(0, pthread_create(&t, NULL, plain_waiter_fn, &w));
	ASSERT_TRUE(wait_asleep(&w.tid));
	EXPECT_EQ(EINVAL, futex(&w.a, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
	EXPECT_EQ((uint32_t)gettid(), LOAD(w.a));
	EXPECT_EQ(0, LOAD(w.done));
	EXPECT_EQ(1, futex_ret(&w.a, FUTEX_WAKE, 1, 0, NULL, 0));
	pthread_join(t, NULL);
	EXPECT_EQ(0, w.ret);
}

/*
 * lock-pi-returns-eintr: a signal to a task blocked in FUTEX_LOCK_PI runs
 * its handler and the wait goes on; futex_lock_pi() turns -EINTR into
 * -ERESTARTNOINTR, so the call is restarted even without SA_RESTART and
 * user space never sees EINTR.  With a timeout the restart keeps the
 * same absolute deadline.
 */
static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

struct signalled {
	uint32_t lock;
	pid_t tid;
	int timed, err, done;
};

static void *signalled_waiter_fn(void *arg)
{
	struct signalled *s = arg;
	struct timespec ts = realtime_in(60000);

	STORE(s->tid, gettid());
	s->err = futex(&s->lock, FUTEX_LOCK_PI, 0, s->timed ? &ts : NULL,
		       NULL, 0);
	if (!s->err)
		futex(&s->lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	STORE(s->done, 1);
	return NULL;
}

static void signal_restarts(struct __test_metadata *_metadata, int timed)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	struct signalled s = { .lock = gettid(), .timed = timed };
	pthread_t w;
	int i;

	handled = 0;
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, pthread_create(&w, NULL, signalled_waiter_fn, &s));
	ASSERT_TRUE(wait_asleep(&s.tid));
	ASSERT_EQ(0, pthread_kill(w, SIGUSR1));
	for (i = 0; i < 5000 && !handled; i++)
		sleep_ms(1);
	ASSERT_EQ(1, handled);
	/* Restarted, the waiter blocks again; else LOCK_PI has returned. */
	for (i = 0; i < 5000 && !LOAD(s.done) && task_state(s.tid) != 'S'; i++)
		sleep_ms(1);
	EXPECT_EQ(0, LOAD(s.done));
	EXPECT_EQ(0, futex(&s.lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
	pthread_join(w, NULL);
	EXPECT_EQ(0, s.err);
	EXPECT_EQ(0, LOAD(s.lock));
	signal(SIGUSR1, SIG_DFL);
}

TEST(lock_pi_signal_restarts)
{
	signal_restarts(_metadata, 0);
}

TEST(lock_pi_timed_signal_restarts)
{
	signal_restarts(_metadata, 1);
}

/*
 * A robust list entry (its next pointer at offset 0) and, 9 bytes past
 * it, an unaligned futex word: futex_offset = 9.
 */
#define WORD_OFFSET	9
static char entry[32] __attribute__((aligned(8)));
static struct robust_list_head head;
static uint32_t dead_tid;

static void *dies_with_unaligned_entry(void *arg)
{
	struct robust_list *e = (struct robust_list *)entry;
	uint32_t tid = gettid();

	(void)arg;
	dead_tid = tid;
	memcpy(entry + WORD_OFFSET, &tid, sizeof(tid));
	e->next = &head.list;
	head.list.next = e;
	head.futex_offset = WORD_OFFSET;
	head.list_op_pending = NULL;
	syscall(SYS_set_robust_list, &head, sizeof(head));
	return NULL;
}

/* robust-list-unaligned-entry: the exit walk leaves such a word alone. */
TEST(robust_list_unaligned_word_untouched)
{
	uint32_t after;
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, dies_with_unaligned_entry, NULL));
	/* Returns when the kernel cleared the thread's TID: exit is done. */
	pthread_join(t, NULL);
	memcpy(&after, entry + WORD_OFFSET, sizeof(after));
	EXPECT_EQ(dead_tid, after);
}

/*
 * The chain walk's length limit, kernel.max_lock_depth: a FUTEX_LOCK_PI
 * whose walk would go through more owners than that fails with EDEADLK
 * at once, and the kernel log says so once per limit
 * (rt_mutex_adjust_prio_chain()).  A chain of NCHAIN owners, each
 * holding its own PI futex and blocked on the one before; the first
 * blocks nowhere.  Needs root to set the sysctl, else SKIP.
 */
#define NCHAIN	5
struct chain {
	uint32_t lock[NCHAIN];
	pid_t tid[NCHAIN];
	int release;
};

struct link {
	struct chain *c;
	int i;
};

static void *chain_fn(void *arg)
{
	struct link *l = arg;
	struct chain *c = l->c;
	int i = l->i;

	futex(&c->lock[i], FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	STORE(c->tid[i], gettid());
	if (i == 0) {
		while (!LOAD(c->release))
			sleep_ms(1);
	} else {
		futex(&c->lock[i - 1], FUTEX_LOCK_PI, 0, NULL, NULL, 0);
		futex(&c->lock[i - 1], FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	}
	futex(&c->lock[i], FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	return NULL;
}

static int write_int(const char *path, int v)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return 0;
	ok = fprintf(f, "%d\n", v) > 0;
	return fclose(f) == 0 && ok;
}

/* How many kernel log lines from @fd on contain @what (non-blocking). */
static int kmsg_count(int fd, const char *what)
{
	char buf[1024];
	int n = 0;
	ssize_t r;

	while ((r = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[r] = 0;
		n += strstr(buf, what) != NULL;
	}
	return n;
}

TEST(lock_pi_chain_longer_than_max_lock_depth)
{
	static const char sysctl[] = "/proc/sys/kernel/max_lock_depth";
	struct chain c = { 0 };
	struct link l[NCHAIN];
	pthread_t t[NCHAIN];
	struct timespec ts;
	char msg[64];
	int i, depth, kmsg;

	/*
	 * kernel.max_lock_depth is there wherever rt_mutexes and sysctl
	 * are (rtmutex_api.c registers it): only a missing /proc/sys, or
	 * no right to write it, is a reason to skip.
	 */
	if (access("/proc/sys/kernel", F_OK))
		SKIP(return, "/proc/sys is not mounted");
	depth = proc_read_long(sysctl);
	ASSERT_LE(0, depth)
		TH_LOG("no readable %s: the rt_mutex sysctl is missing", sysctl);
	if (!write_int(sysctl, depth))
		SKIP(return, "cannot write %s (not root?)", sysctl);
	for (i = 0; i < NCHAIN; i++) {
		l[i] = (struct link){ &c, i };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, chain_fn, &l[i]));
		if (i == 0)
			while (!LOAD(c.tid[0]))
				sleep_ms(1);
		else
			ASSERT_TRUE(wait_asleep(&c.tid[i]));
	}
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	ASSERT_TRUE(write_int(sysctl, 2));
	/* The walk from lock[NCHAIN - 1] passes NCHAIN owners. */
	ts = realtime_in(200);
	EXPECT_EQ(EDEADLK, futex(&c.lock[NCHAIN - 1], FUTEX_LOCK_PI, 0, &ts,
				 NULL, 0));
	ts = realtime_in(200);
	EXPECT_EQ(EDEADLK, futex(&c.lock[NCHAIN - 1], FUTEX_LOCK_PI, 0, &ts,
				 NULL, 0));
	/*
	 * A walk through one owner, which blocks nowhere, is short enough;
	 * so is one through exactly two blocked owners (lock[2]: the owners
	 * of lock[2] and lock[1]), since the limit is on the steps of the
	 * walk, "++depth > max_lock_depth", and the walk ends at an owner
	 * that is not blocked without a step of its own.
	 */
	ts = realtime_in(200);
	EXPECT_EQ(ETIMEDOUT, futex(&c.lock[0], FUTEX_LOCK_PI, 0, &ts, NULL,
				   0));
	ts = realtime_in(200);
	EXPECT_EQ(ETIMEDOUT, futex(&c.lock[2], FUTEX_LOCK_PI, 0, &ts, NULL,
				   0));
	if (kmsg >= 0) {
		snprintf(msg, sizeof(msg), "Maximum lock depth 2 reached");
		/* Once for this limit, not once per refusal. */
		EXPECT_EQ(1, kmsg_count(kmsg, msg));
		close(kmsg);
	}
	ASSERT_TRUE(write_int(sysctl, depth));
	/* With the old limit the same lock is waited for. */
	ts = realtime_in(200);
	EXPECT_EQ(ETIMEDOUT, futex(&c.lock[NCHAIN - 1], FUTEX_LOCK_PI, 0, &ts,
				   NULL, 0));
	STORE(c.release, 1);
	for (i = 0; i < NCHAIN; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NCHAIN; i++)
		EXPECT_EQ(0, LOAD(c.lock[i]));
}

/*
 * The order in which FUTEX_UNLOCK_PI hands a PI futex to waiters that
 * are not real-time tasks: the order they came in.  rt_mutex keys every
 * SCHED_OTHER waiter with DEFAULT_PRIO (__waiter_prio()), whatever its
 * nice value, and a chain walk that passes a waiter whose key did not
 * change leaves it in its place (rt_mutex_adjust_prio_chain()'s
 * "requeue = false").  Each waiter notes when it got the lock, in
 * order->log, and gives it back at once.
 */
struct order {
	uint32_t lock, inner;
	pid_t tid[3];
	int nice[3], holds_inner[3];
	char log[4];
	int len;
};

struct order_arg {
	struct order *o;
	int i;
};

static void *order_fn(void *arg)
{
	struct order_arg *a = arg;
	struct order *o = a->o;
	int i = a->i;

	if (setpriority(PRIO_PROCESS, 0, o->nice[i]))
		return NULL;
	if (o->holds_inner[i] &&
	    futex(&o->inner, FUTEX_LOCK_PI, 0, NULL, NULL, 0))
		return NULL;
	STORE(o->tid[i], gettid());
	if (futex(&o->lock, FUTEX_LOCK_PI, 0, NULL, NULL, 0))
		return NULL;
	o->log[__atomic_fetch_add(&o->len, 1, __ATOMIC_ACQ_REL)] = '1' + i;
	futex(&o->lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	if (o->holds_inner[i])
		futex(&o->inner, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	return NULL;
}

static void *inner_fn(void *arg)
{
	struct order *o = arg;

	STORE(o->tid[2], gettid());
	if (!futex(&o->inner, FUTEX_LOCK_PI, 0, NULL, NULL, 0))
		futex(&o->inner, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	return NULL;
}

/*
 * Waiters 1 and 2 block on o->lock in that order (1 holding o->inner
 * first if @chain, and a third thread then blocks on o->inner, whose
 * walk passes waiter 1); the test thread, the owner, unlocks it.
 */
static void order_case(struct __test_metadata *_metadata, struct order *o,
		       int chain)
{
	struct order_arg a[2] = { { o, 0 }, { o, 1 } };
	pthread_t t[3];
	int i;

	ASSERT_EQ(0, futex(&o->lock, FUTEX_LOCK_PI, 0, NULL, NULL, 0));
	o->holds_inner[0] = chain;
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_create(&t[i], NULL, order_fn, &a[i]));
		ASSERT_TRUE(wait_asleep(&o->tid[i]));
	}
	if (chain) {
		ASSERT_EQ(0, pthread_create(&t[2], NULL, inner_fn, o));
		ASSERT_TRUE(wait_asleep(&o->tid[2]));
	}
	ASSERT_EQ(0, futex(&o->lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
	for (i = 0; i < 2 + chain; i++)
		pthread_join(t[i], NULL);
	EXPECT_STREQ("12", o->log);
	EXPECT_EQ(0, LOAD(o->lock));
	EXPECT_EQ(0, LOAD(o->inner));
}

/* A nice 10 waiter that came first is not passed by a nice 0 one. */
TEST(unlock_pi_hands_fair_waiters_in_arrival_order)
{
	struct order o = { .nice = { 10, 0 } };

	order_case(_metadata, &o, 0);
}

/* A walk that passes the first of two waiters does not move it back. */
TEST(unlock_pi_order_kept_by_chain_walk)
{
	struct order o = { 0 };

	order_case(_metadata, &o, 1);
}

/*
 * The robust-list walk at exit (exit_robust_list(), handle_futex_death()):
 * a dying thread's list of entries, each a struct robust_list followed
 * by its futex word.  Only words naming the dying thread get
 * FUTEX_OWNER_DIED (its TID cleared, FUTEX_WAITERS kept, one waiter
 * woken); the walk stops after ROBUST_LIST_LIMIT entries; the entry of
 * list_op_pending is handled as well, and when its word does not name
 * the thread (it died before it got the lock) one waiter is woken so
 * that the wakeup is not lost.
 */
struct rentry {
	struct robust_list l;
	uint32_t word;
};

#define NRENTRY		(ROBUST_LIST_LIMIT + 2)
static struct rentry rents[NRENTRY];
static struct robust_list_head rhead;

struct dying {
	int n;				/* entries on the list */
	struct rentry *pending;		/* list_op_pending */
	uint32_t words[4];		/* the words of rents[0..3]; 0: own TID */
	pid_t tid;
};

static void *dies_with_list(void *arg)
{
	struct dying *d = arg;
	int i;

	d->tid = gettid();
	rhead.list.next = &rhead.list;
	for (i = d->n - 1; i >= 0; i--) {
		rents[i].word = i < 4 && d->words[i] ? d->words[i] : d->tid;
		rents[i].l.next = rhead.list.next;
		rhead.list.next = &rents[i].l;
	}
	if (d->pending)
		d->pending->word = d->tid;
	rhead.futex_offset = offsetof(struct rentry, word);
	rhead.list_op_pending = d->pending ? &d->pending->l : NULL;
	syscall(SYS_set_robust_list, &rhead, sizeof(rhead));
	return NULL;
}

static void die_with(struct __test_metadata *_metadata, struct dying *d)
{
	pthread_t t;

	memset(rents, 0, sizeof(rents));
	ASSERT_EQ(0, pthread_create(&t, NULL, dies_with_list, d));
	/* Returns when the kernel cleared the thread's TID: after the walk. */
	pthread_join(t, NULL);
}

TEST(robust_list_walk_is_bounded)
{
	struct dying d = { .n = NRENTRY };
	int i, marked = 0;

	die_with(_metadata, &d);
	for (i = 0; i < ROBUST_LIST_LIMIT; i++)
		marked += rents[i].word == FUTEX_OWNER_DIED;
	EXPECT_EQ(ROBUST_LIST_LIMIT, marked);
	/* The entries past the limit are left as they were. */
	EXPECT_EQ((uint32_t)d.tid, rents[ROBUST_LIST_LIMIT].word);
	EXPECT_EQ((uint32_t)d.tid, rents[ROBUST_LIST_LIMIT + 1].word);
}

TEST(robust_list_leaves_words_of_others)
{
	uint32_t other = gettid();
	struct dying d = { .n = 4, .words = { other, other | FUTEX_WAITERS,
					      FUTEX_OWNER_DIED, 0 } };

	die_with(_metadata, &d);
	EXPECT_EQ(other, rents[0].word);
	EXPECT_EQ(other | FUTEX_WAITERS, rents[1].word);
	EXPECT_EQ(FUTEX_OWNER_DIED, rents[2].word);
	/* Its own word, last on the list, is marked. */
	EXPECT_EQ(FUTEX_OWNER_DIED, rents[3].word);
}

TEST(robust_list_op_pending_is_handled)
{
	struct dying d = { .n = 0, .pending = &rents[0] };

	die_with(_metadata, &d);
	/* Not on the list: the walk reaches it through list_op_pending. */
	EXPECT_EQ(FUTEX_OWNER_DIED, rents[0].word);
}

/* As dies_with_list(), with the pending entry's word as the test set it. */
static void *dies_with_pending_word(void *arg)
{
	struct dying *d = arg;

	d->tid = gettid();
	rhead.list.next = &rhead.list;
	rhead.futex_offset = offsetof(struct rentry, word);
	rhead.list_op_pending = &d->pending->l;
	syscall(SYS_set_robust_list, &rhead, sizeof(rhead));
	return NULL;
}

/* A waiter in FUTEX_WAIT (shared: the walk wakes with a shared key). */
static void *robust_waiter_fn(void *arg)
{
	struct plain *w = arg;

	STORE(w->tid, gettid());
	w->ret = futex(&rents[0].word, FUTEX_WAIT, LOAD(w->a), NULL, NULL, 0);
	STORE(w->done, 1);
	return NULL;
}

/*
 * @word: the pending entry's word when the thread dies; the walk must
 * have woken the waiter, so a FUTEX_WAKE afterwards finds nobody.
 */
static void pending_wakes_waiter(struct __test_metadata *_metadata,
				 uint32_t word, uint32_t after)
{
	struct dying d = { .n = 0, .pending = &rents[0] };
	struct plain w = { .a = word };
	pthread_t t, dt;

	memset(rents, 0, sizeof(rents));
	rents[0].word = word;
	ASSERT_EQ(0, pthread_create(&t, NULL, robust_waiter_fn, &w));
	ASSERT_TRUE(wait_asleep(&w.tid));
	ASSERT_EQ(0, pthread_create(&dt, NULL, dies_with_pending_word, &d));
	pthread_join(dt, NULL);
	EXPECT_EQ(0, futex_ret(&rents[0].word, FUTEX_WAKE, 1, 0, NULL, 0));
	if (LOAD(w.done) == 0)
		futex_ret(&rents[0].word, FUTEX_WAKE, 1, 0, NULL, 0);
	pthread_join(t, NULL);
	EXPECT_EQ(0, w.ret);
	EXPECT_EQ(after, rents[0].word);
}

TEST(robust_list_pending_free_word_wakes_waiter)
{
	/* Died after the unlock, before its wake: state A. */
	pending_wakes_waiter(_metadata, 0, 0);
}

TEST(robust_list_pending_other_owner_wakes_waiter)
{
	/* Died woken, before it took the lock: state B, left as it is. */
	pending_wakes_waiter(_metadata, 1, 1);
}

TEST_HARNESS_MAIN
