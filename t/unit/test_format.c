/* Unit tests of cat's text transformations (lib/format.c) against a
 * plain model of GNU cat's loop written here, byte at a time. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spate.h"
#include "format.h"
#include "tap.h"

#define ALL_FLAGS	0x40	/* every combination of the six SPATE_CAT_* */
#define GUARD		64

/*
 * The highest SIMD level the tests let fmt_run use, whatever this CPU
 * has: the cases that at_every_level runs lower it, down to the
 * portable loops; the others run at the CPU's own.
 */
static enum simd_level top = SIMD_AVX512;

/*
 * Run CHECK at each SIMD level from the highest down: as on a CPU
 * without AVX-512, then without AVX2 either.  TOP is put back after.
 */
static void
at_every_level(void (*check)(void))
{
	static const enum simd_level levels[] = { SIMD_AVX512, SIMD_AVX2,
	    SIMD_PORTABLE };
	size_t i;

	for (i = 0; i < sizeof levels / sizeof *levels; i++) {
		top = levels[i];
		printf("# at SIMD level %d at most\n", (int)top);
		check();
	}
	top = SIMD_AVX512;
}

/* A growing output buffer. */
struct buf {
	char *s;
	size_t len, cap;
};

static void
die(const char *what)
{
	perror(what);
	exit(2);
}

static void
put(struct buf *b, const char *s, size_t n)
{
	if (n == 0)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		if ((b->s = realloc(b->s, b->cap)) == NULL)
			die("realloc");
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
}

static void
puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/*
 * The model: GNU cat's rules for the whole TEXT of LEN bytes at once,
 * under FLAGS; line numbers printed with printf.
 */
static void
model(unsigned flags, const unsigned char *text, size_t len, struct buf *b)
{
	int number = (flags & (SPATE_CAT_NUMBER | SPATE_CAT_NUMBER_NONBLANK)) != 0;
	int number_all = number && !(flags & SPATE_CAT_NUMBER_NONBLANK);
	int v = (flags & SPATE_CAT_SHOW_NONPRINTING) != 0;
	int t = (flags & SPATE_CAT_SHOW_TABS) != 0;
	int e = (flags & SPATE_CAT_SHOW_ENDS) != 0;
	int nl = 0;
	unsigned long long n = 0;
	char tmp[32];
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned c = text[i];

		if (c == '\n') {
			if (++nl > 0) {
				if (nl >= 2) {
					nl = 2;
					if (flags & SPATE_CAT_SQUEEZE)
						continue;
				}
				if (number_all) {
					snprintf(tmp, sizeof tmp, "%6llu\t", ++n);
					puts_(b, tmp);
				}
			}
			if (e)
				puts_(b, "$");
			puts_(b, "\n");
			continue;
		}
		if (nl >= 0 && number) {
			snprintf(tmp, sizeof tmp, "%6llu\t", ++n);
			puts_(b, tmp);
		}
		nl = -1;
		if (c == '\t') {
			puts_(b, t ? "^I" : "\t");
		} else if (c == '\r' && e && i + 1 < len && text[i + 1] == '\n') {
			puts_(b, "^M");
		} else if (!v) {
			tmp[0] = c;
			put(b, tmp, 1);
		} else {
			if (c >= 0x80) {
				puts_(b, "M-");
				c -= 0x80;
			}
			if (c < 0x20) {
				tmp[0] = '^';
				tmp[1] = c + 64;
				put(b, tmp, 2);
			} else if (c == 0x7f) {
				puts_(b, "^?");
			} else {
				tmp[0] = c;
				put(b, tmp, 1);
			}
		}
	}
}

/*
 * Run fmt_run under FLAGS over TEXT cut at the NCUTS offsets CUTS
 * (ascending), then fmt_finish; append the output to B.  Each call
 * gets exactly fmt_room (FMT_FINISH_MAX) bytes plus a guard that must
 * stay untouched.
 */
static int
run_cuts(unsigned flags, const unsigned char *text, size_t len,
    const size_t *cuts, size_t ncuts, struct buf *b)
{
	struct fmt f;
	size_t i, from = 0, ok = 1;

	fmt_init(&f, flags);
	fmt_use(&f, cpu_simd_level() < top ? cpu_simd_level() : top);
	for (i = 0; i <= ncuts + 1; i++) {
		size_t to = i < ncuts ? cuts[i] : len, room, n, g;
		char *out;

		room = i <= ncuts ? fmt_room(to - from) : FMT_FINISH_MAX;
		if ((out = malloc(room + GUARD)) == NULL)
			die("malloc");
		memset(out + room, 0x5a, GUARD);
		if (i <= ncuts)
			n = fmt_run(&f, (const char *)text + from, to - from,
			    out);
		else
			n = fmt_finish(&f, out);
		if (n > room)
			ok = 0;
		for (g = 0; g < GUARD; g++)
			if (out[room + g] != 0x5a)
				ok = 0;
		put(b, out, n);
		free(out);
		from = to;
	}
	return ok;
}

/* Whether TEXT under FLAGS, cut at CUTS, gives the model's output. */
static int
same(unsigned flags, const unsigned char *text, size_t len,
    const size_t *cuts, size_t ncuts)
{
	struct buf want = { 0 }, got = { 0 };
	int ok = run_cuts(flags, text, len, cuts, ncuts, &got);

	model(flags, text, len, &want);
	ok = ok && want.len == got.len &&
	    (want.len == 0 || memcmp(want.s, got.s, want.len) == 0);
	free(want.s);
	free(got.s);
	return ok;
}

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

/* Run FLAGS over the C string S as one buffer; compare with WANT. */
static int
gives(unsigned flags, const char *s, const char *want)
{
	size_t cut = strlen(s);
	struct buf got = { 0 };
	int ok = run_cuts(flags, (const unsigned char *)s, cut, &cut, 1, &got);

	ok = ok && got.len == strlen(want) &&
	    (got.len == 0 || memcmp(got.s, want, got.len) == 0);
	if (!ok)
		printf("# got %.*s\n", (int)got.len, got.s ? got.s : "");
	free(got.s);
	return ok;
}

TEST(examples)
{
	ok(gives(SPATE_CAT_NUMBER, "a\n\nb\n", "     1\ta\n     2\t\n     3\tb\n"),
	    "-n numbers every line");
	ok(gives(SPATE_CAT_NUMBER_NONBLANK, "a\n\nb\n", "     1\ta\n\n     2\tb\n"),
	    "-b numbers the non-empty lines");
	ok(gives(SPATE_CAT_NUMBER | SPATE_CAT_NUMBER_NONBLANK, "a\n\nb",
	    "     1\ta\n\n     2\tb"), "-b overrides -n");
	ok(gives(SPATE_CAT_SQUEEZE, "\n\n\na\n\n\n\nb\n\n", "\na\n\nb\n\n"),
	    "-s keeps one empty line of each run");
	ok(gives(SPATE_CAT_SQUEEZE | SPATE_CAT_NUMBER, "\n\n\na\n\n\nb",
	    "     1\t\n     2\ta\n     3\t\n     4\tb"),
	    "-sn numbers what -s keeps");
	ok(gives(SPATE_CAT_SHOW_ENDS, "a\r\nb\rc\n\r", "a^M$\nb\rc$\n\r"),
	    "-E: $ at line ends, ^M for CR LF, a final CR stands");
	ok(gives(SPATE_CAT_SHOW_ENDS | SPATE_CAT_SHOW_NONPRINTING, "a\r\n\r",
	    "a^M$\n^M"), "-vE: ^M for every CR");
	ok(gives(SPATE_CAT_SHOW_TABS, "\ta\t\n", "^Ia^I\n"), "-T: ^I");
	ok(gives(SPATE_CAT_SHOW_NONPRINTING, "\t\001\033\177\200\237\240\376\377\n",
	    "\t^A^[^?M-^@M-^_M- M-~M-^?\n"), "-v: ^, M- and their mixes");
	ok(gives(SPATE_CAT_SHOW_NONPRINTING | SPATE_CAT_SHOW_TABS, "\t\211",
	    "^IM-^I"), "-vT: TAB and M-TAB");
	ok(gives(SPATE_CAT_SHOW_NONPRINTING, "", ""), "empty text, nothing out");
}

/* Feed the pieces PARTS[0..N) in turn; compare with WANT. */
static int
pieces(unsigned flags, const char *const *parts, size_t n, const char *want)
{
	struct fmt f;
	struct buf got = { 0 };
	char out[4096];
	size_t i, k;
	int good;

	fmt_init(&f, flags);
	for (i = 0; i < n; i++) {
		k = fmt_run(&f, parts[i], strlen(parts[i]), out);
		put(&got, out, k);
	}
	put(&got, out, fmt_finish(&f, out));
	good = got.len == strlen(want) &&
	    (got.len == 0 || memcmp(got.s, want, got.len) == 0);
	if (!good)
		printf("# got %.*s\n", (int)got.len, got.s ? got.s : "");
	free(got.s);
	return good;
}

TEST(across_calls)
{
	static const char *const a[] = { "one\ntw", "o\n", "\nthr", "ee" };
	static const char *const b[] = { "\n\n", "\n", "\n", "x\n\n", "\n" };
	static const char *const c[] = { "a\r", "\nb\r", "c\r", "" };
	static const char *const d[] = { "a", "\r", "\r", "\n" };
	static const char *const e[] = { "a\r", "", "\n\r", "" };

	ok(pieces(SPATE_CAT_NUMBER, a, 4,
	    "     1\tone\n     2\ttwo\n     3\t\n     4\tthree"),
	    "-n: a line split across calls keeps one number");
	ok(pieces(SPATE_CAT_SQUEEZE | SPATE_CAT_NUMBER_NONBLANK, b, 5,
	    "\n     1\tx\n\n"), "-sb: a run of empty lines across calls");
	ok(pieces(SPATE_CAT_SHOW_ENDS, c, 4, "a^M$\nb\rc\r"),
	    "-E: a CR at a call's end waits for the next byte, or the end");
	ok(pieces(SPATE_CAT_SHOW_ENDS | SPATE_CAT_SHOW_TABS, d, 4, "a\r^M$\n"),
	    "-ET: CR CR LF over three calls");
	ok(pieces(SPATE_CAT_SHOW_ENDS, e, 4, "a^M$\n\r"),
	    "-E: an empty buffer holds the CR on, fmt_finish ends it");
}

/* The text of LINES empty lines under -n, checked line by line. */
TEST(number_width)
{
	size_t lines = 1000001, room = fmt_room(lines), n, i;
	char *in = malloc(lines), *out = malloc(room), want[32];
	const char *p;
	struct fmt f;
	int good = 1;

	if (in == NULL || out == NULL)
		die("malloc");
	memset(in, '\n', lines);
	fmt_init(&f, SPATE_CAT_NUMBER);
	n = fmt_run(&f, in, lines, out);
	out[n] = '\0';
	for (p = out, i = 1; i <= lines && good; i++) {
		size_t k = snprintf(want, sizeof want, "%6zu\t\n", i);

		good = strncmp(p, want, k) == 0;
		if (!good)
			printf("# line %zu: %.*s\n", i, (int)k, p);
		p += k;
	}
	ok(good && p == out + n, "-n: \"%%6d\\t\", then wider past 999999");
	free(in);
	free(out);
}

/*
 * Lines of 0 to 5 bytes, 300000 of them, under -n, -b and -sb: every
 * carry of the line number, with and without empty lines between.
 */
static void
number_carries(void)
{
	static const unsigned fls[] = { SPATE_CAT_NUMBER, SPATE_CAT_NUMBER_NONBLANK,
	    SPATE_CAT_NUMBER_NONBLANK | SPATE_CAT_SQUEEZE };
	size_t n = 0, i, j, cuts[2] = { 70000, 700001 };
	unsigned char *t = malloc(300000 * 6);

	if (t == NULL)
		die("malloc");
	for (i = 0; i < 300000; i++) {
		for (j = 0; j < i * 7 % 6; j++)
			t[n++] = 'a' + j;
		t[n++] = '\n';
	}
	for (i = 0; i < sizeof fls / sizeof *fls; i++)
		ok(same(fls[i], t, n, cuts, 2),
		    "line numbers carry, flags 0x%02x", fls[i]);
	free(t);
}

TEST(number_carries)
{
	at_every_level(number_carries);
}

/* GNU's counter has 18 digits: past them it shows '>' and wraps. */
TEST(number_overflow)
{
	struct fmt f;
	char out[256];
	size_t n;
	const char *want = ">00000000000000000\tx\n>00000000000000001\ty\n";

	fmt_init(&f, SPATE_CAT_NUMBER);
	memset(f.num, '9', 18);
	f.first = 0;
	f.print = 0;
	n = fmt_run(&f, "x\ny\n", 4, out);
	ok(n == strlen(want) && memcmp(out, want, n) == 0,
	    "-n: line 10^18 wraps to '>' and 17 zeros");
}

/* The worst cases for fmt_room: every byte as wide as it can be. */
static void
room(void)
{
	static const char *const texts[] = { "\n", "\377", "\377\n", "\t\n\r" };
	unsigned fl = SPATE_CAT_NUMBER | SPATE_CAT_SHOW_ENDS |
	    SPATE_CAT_SHOW_NONPRINTING | SPATE_CAT_SHOW_TABS;
	unsigned char t[3000];
	size_t i, j, n = sizeof t, cut;

	for (i = 0; i < sizeof texts / sizeof *texts; i++) {
		size_t k = strlen(texts[i]);

		for (j = 0; j < n; j++)
			t[j] = texts[i][j % k];
		cut = n;
		ok(same(fl, t, n, &cut, 1), "fmt_room holds a text of \"%s\"",
		    i == 0 ? "\\n" : i == 1 ? "\\377" : i == 2 ? "\\377\\n" :
		    "\\t\\n\\r");
	}
}

TEST(room)
{
	at_every_level(room);
}

/* fmt_room with 19-byte line numbers, the widest GNU prints. */
TEST(room_wide_numbers)
{
	static const char *const texts[] = { "\n", "\377\n", "\377" };
	size_t i, j, n = 2000, room = fmt_room(n), got, g;
	char in[2000], *out = malloc(room + GUARD);
	struct fmt f;
	int good;

	if (out == NULL)
		die("malloc");
	for (i = 0; i < sizeof texts / sizeof *texts; i++) {
		size_t k = strlen(texts[i]);

		for (j = 0; j < n; j++)
			in[j] = texts[i][j % k];
		fmt_init(&f, SPATE_CAT_NUMBER | SPATE_CAT_SHOW_ENDS |
		    SPATE_CAT_SHOW_NONPRINTING);
		memset(f.num, '9', 18);
		f.first = 0;
		f.print = 0;
		memset(out + room, 0x5a, GUARD);
		got = fmt_run(&f, in, n, out);
		good = got <= room;
		for (g = 0; g < GUARD; g++)
			good &= out[room + g] == 0x5a;
		ok(good, "fmt_room holds text %zu with 19-byte numbers", i);
	}
	free(out);
}

/* The CPU is asked for its SIMD level at the first long buffer only:
 * asking costs a trap to the hypervisor in a virtual machine. */
TEST(level_decided_late)
{
	struct fmt f;
	char *text = xmalloc(4096), *out = xmalloc(fmt_room(4096));
	int before, after;
	enum simd_level level;

	memset(text, 'a', 4096);
	text[4095] = '\n';
	fmt_init(&f, SPATE_CAT_NUMBER);
	fmt_run(&f, "x\n", 2, out);
	before = f.level_set;
	fmt_run(&f, text, 4096, out);
	after = f.level_set;
	level = f.level;
	ok(!before && after && level == cpu_simd_level(),
	    "fmt_run: a short buffer leaves the SIMD level undecided, a "
	    "long one takes the CPU's (%d)", (int)level);
	free(text);
	free(out);
}
