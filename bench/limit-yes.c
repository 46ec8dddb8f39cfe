/*
 * limit-yes: the fastest "y\n" source this kernel allows, the yardstick
 * for yes and the producer for the tee benchmarks.
 *
 *	limit-yes [-p SIZE] [BYTES]
 *
 * Writes BYTES bytes of "y\n" (forever without BYTES) to standard output.
 * Into a pipe: vmsplice(2) of one immutable buffer, over and over, after
 * growing the pipe towards 1 MiB (or setting it to SIZE bytes with -p;
 * -p 0 leaves it as it is).  The buffer is 2 MiB, 2 MiB-aligned,
 * with MADV_HUGEPAGE: fewer page-table walks per vmsplice.  It is never
 * written again after it is filled, which is what makes vmsplice without
 * a copy safe.  Anything else (a file, to make test input): write(2).
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#define BUFSZ	(2u << 20)

int
main(int argc, char **argv)
{
	uint64_t left = UINT64_MAX, off = 0;
	struct iovec iov;
	char *buf, *end;
	int zc = 1, c;
	long psize = 1 << 20;
	size_t i;

	while ((c = getopt(argc, argv, "p:")) != -1) {
		if (c != 'p')
			return 2;
		psize = strtol(optarg, NULL, 10);
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc > 2)
		errx(2, "usage: limit-yes [-p size] [bytes]");
	if (argc == 2) {
		left = strtoull(argv[1], &end, 10);
		if (*end != '\0')
			errx(2, "bad byte count: %s", argv[1]);
	}
	/* Map twice the size and keep the 2 MiB-aligned half. */
	buf = mmap(NULL, 2 * BUFSZ, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		err(2, "mmap");
	buf = (char *)(((uintptr_t)buf + BUFSZ - 1) & ~(uintptr_t)(BUFSZ - 1));
	madvise(buf, BUFSZ, MADV_HUGEPAGE);	/* a hint; fine if refused */
	for (i = 0; i < BUFSZ; i += 2)
		memcpy(buf + i, "y\n", 2);

	/* Fails on a non-pipe, and then vmsplice is not tried. */
	if (fcntl(1, psize ? F_SETPIPE_SZ : F_GETPIPE_SZ, psize) == -1 &&
	    errno == EBADF)
		zc = 0;
	while (left > 0) {
		/* BUFSZ is even, so BUF + OFF % BUFSZ stays in step. */
		size_t pos = off % BUFSZ;
		size_t len = BUFSZ - pos < left ? BUFSZ - pos : left;
		ssize_t n;

		iov.iov_base = buf + pos;
		iov.iov_len = len;
		n = zc ? vmsplice(1, &iov, 1, 0) : write(1, buf + pos, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && zc && off == 0 && errno != EPIPE) {
			zc = 0;		/* not a pipe after all */
			continue;
		}
		if (n == -1)
			err(1, "write");
		off += n;
		left -= n;
	}
	return 0;
}
