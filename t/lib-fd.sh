# lib-fd.sh: the descriptors a command under test gets.  Source it after
# test-lib.sh.

# with_nonblock FD CMD...: run CMD with O_NONBLOCK set on the open file
# behind descriptor FD (0, 1 or 2).  The flag belongs to the open file,
# not to the descriptor: whatever else shares it (the other commands of
# a { ...; } group on the same stdout) sees it too.  dd, with no block
# to copy, sets the flag on its stdout; nothing else is written or read.
with_nonblock() {
	(
		dd oflag=nonblock count=0 >&"$1" </dev/null 2>/dev/null || {
			echo "with_nonblock: cannot set O_NONBLOCK on $1" >&2
			exit 125
		}
		shift
		exec "$@"
	)
}
