/*
 * Unit tests of link_put (lib/xfer.c): a buffer into a pipe by
 * vmsplice(2), into a file by write(2), and its errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib-xfer.h"

#define PUTLEN	65536

/* The bytes given to link_put, made at the first call and immutable
 * from then on: the one kind of buffer link_put may vmsplice. */
static const char *
putbuf(void)
{
	static char buf[PUTLEN];
	static int made;
	size_t k;

	if (!made)
		for (k = 0; k < sizeof buf; k++)
			buf[k] = pat(k);
	made = 1;
	return buf;
}

/* link_put all of PUTBUF N times to L; return 0, or -1 with errno. */
static int
put_all(struct link *l, int n)
{
	while (n-- > 0) {
		size_t off = 0;

		while (off < PUTLEN) {
			ssize_t k = link_put(l, putbuf() + off,
			    PUTLEN - off);

			if (k <= 0)
				return -1;
			off += k;
		}
	}
	return 0;
}

/* N copies of PUTBUF, end to end. */
static char *
put_copies(int n)
{
	char *want = xmalloc(n * PUTLEN);
	int k;

	for (k = 0; k < n; k++)
		memcpy(want + k * PUTLEN, putbuf(), PUTLEN);
	return want;
}

/* link_put into a pipe with SPATE_ZEROCOPY=ZC (unset if NULL). */
static void
put_pipe(const char *zc)
{
	char *want = put_copies(40);
	struct end o;
	struct link l;
	pid_t spid;
	int out[2], keep, r;
	enum path expect = zc == NULL ? FAST(PATH_VMSPLICE) : PATH_RW;

	zerocopy_env(zc);
	xpipe(out);
	spid = sink(out[0], out[1], 0, 65536, &keep);
	end_init(&o, out[1]);
	link_init(&l, NULL, &o);
	ok(l.path == expect, "link_put into a pipe%s: %s from the start",
	    zc == NULL ? "" : ", SPATE_ZEROCOPY=0",
	    expect == PATH_VMSPLICE ? "vmsplice" : "write");
	r = put_all(&l, 40);
	close(out[1]);
	ok(r == 0 && l.path == expect && exited_ok(spid) &&
	    file_holds(keep, want, 40 * PUTLEN),
	    "link_put into a pipe%s: 40 x 64 KiB, every byte",
	    zc == NULL ? "" : ", SPATE_ZEROCOPY=0");
	link_free(&l);
	close(keep);
	free(want);
	zerocopy_env(NULL);
}

TEST(put_pipe)
{
	put_pipe(NULL);
}

TEST(put_pipe_rw)
{
	put_pipe("0");
}

TEST(put_file)
{
	char *want = put_copies(5);
	struct end o;
	struct link l;
	int out = xtmpfile(), r;

	zerocopy_env(NULL);
	end_init(&o, out);
	link_init(&l, NULL, &o);
	r = put_all(&l, 5);
	ok(r == 0 && l.path == PATH_RW && file_holds(out, want, 5 * PUTLEN),
	    "link_put into a file: write(2), every byte");
	link_free(&l);
	close(out);
	free(want);
}

TEST(put_errors)
{
	struct end o;
	struct link l;
	int p[2], full, e;
	ssize_t r;

	zerocopy_env(NULL);
	xpipe(p);
	close(p[0]);
	end_init(&o, p[1]);
	link_init(&l, NULL, &o);
	errno = 0;
	r = link_put(&l, putbuf(), PUTLEN);
	e = errno;
	ok(r == -1 && e == EPIPE && l.path == FAST(PATH_VMSPLICE),
	    "link_put into a pipe whose reader left: -1 EPIPE, no fallback");
	link_free(&l);
	close(p[1]);

	xpipe(p);
	xwrite(p[1], "x", 1);
	end_init(&o, p[0]);
	link_init(&l, NULL, &o);
	errno = 0;
	r = link_put(&l, putbuf(), PUTLEN);
	e = errno;
	ok(r == -1 && e == EBADF && l.path == PATH_RW,
	    "link_put into a pipe's read end: write(2), -1 EBADF");
	link_free(&l);
	close_pair(p);

	if ((full = open("/dev/full", O_WRONLY)) == -1) {
		ok(1, "link_put into /dev/full # skip no /dev/full");
		return;
	}
	end_init(&o, full);
	link_init(&l, NULL, &o);
	errno = 0;
	r = link_put(&l, putbuf(), PUTLEN);
	e = errno;
	ok(r == -1 && e == ENOSPC, "link_put into /dev/full: -1 ENOSPC");
	link_free(&l);
	close(full);
}
