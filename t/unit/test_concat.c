/*
 * Unit tests of lib/concat.c, cat's engine: spate_cat_open, spate_cat_add and
 * spate_cat_close.  Inputs of every kind end to end, byte for byte; line
 * numbers and squeezing carried from one input to the next; which side
 * a failure names; what is held written at the end, and before a wait.
 * The expected texts were checked against GNU cat 9.1.  The progress
 * hook's are test_concat_progress.c's.
 */
#define _GNU_SOURCE

#include "lib-concat.h"

/*
 * Concatenate into OUT, in this order, pieces of DATA (TOTAL bytes): a
 * file of 1 MiB + 3, an empty file, a pipe of 2 MiB + 1, a file of 10
 * bytes, a file of the rest.  Return 1 if every call returned 0.
 */
static int
cat_mixed(int out, const char *data, size_t total)
{
	static const size_t cut[] = { MiB + 3, 0, 2 * MiB + 1, 10 };
	size_t off = 0, i;
	struct spate_cat *c;
	enum spate_side side;
	int good = 1, fd, pipe_in;
	pid_t pid;

	/* The child first, so that it holds no copy of the handle. */
	pipe_in = feeder(data + cut[0] + cut[1], cut[2], &pid);
	c = xcat_open(out, 0);
	for (i = 0; i < sizeof cut / sizeof cut[0]; i++) {
		fd = i == 2 ? pipe_in : xtmpfile_with(data + off, cut[i]);
		good &= spate_cat_add(c, fd, &side) == 0;
		close(fd);
		off += cut[i];
	}
	fd = xtmpfile_with(data + off, total - off);
	good &= spate_cat_add(c, fd, &side) == 0;
	close(fd);
	good &= spate_cat_close(c) == 0;
	return exited_ok(pid) && good;
}

TEST(mixed_to_file)
{
	size_t len = 4 * MiB + 7;
	char *data = pattern(0, len);
	int out = xtmpfile();

	ok(cat_mixed(out, data, len) && file_holds(out, data, len),
	    "file, empty file, pipe, small file, file -> a file: byte-exact");
	close(out);
	free(data);
}

TEST(mixed_to_pipe)
{
	size_t len = 4 * MiB + 7;
	char *data = pattern(0, len);
	int out[2], keep, good;
	pid_t pid;

	xpipe(out);
	pid = sink(out, &keep);
	good = cat_mixed(out[1], data, len);
	close(out[1]);
	ok(good && exited_ok(pid) && file_holds(keep, data, len),
	    "file, empty file, pipe, small file, file -> a pipe: byte-exact");
	close(keep);
	free(data);
}

TEST(mixed_to_devnull)
{
	size_t len = 4 * MiB + 7;
	char *data = pattern(0, len);
	int out = xopen("/dev/null", O_WRONLY);

	ok(cat_mixed(out, data, len), "the same inputs -> /dev/null: no error");
	close(out);
	free(data);
}

/*
 * Concatenate the NUL-terminated texts IN[] (NULL-ended) under FLAGS
 * into a file; return 1 if it then holds WANT.
 */
static int
cat_texts(unsigned flags, const char *const *in, const char *want)
{
	int out = xtmpfile(), good = 1, fd;
	struct spate_cat *c = xcat_open(out, flags);
	enum spate_side side;

	for (; *in != NULL; in++) {
		fd = xtmpfile_with(*in, strlen(*in));
		good &= spate_cat_add(c, fd, &side) == 0;
		close(fd);
	}
	good &= spate_cat_close(c) == 0;
	good &= file_holds(out, want, strlen(want));
	close(out);
	return good;
}

TEST(number_across)
{
	static const char *const in[] = { "a\nb", "c\n\nd\n", NULL };

	ok(cat_texts(SPATE_CAT_NUMBER, in,
	    "     1\ta\n     2\tbc\n     3\t\n     4\td\n"),
	    "SPATE_CAT_NUMBER: numbers go on across inputs, a line split "
	    "between two is one line");
}

TEST(squeeze_across)
{
	static const char *const in[] = { "a\n\n", "\n\nb\n", NULL };

	ok(cat_texts(SPATE_CAT_SQUEEZE, in, "a\n\nb\n"),
	    "SPATE_CAT_SQUEEZE: empty lines squeezed across inputs");
	ok(cat_texts(SPATE_CAT_SQUEEZE | SPATE_CAT_NUMBER, in,
	    "     1\ta\n     2\t\n     3\tb\n"),
	    "SPATE_CAT_SQUEEZE | SPATE_CAT_NUMBER: across inputs");
}

TEST(number_pipe_input)
{
	static const char text[] = "one\ntwo\n";
	static const char want[] = "     1\tone\n     2\ttwo\n"
	    "     3\tone\n     4\ttwo\n";
	int out = xtmpfile(), in, r1, r2, r3;
	struct spate_cat *c;
	enum spate_side side;
	pid_t pid;

	in = feeder(text, strlen(text), &pid);
	c = xcat_open(out, SPATE_CAT_NUMBER);
	r1 = spate_cat_add(c, in, &side);
	close(in);
	in = xtmpfile_with(text, strlen(text));
	r2 = spate_cat_add(c, in, &side);
	close(in);
	r3 = spate_cat_close(c);
	ok(r1 == 0 && r2 == 0 && r3 == 0 && exited_ok(pid) &&
	    file_holds(out, want, strlen(want)),
	    "SPATE_CAT_NUMBER: a pipe, then a file, numbered on");
	close(out);
}

/* A directory as input, with FLAGS (called NAME): SPATE_INPUT, and the
 * next input still goes out after what came before. */
static void
input_dir(unsigned flags, const char *name)
{
	int out = xtmpfile(), dir = xopen(".", O_RDONLY | O_DIRECTORY);
	int a = xtmpfile_with("x\n", 2), b = xtmpfile_with("y\n", 2);
	int r1, r2, r3, r4, e;
	struct spate_cat *c = xcat_open(out, flags);
	enum spate_side side = 0;
	const char *want = flags ? "     1\tx\n     2\ty\n" : "x\ny\n";

	r1 = spate_cat_add(c, a, &side);
	errno = 0;
	r2 = spate_cat_add(c, dir, &side);
	e = errno;
	ok(r1 == 0 && r2 == -1 && e == EISDIR && side == SPATE_INPUT,
	    "%s: a directory as input: -1 EISDIR, SPATE_INPUT", name);
	r3 = spate_cat_add(c, b, &side);
	r4 = spate_cat_close(c);
	ok(r3 == 0 && r4 == 0 && file_holds(out, want, strlen(want)),
	    "%s: the inputs around the directory all go out", name);
	close(a);
	close(b);
	close(dir);
	close(out);
}

TEST(input_dir)
{
	input_dir(0, "untransformed");
}

TEST(input_dir_numbered)
{
	input_dir(SPATE_CAT_NUMBER, "SPATE_CAT_NUMBER");
}

/*
 * Concatenate the LEN bytes of TEXT with FLAGS into /dev/full: the
 * failure must be ENOSPC, said once, by spate_cat_add with SPATE_OUTPUT or,
 * if the text was held, by spate_cat_close.
 */
static int
devfull_once(int full, unsigned flags, const char *text, size_t len)
{
	int in = xtmpfile_with(text, len), r, e = 0, rc, ec;
	struct spate_cat *c = xcat_open(full, flags);
	enum spate_side side = 0;

	errno = 0;
	r = spate_cat_add(c, in, &side);
	if (r == -1)
		e = errno;
	errno = 0;
	rc = spate_cat_close(c);
	ec = errno;
	close(in);
	printf("# flags %#x, %zu bytes: spate_cat_add %d (%s, side %d), "
	    "spate_cat_close %d (%s)\n", flags, len, r, strerror(e), side, rc,
	    strerror(ec));
	if (r == -1)
		return e == ENOSPC && side == SPATE_OUTPUT && rc == 0;
	return rc == -1 && ec == ENOSPC;
}

TEST(devfull)
{
	size_t big = MiB;
	char *data = pattern(0, big);
	int full = open("/dev/full", O_WRONLY), i;

	if (full == -1) {
		for (i = 0; i < 4; i++)
			ok(1, "/dev/full # skip no /dev/full");
		free(data);
		return;
	}
	for (i = 0; i < (int)big; i += 64)
		data[i] = '\n';
	ok(devfull_once(full, 0, "hello\n", 6),
	    "/dev/full, 6 bytes: ENOSPC, once, SPATE_OUTPUT");
	ok(devfull_once(full, 0, data, big),
	    "/dev/full, 1 MiB: ENOSPC, once, SPATE_OUTPUT");
	ok(devfull_once(full, SPATE_CAT_NUMBER, "hello\n", 6),
	    "/dev/full, SPATE_CAT_NUMBER, 6 bytes: ENOSPC, once");
	ok(devfull_once(full, SPATE_CAT_NUMBER, data, big),
	    "/dev/full, SPATE_CAT_NUMBER, 1 MiB: ENOSPC, once");
	close(full);
	free(data);
}

TEST(close_flushes)
{
	static const char want[] = "     1\tx$\n     2\t^Iy$\n";
	int out = xtmpfile(), in = xtmpfile_with("x\n\ty\n", 5), r1, r2;
	struct spate_cat *c = xcat_open(out,
	    SPATE_CAT_NUMBER | SPATE_CAT_SHOW_ENDS | SPATE_CAT_SHOW_TABS);
	enum spate_side side;
	struct stat st;

	r1 = spate_cat_add(c, in, &side);
	if (fstat(out, &st) == 0)
		printf("# before spate_cat_close the output holds %lld bytes\n",
		    (long long)st.st_size);
	r2 = spate_cat_close(c);
	ok(r1 == 0 && r2 == 0 && file_holds(out, want, strlen(want)),
	    "spate_cat_close writes what the transformation held");
	close(in);
	close(out);
}

/*
 * A child writes one line into the input pipe, waits to read its
 * numbered form from the output pipe, and only then writes the next:
 * the engine must write what it holds before a read that would wait.
 * (Got wrong, this hangs: the watchdog turns that into a failure.)
 */
TEST(flush_before_wait)
{
	static const char first[] = "     1\ta\n";
	int in[2], out[2], r1, r2;
	struct spate_cat *c;
	enum spate_side side;
	pid_t pid;

	xpipe(in);
	xpipe(out);
	if ((pid = xfork()) == 0) {
		char buf[sizeof first - 1], rest[64];
		ssize_t n, got = 0;

		close(in[0]);
		close(out[1]);
		if (write_all(in[1], "a\n", 2) == -1 ||
		    read_exact(out[0], buf, sizeof buf) == -1 ||
		    memcmp(buf, first, sizeof buf) != 0 ||
		    write_all(in[1], "b\n", 2) == -1)
			_exit(1);
		close(in[1]);
		while ((n = read(out[0], rest + got, sizeof rest - got)) > 0)
			got += n;
		_exit(got == 9 && memcmp(rest, "     2\tb\n", 9) == 0 ? 0 : 2);
	}
	close(in[1]);
	close(out[0]);
	c = xcat_open(out[1], SPATE_CAT_NUMBER);
	r1 = spate_cat_add(c, in[0], &side);
	r2 = spate_cat_close(c);
	close(out[1]);
	ok(r1 == 0 && r2 == 0 && exited_ok(pid),
	    "SPATE_CAT_NUMBER from a pipe: each line goes out before the next "
	    "read waits");
	close(in[0]);
}

TEST(nothing)
{
	int out = xtmpfile(), in = xtmpfile(), r1, r2, r3;
	struct spate_cat *c = xcat_open(out, 0);
	enum spate_side side;

	r1 = spate_cat_close(c);
	c = xcat_open(out, SPATE_CAT_NUMBER);
	r2 = spate_cat_add(c, in, &side);
	r3 = spate_cat_close(c);
	ok(r1 == 0 && r2 == 0 && r3 == 0 && file_holds(out, "", 0),
	    "no input, or an empty one: nothing written, no error");
	close(in);
	close(out);
}
