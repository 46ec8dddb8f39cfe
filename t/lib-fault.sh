# lib-fault.sh: system calls made to fail with strace's fault injection,
# and what strace's traces show.  Source it after test-lib.sh; every case
# that uses it needs the STRACE prerequisite.
#
# strace does not run a call it fakes: `inject=write:retval=1` makes
# write(2) claim one byte that never went out.  The call counts of
# `when=` are per process.

# with_faults SPEC CMD...: run CMD under strace (-f) with the faults
# SPEC: inject= specs, separated by spaces ("vmsplice:error=EINVAL
# write:error=EINTR:when=1..3").  CMD runs with SIGPIPE at its default,
# whatever this shell ignores, and at most 60 s: a hang exits 124.  The
# status is CMD's (strace passes on a death by signal as its own).  If
# SLUICE_INJECT_LOG names a file, "CMD SPEC" is appended to it, for a
# record of what the suite injected.  If SLUICE_FAULT_TRACE names a
# file, strace's log of the run goes there (trace_settled reads it).
with_faults() {
	wf_spec=$1
	shift
	if [ -n "${SLUICE_INJECT_LOG:-}" ]; then
		echo "${1##*/} $wf_spec" >>"$SLUICE_INJECT_LOG"
	fi
	# Word splitting of the printf gives one -e per spec.
	env --default-signal=PIPE timeout 60 strace -f -qq \
		-o "${SLUICE_FAULT_TRACE:-/dev/null}" \
		$(for s in $wf_spec; do printf ' -e inject=%s' "$s"; done) "$@"
}

# trace_settled TRACE [all]: no call in the strace log TRACE failed with
# EAGAIN by itself (not injected) before the first injected fault, or,
# with "all", anywhere in it.  A pipe found empty or full depends on
# timing, and such a call both shifts the count that `when=` numbers
# and makes poll(2) run where the case did not mean it to: a run where
# one came before its fault does not test what its case means, and is
# made again (see the users of trace_call_number).  A run whose fault
# never came is settled: its case's check says what that means.
trace_settled() {
	ALL=${2:-} awk '
		/INJECTED/ { injected = 1; exit }
		/= -1 EAGAIN/ { eagain = 1 }
		END { exit eagain && (injected || ENVIRON["ALL"] != "") }
	' "$1"
}

# test_no_spin TRACE: in TRACE, a log of `strace -e trace=write,poll,...`,
# some call failed with EAGAIN, and every EAGAIN was followed by a poll
# before the next EAGAIN: the writer waited, it did not retry at once.
test_no_spin() {
	awk '
		/EAGAIN/ { if (waiting) spin = 1; waiting = 1; n++ }
		/poll\(/ { waiting = 0 }
		END {
			if (n == 0) print "test_no_spin: no EAGAIN at all"
			if (spin) print "test_no_spin: write retried without poll"
			exit n == 0 || spin
		}' "$1"
}

# trace_call_number TRACE SYSCALL REGEX K: print the number, counting the
# SYSCALL calls of the strace log TRACE from 1, of the K-th SYSCALL call
# whose line matches the extended regular expression REGEX; print
# nothing if there is none.  That number is what `when=` counts, for a
# TRACE of the same run made with `-e trace=SYSCALL` and no -f: a case
# traces a run first to find the call to fail, so that it does not
# depend on how many the start-up makes.
trace_call_number() {
	CRE=$3 CS=$2 CK=$4 awk '
		index($0, ENVIRON["CS"] "(") == 1 {
			n++
			if ($0 ~ ENVIRON["CRE"] && ++k == ENVIRON["CK"]) {
				print n
				exit
			}
		}
	' "$1"
}
