// SPDX-License-Identifier: GPL-2.0
/*
 * Set the scheduling policy of another task with sched_setattr(2), for
 * guest scripts (Python's os module has no SCHED_DEADLINE):
 *
 *   sched-setattr PID other NICE
 *   sched-setattr PID fifo PRIO
 *   sched-setattr PID deadline PERIOD_US
 *
 * "deadline" uses the rt-mutex tester's parameters for its scheddl
 * opcode: relative deadline = period, runtime a twentieth of the period.
 * Exit 0 on success, 1 with the errno on stderr if the kernel refused,
 * 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sched-attr.h"

static long number(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "sched-setattr: bad %s '%s' (%ld..%ld)\n",
			what, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	int policy, err;
	long pid, v;

	if (argc != 4) {
		fprintf(stderr, "usage: sched-setattr PID other NICE|fifo PRIO|deadline PERIOD_US\n");
		return 2;
	}
	pid = number(argv[1], 1, INT32_MAX, "pid");
	if (!strcmp(argv[2], "other")) {
		policy = POLICY_OTHER;
		v = number(argv[3], -20, 19, "nice value");
	} else if (!strcmp(argv[2], "fifo")) {
		policy = POLICY_FIFO;
		v = number(argv[3], 1, 99, "priority");
	} else if (!strcmp(argv[2], "deadline")) {
		policy = POLICY_DL;
		v = number(argv[3], 1000, 1000000, "period (us)") * 1000;
	} else {
		fprintf(stderr, "sched-setattr: unknown policy '%s'\n", argv[2]);
		return 2;
	}
	err = set_policy((pid_t)pid, policy, (uint64_t)v);
	if (err) {
		fprintf(stderr, "sched-setattr: %ld %s: %s\n", pid, argv[2],
			strerror(err));
		return 1;
	}
	return 0;
}
