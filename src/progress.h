/*
 * --progress, for cat and tee: how far a copy has come, on standard
 * error.  The engine tells progress_update of every chunk it moves
 * (sl_progress_fn); the line is drawn from there when it is due, read
 * on the process's own clock, so that the data path makes no system
 * call more.  Nothing is shown where standard error is closed or is the
 * file standard output is (the lines would be in the data), and a
 * write to it that fails stops the display and nothing else.
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <sys/types.h>

#include "spate.h"

/*
 * Start the display, for a copy of TOTAL bytes (-1: not known, and the
 * lines then say no percentage and no time left).  The final line is
 * printed at exit, however the command ends but by a signal.
 */
void progress_start(off_t total);

/* The engine's hook: BYTES copied so far.  CTX is not used. */
sl_progress_fn progress_update;

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
