/*
 * emu: a native stand-in for a command of a cross build, so that the
 * shell tests, which call yes, tee and cat by name, run the target's
 * program under qemu-user.  It execs the emulator (EMU, a list of C
 * strings: the emulator and its options) on the program of its own
 * name in REAL, the build directory, with the argv[0] it was called by
 * (qemu's -0): a message that names the program ("cat: invalid option")
 * reads as it would on the target.  Its own name is that of the file it
 * runs from, not argv[0]: t9101 calls the multi-call spate through
 * links named after its commands.  The emulator replaces it (exec), so
 * the process the tests signal and wait for is the command's.
 *
 * scripts/check-cross builds one for each architecture, with the host's
 * compiler:  cc -DEMU='"/usr/bin/qemu-s390x-static", "-L",
 * "/usr/s390x-linux-gnu"' -DREAL='"/src/build-cross/s390x"' -o emu emu.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	static const char *emu[] = { EMU };
	size_t nemu = sizeof emu / sizeof emu[0], i;
	char self[PATH_MAX], real[PATH_MAX];
	const char *name, **args;
	ssize_t n;

	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) == -1) {
		perror("emu: /proc/self/exe");
		return 126;
	}
	self[n] = '\0';
	name = strrchr(self, '/') != NULL ? strrchr(self, '/') + 1 : self;
	if ((size_t)snprintf(real, sizeof real, "%s/%s", REAL, name) >=
	    sizeof real) {
		fprintf(stderr, "emu: %s/%s: path too long\n", REAL, name);
		return 126;
	}
	if ((args = calloc(nemu + argc + 3, sizeof *args)) == NULL) {
		perror("emu");
		return 126;
	}
	for (i = 0; i < nemu; i++)
		args[i] = emu[i];
	args[i++] = "-0";
	args[i++] = argc > 0 ? argv[0] : real;
	args[i++] = real;
	for (int k = 1; k < argc; k++)
		args[i++] = argv[k];
	args[i] = NULL;
	execv(emu[0], (char *const *)args);
	fprintf(stderr, "emu: %s: %s\n", emu[0], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
