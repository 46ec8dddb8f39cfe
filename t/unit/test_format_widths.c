/* Unit tests of how wide cat's text transformations (lib/format.c) make
 * their output: line numbers as GNU prints them, past 6 digits and past
 * 18, and fmt_room's bound in the worst cases. */
#define _GNU_SOURCE

#include "lib-format.h"

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
