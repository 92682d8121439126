// SPDX-License-Identifier: GPL-2.0
/*
 * What the scheduler does around PI futexes, where upstream fixed it:
 * the order in which tasks run on one CPU after a deboost or a
 * sched_setscheduler() of a boosted task, deadline inheritance through
 * a chain and across a policy change, and a waiter that finds the owner
 * exiting.  The tests/inject/ entry each case is for is named above it.
 *
 * The run-order cases put every thread of the test on CPU 0 with
 * SCHED_FIFO priorities, the controlling thread highest, so that the
 * order is the scheduler's choice alone: each thread appends a letter to
 * a log when it gets the CPU, and the case compares the log.  A case
 * that needs SCHED_FIFO or SCHED_DEADLINE SKIPs without CAP_SYS_NICE.
 * The run-order and exit cases need a preemptible kernel (CONFIG_PREEMPT
 * or PREEMPT_RT): without one the wakeups they rely on do not preempt.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sched-attr.h"
#include "taint.h"
#include "task-stat.h"

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

/* /proc's priority of a SCHED_FIFO @p task and of a deadline task. */
#define FIFO_STAT_PRIO(p)	(-1 - (p))
#define DL_STAT_PRIO		(-101)

static long futex(uint32_t *uaddr, int op, uint32_t val, uint32_t *uaddr2)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, uaddr2, 0) < 0 ?
	       errno : 0;
}

/* The shared state of one case. */
struct scene {
	uint32_t lock, lock2, go, go2;
	pid_t tid[4];
	int ret[4];
	char log[8];
	int len;
};

static void mark(struct scene *s, char c)
{
	s->log[__atomic_fetch_add(&s->len, 1, __ATOMIC_ACQ_REL)] = c;
}

static void wait_go(uint32_t *go)
{
	while (!LOAD(*go))
		futex(go, FUTEX_WAIT, 0, NULL);
}

static void wake_go(uint32_t *go)
{
	STORE(*go, 1);
	futex(go, FUTEX_WAKE, 1, NULL);
}

/* Wait until thread @i of @s has told its TID and sleeps. */
static int asleep(struct scene *s, int i)
{
	int n;

	for (n = 0; n < 5000; n++) {
		if (LOAD(s->tid[i]) && task_state(LOAD(s->tid[i])) == 'S')
			return 1;
		msleep(1);
	}
	return 0;
}

/*
 * Start @fn with @policy and @prio (as set_policy()) from its first
 * instruction: glibc applies the attributes before the thread runs.
 */
static int spawn(pthread_t *t, void *(*fn)(void *), void *arg, int policy,
		 int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	pthread_attr_t a;
	int ret;

	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, policy == POLICY_FIFO ?
				    SCHED_FIFO : SCHED_OTHER);
	pthread_attr_setschedparam(&a, &sp);
	ret = pthread_create(t, &a, fn, arg);
	pthread_attr_destroy(&a);
	return ret;
}

/*
 * Put the caller on CPU 0 at SCHED_FIFO @prio.  Returns a reason to
 * skip, or NULL.
 */
static const char *one_cpu_fifo(int prio)
{
	struct utsname u;
	cpu_set_t cpus;

	uname(&u);
	if (!strstr(u.version, "PREEMPT ") && !strstr(u.version, "PREEMPT_RT"))
		return "needs a preemptible kernel (CONFIG_PREEMPT)";
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		return "cannot run on CPU 0";
	if (set_policy(0, POLICY_FIFO, prio))
		return "needs SCHED_FIFO (CAP_SYS_NICE)";
	return NULL;
}

/* Holds lock, sleeps until go, marks 'L' when it runs, unlocks. */
static void *holder_marks_first_fn(void *arg)
{
	struct scene *s = arg;

	futex(&s->lock, FUTEX_LOCK_PI, 0, NULL);
	STORE(s->tid[0], gettid());
	wait_go(&s->go);
	mark(s, 'L');
	futex(&s->lock, FUTEX_UNLOCK_PI, 0, NULL);
	return NULL;
}

/* Holds lock, sleeps until go, unlocks, marks 'L' when back. */
static void *holder_marks_after_unlock_fn(void *arg)
{
	struct scene *s = arg;

	futex(&s->lock, FUTEX_LOCK_PI, 0, NULL);
	STORE(s->tid[0], gettid());
	wait_go(&s->go);
	futex(&s->lock, FUTEX_UNLOCK_PI, 0, NULL);
	mark(s, 'L');
	return NULL;
}

/* The PI waiter: marks 'H' when it has the lock. */
static void *waiter_fn(void *arg)
{
	struct scene *s = arg;

	STORE(s->tid[1], gettid());
	s->ret[1] = futex(&s->lock, FUTEX_LOCK_PI, 0, NULL);
	mark(s, 'H');
	if (!s->ret[1])
		futex(&s->lock, FUTEX_UNLOCK_PI, 0, NULL);
	return NULL;
}

/*
 * A task that only wants the CPU: sleeps until go2, marks 'M'.  Woken,
 * it is queued at the tail of its priority's list.  (Started by
 * pthread_create() with explicit attributes it would be queued at the
 * head: glibc lowers it from its creator's priority before it runs.)
 */
static void *runner_fn(void *arg)
{
	struct scene *s = arg;

	STORE(s->tid[2], gettid());
	wait_go(&s->go2);
	mark(s, 'M');
	return NULL;
}

/*
 * L (FIFO 10) holds the lock and sleeps; H (FIFO @h) blocks on it and
 * boosts L to @h.  Returns with L, H started and L's boost checked.
 */
static void boosted_holder(struct __test_metadata *_metadata,
			   struct scene *s, pthread_t *l, pthread_t *h,
			   void *(*holder)(void *), int hprio)
{
	ASSERT_EQ(0, spawn(l, holder, s, POLICY_FIFO, 10));
	ASSERT_TRUE(asleep(s, 0));
	ASSERT_EQ(0, spawn(h, waiter_fn, s, POLICY_FIFO, hprio));
	ASSERT_TRUE(asleep(s, 1));
	ASSERT_EQ(FIFO_STAT_PRIO(hprio), task_prio(s->tid[0]));
}

/*
 * L (FIFO 10) holds the lock, H (FIFO @hprio) waits for it, M (FIFO
 * @mprio) waits for the CPU; the controlling thread runs at @ctl.  L
 * unlocks; @s->log says in which order H, L and M then ran.  Returns 0
 * when the case is skipped.
 */
static int unlock_with_runner(struct __test_metadata *_metadata,
			      struct scene *s, int ctl, int hprio, int mprio)
{
	pthread_t l, h, m;
	const char *why = one_cpu_fifo(ctl);

	if (why)
		SKIP(return 0, "%s", why);
	ASSERT_EQ(0, spawn(&m, runner_fn, s, POLICY_FIFO, mprio));
	ASSERT_TRUE(asleep(s, 2));
	boosted_holder(_metadata, s, &l, &h, holder_marks_after_unlock_fn, hprio);
	wake_go(&s->go2);
	wake_go(&s->go);
	pthread_join(l, NULL);
	pthread_join(h, NULL);
	pthread_join(m, NULL);
	EXPECT_EQ(0, s->ret[1]);
	return 1;
}

/*
 * deboost-enqueues-at-tail: L, boosted from FIFO 10 to 20 by H, unlocks
 * while M (FIFO 10) waits for the CPU.  H runs first; then L, deboosted
 * to 10, goes before M: a task whose priority drops is queued at the
 * head of its new priority's list (rt_mutex_setprio(), ENQUEUE_HEAD).
 */
TEST(deboosted_holder_runs_before_equal_task)
{
	struct scene s = { 0 };

	if (unlock_with_runner(_metadata, &s, 30, 20, 10))
		EXPECT_STREQ("HLM", s.log);
}

/*
 * setscheduler-moves-unchanged-boosted-task: L, boosted to 20 and
 * runnable, with X (FIFO 20) queued behind it, is given FIFO 5.  Its
 * effective priority stays 20, so it keeps its place and runs before X
 * (__sched_setscheduler() drops DEQUEUE_MOVE).
 */
TEST(setscheduler_keeps_boosted_holder_in_place)
{
	struct scene s = { 0 };
	pthread_t l, h, x;
	const char *why = one_cpu_fifo(30);

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, spawn(&x, runner_fn, &s, POLICY_FIFO, 20));
	ASSERT_TRUE(asleep(&s, 2));
	boosted_holder(_metadata, &s, &l, &h, holder_marks_first_fn, 20);
	wake_go(&s.go);
	wake_go(&s.go2);
	ASSERT_EQ(0, set_policy(s.tid[0], POLICY_FIFO, 5));
	ASSERT_EQ(FIFO_STAT_PRIO(20), task_prio(s.tid[0]));
	pthread_join(l, NULL);
	pthread_join(h, NULL);
	pthread_join(x, NULL);
	EXPECT_EQ(0, s.ret[1]);
	/* X (it marks 'M') and H, both at 20, run after L. */
	EXPECT_EQ('L', s.log[0]);
}

/*
 * deboost-preemptible-before-wakeup: L, boosted from 10 to 30 by H,
 * unlocks while M (FIFO 20) waits for the CPU.  The deboost and the
 * wakeup of H are one step for the scheduler (preemption is off from
 * mark_wakeup_next_waiter() to rt_mutex_wake_up_q()): H runs before M.
 */
TEST(unlock_wakes_waiter_before_middle_task)
{
	struct scene s = { 0 };

	if (unlock_with_runner(_metadata, &s, 40, 30, 20))
		EXPECT_STREQ("HML", s.log);
}

/*
 * Exit case.  O owns the PI futex lock by its TID in the word (no
 * kernel state) and a robust futex whose FUTEX_WAITERS bit is set; W
 * waits on the robust futex.  O's exit wakes W from its robust list
 * walk, before it is done with its futex state.
 */
static struct robust_list_head exit_head;
static struct robust_entry {
	struct robust_list entry;
	uint32_t word;
} exit_robust;

static void *exiting_owner_fn(void *arg)
{
	struct scene *s = arg;
	pid_t tid = gettid();

	STORE(s->lock, tid);
	exit_robust.word = tid | FUTEX_WAITERS;
	exit_robust.entry.next = &exit_head.list;
	exit_head.list.next = &exit_robust.entry;
	exit_head.futex_offset = offsetof(struct robust_entry, word);
	exit_head.list_op_pending = NULL;
	syscall(SYS_set_robust_list, &exit_head, sizeof(exit_head));
	STORE(s->tid[0], tid);
	wait_go(&s->go);
	return NULL;
}

static long nvcsw_self(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

static long exit_nvcsw;

static void *waits_for_exit_fn(void *arg)
{
	struct scene *s = arg;
	uint32_t v = LOAD(exit_robust.word);
	long before;

	STORE(s->tid[1], gettid());
	/* A shared futex op: the robust walk wakes with a shared key. */
	while (!(v & FUTEX_OWNER_DIED)) {
		futex(&exit_robust.word, FUTEX_WAIT, v, NULL);
		v = LOAD(exit_robust.word);
	}
	before = nvcsw_self();
	s->ret[1] = futex(&s->lock, FUTEX_LOCK_PI, 0, NULL);
	exit_nvcsw = nvcsw_self() - before;
	return NULL;
}

/*
 * exit-livelock: W (FIFO 20) calls FUTEX_LOCK_PI on O's futex while O
 * (SCHED_OTHER, same CPU) is in the middle of its exit.  W must sleep
 * until O's exit is done (wait_for_owner_exiting()) and then get ESRCH,
 * the owner being dead.  Retrying at once instead, W would keep the CPU
 * from O: it would never sleep in the call, and spin until the fair
 * server gives O the CPU.
 */
TEST(lock_pi_waits_for_exiting_owner)
{
	struct scene s = { 0 };
	pthread_t o, w;
	const char *why = one_cpu_fifo(30);

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, spawn(&o, exiting_owner_fn, &s, POLICY_OTHER, 0));
	ASSERT_TRUE(asleep(&s, 0));
	ASSERT_EQ(0, spawn(&w, waits_for_exit_fn, &s, POLICY_FIFO, 20));
	ASSERT_TRUE(asleep(&s, 1));
	wake_go(&s.go);
	pthread_join(w, NULL);
	pthread_join(o, NULL);
	EXPECT_EQ(ESRCH, s.ret[1]);
	EXPECT_LE(1, exit_nvcsw)
		TH_LOG("FUTEX_LOCK_PI never slept while the owner exited");
}

/* Deadline cases: the owner of lock2 and of lock, and the donors. */
static void *holds_then_sleeps_fn(void *arg)
{
	struct scene *s = arg;

	futex(&s->lock2, FUTEX_LOCK_PI, 0, NULL);
	STORE(s->tid[0], gettid());
	wait_go(&s->go);
	futex(&s->lock2, FUTEX_UNLOCK_PI, 0, NULL);
	return NULL;
}

/* Holds lock, then blocks on lock2 (held by thread 0). */
static void *holds_and_waits_fn(void *arg)
{
	struct scene *s = arg;

	futex(&s->lock, FUTEX_LOCK_PI, 0, NULL);
	STORE(s->tid[2], gettid());
	s->ret[2] = futex(&s->lock2, FUTEX_LOCK_PI, 0, NULL);
	if (!s->ret[2])
		futex(&s->lock2, FUTEX_UNLOCK_PI, 0, NULL);
	futex(&s->lock, FUTEX_UNLOCK_PI, 0, NULL);
	return NULL;
}

/* A SCHED_DEADLINE task with period @ns blocking on @lock. */
struct donor {
	struct scene *s;
	uint32_t *lock;
	uint64_t period_ns;
};

static void *deadline_waiter_fn(void *arg)
{
	struct donor *d = arg;
	struct scene *s = d->s;

	s->ret[3] = set_policy(0, POLICY_DL, d->period_ns);
	STORE(s->tid[3], gettid());
	if (s->ret[3])
		return NULL;
	s->ret[3] = futex(d->lock, FUTEX_LOCK_PI, 0, NULL);
	if (!s->ret[3])
		futex(d->lock, FUTEX_UNLOCK_PI, 0, NULL);
	return NULL;
}

static void *try_deadline_fn(void *arg)
{
	*(int *)arg = set_policy(0, POLICY_DL, 100000000);
	return NULL;
}

/*
 * Whether SCHED_DEADLINE is allowed, tried in a thread of its own: the
 * threads a task creates copy its deadline entity's runtime and
 * absolute deadline, so a caller that was a deadline task a moment ago
 * would hand its threads a budget their boost then runs on.
 */
static int can_deadline(void)
{
	int ret = -1;
	pthread_t t;

	if (pthread_create(&t, NULL, try_deadline_fn, &ret))
		return 0;
	pthread_join(t, NULL);
	return !ret;
}

/*
 * dl-pi-se-not-propagated: D (SCHED_DEADLINE) blocks on lock, held by
 * B (SCHED_OTHER), which waits for lock2, held by A (SCHED_OTHER,
 * asleep).  Both are boosted into the deadline class, and A must get
 * D's parameters (pi_se), not B's own, empty ones: with B's, A's next
 * replenishment WARNs (zero runtime, replenish_dl_entity()) and loops.
 */
TEST(deadline_boost_through_fair_owner)
{
	struct scene s = { 0 };
	struct donor d = { &s, &s.lock, 100000000 };
	long taint = taint_flags();
	pthread_t a, b, dt;

	if (!can_deadline())
		SKIP(return, "needs SCHED_DEADLINE (CAP_SYS_NICE)");
	if (taint < 0 || (taint & TAINT_WARN))
		SKIP(return, "TAINT_WARN set already, or unreadable");
	ASSERT_EQ(0, pthread_create(&a, NULL, holds_then_sleeps_fn, &s));
	ASSERT_TRUE(asleep(&s, 0));
	ASSERT_EQ(0, pthread_create(&b, NULL, holds_and_waits_fn, &s));
	ASSERT_TRUE(asleep(&s, 2));
	ASSERT_EQ(0, pthread_create(&dt, NULL, deadline_waiter_fn, &d));
	ASSERT_TRUE(asleep(&s, 3));
	ASSERT_EQ(0, s.ret[3]);
	EXPECT_EQ(DL_STAT_PRIO, task_prio(s.tid[2]));
	EXPECT_EQ(DL_STAT_PRIO, task_prio(s.tid[0]));
	/* A wakes boosted: its replenishment uses the inherited runtime. */
	wake_go(&s.go);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_join(dt, NULL);
	EXPECT_EQ(0, s.ret[2]);
	EXPECT_EQ(0, s.ret[3]);
	EXPECT_EQ(0, taint_flags() & TAINT_WARN);
}

/* A SCHED_DEADLINE holder of lock (period 50 ms) that sleeps. */
static void *deadline_holder_fn(void *arg)
{
	struct scene *s = arg;

	s->ret[0] = set_policy(0, POLICY_DL, 50000000);
	if (!s->ret[0])
		futex(&s->lock, FUTEX_LOCK_PI, 0, NULL);
	STORE(s->tid[0], gettid());
	if (s->ret[0])
		return NULL;
	wait_go(&s->go);
	mark(s, 'L');
	futex(&s->lock, FUTEX_UNLOCK_PI, 0, NULL);
	return NULL;
}

/*
 * dl-deboost-without-replenish: L, SCHED_DEADLINE, holds the lock and
 * sleeps; D, SCHED_DEADLINE with a later deadline, blocks on it, so L
 * is not boosted.  L is made SCHED_FIFO: D's deadline is then L's
 * effective priority, and L must inherit D's parameters with the
 * change.  Without them L's wakeup does not enqueue it
 * (enqueue_task_dl(): "REPLENISH flag missing"): L never runs again,
 * and the harness ends the case at its timeout.
 */
TEST(setscheduler_of_deadline_holder_with_deadline_waiter)
{
	struct scene s = { 0 };
	struct donor d = { &s, &s.lock, 1000000000 };
	pthread_t l, dt;

	if (!can_deadline())
		SKIP(return, "needs SCHED_DEADLINE (CAP_SYS_NICE)");
	ASSERT_EQ(0, pthread_create(&l, NULL, deadline_holder_fn, &s));
	ASSERT_TRUE(asleep(&s, 0));
	ASSERT_EQ(0, s.ret[0]);
	ASSERT_EQ(0, pthread_create(&dt, NULL, deadline_waiter_fn, &d));
	ASSERT_TRUE(asleep(&s, 3));
	ASSERT_EQ(0, s.ret[3]);
	ASSERT_EQ(0, set_policy(s.tid[0], POLICY_FIFO, 10));
	EXPECT_EQ(DL_STAT_PRIO, task_prio(s.tid[0]));
	TH_LOG("holder is SCHED_FIFO now; waking it");
	wake_go(&s.go);
	pthread_join(l, NULL);
	pthread_join(dt, NULL);
	EXPECT_STREQ("L", s.log);
	EXPECT_EQ(0, s.ret[3]);
}

TEST_HARNESS_MAIN
