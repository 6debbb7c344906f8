// SPDX-License-Identifier: GPL-2.0
/*
 * The floor under a ping-pong that sleeps for its completions
 * (ibv_rc_pingpong -e): two processes pass a byte back and forth over two
 * pipes, each blocking in read() until the other writes, so every round
 * trip is two wake-ups of a sleeping process, with no device at all.
 * With "cross", the two are pinned to CPUs 0 and 1, so every wake-up
 * crosses CPUs (an IPI to a CPU that went idle), as when the two sides of
 * a ping-pong run on CPUs of their own.
 * Prints "round_trip_us X", the median of five batches of COUNT.
 *   wake_floor [COUNT [cross]]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Pins the caller to one CPU, if asked to. */
static int pin(int cross, int cpu)
{
	cpu_set_t s;

	if (!cross)
		return 0;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 2000;
	int cross = argc > 2 && !strcmp(argv[2], "cross");
	int ping[2], pong[2], b, i, status;
	double us[5];
	pid_t child;
	char c = 0;

	if (count < 1 || pipe(ping) || pipe(pong))
		return fprintf(stderr, "usage: wake_floor [COUNT]\n"), 2;
	child = fork();
	if (child < 0)
		return perror("fork"), 1;
	if (!child) {
		if (pin(cross, 1))
			_exit(1);
		/* Echo every byte until the parent closes its end. */
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &c, 1) == 1)
			if (write(pong[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	if (pin(cross, 0))
		return perror("sched_setaffinity"), 1;
	for (b = 0; b < 5; b++) {
		double t0 = now_us();

		for (i = 0; i < count; i++)
			if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
				return fprintf(stderr, "wake_floor: pipe failed\n"), 1;
		us[b] = (now_us() - t0) / count;
	}
	close(ping[1]);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return fprintf(stderr, "wake_floor: echo process failed\n"), 1;
	qsort(us, 5, sizeof(us[0]), cmp);
	printf("round_trip_us %.1f\n", us[2]);
	return 0;
}
