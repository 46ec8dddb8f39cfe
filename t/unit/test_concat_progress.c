/*
 * Unit tests of the progress hook of lib/concat.c, cat's engine
 * (spate_cat_progress): told of every chunk moved, counts growing, the
 * last the bytes written, on the untransformed copy and on the
 * transformed one.
 */
#define _GNU_SOURCE

#include "lib-concat.h"

/* What a progress hook was told: every count larger than the one before
 * (INCREASING stays 1), the last one LAST. */
struct told {
	off_t last;
	size_t calls;
	int increasing;
};

static void
on_progress(void *ctx, long long bytes)
{
	struct told *t = ctx;

	if (bytes <= t->last)
		t->increasing = 0;
	t->last = bytes;
	t->calls++;
}

/* The hook on the untransformed copy: files and a pipe, into a file and
 * into a pipe (by copy_file_range, splice, read and write). */
TEST(progress_plain)
{
	size_t len = 4 * MiB + 7;
	char *data = pattern(0, len);
	struct told t = { .increasing = 1 };
	struct spate_cat *c;
	enum spate_side side;
	int in[2], out[2], keep, fd, good;
	pid_t pid, feed;

	fd = xtmpfile_with(data, MiB + 3);
	in[0] = feeder(data + MiB + 3, len - MiB - 3, &feed);
	xpipe(out);
	pid = sink(out, &keep);
	c = xcat_open(out[1], 0);
	spate_cat_progress(c, on_progress, &t);
	good = spate_cat_add(c, fd, &side) == 0 &&
	    t.last == (off_t)(MiB + 3) && spate_cat_add(c, in[0], &side) == 0;
	good &= spate_cat_close(c) == 0;
	close(out[1]);
	close(in[0]);
	close(fd);
	ok(good && exited_ok(feed) && exited_ok(pid) &&
	    file_holds(keep, data, len), "a file, a pipe -> a pipe, told");
	ok(t.calls > 1 && t.increasing && t.last == (off_t)len,
	    "the hook told %zu times, counts growing, the last %lld of %zu",
	    t.calls, (long long)t.last, len);
	close(keep);

	t = (struct told){ .increasing = 1 };
	out[1] = xtmpfile();
	fd = xtmpfile_with(data, len);
	c = xcat_open(out[1], 0);
	spate_cat_progress(c, on_progress, &t);
	good = spate_cat_add(c, fd, &side) == 0 && spate_cat_close(c) == 0;
	ok(good && file_holds(out[1], data, len) && t.calls > 1 &&
	    t.increasing && t.last == (off_t)len,
	    "a file -> a file: told %zu times, the last %lld", t.calls,
	    (long long)t.last);
	close(fd);
	close(out[1]);
	free(data);
}

/*
 * The hook on the transformed copy (-n), into a file, and into a pipe
 * long enough to be handed the pages (handoff.c): the bytes written,
 * which -n makes more than were read; what -E holds back to the end
 * counted too.
 */
TEST(progress_numbered)
{
	static const char line[] = "a line of text\n";
	size_t n = 600000, len = n * (sizeof line - 1), i, want;
	char *text = xmalloc(len);
	struct told t = { .increasing = 1 };
	struct spate_cat *c;
	enum spate_side side;
	int out[2], keep, fd, good;
	pid_t pid;

	for (i = 0; i < n; i++)
		memcpy(text + i * (sizeof line - 1), line, sizeof line - 1);
	/* "%6zu\t" before each line: 7 bytes more a line. */
	want = len + 7 * n;
	xpipe(out);
	pid = sink(out, &keep);
	fd = xtmpfile_with(text, len);
	c = xcat_open(out[1], SPATE_CAT_NUMBER);
	spate_cat_progress(c, on_progress, &t);
	good = spate_cat_add(c, fd, &side) == 0 && spate_cat_close(c) == 0;
	close(out[1]);
	close(fd);
	ok(good && exited_ok(pid) && lseek(keep, 0, SEEK_END) == (off_t)want,
	    "-n, %zu lines -> a pipe: %zu bytes", n, want);
	ok(t.calls > 1 && t.increasing && t.last == (off_t)want,
	    "the hook told %zu times, counts growing, the last %lld of %zu",
	    t.calls, (long long)t.last, want);
	close(keep);

	/* A carriage return last: -E holds it until it knows what
	 * follows, and spate_cat_close writes it. */
	t = (struct told){ .increasing = 1 };
	out[1] = xtmpfile();
	fd = xtmpfile_with("x\ny\r", 4);
	c = xcat_open(out[1], SPATE_CAT_SHOW_ENDS);
	spate_cat_progress(c, on_progress, &t);
	good = spate_cat_add(c, fd, &side) == 0 && spate_cat_close(c) == 0;
	ok(good && t.increasing && t.last >= 5 &&
	    t.last == lseek(out[1], 0, SEEK_END),
	    "-E: what is held to the end counted, %lld bytes",
	    (long long)t.last);
	close(fd);
	close(out[1]);
	free(text);
}
