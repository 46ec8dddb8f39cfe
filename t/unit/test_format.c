/* Unit tests of cat's text transformations (lib/format.c) against the
 * model of GNU cat's loop in lib-format.h: every byte value, every
 * flag, every place a buffer can be cut, at every SIMD level. */
#define _GNU_SOURCE

#include "lib-format.h"

/* A text with every byte value, alone on a line and in a run, with
 * empty lines, CR LF, a final line without LF. */
static size_t
every_byte(unsigned char *t)
{
	size_t n = 0;
	int c;

	for (c = 0; c < 256; c++) {
		t[n++] = 'x';
		t[n++] = c;
		t[n++] = '\n';
	}
	for (c = 0; c < 256; c++)
		t[n++] = c;
	memcpy(t + n, "\n\n\n\r\n\t\r\r\n\n\n\n", 12);
	n += 12;
	for (c = 255; c >= 0; c--)
		t[n++] = c;
	return n;
}

static void
every_byte_every_flag(void)
{
	unsigned char t[2048];
	size_t n = every_byte(t);
	unsigned fl;

	for (fl = 0; fl < ALL_FLAGS; fl++)
		ok(same(fl, t, n, NULL, 0),
		    "every byte value, flags 0x%02x, one buffer", fl);
}

TEST(every_byte_every_flag)
{
	at_every_level(every_byte_every_flag);
}

/* The text of every_byte_every_flag, byte by byte: each byte is
 * at a buffer end (the tail loop) and at a buffer start. */
TEST(every_byte_one_at_a_time)
{
	unsigned char t[2048];
	size_t n = every_byte(t), i, *cuts;
	unsigned fl;

	if ((cuts = malloc(n * sizeof *cuts)) == NULL)
		die("malloc");
	for (i = 0; i < n; i++)
		cuts[i] = i + 1;
	for (fl = 0; fl < ALL_FLAGS; fl++)
		ok(same(fl, t, n, cuts, n - 1),
		    "every byte value, flags 0x%02x, 1-byte buffers", fl);
	free(cuts);
}

/* A short text with every feature near every offset, cut in two at
 * every point: the same output whatever the split. */
static void
every_split(void)
{
	static const char text[] =
	    "\n\n\nab\tc\r\n\r\n\n\n\n\001\177\200\377x\r\r\n"
	    "a fairly long line of plain text, longer than two blocks!\n"
	    "\t\t\tM-\n\n\r\n\r";
	size_t n = sizeof text - 1, k;
	unsigned fl;

	for (fl = 0; fl < ALL_FLAGS; fl++) {
		int good = 1;

		for (k = 0; k <= n; k++)
			good &= same(fl, (const unsigned char *)text, n, &k, 1);
		ok(good, "every split point in two, flags 0x%02x", fl);
	}
}

TEST(every_split)
{
	at_every_level(every_split);
}

/* Random texts rich in LF, CR, TAB and high bytes, cut at random. */
static void
random_splits(void)
{
	static const unsigned char alphabet[] = "ab \t\n\n\n\r\001\177\200\377";
	unsigned char *t;
	size_t n = 100000, i, cuts[40];
	unsigned fl, seed = 12345;
	int round;

	if ((t = malloc(n)) == NULL)
		die("malloc");
	for (round = 0; round < 4; round++) {
		for (i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			/* Long plain stretches now and then. */
			t[i] = (seed >> 16) % 8 == 0 ?
			    alphabet[(seed >> 20) % (sizeof alphabet - 1)] :
			    'a' + (seed >> 20) % 26;
		}
		for (i = 0; i < 40; i++) {
			seed = seed * 1103515245 + 12345;
			cuts[i] = (seed >> 8) % (n + 1);
		}
		/* Ascending, for run_cuts. */
		for (i = 1; i < 40; i++) {
			size_t j = i, c = cuts[i];

			for (; j > 0 && cuts[j - 1] > c; j--)
				cuts[j] = cuts[j - 1];
			cuts[j] = c;
		}
		for (fl = 0; fl < ALL_FLAGS; fl++)
			ok(same(fl, t, n, cuts, 40),
			    "random text %d, 40 random cuts, flags 0x%02x",
			    round, fl);
	}
	free(t);
}

TEST(random_splits)
{
	at_every_level(random_splits);
}

/*
 * Lines of every length up to 400, each ending in CR LF or LF, with a
 * TAB, a CR or a high byte now and then: every place a block or a
 * look-ahead for LF can end, in one buffer and cut at odd places.
 */
static void
line_lengths(void)
{
	static const unsigned char odd[] = "\t\r\001\200";
	unsigned char *t;
	size_t n = 0, len, i, cuts[3] = { 1000, 33333, 50001 };
	unsigned fl;

	if ((t = malloc(90000)) == NULL)
		die("malloc");
	for (len = 0; len <= 400; len++) {
		for (i = 0; i < len; i++)
			t[n++] = (len * 7 + i) % 97 == 0 ?
			    odd[(len + i) % 4] : 'a' + i % 26;
		if (len % 2)
			t[n++] = '\r';
		t[n++] = '\n';
		if (len % 5 == 0)
			t[n++] = '\n';
	}
	for (fl = 0; fl < ALL_FLAGS; fl++) {
		ok(same(fl, t, n, NULL, 0),
		    "lines of every length, flags 0x%02x, one buffer", fl);
		ok(same(fl, t, n, cuts, 3),
		    "lines of every length, flags 0x%02x, cut", fl);
	}
	free(t);
}

TEST(line_lengths)
{
	at_every_level(line_lengths);
}

/*
 * A line of LEN bytes ending in CR LF, then a few bytes more: the CR
 * and LF at every distance from the buffer's start and end.
 */
static void
crlf_everywhere(void)
{
	static const size_t more[] = { 0, 1, 31, 32, 33, 127, 128, 129, 200 };
	unsigned char t[600];
	size_t len, i, j;
	unsigned fl;

	for (fl = 0; fl < ALL_FLAGS; fl++) {
		int good = 1;

		for (len = 0; len <= 300; len++)
			for (j = 0; j < sizeof more / sizeof *more; j++) {
				memset(t, 'x', len);
				t[len] = '\r';
				t[len + 1] = '\n';
				for (i = 0; i < more[j]; i++)
					t[len + 2 + i] = 'y';
				good &= same(fl, t, len + 2 + more[j], NULL, 0);
			}
		ok(good, "CR LF at every distance from both ends, flags 0x%02x",
		    fl);
	}
}

TEST(crlf_everywhere)
{
	at_every_level(crlf_everywhere);
}
