// SPDX-License-Identifier: GPL-2.0
/*
 * bad-input [calls] [seconds]: throw malformed input at the rt-mutex
 * tester's sysfs files and at the futex syscall, KTAP output (kselftest.h).
 *
 * sysfs: random bytes, overlong and huge writes, opcodes and data in and
 * out of range, from four processes at once (so commands also reach busy
 * threads).  Every write must succeed or fail with EINVAL or EBUSY; the
 * tester is brought back to idle afterwards.  A kernel without the
 * tester (no /sys/devices/system/rttest) skips the sysfs part.
 * futex: random ops and flags on PI-style words (0, own TID, a live TID,
 * a dead TID, random, with WAITERS/OWNER_DIED bits) in read-write,
 * read-only, unmapped, file-backed shared and anonymous shared memory,
 * uaddr2 == uaddr for the requeue ops, always with a timeout in the past
 * so nothing blocks.  Every call must succeed or return an errno
 * documented for futex(2).  The host checks the kernel log stays clean.
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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"

#define SYSFS "/sys/devices/system/rttest"

static long sysfs_writes, futex_calls, futex_bad;

static int write_cmd(int t, const char *buf, size_t len)
{
	char path[64];
	int fd, err = 0;

	snprintf(path, sizeof(path), SYSFS "/rttest%d/command", t);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	if (write(fd, buf, len) < 0)
		err = errno;
	close(fd);
	return err;
}

static int sysfs_worker(unsigned int seed, long n)
{
	static char big[1 << 20];
	long i, bad = 0;

	memset(big, '7', sizeof(big));
	for (i = 0; i < n; i++) {
		char buf[80];
		size_t len;
		int t = rand_r(&seed) % 8, kind = rand_r(&seed) % 4, err;

		if (kind == 0) {
			/* random bytes */
			len = rand_r(&seed) % 64 + 1;
			for (size_t j = 0; j < len; j++)
				buf[j] = rand_r(&seed);
			err = write_cmd(t, buf, len);
		} else if (kind == 1) {
			/* in and out of range opcodes and data */
			len = snprintf(buf, sizeof(buf), "%d:%d\n",
				       rand_r(&seed) % 130 - 10,
				       rand_r(&seed) % 40 - 20);
			err = write_cmd(t, buf, len);
		} else if (kind == 2) {
			/* plausible commands, so that threads get busy */
			static const int ops[] = { 3, 4, 5, 6, 7, 8, 11, 12, 13, 14 };

			len = snprintf(buf, sizeof(buf), "%d:%d",
				       ops[rand_r(&seed) % 10],
				       rand_r(&seed) % 8);
			err = write_cmd(t, buf, len);
		} else {
			/* overlong and huge */
			len = rand_r(&seed) % 2 ? 32 + rand_r(&seed) % 200 :
			      sizeof(big);
			err = write_cmd(t, big, len);
		}
		if (err && err != EINVAL && err != EBUSY) {
			if (bad++ < 5)
				printf("# sysfs write kind %d to rttest%d: errno %d\n",
				       kind, t, err);
		}
	}
	return bad ? 1 : 0;
}

/* Bring the tester back: signal, lockcont and reset until all idle. */
static int tester_idle(void)
{
	int round, t;

	for (round = 0; round < 400; round++) {
		int all = 1;

		for (t = 0; t < 8; t++) {
			char path[64], st[256], *m;
			int fd, n, op, i;

			snprintf(path, sizeof(path), SYSFS "/rttest%d/status", t);
			fd = open(path, O_RDONLY);
			n = fd < 0 ? -1 : read(fd, st, sizeof(st) - 1);
			if (fd >= 0)
				close(fd);
			if (n <= 0)
				return 0;
			st[n] = 0;
			op = atoi(st + 3);
			m = strstr(st, "M: ");
			if (op > 0) {
				all = 0;
				write_cmd(t, "11:0", 4);
				for (i = 0; m && i < 8; i++) {
					if (m[3 + i] >= '1' && m[3 + i] <= '3') {
						char c[8];

						snprintf(c, sizeof(c), "7:%d", 7 - i);
						write_cmd(t, c, strlen(c));
					}
				}
			} else if (m && strncmp(m + 3, "00000000", 8)) {
				all = 0;
				write_cmd(t, "99:0", 4);
			}
		}
		if (all)
			return 1;
		usleep(20000);
	}
	return 0;
}

/* ---- futex ---- */

static pid_t live_tid;
static int live_stop;

static void *live_fn(void *a)
{
	live_tid = syscall(SYS_gettid);
	while (!__atomic_load_n(&live_stop, __ATOMIC_ACQUIRE))
		usleep(1000);
	return NULL;
}

static int documented(int err)
{
	switch (err) {
	case 0: case EINVAL: case EFAULT: case EAGAIN: case ETIMEDOUT:
	case EDEADLK: case EPERM: case ESRCH: case ENOSYS: case EINTR:
	case EBUSY: case ENOMEM:
		return 1;
	}
	return 0;
}

static int futex_campaign(long n, int secs)
{
	static const int flags[] = { 0, FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME,
				     FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME };
	struct timespec past = { 0, 1000 };	/* absolute: long past */
	uint32_t *area[5];
	unsigned int seed = 4242;
	time_t end = time(NULL) + secs;
	pthread_t live;
	pid_t dead, me = syscall(SYS_gettid);
	long i, bad = 0;
	int fd;

	pthread_create(&live, NULL, live_fn, NULL);
	while (!__atomic_load_n(&live_tid, __ATOMIC_ACQUIRE))
		usleep(100);
	dead = fork();
	if (!dead)
		_exit(0);
	waitpid(dead, NULL, 0);

	area[0] = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	area[1] = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	area[2] = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	fd = open("/tmp/bad-input.map", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 4096))
		return 1;
	area[3] = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	area[4] = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(area[4], 4096);		/* unmapped */

	for (i = 0; i < n && time(NULL) < end; i++) {
		static const uint32_t bits[] = { 0, FUTEX_WAITERS, FUTEX_OWNER_DIED,
						 FUTEX_WAITERS | FUTEX_OWNER_DIED };
		int a = rand_r(&seed) % 5, op, w = rand_r(&seed) % 16;
		uint32_t *u = area[a] + w, *u2, v;
		long ret;
		int err;

		/* A PI-style word: 0, us, a live TID, a dead TID or noise. */
		switch (rand_r(&seed) % 5) {
		case 0: v = 0; break;
		case 1: v = me; break;
		case 2: v = live_tid; break;
		case 3: v = dead; break;
		default: v = rand_r(&seed); break;
		}
		v |= bits[rand_r(&seed) % 4];
		if (a != 1 && a != 4)
			u[0] = v;
		else if (a == 1) {
			mprotect(area[1], 4096, PROT_READ | PROT_WRITE);
			u[0] = v;
			mprotect(area[1], 4096, PROT_READ);
		}
		op = (rand_r(&seed) % 14) | flags[rand_r(&seed) % 4];
		u2 = rand_r(&seed) % 2 ? u : area[rand_r(&seed) % 5] +
					     rand_r(&seed) % 16;
		ret = syscall(SYS_futex, u, op, rand_r(&seed) % 3 ? v : rand_r(&seed),
			      &past, u2, rand_r(&seed) % 3 ? 0 : rand_r(&seed));
		err = ret < 0 ? errno : 0;
		futex_calls++;
		if (!documented(err)) {
			if (bad++ < 5)
				printf("# futex op %#x on area %d word %#x: errno %d\n",
				       op, a, v, err);
		}
		/* Whatever we may own now, let it go. */
		if (a != 1 && a != 4 && (u[0] & FUTEX_TID_MASK) == (uint32_t)me)
			syscall(SYS_futex, u, FUTEX_UNLOCK_PI | (op & FUTEX_PRIVATE_FLAG),
				0, NULL, NULL, 0);
	}
	__atomic_store_n(&live_stop, 1, __ATOMIC_RELEASE);
	pthread_join(live, NULL);
	futex_bad = bad;
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 20000;
	int secs = argc > 2 ? atoi(argv[2]) : 60;
	int i, st, fails = 0, ok1, ok2, ok3;
	pid_t pids[4];

	ksft_print_header();
	ksft_set_plan(3);
	if (access(SYSFS, F_OK)) {
		/* A kernel without the series (make run TREE_TESTS_ONLY=1). */
		ksft_test_result_skip("sysfs_writes_einval_or_ebusy: no rt-mutex tester (%s)\n",
				      SYSFS);
		ksft_test_result_skip("tester_back_to_idle: no rt-mutex tester\n");
		goto futex;
	}
	for (i = 0; i < 4; i++) {
		pids[i] = fork();
		if (!pids[i])
			_exit(sysfs_worker(1000 + i, calls / 8));
	}
	for (i = 0; i < 4; i++) {
		waitpid(pids[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			fails++;
	}
	sysfs_writes = 4 * (calls / 8);
	ok1 = !fails;
	ksft_print_msg("%ld sysfs writes from 4 processes, %d process(es) saw an undocumented errno\n",
		       sysfs_writes, fails);
	ksft_test_result(ok1, "sysfs_writes_einval_or_ebusy\n");
	ok2 = tester_idle();
	ksft_test_result(ok2, "tester_back_to_idle\n");
futex:
	ok3 = !futex_campaign(calls, secs);
	ksft_print_msg("%ld futex calls, %ld undocumented errnos\n",
		       futex_calls, futex_bad);
	ksft_test_result(ok3, "futex_calls_documented_errnos\n");
	ksft_print_msg("counts: %ld sysfs writes (4 processes), %ld futex calls, %ld undocumented errno(s)\n",
		       sysfs_writes, futex_calls, futex_bad + fails);
	ksft_finished();
}
