# lib-proc.sh: the limits a command under test runs with, and waiting for
# what a command in the background does.  Source it after test-lib.sh.

# with_ulimit OPTION VALUE CMD...: run CMD with `ulimit OPTION VALUE`
# (-f blocks of file size, -n descriptors, -v KiB of address space), in
# a subshell, so that the limit binds CMD only.  The status is CMD's, or
# 125 if the limit cannot be set.
with_ulimit() {
	(
		ulimit "$1" "$2" || exit 125
		shift 2
		exec "$@"
	)
}

# wait_until SECONDS WHY CMD...: run CMD every 0.1 s until it succeeds.
# Gives up after about SECONDS s, which only a hang takes: says WHY and
# fails.  The waits below are its; a case waits by them, never by a
# sleep that stands for "by now it has happened".
wait_until() {
	wu_tenths=$(($1 * 10))
	wu_why=$2
	shift 2
	wu_i=0
	until "$@"; do
		[ $wu_i -lt $wu_tenths ] || {
			echo "$wu_why"
			return 1
		}
		sleep 0.1
		wu_i=$((wu_i + 1))
	done
}

# wait_for_match FILE PATTERN: wait until FILE has a line that matches
# the basic regular expression PATTERN; fail after about 30 s.
wait_for_match() {
	wait_until 30 "wait_for_match: no line matching '$2' in $1" \
	    file_matches "$1" "$2"
}

# file_matches FILE PATTERN: FILE exists and has a line that matches
# PATTERN.
file_matches() {
	grep -q "$2" "$1" 2>/dev/null
}

# wait_for_content FILE CONTENT: wait until FILE holds exactly CONTENT
# (as $($SYS_CAT FILE) gives it: trailing newlines dropped); fail after
# about 30 s.
wait_for_content() {
	wait_until 30 "wait_for_content: $1 never held '$2'" \
	    file_content_is "$1" "$2"
}

# file_content_is FILE CONTENT: FILE exists and holds CONTENT, as
# $($SYS_CAT FILE) gives it.
file_content_is() {
	[ "$($SYS_CAT "$1" 2>/dev/null)" = "$2" ]
}

# wait_for_size FILE SIZE: wait until FILE holds SIZE bytes (a command
# in the background writing it may take long on a loaded machine); fail
# after about 60 s.
wait_for_size() {
	wait_until 60 "wait_for_size: $1 never held $2 bytes" \
	    file_size_is "$1" "$2"
}

# file_size_is FILE SIZE: FILE exists and holds SIZE bytes.
file_size_is() {
	[ "$(test_file_size "$1" 2>/dev/null)" = "$2" ]
}

# A FIFO between a command under test and a helper in the background: the
# helper must never wait for an open that will not come, and the case
# must not depend on which of the two gets to its open(2) first.  The
# helpers use descriptors 8 and 9 of the shell.

# fifo_writer FIFO FILE: copy FILE into FIFO from the background with the
# system's cat, which opens FIFO by name and waits there for a reader.
# End with fifo_writer_end FIFO, whether or not a reader came.
fifo_writer() {
	{ $SYS_CAT "$2" >"$1" & }
	fifo_writer_pid=$!
}

# fifo_writer_end FIFO: wait until the writer that fifo_writer started has
# ended.  If the command under test never opened FIFO, the writer may be
# waiting in its open or not have reached it yet: a read-write descriptor
# held here until the writer is gone means that its open cannot wait, and
# a reader here takes what it writes.  (Opening FIFO once and closing it
# at once releases only a writer that is already waiting.)
fifo_writer_end() {
	exec 9<>"$1" 8<"$1" || return 1
	{ $SYS_CAT <&8 >/dev/null 8<&- 9>&- & }
	exec 8<&-
	wait "$fifo_writer_pid"
	exec 9>&-
	wait
}

# fifo_reader FIFO OUT: copy what comes through FIFO into OUT from the
# background with the system's cat, until fifo_reader_end.  The read end
# is opened here, before the reader starts, and a write end held here
# until fifo_reader_end: a writer's open of FIFO cannot wait, the reader
# does not see end of file before the writer came, and whether the
# command under test opened FIFO or not, the reader ends.  What the
# shell runs meanwhile inherits that write end: nothing that outlives
# fifo_reader_end may be started in between.
fifo_reader() {
	exec 9<>"$1" 8<"$1" || return 1
	{ $SYS_CAT <&8 >"$2" 8<&- 9>&- & }
	exec 8<&-
}

# fifo_reader_end: the writers are done; let the reader of fifo_reader
# see end of file, and wait for it.
fifo_reader_end() {
	exec 9>&-
	wait
}

# fifo_head FIFO OUT: from the background, open FIFO by name, copy the
# first byte that comes through it into OUT and leave (head -c 1): a
# reader that goes away.  Give the case test_when_finished "fifo_head_end
# FIFO", so that it is let go if no writer came.
fifo_head() {
	{ head -c 1 "$1" >"$2" & }
	fifo_head_pid=$!
}

# fifo_head_end FIFO: wait until the reader that fifo_head started has
# left.  A byte written here, on a read-write descriptor held until then,
# is what it takes if nothing else came, whether it is waiting in its
# open, has not reached it yet, or waits for data.
fifo_head_end() {
	exec 9<>"$1" && printf x >&9 || return 1
	wait "$fifo_head_pid"
	exec 9>&-
}

# stalled_reader FIFO OUT: a reader of FIFO that takes nothing until
# stalled_reader_go, then copies what comes into OUT, in the background.
# The shell holds a write end (descriptor 9), so that the open of a
# writer never waits, until stalled_reader_go; a command in the
# background meanwhile is to close it (9>&-).
stalled_reader() {
	mkfifo "$1" go &&
	exec 9<>"$1" 8<"$1" || return 1
	{ read -r sr_line <go && exec $SYS_CAT >"$2"; } <&8 8<&- 9>&- &
	stalled_reader_pid=$!
	exec 8<&-
}

# stalled_reader_go: let the reader read, and wait for its end of file.
stalled_reader_go() {
	echo go >go &&
	exec 9>&- &&
	wait "$stalled_reader_pid"
}

# in_background IN CMD...: run CMD in the background, its input the
# file IN (a background command's is /dev/null), without the write end
# that stalled_reader holds; its status goes to the file status.
in_background() {
	ib_in=$1
	shift
	{ "$@" <"$ib_in"; echo $? >status; } 9>&- &
	in_background_pid=$!
}

# private_pipes PID: how many pipes process PID made for itself: those
# it holds with O_CLOEXEC (what it inherited has no O_CLOEXEC).
private_pipes() {
	pp_n=0
	for pp_fd in /proc/$1/fd/*; do
		case $(readlink "$pp_fd") in
		pipe:*)	pp_fl=$(sed -n "s/^flags:[[:space:]]*//p" \
				"/proc/$1/fdinfo/${pp_fd##*/}")
			[ $((0$pp_fl & 02000000)) = 0 ] || pp_n=$((pp_n + 1)) ;;
		esac
	done
	echo $pp_n
}

# threads_of PID: how many threads process PID runs.
threads_of() {
	ls /proc/$1/task | wc -l
}

# tee_gave_back PID: wait until tee PID holds no pipe of its own and runs
# no thread but its first, as a stalled or idle tee must after a second
# (tee(1)); fail after some 30 s.
tee_gave_back() {
	gp_i=0
	while [ "$(private_pipes $1)" != 0 ] || [ "$(threads_of $1)" != 1 ]; do
		[ $gp_i -lt 300 ] || {
			ls -l /proc/$1/fd /proc/$1/task
			return 1
		}
		sleep 0.1
		gp_i=$((gp_i + 1))
	done
}
