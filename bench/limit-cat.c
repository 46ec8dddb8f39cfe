/*
 * limit-cat: the fastest "copy standard input or FILE to standard output"
 * this kernel allows, the yardstick for cat.
 *
 *	limit-cat [FILE]
 *
 * Both ends regular files: copy_file_range(2), which copies in the kernel
 * (or shares extents where the file system can).  Either end a pipe:
 * splice(2) straight from the input to the output, after growing the
 * pipes towards 1 MiB.  Neither a pipe (a file into /dev/null): splice
 * into a private pipe and out of it, as no single call joins the two.
 * No fallback and no checks beyond the return values: a loop to compare
 * with, not a cat.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIPESZ	(1 << 20)
#define ALL	(1u << 30)

/* Move up to LEN bytes from IN to OUT by splice(2); return the count. */
static ssize_t
move(int in, int out, size_t len)
{
	ssize_t n;

	do
		n = splice(in, NULL, out, NULL, len, 0);
	while (n == -1 && errno == EINTR);
	if (n == -1)
		err(1, "splice");
	return n;
}

int
main(int argc, char **argv)
{
	struct stat si, so;
	int in = 0, p[2];
	ssize_t n, m;

	if (argc > 2)
		errx(2, "usage: limit-cat [file]");
	if (argc == 2 && (in = open(argv[1], O_RDONLY)) == -1)
		err(2, "%s", argv[1]);
	if (fstat(in, &si) == -1 || fstat(1, &so) == -1)
		err(2, "fstat");

	if (S_ISREG(si.st_mode) && S_ISREG(so.st_mode)) {
		do
			n = copy_file_range(in, NULL, 1, NULL, ALL, 0);
		while (n > 0 || (n == -1 && errno == EINTR));
		if (n == -1)
			err(1, "copy_file_range");
		return 0;
	}
	/* Pipes that cannot grow keep working, only slower. */
	if (S_ISFIFO(si.st_mode))
		fcntl(in, F_SETPIPE_SZ, PIPESZ);
	if (S_ISFIFO(so.st_mode))
		fcntl(1, F_SETPIPE_SZ, PIPESZ);
	if (S_ISFIFO(si.st_mode) || S_ISFIFO(so.st_mode)) {
		while (move(in, 1, ALL) > 0)
			;
		return 0;
	}
	if (pipe2(p, O_CLOEXEC) == -1)
		err(2, "pipe2");
	fcntl(p[1], F_SETPIPE_SZ, PIPESZ);
	while ((n = move(in, p[1], ALL)) > 0)
		for (; n > 0; n -= m)
			m = move(p[0], 1, n);
	return 0;
}
