/*
 * Unit tests of lib/xfer.c's record inputs: a socket that keeps records
 * apart (SOCK_SEQPACKET, SOCK_DGRAM), where a read shorter than a record
 * loses the rest of it, is read a record whole, however long
 * (read_input), and never spliced; a link writes each record in pieces
 * of what it was asked to move.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib-xfer.h"

/* Longer than the link's buffer (BUF_SIZE), within a Unix socket's
 * default send buffer (212992 bytes). */
#define LONG	200000u

/* A connected pair of Unix sockets of TYPE, or bail out. */
static void
xrecordpair(int type, int s[2])
{
	if (socketpair(AF_UNIX, type, 0, s) == -1)
		bail_out("socketpair: %s", strerror(errno));
}

/* Send the LEN bytes of BUF on FD as one record, or bail out. */
static void
xsend(int fd, const void *buf, size_t len)
{
	if (send(fd, buf, len, 0) != (ssize_t)len)
		bail_out("send %zu bytes: %s", len, strerror(errno));
}

/* The end E of FD, an input, as cat describes one. */
static void
input_end(struct end *e, int fd)
{
	struct stat st;

	if (fstat(fd, &st) == -1)
		bail_out("fstat: %s", strerror(errno));
	end_init_input(e, fd, &st);
}

/* A record longer than the buffer: the buffer grows to it, and the
 * record comes whole; a shorter one after it leaves the buffer as is. */
TEST(record_grows)
{
	char *data = pattern(0, LONG), *buf = xmalloc(4096);
	size_t size = 4096;
	struct end e;
	ssize_t a, b;
	int s[2];

	xrecordpair(SOCK_SEQPACKET, s);
	xsend(s[1], data, LONG);
	xsend(s[1], data, 10);
	input_end(&e, s[0]);
	a = read_input(&e, &buf, &size, 100);
	ok(e.records == 1 && a == LONG && size >= LONG &&
	    memcmp(buf, data, LONG) == 0,
	    "read_input: a record of %u bytes whole, the buffer grown to it",
	    LONG);
	b = read_input(&e, &buf, &size, 100);
	ok(b == 10 && size >= LONG && memcmp(buf, data, 10) == 0,
	    "read_input: then a record of 10 bytes, the buffer kept");
	close_pair(s);
	free(buf);
	free(data);
}

/* The end of a SOCK_SEQPACKET input: 0. */
TEST(record_end)
{
	char *buf = xmalloc(16);
	size_t size = 16;
	struct end e;
	ssize_t a, b;
	int s[2];

	xrecordpair(SOCK_SEQPACKET, s);
	xsend(s[1], "abc", 3);
	close(s[1]);
	input_end(&e, s[0]);
	a = read_input(&e, &buf, &size, 16);
	b = read_input(&e, &buf, &size, 16);
	ok(a == 3 && b == 0 && size == 16,
	    "read_input: a record, then 0 when the peer closed");
	close(s[0]);
	free(buf);
}

/* An empty datagram is an end, as read(2) takes it, and it is read:
 * the next call gets the next datagram (cat - - reads on). */
TEST(empty_datagram)
{
	char *buf = xmalloc(16);
	size_t size = 16;
	struct end e;
	ssize_t a, b, c;
	int s[2];

	xrecordpair(SOCK_DGRAM, s);
	xsend(s[1], "abc", 3);
	xsend(s[1], "", 0);
	xsend(s[1], "defg", 4);
	input_end(&e, s[0]);
	a = read_input(&e, &buf, &size, 16);
	b = read_input(&e, &buf, &size, 16);
	c = read_input(&e, &buf, &size, 16);
	ok(e.records == 1 && a == 3 && b == 0 && c == 4 &&
	    memcmp(buf, "defg", 4) == 0,
	    "read_input: an empty datagram is 0, and the next one comes next");
	close_pair(s);
	free(buf);
}

/* A stream socket is no record socket: WANT bytes, the rest left. */
TEST(stream_want)
{
	char *data = pattern(0, 1000), *buf = xmalloc(1000);
	size_t size = 1000;
	struct end e;
	ssize_t a, b;
	int s[2];

	xsocketpair(s);
	xwrite(s[1], data, 1000);
	input_end(&e, s[0]);
	a = read_input(&e, &buf, &size, 100);
	b = read_input(&e, &buf, &size, 1000);
	ok(e.records == 0 && a == 100 && b == 900 && size == 1000 &&
	    memcmp(buf, data + 100, 900) == 0,
	    "read_input: a stream socket gives WANT bytes, the rest next");
	close_pair(s);
	free(buf);
	free(data);
}

/* A record input that cannot be read: -1, the input's errno. */
TEST(record_error)
{
	char *buf = xmalloc(16);
	size_t size = 16;
	struct end e;
	ssize_t n;
	int s[2];

	xrecordpair(SOCK_SEQPACKET, s);
	input_end(&e, s[0]);
	close_pair(s);
	n = read_input(&e, &buf, &size, 16);
	ok(n == -1 && errno == EBADF, "read_input: a closed input, EBADF");
	free(buf);
}

/* A non-blocking record input with nothing yet: waited for, then the
 * record whole. */
TEST(record_nonblock)
{
	char *data = pattern(0, LONG), *buf = xmalloc(16);
	size_t size = 16;
	struct end e;
	ssize_t n;
	pid_t pid;
	int s[2];

	xrecordpair(SOCK_SEQPACKET, s);
	xsetfl(s[0], O_NONBLOCK);
	if ((pid = xfork()) == 0) {
		close(s[0]);
		usleep(50 * 1000);
		_exit(send(s[1], data, LONG, 0) == LONG ? 0 : 1);
	}
	close(s[1]);
	input_end(&e, s[0]);
	n = read_input(&e, &buf, &size, 16);
	ok(n == LONG && memcmp(buf, data, LONG) == 0 && exited_ok(pid),
	    "read_input: a non-blocking record input waited for, the record "
	    "whole");
	close(s[0]);
	free(buf);
	free(data);
}

/*
 * A link from a record socket into a record socket, asked for 8 KiB a
 * step (as tee asks into such an output): the record is read whole and
 * written in records of 8 KiB, none lost, by read/write.
 */
TEST(link_pieces)
{
	char *data = pattern(0, 20000), got[3][20000];
	ssize_t n, r[3];
	struct end i, o;
	struct link l;
	int in[2], out[2];

	zerocopy_env(NULL);
	xrecordpair(SOCK_SEQPACKET, in);
	xrecordpair(SOCK_SEQPACKET, out);
	xsend(in[1], data, 20000);
	link_fds(&l, &i, in[0], &o, out[1]);
	n = link_step(&l, 8192);
	r[0] = recv(out[0], got[0], sizeof got[0], MSG_DONTWAIT);
	r[1] = recv(out[0], got[1], sizeof got[1], MSG_DONTWAIT);
	r[2] = recv(out[0], got[2], sizeof got[2], MSG_DONTWAIT);
	ok(n == 20000 && l.fast == PATH_RW && r[0] == 8192 && r[1] == 8192 &&
	    r[2] == 20000 - 2 * 8192 && memcmp(got[0], data, 8192) == 0 &&
	    memcmp(got[1], data + 8192, 8192) == 0 &&
	    memcmp(got[2], data + 2 * 8192, 20000 - 2 * 8192) == 0,
	    "link_step: a record of 20000 bytes whole, written 8192 at most "
	    "a time");
	link_free(&l);
	close_pair(in);
	close_pair(out);
	free(data);
}

/*
 * A link from a record socket into a pipe: never spliced (splice(2)
 * into the pipe would take what it has room for and drop the rest of
 * each record), every record whole.
 */
TEST(link_to_pipe)
{
	size_t len = 12 * LONG + 1234, off;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t fpid, spid;
	int in[2], out[2], keep;

	zerocopy_env(NULL);
	xrecordpair(SOCK_SEQPACKET, in);
	if ((fpid = xfork()) == 0) {
		close(in[0]);
		for (off = 0; off < len; off += LONG)
			if (send(in[1], data + off, len - off < LONG ? len - off :
			    LONG, 0) == -1)
				_exit(1);
		_exit(0);
	}
	close(in[1]);
	xpipe(out);
	spid = sink(out[0], out[1], 0, 65536, &keep);
	link_fds(&l, &i, in[0], &o, out[1]);
	moved = run(&l, &used);
	close(out[1]);
	ok(l.fast == PATH_RW && good_run(moved, len, used, RW) &&
	    exited_ok(fpid) && exited_ok(spid) && file_holds(keep, data, len),
	    "seqpacket -> pipe: records of %u bytes by read/write, every byte",
	    LONG);
	link_free(&l);
	close(in[0]);
	close(keep);
	free(data);
}
