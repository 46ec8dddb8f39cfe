/*
 * limit-tee: the fastest "copy a pipe to a pipe and to /dev/null" (or to
 * FILE) this kernel allows, the yardstick for tee.
 *
 *	limit-tee [-p SIZE] [FILE] < pipe > pipe
 *
 * Loops tee(2) stdin -> stdout, which duplicates page references, then
 * splice(2) of as many bytes stdin -> /dev/null, which consumes them, or
 * into FILE (created or truncated), where the splice copies them.
 * Nothing else is copied.  A tee(2) call moves at most what the smaller
 * pipe holds: the pipes stay the sizes they were given, as tee leaves
 * them (its output pipe is its reader's), or are set to SIZE bytes with
 * -p.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#define ALL	(1u << 30)

int
main(int argc, char **argv)
{
	ssize_t n, m;
	long psize = 0;
	int null, c;

	while ((c = getopt(argc, argv, "p:")) != -1) {
		if (c != 'p')
			errx(2, "usage: limit-tee [-p size] [file]");
		psize = strtol(optarg, NULL, 10);
	}

	if (optind < argc)
		null = open(argv[optind], O_WRONLY | O_CREAT | O_TRUNC, 0666);
	else
		null = open("/dev/null", O_WRONLY);
	if (null == -1)
		err(2, "%s", optind < argc ? argv[optind] : "/dev/null");
	/* Pipes that cannot grow keep working, only slower. */
	if (psize > 0) {
		fcntl(0, F_SETPIPE_SZ, psize);
		fcntl(1, F_SETPIPE_SZ, psize);
	}
	for (;;) {
		n = tee(0, 1, ALL, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			err(1, "tee");
		if (n == 0)
			return 0;
		while (n > 0) {
			m = splice(0, NULL, null, NULL, n, 0);
			if (m == -1 && errno == EINTR)
				continue;
			if (m <= 0)
				err(1, "splice");
			n -= m;
		}
	}
}
