/*
 * Unit tests of lib/sizes.c: how big the fan-out's chunk, its chunk pipe
 * and its lanes are, and how many lanes, with numbers alone.  The
 * expectations are the rules doc/design.md states ("Fan-out", "Copies
 * on every core"), worked out by hand.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "spate.h"
#include "fanout.h"
#include "tap.h"

#define KiB	1024L
#define MiB	(1024L * 1024)

/* The chunk: the path's bound, GNU's 8 KiB where chunks show, the least
 * room of an output; never 0. */
TEST(chunk)
{
	static const struct {
		size_t bound;
		int gnu;
		size_t least, want;
		const char *what;
	} c[] = {
		{ 128 * KiB, 0, 0, 128 * KiB, "no output bounded: the buffer" },
		{ 128 * KiB, 1, 0, 8 * KiB, "chunks that show: GNU's" },
		{ 128 * KiB, 0, 64 * KiB, 64 * KiB, "a 64 KiB output pipe" },
		{ 64 * KiB, 0, 128 * KiB, 64 * KiB, "a pipe bigger than the bound" },
		{ 128 * KiB, 1, 4 * KiB, 4 * KiB, "GNU's, within a small room" },
		{ MiB, 0, 16 * KiB, 16 * KiB, "a socket's quarter of 64 KiB" },
		{ 0, 0, 0, 1, "never 0" },
		{ 128 * KiB, 0, 1, 1, "a room of one byte" },
	};
	size_t i, got;

	for (i = 0; i < sizeof c / sizeof *c; i++) {
		got = longest_chunk(c[i].bound, c[i].gnu, c[i].least);
		ok(got == c[i].want, "chunk: %s: %zu (want %zu)", c[i].what,
		    got, c[i].want);
	}
}

/* The chunk pipe: as its traffic warrants, within the least output
 * pipe, up to 1 MiB for a reader that grew its pipe; beside lanes, no
 * bigger than a chunk needs, in powers of two from 4 KiB. */
TEST(chunk_pipe)
{
	static const struct {
		long traffic, least_pipe;
		int lanes;
		size_t least;
		long want;
		const char *what;
	} c[] = {
		{ 64 * KiB, 0, 0, 0, 64 * KiB, "no output pipe, a new stream" },
		{ PIPE_MAX, 0, 0, 0, PIPE_MAX, "no output pipe, a fast stream" },
		{ PIPE_MAX, 64 * KiB, 0, 64 * KiB, 64 * KiB,
		    "within a 64 KiB output pipe" },
		{ PIPE_MAX, MiB, 0, MiB, MiB, "a reader's 1 MiB pipe" },
		{ PIPE_MAX, 4 * MiB, 0, 4 * MiB, MiB, "no more than 1 MiB" },
		{ 64 * KiB, MiB, 0, MiB, 64 * KiB,
		    "a big output pipe, a stream not fast yet" },
		{ PIPE_MAX, 0, 1, 16 * KiB, 16 * KiB,
		    "lanes beside a socket: its chunk" },
		{ PIPE_MAX, 512 * KiB, 1, 512 * KiB, 512 * KiB,
		    "lanes, half of a 1 MiB lane" },
		{ PIPE_MAX, 0, 1, 100000, 128 * KiB,
		    "lanes, a chunk of 100000: up to a power of two" },
		{ PIPE_MAX, 0, 1, 1000, 4 * KiB, "lanes, a tiny chunk: 4 KiB" },
	};
	size_t i;
	long got;

	for (i = 0; i < sizeof c / sizeof *c; i++) {
		got = size_pipe(c[i].traffic, c[i].least_pipe, c[i].lanes,
		    c[i].least);
		ok(got == c[i].want, "chunk pipe: %s: %ld (want %ld)",
		    c[i].what, got, c[i].want);
	}
}

/* Lanes: 1 MiB each for up to four, halved to share 4 MiB, down to
 * 128 KiB for 32; a lane granted less than 128 KiB is not worth it. */
TEST(lane_sizes)
{
	size_t n;
	int bad = 0;

	for (n = 1; n <= 32; n++) {
		long want = n <= 4 ? MiB : n <= 8 ? 512 * KiB :
		    n <= 16 ? 256 * KiB : 128 * KiB;

		if (size_lane(n) != want) {
			printf("# %zu lanes: %ld, want %ld\n", n,
			    size_lane(n), want);
			bad = 1;
		}
	}
	ok(!bad, "lane sizes for 1 to 32 lanes: 4 MiB shared, 1 MiB at most");
	ok(size_lane_enough(128 * KiB) && !size_lane_enough(124 * KiB),
	    "a lane of 128 KiB is worth it, one of 124 KiB is not");
}

/*
 * The plan for NFILES files and NSOCK sockets (every one copies) on
 * CPUS CPUs, as the fan-out asks it: with one thread a copy, no more
 * than the CPUs.  Return 1 if it keeps the rules: no lanes without two
 * threads and a file, nor for more than 32 lanes; else the fan-out
 * copies its share (a thread's, or the sockets if they are more), the
 * files beyond it have lanes, served by fewer workers than threads and
 * no more than lanes.
 */
static int
plan_holds(size_t nfiles, size_t nsock, size_t cpus)
{
	size_t ncopy = nfiles + nsock, workers = 0, threads, own, nlanes;

	threads = ncopy < cpus ? ncopy : cpus;
	if (threads < 2)
		threads = 0;
	nlanes = size_lanes(ncopy, nfiles, threads, &workers);
	if (threads == 0 || nfiles == 0)
		return nlanes == 0;
	own = ncopy / threads > nsock ? ncopy / threads : nsock;
	if (ncopy - own > 32)
		return nlanes == 0;
	return nlanes == ncopy - own && workers >= 1 &&
	    workers <= threads - 1 && workers <= nlanes;
}

TEST(lane_plans)
{
	size_t nfiles, nsock, cpus, bad = 0, w = 0;

	for (nfiles = 0; nfiles <= 40; nfiles++)
		for (nsock = 0; nsock <= 2; nsock++)
			for (cpus = 1; cpus <= 64; cpus++)
				if (!plan_holds(nfiles, nsock, cpus)) {
					if (bad++ < 5)
						printf("# %zu files, %zu "
						    "sockets, %zu CPUs\n",
						    nfiles, nsock, cpus);
				}
	ok(bad == 0, "lane plans for 0 to 40 files and 0 to 2 sockets on "
	    "1 to 64 CPUs keep the rules (%zu do not)", bad);
	ok(size_lanes(4, 4, 2, &w) == 2 && w == 1,
	    "four files on two CPUs: two lanes and one worker, the fan-out "
	    "copies into the other two");
	ok(size_lanes(3, 2, 2, &w) == 2 && w == 1,
	    "a socket and two files on two CPUs: the fan-out copies the "
	    "socket, its share; one worker the two files");
	ok(size_lanes(33, 33, 33, &w) == 32 && w == 32 &&
	    size_lanes(40, 40, 40, &w) == 0,
	    "33 files on 33 CPUs: 32 lanes; 40 on 40: 39 would be too "
	    "many, none");
}
