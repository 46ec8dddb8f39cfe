/*
 * libFuzzer target: spate_repeat into a pipe read in fuzzer-chosen chunks.
 *
 * The input chooses how much to read (up to a few MiB: past the 64 KiB
 * and 2 MiB buffer changes), the read sizes, zero-copy on or off,
 * O_NONBLOCK on the pipe, and the line (the rest of the input).  A child
 * runs spate_repeat, which never returns while the reader reads and maps
 * buffers it never frees; the parent reads, checks every byte against
 * the line repeated, closes the pipe and expects the child to see EPIPE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spate.h"

#define HDR	5

static void
die(const char *what)
{
	perror(what);
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	static unsigned char buf[1 << 18];
	size_t want, got = 0, len, chunk, step;
	int p[2], st, flags;
	const uint8_t *line;
	pid_t pid;

	if (size < HDR + 1)
		return 0;
	flags = in[0];
	/* Mostly short reads, sometimes several MiB. */
	want = ((size_t)in[1] << 8 | in[2]) * (flags & 8 ? 97 : 3);
	chunk = 1 + (size_t)in[3] * (flags & 16 ? 1021 : 3);
	step = in[4];
	line = in + HDR;
	len = size - HDR;

	if (pipe2(p, O_CLOEXEC) == -1)
		die("pipe2");
	if ((pid = fork()) == -1)
		die("fork");
	if (pid == 0) {
		close(p[0]);
		if (setenv("SPATE_ZEROCOPY", flags & 1 ? "0" : "1", 1) == -1)
			_exit(3);
		if (flags & 2) {
			int fl = fcntl(p[1], F_GETFL);

			if (fl == -1 || fcntl(p[1], F_SETFL, fl | O_NONBLOCK))
				_exit(3);
		}
		if (spate_repeat(p[1], (const char *)line, len) == -1 &&
		    errno == EPIPE)
			_exit(0);
		_exit(2);
	}
	close(p[1]);
	while (got < want) {
		size_t k = want - got < chunk ? want - got : chunk;
		ssize_t n, i;

		if (k > sizeof buf)
			k = sizeof buf;
		n = read(p[0], buf, k);
		if (n <= 0) {
			if (n == -1 && errno == EINTR)
				continue;
			fprintf(stderr, "read: %zd after %zu bytes\n", n, got);
			abort();
		}
		for (i = 0; i < n; i++)
			if (buf[i] != line[(got + i) % len]) {
				fprintf(stderr, "byte %zu differs\n", got + i);
				abort();
			}
		got += n;
		/* Vary the read sizes as we go. */
		chunk = 1 + (chunk + step * 131) % (flags & 16 ? 300000 : 9000);
	}
	close(p[0]);
	/* libFuzzer's timers interrupt us: wait again. */
	while (waitpid(pid, &st, 0) != pid)
		if (errno != EINTR)
			die("waitpid");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "spate_repeat did not end with EPIPE: status %#x\n",
		    st);
		abort();
	}
	return 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* spate_repeat must see EPIPE once the reader has gone. */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}
