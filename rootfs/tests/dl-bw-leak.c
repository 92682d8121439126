// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer of a SCHED_DEADLINE bandwidth leak (docs/bugs.md, 6), KTAP output (kselftest.h).  Not in the runlist: it fails on 7.3.
 *
 *   dl-bw-leak asleep    a thread asleep in FUTEX_WAIT is made
 *                        SCHED_DEADLINE (5% of a CPU) by another thread
 *                        with sched_setattr(), then SCHED_OTHER again
 *                        before it wakes up.
 *   dl-bw-leak slept     made SCHED_DEADLINE while it spins, then
 *                        asleep in FUTEX_WAIT for longer than its period,
 *                        then SCHED_OTHER.
 *   dl-bw-leak running   the same two changes while it spins: the
 *                        control.
 *
 * Either way, once the thread has been SCHED_OTHER for longer than its
 * period, the deadline bandwidth allocated in the root domain must be
 * what it was before.  It is measured as the smallest
 * /proc/sys/kernel/sched_rt_runtime_us the kernel accepts:
 * sched_dl_global_validate() refuses (EBUSY) a limit below the allocated
 * total.  Run as root, with no other deadline task coming or going.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "sched-attr.h"

#define RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"
#define PERIOD_NS	(100 * 1000 * 1000ULL)

static uint32_t stop_word;
static volatile pid_t tid;
static volatile int spin;

static void *sleeper(void *arg)
{
	tid = gettid();
	while (!__atomic_load_n(&stop_word, __ATOMIC_ACQUIRE)) {
		if (!spin)
			syscall(SYS_futex, &stop_word, FUTEX_WAIT, 0, NULL,
				NULL, 0);
	}
	return NULL;
}

/* The sleeper stops spinning and blocks in FUTEX_WAIT. */
static void stop_spinning(void)
{
	spin = 0;
}

/* 0, or the errno of writing @v to sched_rt_runtime_us. */
static int write_runtime(long v)
{
	char buf[32];
	int fd, n, err = 0;

	fd = open(RT_RUNTIME, O_WRONLY);
	if (fd < 0)
		return errno;
	n = snprintf(buf, sizeof(buf), "%ld\n", v);
	if (write(fd, buf, n) != n)
		err = errno;
	close(fd);
	return err;
}

/* Allocated deadline bandwidth per CPU in us per second, to 1000 us. */
static long allocated(void)
{
	long orig, lo = 0, hi, mid;
	FILE *f = fopen(RT_RUNTIME, "r");
	int err;

	if (!f || fscanf(f, "%ld", &orig) != 1) {
		perror(RT_RUNTIME);
		exit(1);
	}
	fclose(f);
	hi = orig;
	while (hi - lo > 1000) {
		mid = (lo + hi) / 2;
		err = write_runtime(mid);
		if (!err) {
			hi = mid;
		} else if (err == EBUSY) {
			lo = mid;
		} else {
			fprintf(stderr, "%s: %ld: %s\n", RT_RUNTIME, mid,
				strerror(err));
			break;
		}
	}
	write_runtime(orig);
	return hi;
}

int main(int argc, char **argv)
{
	long before, after;
	pthread_t t;
	int e1, e2;

	if (argc != 2 || (strcmp(argv[1], "asleep") &&
			  strcmp(argv[1], "slept") &&
			  strcmp(argv[1], "running"))) {
		fprintf(stderr, "usage: dl-bw-leak asleep|slept|running\n");
		return 2;
	}
	spin = strcmp(argv[1], "asleep") != 0;
	ksft_print_header();
	ksft_set_plan(1);
	before = allocated();
	pthread_create(&t, NULL, sleeper, NULL);
	while (!tid)
		msleep(1);
	msleep(20);
	e1 = set_policy(tid, POLICY_DL, PERIOD_NS);
	msleep(20);
	if (!strcmp(argv[1], "slept")) {
		stop_spinning();
		msleep(300);
	}
	e2 = set_policy(tid, POLICY_OTHER, 0);
	ksft_print_msg("sched_setattr(%s thread): SCHED_DEADLINE %s, SCHED_OTHER %s\n",
		       argv[1], e1 ? strerror(e1) : "0", e2 ? strerror(e2) : "0");
	/* Longer than the period: its 0-lag time has passed. */
	msleep(300);
	after = allocated();
	__atomic_store_n(&stop_word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &stop_word, FUTEX_WAKE, 1, NULL, NULL, 0);
	pthread_join(t, NULL);
	ksft_print_msg("deadline bandwidth allocated per CPU: %ld us/s before, %ld after\n",
		       before, after);
	ksft_test_result(!e1 && !e2 && after == before, "%s\n", argv[1]);
	ksft_finished();
}
