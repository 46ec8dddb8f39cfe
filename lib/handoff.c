/*
 * Output made in fresh memory and handed to a pipe: cat's transformed
 * text, without write(2)'s copy.
 *
 * write(2) into a pipe allocates a page for every 4 KiB and copies into
 * it.  vmsplice(2) gives the pipe references to the caller's own pages
 * instead: the catch is that the pipe, and whoever it passes them on to
 * (tee(2), splice(2) into another pipe), sees those pages until they
 * are consumed, which nobody can tell.  yes's way out is a buffer that
 * never changes (repeat.c).  Here it is memory that is written once: a
 * fresh region, filled front to back; what is flushed is handed over
 * and never written again, the next bytes start on the next page, and
 * a full region is unmapped (the pipe's references keep the pages it
 * was given alive until they are read).  A short flush is copied.
 *
 * The cost, for a reader that keeps what it is given: a pipe holding
 * one byte of a handed page holds the whole 2 MiB huge page it is part
 * of (the kernel cannot split a huge page while a pipe holds a part of
 * it), where a written page holds 4 KiB.
 *
 * A region is one 2 MiB huge page: one fault and one zeroing of the
 * kernel serve 512 pages.  On small pages each fault costs more than
 * write(2)'s copy (doc/bench.md), so without transparent huge pages
 * there is no handoff at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine.h"

#define HUGE	(2u << 20)
#define PAGE	4096u

/*
 * Less than this is copied by write(2), not handed over: the kernel
 * packs small writes together into the pipe's pages, where each handed
 * part would take a page, and a pipe slot, of its own (a trickle would
 * fill the pipe with a few bytes a slot).  The space is written again.
 */
#define HAND_MIN	(64u << 10)

char *
map_memory(size_t size, int huge)
{
	size_t extra = huge ? HUGE : 0, head;
	char *p;

	if (size > SIZE_MAX - extra) {
		errno = ENOMEM;
		return NULL;
	}
	p = mmap(NULL, size + extra, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (huge) {
		/* Keep the aligned SIZE bytes only: munmap(p, size) frees
		 * all of it. */
		head = (HUGE - (uintptr_t)p % HUGE) % HUGE;
		if (head > 0)
			munmap(p, head);
		if (extra - head > 0)
			munmap(p + head + size, extra - head);
		p += head;
		/* Only a hint: without it we still work, a little slower. */
		madvise(p, size, MADV_HUGEPAGE);
	}
	return p;
}

/*
 * Return 1 if the system hands out transparent huge pages to a program
 * that asks (madvise) or to all ("always").
 */
int
handoff_available(void)
{
	static int known = -1;
	char s[128];
	ssize_t n;
	int fd;

	if (known != -1)
		return known;
	known = 0;
	fd = open("/sys/kernel/mm/transparent_hugepage/enabled",
	    O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return known;
	n = read(fd, s, sizeof s - 1);
	close(fd);
	if (n > 0) {
		s[n] = '\0';
		known = strstr(s, "[always]") != NULL ||
		    strstr(s, "[madvise]") != NULL;
	}
	return known;
}

size_t
handoff_room(const struct handoff *h)
{
	return h->base == NULL ? HUGE : HUGE - h->fill;
}

char *
handoff_space(struct handoff *h)
{
	if (h->base == NULL) {
		if ((h->base = map_memory(HUGE, 1)) == NULL)
			return NULL;
		h->start = h->fill = 0;
	}
	return h->base + h->fill;
}

void
handoff_wrote(struct handoff *h, size_t n)
{
	h->fill += n;
}

/* Copy H's pending bytes to FD by write(2); their space is free again. */
static int
copy_out(struct handoff *h, int fd)
{
	if (write_all(fd, h->base + h->start, h->fill - h->start) == -1)
		return -1;
	h->fill = h->start;
	return 0;
}

int
handoff_send(struct handoff *h, int fd)
{
	struct io_call c = { .op = IO_VMSPLICE, .in = -1, .out = fd };

	if (h->fill - h->start < HAND_MIN)
		return copy_out(h, fd);
	c.buf = h->base + h->start;
	c.len = h->fill - h->start;
	if (io_move_all(&c) == -1) {
		size_t moved = h->fill - h->start - c.len;

		h->start += moved;
		if (!zerocopy_refused(&c))
			return -1;
		/* The rest is copied, now and on; what was handed over
		 * stays the pipe's, and its pages are never written
		 * again (the next bytes go after it). */
		h->refused = 1;
		return copy_out(h, fd);
	}
	/* The pages handed over are the pipe's now: the next bytes go on
	 * the next page, and a full region goes. */
	h->start = h->fill = (h->fill + PAGE - 1) / PAGE * PAGE;
	if (h->fill == HUGE)
		handoff_free(h);
	return 0;
}

void
handoff_free(struct handoff *h)
{
	if (h->base != NULL)
		munmap(h->base, HUGE);
	h->base = NULL;
	h->start = h->fill = 0;
}
