/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/self/task/<tid>/stat readers shared by the guest test programs.
 * The fields after the command name are split on spaces: field 3 is the
 * state, field 18 the priority.
 */
#ifndef PIFUTEX_TASK_STAT_H
#define PIFUTEX_TASK_STAT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* The stat line from the ')' closing the command name on, or NULL. */
static inline char *task_stat(pid_t tid, char *buf, size_t len)
{
	char path[64];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strrchr(buf, ')');
}

/* State letter of thread @tid ('S' sleeping, 'R' running), '?' if gone. */
static inline char task_state(pid_t tid)
{
	char buf[512], *p = task_stat(tid, buf, sizeof(buf));

	return p ? p[2] : '?';
}

/* Priority of thread @tid as /proc shows it, -1000 if gone. */
static inline int task_prio(pid_t tid)
{
	char buf[512], *p = task_stat(tid, buf, sizeof(buf));
	int i;

	for (i = 2; p && i < 18; i++)
		p = strchr(p + 1, ' ');
	return p ? atoi(p + 1) : -1000;
}

#endif
