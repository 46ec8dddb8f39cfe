/*
 * Unit tests of lib/chunk.c: the chunk of a fan-out round and its
 * private pipes, verb by verb, with real pipes.  What each verb must
 * keep is struct chunk's contract (lib/fanout.h): HELD is what the chunk
 * pipe holds and no output has had; the copy pipe is as big as the
 * chunk pipe; what the chunk pipe still holds when it is given back is
 * CARRY bytes at BUF + CARRY_AT, every output's next.  The bytes are
 * checked against the data that went in.  tee(2) and splice(2): not in
 * the portable build.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib-xfer.h"
#include "fanout.h"

/* Read what pipe FD holds, LEN bytes at most, into BUF; return the
 * count. */
static size_t
drain(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len && (n = read(fd, buf + got, len - got)) > 0)
		got += n;
	return got;
}

/* A pipe holding the LEN bytes of DATA (its writer in P[1], open). */
static void
fed(int p[2], const char *data, size_t len)
{
	xpipe(p);
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	xwrite(p[1], data, len);
}

/*
 * A round by hand: fill from an input pipe, duplicate into one output
 * pipe (tee), copy for a file (the copy pipe), move part out to a last
 * output pipe (splice), read the rest to memory: HELD follows each verb,
 * and every output got the chunk's bytes.
 */
TEST(round_accounting)
{
	struct chunk ch;
	struct io_call c;
	size_t len = 65536, got;
	char *data = pattern(1, 200000), *buf = xmalloc(len);
	int in[2], a[2], b[2], opened, ok_a, ok_b, ok_file, ok_buf;
	ssize_t n, t, f, s, k;
	long copy_size;

	fed(in, data, 200000);
	xpipe(a);
	xpipe(b);
	fcntl(a[1], F_SETPIPE_SZ, 1 << 20);
	fcntl(b[1], F_SETPIPE_SZ, 1 << 20);
	chunk_init(&ch);
	opened = chunk_open(&ch) == 0 && chunk_is_open(&ch) &&
	    ch.held == 0 && chunk_capacity(&ch) >= (long)len;
	n = chunk_fill(&ch, in[0], len, NULL, &c);
	ok(opened && n == (ssize_t)len && ch.held == len,
	    "chunk_fill: %zd bytes of a full input pipe, held %zu", n,
	    ch.held);

	t = chunk_tee(&ch, a[1], len, NULL, &c);
	got = drain(a[0], buf, len);
	ok_a = t == (ssize_t)len && got == len && memcmp(buf, data, len) == 0;
	ok(ok_a && ch.held == len,
	    "chunk_tee: the output pipe has the chunk, the chunk pipe keeps "
	    "it (held %zu)", ch.held);

	f = copy_fill(&ch, len);
	copy_size = ch.copy_size;
	s = copy_splice(&ch, b[1], len, NULL, &c);
	got = drain(b[0], buf, len);
	ok_file = f == (ssize_t)len && s == (ssize_t)len && got == len &&
	    memcmp(buf, data, len) == 0;
	ok(ok_file && ch.held == len && copy_size >= chunk_capacity(&ch),
	    "copy_fill, copy_splice: a copy as big as the chunk pipe, moved "
	    "out whole; the chunk stays (held %zu)", ch.held);

	k = chunk_splice(&ch, b[1], 1000, NULL, &c);
	got = drain(b[0], buf, 1000);
	ok_b = k == 1000 && got == 1000 && memcmp(buf, data, 1000) == 0;
	ok(ok_b && ch.held == len - 1000,
	    "chunk_splice: 1000 bytes leave the chunk pipe (held %zu)",
	    ch.held);

	ok_buf = chunk_to_buf(&ch, 1000, len - 1000) == 0 &&
	    memcmp(ch.buf + 1000, data + 1000, len - 1000) == 0;
	ok(ok_buf && ch.held == 0,
	    "chunk_to_buf: the rest to memory, at its place (held %zu)",
	    ch.held);
	chunk_free(&ch);
	close_pair(in);
	close_pair(a);
	close_pair(b);
	free(buf);
	free(data);
}

/*
 * Given back with more in the chunk pipe than the round's chunk (a short
 * tee(2) fixed a shorter one): the round's LEN bytes are in memory, the
 * rest follows them as CARRY, the pipes are closed, nothing is held.
 */
TEST(release_carries)
{
	struct chunk ch;
	struct io_call c;
	char *data = pattern(2, 50000);
	int in[2], read_ok;
	ssize_t n;

	fed(in, data, 50000);
	chunk_init(&ch);
	if (chunk_open(&ch) == -1)
		bail_out("chunk_open: %s", strerror(errno));
	n = chunk_fill(&ch, in[0], 50000, NULL, &c);
	read_ok = n == 50000 && chunk_to_buf(&ch, 0, 20000) == 0 &&
	    chunk_release(&ch, 20000) == 0;
	ok(read_ok && ch.held == 0 &&
	    ch.carry == 30000 && ch.carry_at == 20000 &&
	    !chunk_is_open(&ch) && ch.copy[0] == -1 &&
	    memcmp(ch.buf, data, 50000) == 0,
	    "chunk_release: 20000 in memory, the 30000 after them carried, "
	    "the pipes closed (carry %zu at %zu)", ch.carry, ch.carry_at);
	chunk_free(&ch);
	close_pair(in);
	free(data);
}

/*
 * The chunk pipe is resized only while empty (a pipe cannot shrink below
 * what it holds, and a chunk's pages must fit the outputs it was sized
 * for), and the copy pipe grows along.
 */
TEST(resize_when_empty)
{
	struct chunk ch;
	struct io_call c;
	char *data = pattern(3, 4096);
	int in[2];
	long before, held_size, after;

	fed(in, data, 4096);
	chunk_init(&ch);
	if (chunk_open(&ch) == -1)
		bail_out("chunk_open: %s", strerror(errno));
	before = chunk_capacity(&ch);
	chunk_fill(&ch, in[0], 4096, NULL, &c);
	copy_fill(&ch, 4096);
	chunk_resize(&ch, 4 * before);
	held_size = chunk_capacity(&ch);
	chunk_to_buf(&ch, 0, 4096);
	/* Empty the copy pipe too, as a round's end leaves it. */
	copy_to_buf(&ch, 0, 4096);
	chunk_resize(&ch, 4 * before);
	after = chunk_capacity(&ch);
	ok(held_size == before && (after == 4 * before ||
	    after == before) && ch.copy_size >= after,
	    "chunk_resize: not while it holds a chunk (%ld), then %ld, the "
	    "copy pipe %ld", held_size, after, ch.copy_size);
	chunk_free(&ch);
	close_pair(in);
	free(data);
}
