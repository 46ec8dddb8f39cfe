/*
 * inject.so: the fault tests' injector, preloaded (LD_PRELOAD) into the
 * command under test by lib-fault.sh's with_inject.  Test-only: never
 * installed, never linked into anything.
 *
 * strace's inject= counts every call of a kind (when=), and how many
 * calls a run makes depends on timing: a splice(2) or tee(2) asked not to
 * wait says EAGAIN whenever its pipe is empty or full, and the next call
 * then has another number.  This library names the call it fails by
 * what it is instead: its kind and its descriptors, and its place among
 * the calls of that kind on those descriptors that did not say EAGAIN by
 * themselves.  "The 3rd splice into descriptor 4" is then the same call
 * in every run, however the scheduler ran the pipe's other end.
 *
 * SPATE_INJECT holds the faults, separated by spaces, each
 *
 *	CALL[:in=FD][:out=FD]:[nth=RANGE:]error=ERRNO|retval=N
 *
 *	CALL[:size=RANGE][:nth=RANGE]:error=ERRNO|retval=N
 *
 * CALL is read, write, splice, tee, vmsplice, copy_file_range, sendfile,
 * F_SETPIPE_SZ or F_GETPIPE_SZ (fcntl(2) with that command; its other
 * commands are never faked) or poll (poll(2) and ppoll(2)), or calloc
 * or realloc (malloc(3)'s) or mmap (mmap(2) called by the program, not
 * by libc within).  in= and out= ask for the call's descriptors: read's
 * is in, write's and vmsplice's out, an fcntl's in; FD a number, or !FD
 * for any other.  size= asks for the bytes calloc, realloc or mmap is
 * asked for, in a RANGE as nth='s; error=ENOMEM makes the call fail
 * (NULL; mmap's MAP_FAILED).  RANGE is K, K..L or K+, counting from 1
 * the calls that match, made by any thread of the process, less those
 * that the kernel answered EAGAIN (a faked one counts); without nth=,
 * every matching call.  A fault's call is not made: error= returns -1
 * with that errno (a name: EIO), retval=N returns N, as strace's inject
 * does.
 * Where two faults match a call, the first one written decides.
 *
 * SPATE_INJECTED names a file: each faked call appends a line there
 * ("splice(5, 4) nth=3: error=EIO"), and each process that loads this
 * library "loaded NAME" (its /proc/self/comm), so that a case can tell
 * that its fault came, and the prerequisite that the library loads.
 *
 * faults.c reads SPATE_INJECT and counts the calls; each other file
 * fakes a family of calls, each wrapper the same three steps:
 * before_call, the real call (found by dlsym(RTLD_NEXT)) unless a fault
 * fakes it, after_call.
 */
#ifndef INJECT_H
#define INJECT_H

#include <stddef.h>

enum call { C_READ, C_WRITE, C_SPLICE, C_TEE, C_VMSPLICE, C_COPY_RANGE,
	C_SENDFILE, C_SETPIPE, C_GETPIPE, C_POLL, C_CALLOC, C_REALLOC, C_MMAP,
	NCALLS };

struct fault;

/* Internal to inject.so: the program it is loaded into may have names
 * of its own like these. */
#pragma GCC visibility push(hidden)

struct fault *before_call(enum call call, int in, int out, size_t size,
    unsigned *matched);
void after_call(unsigned matched, long r);
long faked(const struct fault *f);

/* Find the real calls of each family; return 0, or -1 (dlerror says). */
int io_resolve(void);
int fcntl_resolve(void);
int poll_resolve(void);
int alloc_resolve(void);

#pragma GCC visibility pop

#endif
