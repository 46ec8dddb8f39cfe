/*
 * drain: the consumer end of a benchmark pipe.
 *
 *	drain [-r] [-e] [-t SECONDS] BYTES
 *
 * Take exactly BYTES bytes from standard input and throw them away, by
 * splice(2) into /dev/null (no copy: the writer alone is measured), or
 * with -r by read(2) of 128 KiB (a copying reader, like most programs).
 * With -e the input must then be at its end: a writer that was given a
 * fixed amount (tee fed BYTES bytes) must deliver neither less nor more.
 * With -t stop after SECONDS even if BYTES were not reached (used to size
 * runs).  BYTES 0 means no limit.
 *
 * Prints "TOTAL TIMED NS": the bytes taken, and the bytes and nanoseconds
 * between the end of the first transfer and the end of the last one.  The
 * clock starts at the first byte so that the writer's exec and start-up,
 * which a start-up benchmark measures apart, do not count here.
 * Exit status 0, 1 if the input ended early or went on past BYTES with
 * -e, 2 on a usage or system error.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define RDSZ	(128u << 10)

static uint64_t
now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		err(2, "clock_gettime");
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* Take up to LEN bytes; return the count, 0 at end of input. */
static ssize_t
take(int rd, int null, char *buf, size_t len)
{
	ssize_t n;

	do {
		if (rd)
			n = read(0, buf, len < RDSZ ? len : RDSZ);
		else
			n = splice(0, NULL, null, NULL, len, 0);
	} while (n == -1 && errno == EINTR);
	if (n == -1)
		err(2, rd ? "read" : "splice");
	return n;
}

int
main(int argc, char **argv)
{
	uint64_t want, got = 0, first = 0, t0 = 0, t1 = 0, cap = 0;
	int c, rd = 0, eof = 0, null = -1;
	char *buf = NULL, *end;
	ssize_t n;

	while ((c = getopt(argc, argv, "ret:")) != -1) {
		switch (c) {
		case 'r':
			rd = 1;
			break;
		case 'e':
			eof = 1;
			break;
		case 't':
			cap = (uint64_t)(strtod(optarg, NULL) * 1e9);
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1)
		errx(2, "usage: drain [-r] [-e] [-t seconds] bytes");
	want = strtoull(argv[optind], &end, 10);
	if (*end != '\0')
		errx(2, "bad byte count: %s", argv[optind]);
	if (want == 0)
		want = UINT64_MAX;	/* no limit: till the end or -t */
	if (rd) {
		/* Touch the buffer now so page faults do not land in a run. */
		if ((buf = calloc(1, RDSZ)) == NULL)
			err(2, "calloc");
	} else if ((null = open("/dev/null", O_WRONLY)) == -1)
		err(2, "/dev/null");

	while (got < want) {
		size_t len = want - got < (1u << 30) ? want - got : (1u << 30);

		if ((n = take(rd, null, buf, len)) == 0)
			break;
		got += n;
		t1 = now();
		if (first == 0) {
			first = got;
			t0 = t1;
		}
		if (cap && t1 - t0 >= cap)
			break;
	}
	printf("%llu %llu %llu\n", (unsigned long long)got,
	    (unsigned long long)(got - first), (unsigned long long)(t1 - t0));
	if (got < want && want != UINT64_MAX && !cap) {
		warnx("input ended after %llu of %llu bytes",
		    (unsigned long long)got, (unsigned long long)want);
		return 1;
	}
	if (eof && take(rd, null, buf, 1) != 0) {
		warnx("input goes on past %llu bytes", (unsigned long long)want);
		return 1;
	}
	return 0;
}
