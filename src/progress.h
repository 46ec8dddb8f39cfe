/*
 * --progress, for cat and tee: how far a copy has come, on standard
 * error, drawn from progress_update, the engine's spate_progress_fn.
 * What a user sees is man/cat.1's and man/tee.1's; the why,
 * doc/design.md's "--progress".
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <sys/types.h>

#include "spate.h"

/*
 * --progress=SIZE: the copy moves ARG bytes, a size as head -c takes
 * it, whatever progress_start is told.  Exit 1 with head's message if
 * ARG is no such size.
 */
void progress_expect(const char *arg);

/*
 * Start the display, for a copy of TOTAL bytes (-1: not known, and the
 * lines then say no percentage and no time left).  The final line is
 * printed at exit, however the command ends but by a signal.  From now
 * on the time stopped by ^Z (SIGTSTP) is left out of the times and
 * rates.
 */
void progress_start(off_t total);

/* The engine's hook: BYTES copied so far.  CTX is not used. */
spate_progress_fn progress_update;

/*
 * Before a message on standard error: end the line drawn on a terminal,
 * so that the message starts a line of its own.
 */
void progress_break(void);

/*
 * The size of the regular file open as FD, less its offset, or -1 if
 * it is not a regular file: what a copy of it from there will move.
 */
off_t progress_file_left(int fd);

#endif
