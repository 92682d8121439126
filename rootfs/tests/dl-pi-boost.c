// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducers of two SCHED_DEADLINE + PI futex bugs (docs/bugs.md, 4
 * and 5), KTAP output (kselftest.h).  Not in the runlist:
 * both fail on the pinned kernels, and the second WARNs (a panic with
 * panic_on_warn).
 *
 *   dl-pi-boost setprio    a SCHED_FIFO 10 owner of a PI futex, boosted
 *                          to SCHED_DEADLINE by a deadline waiter, is
 *                          given SCHED_FIFO 30 with sched_setattr(): must
 *                          succeed (the pinned kernels say EBUSY).
 *   dl-pi-boost dlsleeper  the same owner, asleep, is made SCHED_DEADLINE
 *                          itself, then woken to unlock: the kernel log
 *                          must stay clean (the pinned kernels WARN in
 *                          add_running_bw(): running_bw > this_bw).
 *
 * With a second argument "fifo" the waiter is SCHED_FIFO 50 instead: the
 * control, which passes.  The owner sleeps in FUTEX_WAIT on a second word
 * while boosted, so that the change finds it off the runqueue.  Run as
 * root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "taint.h"
#include "kselftest.h"
#include "sched-attr.h"
#include "task-stat.h"

static uint32_t lock_word, go_word;
static volatile pid_t owner_tid, waiter_tid;
static volatile int owner_locked;
static int fifo_donor;

static long futex(uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void *owner(void *arg)
{
	owner_tid = gettid();
	if (futex(&lock_word, FUTEX_LOCK_PI, 0))
		perror("owner: FUTEX_LOCK_PI");
	owner_locked = 1;
	/* Asleep, off the runqueue, until main says go. */
	while (!__atomic_load_n(&go_word, __ATOMIC_ACQUIRE))
		futex(&go_word, FUTEX_WAIT, 0);
	if (futex(&lock_word, FUTEX_UNLOCK_PI, 0))
		perror("owner: FUTEX_UNLOCK_PI");
	return NULL;
}

static void *waiter(void *arg)
{
	waiter_tid = gettid();
	if (fifo_donor ? set_policy(0, POLICY_FIFO, 50) :
			 set_policy(0, POLICY_DL, 10 * 1000 * 1000))
		perror("waiter: sched_setattr");
	if (futex(&lock_word, FUTEX_LOCK_PI, 0))
		perror("waiter: FUTEX_LOCK_PI");
	futex(&lock_word, FUTEX_UNLOCK_PI, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t pa;
	struct sched_param sp = { .sched_priority = 10 };
	pthread_t o, w;
	int i, prio = 0, err, ok;
	long taint0;
	int want;

	if (argc < 2 || argc > 3 || (strcmp(argv[1], "setprio") &&
				     strcmp(argv[1], "dlsleeper")) ||
	    (argc == 3 && strcmp(argv[2], "fifo"))) {
		fprintf(stderr, "usage: dl-pi-boost setprio|dlsleeper [fifo]\n");
		return 2;
	}
	fifo_donor = argc == 3;
	/* Field 18: -1 - rt_priority for SCHED_FIFO, -101 for deadline. */
	want = fifo_donor ? -51 : -101;
	ksft_print_header();
	ksft_set_plan(1);
	taint0 = taint_flags();
	pthread_attr_init(&pa);
	pthread_attr_setinheritsched(&pa, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&pa, SCHED_FIFO);
	pthread_attr_setschedparam(&pa, &sp);
	if (pthread_create(&o, &pa, owner, NULL)) {
		ksft_print_msg("cannot start a SCHED_FIFO owner\n");
		ksft_test_result_fail("%s\n", argv[1]);
		ksft_finished();
	}
	while (!owner_locked)
		msleep(1);
	pthread_create(&w, NULL, waiter, NULL);
	for (i = 0; i < 2000 && prio != want; i++) {
		msleep(1);
		prio = waiter_tid ? task_prio(owner_tid) : 0;
	}
	printf("# owner prio (stat field 18) %d with the %s waiter queued\n",
	       prio, fifo_donor ? "SCHED_FIFO 50" : "deadline");
	if (prio != want) {
		ksft_print_msg("owner not boosted to %d\n", want);
		ksft_test_result_fail("%s\n", argv[1]);
		ksft_finished();
	}
	if (!strcmp(argv[1], "setprio")) {
		err = set_policy(owner_tid, POLICY_FIFO, 30);
		printf("# sched_setattr(owner, SCHED_FIFO 30): %s\n",
		       err ? strerror(err) : "0");
		ok = !err;
	} else {
		err = set_policy(owner_tid, POLICY_DL, 100 * 1000 * 1000);
		printf("# sched_setattr(owner, SCHED_DEADLINE 100 ms): %s\n",
		       err ? strerror(err) : "0");
		ok = !err;
	}
	__atomic_store_n(&go_word, 1, __ATOMIC_RELEASE);
	futex(&go_word, FUTEX_WAKE, 1);
	pthread_join(o, NULL);
	pthread_join(w, NULL);
	if (taint_flags() != taint0) {
		printf("# /proc/sys/kernel/tainted %ld -> %ld: the kernel WARNed\n",
		       taint0, taint_flags());
		ok = 0;
	}
	ksft_test_result(ok, "%s\n", argv[1]);
	ksft_finished();
}
