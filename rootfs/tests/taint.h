/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's taint flags, for guest programs that must notice a WARN
 * (panic_on_warn is off in the boots that expect one).
 */
#ifndef PIFUTEX_TAINT_H
#define PIFUTEX_TAINT_H

#include <stdio.h>

/* include/linux/panic.h */
#define TAINT_WARN	0x200

/* The number a /proc file such as a sysctl holds, -1 if unreadable. */
static inline long proc_read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* /proc/sys/kernel/tainted, -1 if unreadable. */
static inline long taint_flags(void)
{
	return proc_read_long("/proc/sys/kernel/tainted");
}

#endif
