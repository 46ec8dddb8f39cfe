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

# wait_for_match FILE PATTERN: wait until FILE has a line that matches
# the basic regular expression PATTERN.  Gives up after about 30 s, which
# only a hang takes, and fails.
wait_for_match() {
	wm_i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		[ $wm_i -lt 300 ] || {
			echo "wait_for_match: no line matching '$2' in $1"
			return 1
		}
		sleep 0.1
		wm_i=$((wm_i + 1))
	done
}

# wait_for_content FILE CONTENT: wait until FILE holds exactly CONTENT
# (as $(cat FILE) gives it: trailing newlines dropped).  Gives up after
# about 30 s and fails.
wait_for_content() {
	wc_i=0
	until [ "$(cat "$1" 2>/dev/null)" = "$2" ]; do
		[ $wc_i -lt 300 ] || {
			echo "wait_for_content: $1 never held '$2'"
			return 1
		}
		sleep 0.1
		wc_i=$((wc_i + 1))
	done
}
