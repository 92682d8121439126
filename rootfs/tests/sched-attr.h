/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_setattr(2) for the guest programs (Debian 12's glibc has no
 * wrapper) and a millisecond sleep.
 */
#ifndef PIFUTEX_SCHED_ATTR_H
#define PIFUTEX_SCHED_ATTR_H

#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define POLICY_OTHER	0
#define POLICY_FIFO	1
#define POLICY_DL	6
/* Deadline runtime: a twentieth of the period, as the tester's scheddl. */
#define DL_SHARE	20

/* include/uapi/linux/sched/types.h, first version (48 bytes). */
struct sched_attr_v1 {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

/*
 * Give @tid (0: the caller) @policy: @value is the nice value of
 * POLICY_OTHER, the priority of POLICY_FIFO, the period in ns (also the
 * relative deadline) of POLICY_DL.  0, or the errno.
 */
static inline int set_policy(pid_t tid, int policy, uint64_t value)
{
	struct sched_attr_v1 a = { .size = sizeof(a), .sched_policy = policy };

	if (policy == POLICY_DL) {
		a.sched_period = value;
		a.sched_deadline = value;
		a.sched_runtime = value / DL_SHARE;
	} else if (policy == POLICY_FIFO) {
		a.sched_priority = value;
	} else {
		a.sched_nice = (int32_t)value;
	}
	return syscall(SYS_sched_setattr, tid, &a, 0) ? errno : 0;
}

static inline void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

#endif
