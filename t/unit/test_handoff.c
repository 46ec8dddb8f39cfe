/* Unit tests of lib/handoff.c: fresh memory written once and handed to a
 * pipe with vmsplice(2), never written again once handed over. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "spate.h"
#include "engine.h"
#include "tap.h"

#define MiB	(1L << 20)
#define REGION	(2 * MiB)
#define PAGE	4096

/* Write the test data from offset FROM, LEN bytes, at handoff_space(H). */
static void
put(struct handoff *h, size_t from, size_t len)
{
	char *o = handoff_space(h), *want = pattern(from, len);

	if (o == NULL)
		bail_out("handoff_space: %s", strerror(errno));
	memcpy(o, want, len);
	handoff_wrote(h, len);
	free(want);
}

/* Return 1 if the next LEN bytes of pipe FD are the test data from
 * offset FROM. */
static int
pipe_holds(int fd, size_t from, size_t len)
{
	char *got = xmalloc(len), *want = pattern(from, len);
	int same = read_exact(fd, got, len) == 0 &&
	    memcmp(got, want, len) == 0;

	free(got);
	free(want);
	return same;
}

/* The start and end of the mapping of /proc/self/maps that holds P. */
static int
mapping_of(const void *p, uintptr_t *start, uintptr_t *end)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;

	if (f == NULL)
		bail_out("/proc/self/maps: %s", strerror(errno));
	while (!found && fgets(line, sizeof line, f) != NULL)
		found = sscanf(line, "%" SCNxPTR "-%" SCNxPTR,
		    start, end) == 2 &&
		    *start <= (uintptr_t)p && (uintptr_t)p < *end;
	fclose(f);
	return found;
}

TEST(map_huge_aligned)
{
	char *p = map_memory(REGION, 1);
	uintptr_t start = 0, end = 0;

	if (p == NULL)
		bail_out("map_memory: %s", strerror(errno));
	memset(p, 'x', REGION);
	ok((uintptr_t)p % REGION == 0 && mapping_of(p, &start, &end) &&
	    start == (uintptr_t)p && end == (uintptr_t)p + REGION,
	    "map_memory huge: 2 MiB-aligned, and the mapping is exactly "
	    "its size (the alignment's spare unmapped)");
	ok(munmap(p, REGION) == 0 && !mapping_of(p, &start, &end),
	    "map_memory huge: munmap(p, size) frees it all");
}

TEST(map_small)
{
	char *p = map_memory(3 * PAGE, 0);

	ok(p != NULL && (uintptr_t)p % PAGE == 0 &&
	    memset(p, 'x', 3 * PAGE) == p && munmap(p, 3 * PAGE) == 0,
	    "map_memory small: page-aligned, writable, freed by munmap");
}

TEST(available)
{
	int fd = open("/sys/kernel/mm/transparent_hugepage/enabled",
	    O_RDONLY);
	char s[128] = "";
	int want = 0;

	if (fd != -1) {
		if (read(fd, s, sizeof s - 1) > 0)
			want = strstr(s, "[always]") || strstr(s, "[madvise]");
		close(fd);
	}
	ok(handoff_available() == want && handoff_available() == want,
	    "handoff_available: %d, as the system's huge page setting says",
	    want);
}

TEST(room)
{
	struct handoff h = { 0 };

	ok(handoff_room(&h) == REGION, "handoff_room: a whole region "
	    "before one is mapped");
	put(&h, 0, 1000);
	ok(handoff_room(&h) == REGION - 1000 && h.base != NULL &&
	    (uintptr_t)h.base % REGION == 0,
	    "handoff_room: less what was written in a 2 MiB-aligned region");
	handoff_free(&h);
	ok(h.base == NULL && h.fill == 0 && h.start == 0,
	    "handoff_free: no region, nothing pending");
}

#ifndef SPATE_PORTABLE
/*
 * What is handed over stays as it was when the pipe is read only after
 * more bytes were written into the same region: the pipe holds the
 * pages, so they must never be written again.
 */
TEST(send_then_write_on)
{
	struct handoff h = { 0 };
	int p[2], r1, r2;
	size_t second;

	xpipe(p);
	if (fcntl(p[1], F_SETPIPE_SZ, MiB) == -1)
		bail_out("F_SETPIPE_SZ: %s", strerror(errno));
	put(&h, 0, 70000);
	r1 = handoff_send(&h, p[1]);
	ok(r1 == 0 && h.start == 18 * PAGE &&
	    h.fill == 18 * PAGE, "handoff_send: all of it; the next bytes "
	    "start on the next page");
	second = h.fill;
	put(&h, 70000, 70000);
	put(&h, 140000, 4000);
	r2 = handoff_send(&h, p[1]);
	ok(r2 == 0 && second == 18 * PAGE && h.fill == 37 * PAGE,
	    "handoff_send: the second part too, from where the first ended");
	ok(pipe_holds(p[0], 0, 144000),
	    "the pipe, read after both, holds both parts in order");
	handoff_free(&h);
	close_pair(p);
}

/* A few bytes are copied, not handed over: the pipe packs them into
 * its pages, and their space in the region is written again. */
TEST(few_copied)
{
	struct handoff h = { 0 };
	int p[2], r1, r2;
	size_t fill1;

	xpipe(p);
	put(&h, 0, 5000);
	r1 = handoff_send(&h, p[1]);
	fill1 = h.fill;
	put(&h, 5000, 3000);
	r2 = handoff_send(&h, p[1]);
	ok(r1 == 0 && r2 == 0 && fill1 == 0 && h.fill == 0,
	    "handoff_send: under 64 KiB copied, the space written again");
	ok(pipe_holds(p[0], 0, 8000), "the pipe holds both parts in order");
	handoff_free(&h);
	close_pair(p);
}

/* A region filled to its end goes once it is handed over, and the next
 * bytes take a new one; a reader gets it all. */
TEST(full_region_goes)
{
	struct handoff h = { 0 };
	int p[2], r1, r2;
	pid_t pid;

	xpipe(p);
	if ((pid = xfork()) == 0) {
		close(p[1]);
		_exit(!pipe_holds(p[0], 0, REGION + 100));
	}
	close(p[0]);
	put(&h, 0, REGION - 10);
	put(&h, REGION - 10, 10);
	r1 = handoff_send(&h, p[1]);
	ok(r1 == 0 && h.base == NULL && handoff_room(&h) == REGION,
	    "handoff_send: a full region is let go");
	put(&h, REGION, 100);
	r2 = handoff_send(&h, p[1]);
	ok(r2 == 0 && h.base != NULL && h.fill == 0,
	    "handoff_send: the next bytes go in a new region (and, few, "
	    "are copied)");
	close(p[1]);
	ok(exited_ok(pid), "the reader got all of both regions in order");
	handoff_free(&h);
}

/* A non-blocking pipe that fills: handoff_send waits for room. */
TEST(send_waits)
{
	struct handoff h = { 0 };
	int p[2], r;
	pid_t pid;

	xpipe(p);
	xsetfl(p[1], O_NONBLOCK);
	if ((pid = xfork()) == 0) {
		close(p[1]);
		usleep(100000);
		_exit(!pipe_holds(p[0], 0, 600000));
	}
	close(p[0]);
	put(&h, 0, 600000);
	r = handoff_send(&h, p[1]);
	close(p[1]);
	ok(r == 0 && exited_ok(pid),
	    "handoff_send: waits out EAGAIN on a full non-blocking pipe");
	handoff_free(&h);
}

/* A pipe nobody reads: EPIPE, nothing handed over, the bytes still
 * pending. */
TEST(send_epipe)
{
	struct handoff h = { 0 };
	int p[2], r, err;

	signal(SIGPIPE, SIG_IGN);
	xpipe(p);
	close(p[0]);
	put(&h, 0, 70000);
	r = handoff_send(&h, p[1]);
	err = errno;
	ok(r == -1 && err == EPIPE && h.start == 0 &&
	    h.fill == 70000, "handoff_send: EPIPE, nothing handed over");
	signal(SIGPIPE, SIG_DFL);
	handoff_free(&h);
	close(p[1]);
}
#else
/* The portable build has no vmsplice: a refusal, and the bytes are
 * copied instead. */
TEST(portable)
{
	struct handoff h = { 0 };
	int p[2], r;
	pid_t pid;

	xpipe(p);
	if ((pid = xfork()) == 0) {
		close(p[1]);
		_exit(!pipe_holds(p[0], 0, 70000));
	}
	close(p[0]);
	put(&h, 0, 70000);
	r = handoff_send(&h, p[1]);
	close(p[1]);
	ok(r == 0 && h.refused == 1 && h.fill == 0 &&
	    exited_ok(pid), "portable: vmsplice refused, the bytes copied");
	handoff_free(&h);
}
#endif

/* A hang is a failure. */
void
tap_setup(void)
{
	watchdog(60);
}
