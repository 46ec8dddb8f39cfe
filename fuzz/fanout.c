/*
 * libFuzzer target: spate_fanout through real pipes and files.
 *
 * The fuzzer's input chooses the input kind (pipe or regular file), the
 * writer's chunk size, whether zero-copy is allowed, O_NONBLOCK on the
 * descriptors the engine uses, and up to MAXOUT outputs (pipe drained by
 * a thread in chosen chunks, regular file, O_APPEND file, /dev/null);
 * the rest is the data, repeated a chosen number of times so that pipes
 * fill up.  Every output must be exactly the data: abort otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "spate.h"
#include "engine.h"
#include "fanout.h"

#define MAXOUT	6
#define HDR	6

enum { O_PIPE, O_FILE, O_APPENDF, O_NULL };

struct drain {
	int fd;
	size_t chunk;
	unsigned char *buf;
	size_t len, cap;
};

struct feed {
	int fd;
	const unsigned char *data;
	size_t len, chunk;
};

static void
die(const char *what)
{
	perror(what);
	abort();
}

/* Read FD to its end in CHUNK-byte reads, keeping what comes. */
static void *
drain(void *arg)
{
	struct drain *d = arg;

	for (;;) {
		ssize_t n;

		if (d->cap - d->len < d->chunk) {
			d->cap = 2 * d->cap + d->chunk;
			if ((d->buf = realloc(d->buf, d->cap)) == NULL)
				die("realloc");
		}
		n = read(d->fd, d->buf + d->len, d->chunk);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("read");
		}
		d->len += n;
	}
	close(d->fd);
	return NULL;
}

/* Write the data to FD in CHUNK-byte writes, then close FD. */
static void *
feed(void *arg)
{
	struct feed *f = arg;
	size_t off = 0;

	while (off < f->len) {
		size_t k = f->len - off < f->chunk ? f->len - off : f->chunk;

		if (write_all(f->fd, f->data + off, k) == -1)
			die("write input");
		off += k;
	}
	close(f->fd);
	return NULL;
}

static int
no_failure(void *ctx, size_t i, int err)
{
	(void)ctx;
	fprintf(stderr, "output %zu failed: %s\n", i, strerror(err));
	abort();
}

/* A regular file holding nothing yet; with APPEND, O_APPEND set. */
static int
memfile(int append)
{
	int fd = memfd_create("out", MFD_CLOEXEC);

	if (fd == -1)
		die("memfd_create");
	if (append && fcntl(fd, F_SETFL, O_APPEND) == -1)
		die("F_SETFL");
	return fd;
}

/* Check that the file FD holds exactly DATA[0..LEN). */
static void
check_file(int fd, const unsigned char *data, size_t len)
{
	unsigned char *got = malloc(len + 1);
	ssize_t n;

	if (got == NULL)
		die("malloc");
	n = pread(fd, got, len + 1, 0);
	if (n != (ssize_t)len || memcmp(got, data, len) != 0) {
		fprintf(stderr, "file output: %zd bytes, want %zu\n", n, len);
		abort();
	}
	free(got);
}

static void
nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		die("O_NONBLOCK");
}

int
LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	struct spate_out outs[MAXOUT];
	struct drain dr[MAXOUT];
	pthread_t th[MAXOUT], fth;
	struct feed fd_feed;
	int kind[MAXOUT], p[2], input, flags, zc, pipe_in, nb;
	size_t nout, i, reps, len, wchunk;
	unsigned char *data;

	if (size < HDR)
		return 0;
	flags = in[0];
	zc = !(flags & 1);
	pipe_in = !(flags & 2);
	nb = flags & 4;
	nout = 1 + in[1] % MAXOUT;
	reps = 1 + in[2] % 64;
	wchunk = 1 + ((size_t)in[3] << 8 | in[4]) * 16;
	in += HDR - 1;
	size -= HDR - 1;
	/* The output kinds come from the bytes after the header. */
	for (i = 0; i < nout; i++)
		kind[i] = size > i ? in[i] % 4 : O_PIPE;

	len = size * reps;
	if ((data = malloc(len ? len : 1)) == NULL)
		die("malloc");
	for (i = 0; i < reps; i++)
		memcpy(data + i * size, in, size);

	if (setenv("SPATE_ZEROCOPY", zc ? "1" : "0", 1) == -1)
		die("setenv");

	for (i = 0; i < nout; i++) {
		memset(&dr[i], 0, sizeof dr[i]);
		switch (kind[i]) {
		case O_PIPE:
			if (pipe2(p, O_CLOEXEC) == -1)
				die("pipe2");
			outs[i].fd = p[1];
			if (nb)
				nonblock(p[1]);
			dr[i].fd = p[0];
			dr[i].chunk = 1 + (in[i % size] * 997u) % 200000;
			if (pthread_create(&th[i], NULL, drain, &dr[i]) != 0)
				die("pthread_create");
			break;
		case O_FILE:
		case O_APPENDF:
			outs[i].fd = memfile(kind[i] == O_APPENDF);
			break;
		default:
			if ((outs[i].fd = open("/dev/null",
			    O_WRONLY | O_CLOEXEC)) == -1)
				die("/dev/null");
		}
	}

	if (pipe_in) {
		if (pipe2(p, O_CLOEXEC) == -1)
			die("pipe2");
		input = p[0];
		if (nb)
			nonblock(input);
		fd_feed = (struct feed){ p[1], data, len, wchunk };
		if (pthread_create(&fth, NULL, feed, &fd_feed) != 0)
			die("pthread_create");
	} else {
		input = memfile(0);
		if (write_all(input, data, len) == -1 ||
		    lseek(input, 0, SEEK_SET) == -1)
			die("input file");
	}

	if (spate_fanout(input, outs, nout, no_failure, NULL) == -1)
		die("spate_fanout");
	if (pipe_in && pthread_join(fth, NULL) != 0)
		die("pthread_join");
	close(input);

	for (i = 0; i < nout; i++) {
		if (outs[i].fd == -1) {
			fprintf(stderr, "output %zu dropped\n", i);
			abort();
		}
		if (out_state(&outs[i])->given != (off_t)len) {
			fprintf(stderr, "output %zu: moved %lld of %zu\n", i,
			    (long long)out_state(&outs[i])->given, len);
			abort();
		}
		if (kind[i] == O_FILE || kind[i] == O_APPENDF)
			check_file(outs[i].fd, data, len);
		close(outs[i].fd);
		if (kind[i] == O_PIPE) {
			if (pthread_join(th[i], NULL) != 0)
				die("pthread_join");
			if (dr[i].len != len ||
			    (len && memcmp(dr[i].buf, data, len) != 0)) {
				fprintf(stderr, "pipe output %zu: %zu bytes, "
				    "want %zu\n", i, dr[i].len, len);
				abort();
			}
			free(dr[i].buf);
		}
	}
	free(data);
	return 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* A reader thread gone would be a bug, not a signal to die of. */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}
