// SPDX-License-Identifier: GPL-2.0
/*
 * futex-stress [seconds] [owner-exit iterations]: PI futexes under load,
 * KTAP output (kselftest.h).
 *
 * 1. Six threads (SCHED_FIFO 10..40 and two SCHED_OTHER) hammer three PI
 *    futexes with lock, trylock and timed lock (random 0-2 ms absolute
 *    CLOCK_REALTIME timeouts) and unlock, while a seventh thread sends
 *    them signals.  After every operation: the word names the caller
 *    exactly when it got the lock, unlock never fails (the stale-owner and
 *    spurious-EINVAL bug classes of commits cdf71a10c7b6 and
 *    e626cb02ee83 ("futex: Prevent the reuse of stale pi_state")),
 *    each errno is one the ABI gives that operation: ETIMEDOUT only to
 *    the timed lock, EWOULDBLOCK only to TRYLOCK_PI, and never EINTR
 *    (futex_lock_pi() turns -EINTR into -ERESTARTNOINTR, so a signal
 *    restarts the call; kernel/futex/pi.c), any other is a violation;
 *    and mutual exclusion holds (an owner slot and a counter per futex).  One
 *    acquisition in 256 sleeps 100 us in its critical section, so the
 *    contended paths run on one vCPU too.  The main
 *    thread runs at SCHED_FIFO 90 and parks the workers for 20 ms of
 *    every 100 ms (between operations, holding nothing): on one vCPU the
 *    busy FIFO workers would otherwise starve every SCHED_OTHER task,
 *    RCU's grace-period kthread included, and the main thread itself.
 * 2. Owners exiting while holding a PI futex with a waiter blocked: the
 *    waiter must get the lock with FUTEX_OWNER_DIED, N times.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "task-stat.h"

#define NWORKERS	6
#define NFUTEX		3

static uint32_t word[NFUTEX];
static int owner_slot[NFUTEX];
static long counter[NFUTEX], acquired[NFUTEX];
static int stop, parked;
static long violations, ops, timeouts, busy;
static pthread_t workers[NWORKERS];

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

static int futex(uint32_t *u, int op, const struct timespec *ts)
{
	return syscall(SYS_futex, u, op, 0, ts, NULL, 0) ? errno : 0;
}

static void violation(const char *fmt, int a, int b, int c)
{
	__atomic_add_fetch(&violations, 1, __ATOMIC_SEQ_CST);
	if (violations < 10) {
		printf("# violation: ");
		printf(fmt, a, b, c);
		printf("\n");
	}
}

static void on_signal(int sig)
{
}

static void set_prio(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	pthread_setschedparam(pthread_self(), prio ? SCHED_FIFO : SCHED_OTHER,
			      &sp);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	unsigned int seed = id * 7919 + 1;
	pid_t tid = gettid_();
	int prio[NWORKERS] = { 10, 20, 30, 40, 0, 0 };

	set_prio(prio[id]);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		int f = rand_r(&seed) % NFUTEX, kind = rand_r(&seed) % 3;
		uint32_t zero = 0, w;
		struct timespec ts;
		int ret = 0, got;

		while (__atomic_load_n(&parked, __ATOMIC_ACQUIRE) &&
		       !__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
			usleep(2000);
		if (__atomic_compare_exchange_n(&word[f], &zero, tid, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			got = 1;
		} else {
			if (kind == 0) {
				ret = futex(&word[f], FUTEX_LOCK_PI_PRIVATE, NULL);
			} else if (kind == 1) {
				ret = futex(&word[f], FUTEX_TRYLOCK_PI_PRIVATE,
					    NULL);
			} else {
				clock_gettime(CLOCK_REALTIME, &ts);
				ts.tv_nsec += rand_r(&seed) % 2000000;
				if (ts.tv_nsec >= 1000000000) {
					ts.tv_sec++;
					ts.tv_nsec -= 1000000000;
				}
				ret = futex(&word[f], FUTEX_LOCK_PI_PRIVATE, &ts);
			}
			got = ret == 0;
			if (ret == ETIMEDOUT && kind == 2)
				__atomic_add_fetch(&timeouts, 1, __ATOMIC_RELAXED);
			else if (ret == EWOULDBLOCK && kind == 1)
				__atomic_add_fetch(&busy, 1, __ATOMIC_RELAXED);
			else if (ret)
				violation("lock kind %d on futex %d: errno %d",
					  kind, f, ret);
		}
		__atomic_add_fetch(&ops, 1, __ATOMIC_RELAXED);
		w = __atomic_load_n(&word[f], __ATOMIC_ACQUIRE);
		if (got != ((w & FUTEX_TID_MASK) == (uint32_t)tid)) {
			violation("futex %d: got=%d but word names %d", f, got,
				  w & FUTEX_TID_MASK);
			if (!got)
				continue;
		}
		if (!got)
			continue;
		if (owner_slot[f])
			violation("futex %d: two owners (%d and %d)", f,
				  owner_slot[f], tid);
		owner_slot[f] = tid;
		counter[f]++;
		acquired[f]++;
		for (volatile int s = 0; s < 100; s++)
			;
		/*
		 * Now and then sleep holding the lock, so that the others
		 * contend whatever the scheduler does: on one vCPU a worker is
		 * otherwise only found holding a lock if a higher one happens
		 * to wake just then (6.12 did in every boot here, 7.3 in none).
		 */
		if (!(rand_r(&seed) % 256))
			usleep(100);
		if (owner_slot[f] != tid)
			violation("futex %d: owner slot changed under %d to %d",
				  f, tid, owner_slot[f]);
		owner_slot[f] = 0;
		counter[f]--;
		{
			uint32_t me = tid;

			if (!__atomic_compare_exchange_n(&word[f], &me, 0, false,
							 __ATOMIC_RELEASE,
							 __ATOMIC_RELAXED)) {
				ret = futex(&word[f], FUTEX_UNLOCK_PI_PRIVATE,
					    NULL);
				if (ret)
					violation("futex %d: UNLOCK_PI by owner %d: errno %d",
						  f, tid, ret);
			}
		}
	}
	return NULL;
}

static void *signaller(void *arg)
{
	unsigned int seed = 42;
	long sent = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		pthread_kill(workers[rand_r(&seed) % NWORKERS], SIGUSR1);
		sent++;
		usleep(500 + rand_r(&seed) % 1500);
	}
	return (void *)sent;
}

/* ---- owners exiting while holding the lock ---- */

static uint32_t ew;
static int ew_locked, ew_go;

static void *exiting_owner(void *arg)
{
	uint32_t zero = 0;

	if (!__atomic_compare_exchange_n(&ew, &zero, gettid_(), false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return (void *)1;
	__atomic_store_n(&ew_locked, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&ew_go, __ATOMIC_ACQUIRE))
		usleep(100);
	return NULL;	/* exits holding ew */
}

static pid_t ew_waiter;

/*
 * FUTEX_WAITERS is set before the waiter attaches to the owner, so only
 * its sleep ('S' in /proc stat) proves that the waiter is queued on the
 * owner's pi_state.  An owner that exits before that leaves a dead TID in
 * the word, and LOCK_PI then rightly fails with ESRCH (handle_exit_race()
 * in kernel/futex/pi.c).
 */
static void *exit_waiter(void *arg)
{
	int *res = arg;

	__atomic_store_n(&ew_waiter, gettid_(), __ATOMIC_RELEASE);
	res[0] = futex(&ew, FUTEX_LOCK_PI, NULL);
	res[1] = __atomic_load_n(&ew, __ATOMIC_ACQUIRE);
	res[2] = gettid_();
	if (!res[0]) {
		uint32_t me = res[2];

		if (!__atomic_compare_exchange_n(&ew, &me, 0, false,
						 __ATOMIC_RELEASE,
						 __ATOMIC_RELAXED))
			res[3] = futex(&ew, FUTEX_UNLOCK_PI, NULL);
	}
	return NULL;
}

static long owner_exits(int n)
{
	long bad = 0;
	int i;

	for (i = 0; i < n; i++) {
		int res[4] = { -1, 0, 0, 0 };
		pthread_t o, w;

		ew = 0;
		ew_locked = ew_go = 0;
		pthread_create(&o, NULL, exiting_owner, NULL);
		while (!__atomic_load_n(&ew_locked, __ATOMIC_ACQUIRE))
			usleep(100);
		ew_waiter = 0;
		pthread_create(&w, NULL, exit_waiter, res);
		while (!(__atomic_load_n(&ew, __ATOMIC_ACQUIRE) & FUTEX_WAITERS) ||
		       task_state(__atomic_load_n(&ew_waiter, __ATOMIC_ACQUIRE)) != 'S')
			usleep(100);
		__atomic_store_n(&ew_go, 1, __ATOMIC_RELEASE);
		pthread_join(o, NULL);
		pthread_join(w, NULL);
		if (res[0] || (res[1] & FUTEX_TID_MASK) != (uint32_t)res[2] ||
		    !(res[1] & FUTEX_OWNER_DIED) || res[3] || ew) {
			if (bad++ < 5)
				printf("# owner exit %d: lock %d word %#x tid %d unlock %d final %#x\n",
				       i, res[0], res[1], res[2], res[3], ew);
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 10;
	int exits = argc > 2 ? atoi(argv[2]) : 1000;
	struct sigaction sa;
	pthread_t sig;
	void *sent;
	long bad_exits, i;
	int ok1, ok2;

	/* Above the workers (10..40), so the clock of the run keeps ticking. */
	set_prio(90);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	ksft_print_header();
	ksft_set_plan(2);
	for (i = 0; i < NWORKERS; i++)
		pthread_create(&workers[i], NULL, worker, (void *)i);
	pthread_create(&sig, NULL, signaller, NULL);
	for (i = 0; i < secs * 10L; i++) {
		usleep(80000);
		__atomic_store_n(&parked, 1, __ATOMIC_RELEASE);
		usleep(20000);
		__atomic_store_n(&parked, 0, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(sig, &sent);
	/* Wake anyone still blocked in LOCK_PI without a timeout. */
	for (i = 0; i < NWORKERS; i++)
		pthread_join(workers[i], NULL);
	for (i = 0; i < NFUTEX; i++)
		if (word[i] || counter[i])
			violation("futex %d left word %#x counter %d", i,
				  word[i], counter[i]);
	ksft_print_msg("%d s: %ld operations, acquisitions %ld/%ld/%ld, %ld timeouts, %ld trylock busy, %ld signals sent, %ld violations\n",
		       secs, ops, acquired[0], acquired[1], acquired[2],
		       timeouts, busy, (long)sent, violations);
	ok1 = !violations && ops > 0 && timeouts + busy > 0;
	ksft_test_result(ok1, "pi_futex_hammer_with_timeouts_and_signals\n");

	bad_exits = owner_exits(exits);
	ksft_print_msg("%d owner exits, %ld bad hand-offs\n", exits,
		       bad_exits);
	ok2 = !bad_exits;
	ksft_test_result(ok2, "owner_exit_hands_lock_with_owner_died\n");
	ksft_print_msg("counts: %ld futex operations in %d s, %d owner exits, %ld violation(s)\n",
		       ops, secs, exits, violations + bad_exits);
	ksft_finished();
}
