/*
 * Unit tests of lib/outputs.c with a fan-out made by hand, no
 * descriptor behind it: every move between two states of an output,
 * legal or not (an illegal one aborts, the asserts being on in every
 * build), the counts the moves keep, what holds between rounds, the way
 * each output takes a round's chunk, and the order out_report tells
 * failures in.  The expectations are doc/design.md's ("One state per
 * output", "Zero-copy", "Failures, in GNU's order"), not outputs.c's
 * tables.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "spate.h"
#include "fanout.h"
#include "tap.h"

#define NSTATES	5

static const char *const names[NSTATES] = {
	[OUT_GONE] = "GONE", [OUT_FAILED] = "FAILED", [OUT_WRITE] = "WRITE",
	[OUT_ZC] = "ZC", [OUT_LANE] = "LANE"
};

/* design.md: every state but GONE and FAILED is served, gets the
 * chunks. */
static int
gets_chunks(enum out_st s)
{
	return s != OUT_GONE && s != OUT_FAILED;
}

/*
 * The moves design.md allows: a failure from any state served, told
 * once (FAILED to GONE); WRITE to ZC when the zero-copy path is
 * planned; ZC falls back to WRITE, at any byte, or gets a lane; a
 * stopped lane returns its output as its worker left it (WRITE or ZC).
 */
static int
allowed(enum out_st from, enum out_st to)
{
	if (to == OUT_FAILED)
		return gets_chunks(from);
	switch (from) {
	case OUT_FAILED:
		return to == OUT_GONE;
	case OUT_WRITE:
		return to == OUT_ZC;
	case OUT_ZC:
		return to == OUT_WRITE || to == OUT_LANE;
	case OUT_LANE:
		return to == OUT_WRITE || to == OUT_ZC;
	default:
		return 0;
	}
}

/* A fan-out of N outputs, each in state S[i], its counts to match. */
static void
make_fan(struct fan *f, struct spate_out *outs, size_t n, const enum out_st *s)
{
	size_t i;

	*f = (struct fan){ .outs = outs, .n = n, .die_at = -1 };
	chunk_init(&f->ch);
	sigemptyset(&f->held);
	for (i = 0; i < n; i++) {
		outs[i].fd = s[i] == OUT_GONE ? -1 : 100 + (int)i;
		*out_state(&outs[i]) = (struct out_state){ .st = s[i] };
		f->live += gets_chunks(s[i]);
		f->failing += s[i] == OUT_FAILED;
	}
}

/*
 * Run BODY(A, B) in a child, its standard error gone (assert(3)'s words
 * are not the test's), and return 1 if it exited 0, 0 if it aborted (an
 * assert that does not hold), -1 if it ended otherwise; its status in
 * *STATUS.
 */
static int
in_child(int (*body)(int, int), int a, int b, int *status)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = xfork()) == 0) {
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(4);
		_exit(body(a, b));
	}
	waitpid(pid, status, 0);
	if (WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
		return 1;
	return WIFSIGNALED(*status) && WTERMSIG(*status) == SIGABRT ? 0 : -1;
}

/* Move a lone output from state FROM to TO: exit 0 if the counts and
 * the descriptor say what the move means, 3 if not. */
static int
move(int from, int to)
{
	struct spate_out o[1];
	struct fan f;
	enum out_st s = from;
	size_t live;

	make_fan(&f, o, 1, &s);
	live = f.live;
	out_set(&f, 0, to);
	return f.live != live - (gets_chunks(from) && !gets_chunks(to)) ||
	    f.failing != (to == OUT_FAILED) ||
	    (to == OUT_GONE) != (o[0].fd == -1) ? 3 : 0;
}

/*
 * Every pair of states: the move is made in a child, which aborts if it
 * is refused; the parent compares with allowed(), and, for a move made,
 * the counts of outputs served and failing, and the descriptor, with
 * what the move means.
 */
TEST(moves)
{
	int from, to, bad = 0, n = 0;

	for (from = 0; from < NSTATES; from++)
		for (to = 0; to < NSTATES; to++) {
			int status, r = in_child(move, from, to, &status);
			int made = r == 1;

			n++;
			if (made != allowed(from, to) || r == -1) {
				bad++;
				printf("# %s -> %s: %s (status %#x)\n",
				    names[from], names[to],
				    made ? "made" : "refused", status);
			}
		}
	ok(bad == 0, "the %d moves between two states: the %s", n,
	    bad ? "wrong ones above" : "legal ones made, with their "
	    "counts, the others abort");
}

/*
 * design.md's ways to take a round's chunk: from memory once it is only
 * there; the last output takes it out of the chunk pipe, by splice(2) or
 * into memory; an output pipe that had none of it by tee(2); else, where
 * it is in memory too, from there; else through the copy pipe, or into
 * memory for write(2).
 */
static enum delivery
way(enum out_st s, enum kind k, enum chunk_at at, int last, size_t off)
{
	int zc = s == OUT_ZC;

	if (at == AT_BUF)
		return BY_WRITE;
	if (last)
		return zc ? BY_SPLICE : BY_EMPTYING;
	if (zc && k == K_PIPE && off == 0)
		return BY_TEE;
	if (at == AT_PIPE_AND_BUF)
		return BY_WRITE;
	return zc ? BY_COPY : BY_MEMORY;
}

/* Every output state served but a lane's (whose output is its lane's
 * pipe: a pipe's way), every kind, where the chunk is, last or not, none
 * of the chunk had or some. */
TEST(deliveries)
{
	static const enum out_st served_states[] = { OUT_WRITE, OUT_ZC };
	static const enum kind kinds[] = { K_PIPE, K_FILE, K_SOCKET,
	    K_OTHER };
	static const enum chunk_at ats[] = { AT_PIPE, AT_PIPE_AND_BUF,
	    AT_BUF };
	size_t i, n = 2 * 4 * 3 * 2 * 2, bad = 0;

	for (i = 0; i < n; i++) {
		enum out_st s = served_states[i % 2];
		enum kind k = kinds[i / 2 % 4];
		enum chunk_at at = ats[i / 8 % 3];
		int last = i / 24 % 2;
		size_t off = i / 48;
		struct end e = { .kind = k };
		struct spate_out o[1];
		struct fan f;
		enum delivery got, want = way(s, k, at, last, off);

		make_fan(&f, o, 1, &s);
		f.ends = &e;
		if ((got = out_delivery(&f, 0, at, last, off)) != want) {
			bad++;
			printf("# %s, kind %d, at %d, last %d, off %zu: %d, "
			    "not %d\n", names[s], k, at, last, off, got, want);
		}
	}
	ok(bad == 0, "the way of %zu outputs to a chunk: %s", n,
	    bad ? "the wrong ones above" : "design.md's");
}

/*
 * What design.md says holds between rounds, and what breaks it: a fan of
 * three outputs (WRITE, ZC, GONE) that have all had POS, then one
 * change.  Each runs in a child, which aborts if out_check finds it
 * broken.
 */
enum change {
	NOTHING,
	FAILED_IN_READ,		/* FAILED in the read POS is in: not told yet */
	FAILED_READ_PAST,	/* ... and POS past that read, still not told */
	FAILED_TOLD,		/* ... told (out_report): GONE */
	GIVEN_BEHIND,		/* an output served has had less than POS */
	LIVE_WRONG,		/* the count of outputs served is off */
	DYING_GOING_ON,		/* a signal is due, and no stop */
	THREADS_NO_LANES,	/* threads running, with no lanes */
	GNU_CHUNKS_ZC,		/* GNU's chunks, on the zero-copy path */
	CHANGES
};

static const struct {
	const char *what;
	int holds;
} changes[CHANGES] = {
	[NOTHING] = { "three outputs that have had the same", 1 },
	[FAILED_IN_READ] = { "one failed in the read the position is in", 1 },
	[FAILED_READ_PAST] = { "one failed a read ago, not told", 0 },
	[FAILED_TOLD] = { "one failed a read ago, told", 1 },
	[GIVEN_BEHIND] = { "one served behind the others", 0 },
	[LIVE_WRONG] = { "the count of outputs served off by one", 0 },
	[DYING_GOING_ON] = { "a signal due, and no stop", 0 },
	[THREADS_NO_LANES] = { "threads running without lanes", 0 },
	[GNU_CHUNKS_ZC] = { "GNU's chunks on the zero-copy path", 0 }
};

static int
ignore_failure(void *ctx, size_t i, int err)
{
	(void)ctx;
	(void)i;
	(void)err;
	return 0;
}

static void
make_change(struct fan *f, enum change c)
{
	size_t i;

	switch (c) {
	case FAILED_IN_READ:
	case FAILED_READ_PAST:
	case FAILED_TOLD:
		f->flags = SPATE_FANOUT_THREADS;	/* told later, not at once */
		out_failed(f, 1, EIO);
		if (c != FAILED_IN_READ)
			f->pos = 3 * GNU_CHUNK;
		for (i = 0; i < f->n; i++)
			if (out_served(out(f, i)->st))
				out(f, i)->given = f->pos;
		if (c == FAILED_TOLD)
			out_report(f, 0);
		break;
	case GIVEN_BEHIND:
		out(f, 1)->given--;
		break;
	case LIVE_WRONG:
		f->live++;
		break;
	case DYING_GOING_ON:
		f->die_at = 0;
		break;
	case THREADS_NO_LANES:
		f->threads = THREADS_RUNNING;
		break;
	case GNU_CHUNKS_ZC:
		f->gnu_chunks = 1;
		f->mode = MODE_ZC;
		break;
	default:
		break;
	}
}

/* Three outputs that have had the same bytes, then change C: exit 0
 * if out_check finds what holds between rounds (else it aborts). */
static int
check_changed(int c, int unused)
{
	static const enum out_st s[3] = { OUT_WRITE, OUT_ZC, OUT_GONE };
	struct spate_out o[3];
	struct fan f;
	size_t i;

	(void)unused;
	make_fan(&f, o, 3, s);
	f.fail = ignore_failure;
	f.pos = 2 * GNU_CHUNK + 100;
	for (i = 0; i < 3; i++)
		out(&f, i)->given = f.pos;
	make_change(&f, (enum change)c);
	out_check(&f);
	return 0;
}

TEST(between_rounds)
{
	int c, bad = 0;

	for (c = 0; c < CHANGES; c++) {
		int status, r = in_child(check_changed, c, 0, &status);
		int held = r == 1;

		if (held != changes[c].holds || r == -1) {
			bad++;
			printf("# %s: %s (status %#x)\n", changes[c].what,
			    held ? "holds" : "broken", status);
		}
	}
	ok(bad == 0, "out_check between rounds: %s", bad ? "the wrong "
	    "verdicts above" : "design.md's invariants, each broken once "
	    "and after a failure told, checked");
}

struct told {
	size_t order[8];
	int errs[8];
	size_t n;
	int stop_at;		/* FAIL asks to stop at this call (1-based) */
};

static int
tell(void *ctx, size_t i, int err)
{
	struct told *t = ctx;

	t->order[t->n] = i;
	t->errs[t->n++] = err;
	return (int)t->n == t->stop_at ? -1 : 0;
}

/* Four outputs FAILED at AT[i] bytes of the stream with ERR 10 + i. */
static void
failing_four(struct fan *f, struct spate_out *o, struct told *t,
    const off_t *at)
{
	static const enum out_st s[4] = { OUT_FAILED, OUT_FAILED,
	    OUT_FAILED, OUT_FAILED };
	size_t i;

	make_fan(f, o, 4, s);
	f->fail = tell;
	f->ctx = t;
	for (i = 0; i < 4; i++) {
		out_state(&o[i])->err = 10 + (int)i;
		out_state(&o[i])->err_at = at[i];
	}
}

/*
 * GNU's tee writes each 8 KiB read to every output in turn: failures are
 * told by the read they came in, then by the order of the outputs,
 * whichever came first in time.  Not all at once (out_report's ALL 0), only
 * those whose read every output has had: the position's.  A stop FAIL
 * asks for ends the telling, and the rest is never told.
 */
TEST(told_in_gnu_order)
{
	static const off_t at[4] = { 16384 + 5, 8192 + 100, 16384 + 1, 100 };
	struct spate_out o[4];
	struct fan f;
	struct told t = { .n = 0 }, u = { .n = 0 }, v = { .stop_at = 2 };
	size_t i, gone;

	failing_four(&f, o, &t, at);
	out_report(&f, 1);
	ok(t.n == 4 && t.order[0] == 3 && t.order[1] == 1 &&
	    t.order[2] == 0 && t.order[3] == 2 && t.errs[0] == 13 &&
	    t.errs[3] == 12 && f.failing == 0,
	    "all told: by GNU's read, then by output (3 1 0 2: told %zu)",
	    t.n);
	for (i = 0, gone = 0; i < 4; i++)
		gone += out_state(&o[i])->st == OUT_GONE;
	ok(gone == 4, "every output told is GONE");

	failing_four(&f, o, &u, at);
	f.pos = 16384;
	out_report(&f, 0);
	ok(u.n == 2 && u.order[0] == 3 && u.order[1] == 1 && f.failing == 2,
	    "at 16 KiB, only the failures of the first two reads are told "
	    "(told %zu)", u.n);

	failing_four(&f, o, &v, at);
	out_report(&f, 1);
	ok(v.n == 2 && f.stop && f.failing == 0 &&
	    out_state(&o[0])->st == OUT_GONE &&
	    out_state(&o[2])->st == OUT_GONE,
	    "a stop asked at the second: the others are never told "
	    "(told %zu)", v.n);
}
