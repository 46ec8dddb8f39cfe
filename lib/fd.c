/* Descriptors: what they are, what follows from it, and the private
 * pipes the engine makes. */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys.h"
#include "engine.h"

/*
 * What follows from each kind (struct traits).  A socket's reader may
 * stall it, and a lane keeps off it (outputs.c, takes_lane); a device's
 * peer, a terminal's, is whoever is on its other side.
 */
static const struct traits table[K_KINDS] = {
	[K_PIPE] = { .pipe = 1, .may_stall = 1, .names_stream = 1,
	    .may_read_records = 1, .room = ROOM_PIPE },
	[K_FILE] = { .file = 1, .needs_copy = 1, .lane = 1,
	    .names_stream = 1, .room = ROOM_NONE },
	[K_SOCKET] = { .waits_on_peer = 1, .may_stall = 1, .needs_copy = 1,
	    .names_stream = 1, .room = ROOM_SNDBUF },
	[K_OTHER] = { .waits_on_peer = 1, .may_read_records = 1,
	    .room = ROOM_NONE }
};

/* What E's kind implies. */
const struct traits *
traits(const struct end *e)
{
	assert(e->kind >= 0 && e->kind < K_KINDS);
	return &table[e->kind];
}

/*
 * Return 1 if socket FD keeps the bytes of each write apart (a
 * SOCK_SEQPACKET or datagram socket): what one write sends, a reader
 * gets as one record, cut to what it asked for.
 */
static int
socket_records(int fd)
{
	int type;
	socklen_t len = sizeof type;

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
	    type != SOCK_STREAM;
}

/*
 * Fill in E for FD from its status ST (NULL: fstat(2) failed, K_OTHER):
 * what it is and which file, all that reading it depends on.  That takes
 * no system call but for a socket, whose type says whether it keeps
 * records apart: a read shorter than a record loses the rest of it.
 */
static void
describe(struct end *e, int fd, const struct stat *st)
{
	memset(e, 0, sizeof *e);
	e->fd = fd;
	e->kind = K_OTHER;
	if (st == NULL)
		return;
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	if (S_ISFIFO(st->st_mode))
		e->kind = K_PIPE;
	else if (S_ISREG(st->st_mode))
		e->kind = K_FILE;
	else if (S_ISSOCK(st->st_mode)) {
		e->kind = K_SOCKET;
		/* Under a filter, GNU's commands ask no socket its type:
		 * a stream, as they take it. */
		e->records = !gnu_calls() && socket_records(fd);
	}
}

/*
 * Describe FD.  A descriptor fstat(2) cannot describe (closed stdout)
 * is K_OTHER: it gets read/write, which reports its error as the user
 * expects to see it.
 */
void
end_init(struct end *e, int fd)
{
	struct stat st;
	int fl;

	if (fstat(fd, &st) == -1) {
		describe(e, fd, NULL);
		return;
	}
	describe(e, fd, &st);
	/* Under a filter, no F_GETFL where GNU 9.11's cat makes no
	 * fcntl(2) (file to file): an O_APPEND or read-only end is then
	 * told by the zero-copy call's refusal or error, as GNU's is. */
	if (gnu_calls()) {
		e->write_end = 1;
		return;
	}
	if ((fl = fcntl(fd, F_GETFL)) == -1) {
		/* Unknown flags: O_APPEND may hide there, so no splice. */
		e->append = 1;
		return;
	}
	e->append = (fl & O_APPEND) != 0;
	e->write_end = (fl & O_ACCMODE) != O_RDONLY;
	e->packets = e->kind == K_PIPE && (fl & O_DIRECT) != 0;
}

/*
 * Describe input FD, whose fstat(2) status ST the caller has: its kind,
 * its identity and, for a socket, whether it keeps records apart.  How
 * an input is read depends on nothing more (the flags matter only for
 * writing), so describing it costs no system call but a socket's
 * getsockopt(2): a small file costs cat no more calls than GNU's.
 */
void
end_init_input(struct end *e, int fd, const struct stat *st)
{
	describe(e, fd, st);
}

/*
 * Return 1 if each write(2) to E reaches its reader apart from the
 * others: a record of a socket that keeps them (cut to what the reader
 * asks for, the rest lost), or the packets of a packet-mode pipe.  The
 * sizes of such writes are part of the output, and GNU's are the ones
 * its readers were written for.
 */
int
end_keeps_writes(const struct end *e)
{
	return e->records || e->packets;
}

/*
 * Return 1 if each write(2) to E may reach its reader apart from the
 * others: it does (end_keeps_writes), or E is a socket that was not
 * asked whether it keeps records (under a seccomp filter, describe).
 * yes writes GNU's records to such an end, as GNU's readers expect.
 */
int
end_may_keep_writes(const struct end *e)
{
	return end_keeps_writes(e) || (e->kind == K_SOCKET && gnu_calls());
}

/* Return 1 if ends A and B are one descriptor, or name one stream: one
 * file, pipe or socket (names_stream). */
static int
same_stream(const struct end *a, const struct end *b)
{
	return a->fd == b->fd || (traits(a)->names_stream &&
	    traits(b)->names_stream && a->dev == b->dev && a->ino == b->ino);
}

/*
 * Return 1 if the N outputs OUTS (fd -1: none) are aliased, to each
 * other or to the input IN: two are one stream, where each write lands
 * between the other's and only GNU's order (a chunk to each in turn)
 * makes sense (devices do not count: /dev/null twice shows nothing);
 * or one is IN's regular file, whose reads then see the writes, as
 * GNU's would see them, and whose pages a chunk spliced from IN would
 * share.  Or one descriptor is two of them, or IN and an output: the
 * lag closes a slow output, once.  A pipe or socket that is IN through
 * a descriptor of its own is not aliased: its reads see the writes in
 * the order they were made, however late, as a FIFO keeps them.
 */
int
ends_aliased(const struct end *in, const struct end *outs, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (outs[i].fd == -1)
			continue;
		if (outs[i].fd == in->fd ||
		    (traits(in)->file && same_stream(in, &outs[i])))
			return 1;
		for (j = i + 1; j < n; j++)
			if (outs[j].fd != -1 && same_stream(&outs[i], &outs[j]))
				return 1;
	}
	return 0;
}

/* Return 1 unless SPATE_ZEROCOPY=0 or the build asks for read/write. */
int
zerocopy_allowed(void)
{
	const char *v = getenv("SPATE_ZEROCOPY");

	if (!sys_zerocopy())
		return 0;
	return v == NULL || strcmp(v, "0") != 0;
}

/*
 * Make a pipe only the engine reads, close-on-exec, both ends at fd 3 or
 * above: with stdout or stderr closed, a pipe at 1 or 2 would catch the
 * program's own output and messages.  Return 0, or -1 with errno set.
 */
int
pipe_private(int p[2])
{
	int i;

	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	for (i = 0; i < 2; i++) {
		int hi;

		if (p[i] > STDERR_FILENO)
			continue;
		if ((hi = fcntl(p[i], F_DUPFD_CLOEXEC, STDERR_FILENO + 1)) == -1) {
			int e = errno;

			close(p[0]);
			close(p[1]);
			errno = e;
			return -1;
		}
		close(p[i]);
		p[i] = hi;
	}
	return 0;
}

/* Close both ends of pipe P if open, and mark it closed. */
void
close_pair(int p[2])
{
	if (p[0] != -1)
		close(p[0]);
	if (p[1] != -1)
		close(p[1]);
	p[0] = p[1] = -1;
}
