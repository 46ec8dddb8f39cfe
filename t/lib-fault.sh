# lib-fault.sh: system calls made to fail, with strace's fault injection
# (cases need STRACE), with the test-only library t/inject/ preloaded
# (cases need INJECT) or refused by the seccomp filter of the test-only
# program t/sandbox.c (cases need SECCOMP), and what strace's traces
# show.  Source it after test-lib.sh.
#
# strace does not run a call it fakes: `inject=write:retval=1` makes
# write(2) claim one byte that never went out.  The call counts of
# `when=` are per process.

# with_faults SPEC CMD...: run CMD under strace (-f) with the faults
# SPEC: inject= specs, separated by spaces ("vmsplice:error=EINVAL
# write:error=EINTR:when=1..3").  CMD runs with SIGPIPE at its default,
# whatever this shell ignores, and at most 60 s: a hang exits 124.  The
# status is CMD's (strace passes on a death by signal as its own).  If
# SPATE_INJECT_LOG names a file, "CMD SPEC" is appended to it, for a
# record of what the suite injected.
# Only the calls SPEC names stop in strace (--seccomp-bpf): the others
# run at full speed, and `when=` counts the same calls either way.
with_faults() {
	wf_spec=$1
	shift
	if [ -n "${SPATE_INJECT_LOG:-}" ]; then
		echo "${1##*/} $wf_spec" >>"$SPATE_INJECT_LOG"
	fi
	wf_calls=
	for s in $wf_spec; do
		wf_calls=$wf_calls${wf_calls:+,}${s%%:*}
	done
	# Word splitting of the printf gives one -e per spec.
	env --default-signal=PIPE timeout 60 strace -f -qq -o /dev/null \
		--seccomp-bpf -e trace="$wf_calls" \
		$(for s in $wf_spec; do printf ' -e inject=%s' "$s"; done) "$@"
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

# The injector t/inject/, as the Makefile builds it for the tests.
INJECT_SO=$SRC_DIR/${BUILD:-build}/t/inject.so
# ASAN_OPTIONS for a command the injector is preloaded into: the
# sanitizers' runtime wants to be loaded first, and comes second.
INJECT_ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

# INJECT: the injector is built and loads into the commands under test
# (not into a static build's: nothing there is preloaded).
test_lazy_prereq INJECT '
	test -f "$INJECT_SO" &&
	with_inject "" tee --version >/dev/null &&
	grep -x "loaded tee" injected
'

# with_inject SPEC CMD...: run the program CMD with the injector
# preloaded, which fakes the calls the faults SPEC name, separated by
# spaces: each CALL[:in=FD][:out=FD][:nth=RANGE]:error=ERRNO|retval=N
# ("splice:out=4:nth=3:error=EIO", the third splice(2) into descriptor
# 4; t/inject/inject.h has the whole language).  Unlike strace's when=,
# nth= counts only the calls that match, and not those the kernel
# answered EAGAIN: the same call in every run, however its pipes were
# timed.
# Each fault made appends a line to the file injected, which this
# empties first.  CMD runs with SIGPIPE at its default, at most 60 s (a
# hang exits 124); the status is CMD's.  If SPATE_INJECT_LOG names a
# file, "CMD SPEC" is appended to it.
with_inject() {
	wi_spec=$1
	shift
	if [ -n "${SPATE_INJECT_LOG:-}" ]; then
		echo "${1##*/} $wi_spec" >>"$SPATE_INJECT_LOG"
	fi
	: >injected &&
	ASAN_OPTIONS=$INJECT_ASAN_OPTIONS timeout 60 env --default-signal=PIPE \
		LD_PRELOAD="$INJECT_SO" \
		SPATE_INJECT="$wi_spec" SPATE_INJECTED="$PWD/injected" "$@"
}

# test_injected PATTERN: the last with_inject made a fault whose line
# in the file injected matches the extended regular expression PATTERN
# ("^splice\(5, 4\) nth=3: error=EIO$"): a fault that never came tests
# nothing.
test_injected() {
	grep -Eq "$1" injected && return 0
	echo "test_injected: no fault like /$1/ was made:"
	$SYS_CAT injected
	return 1
}

# The seccomp filter t/sandbox.c, as the Makefile builds it for the tests:
# a program of the build's architecture, run under the emulator where
# the commands are (SPATE_EMULATOR).
SANDBOX=$SRC_DIR/${BUILD:-build}/t/sandbox
# Every call the filter knows: the zero-copy calls, and fcntl(2)'s pipe
# sizes.
SANDBOX_CALLS="vmsplice splice tee copy_file_range sendfile F_SETPIPE_SZ
	F_GETPIPE_SZ"

# SECCOMP: the filter is built and installs here, and the kernel applies
# it: each call it refuses fails with the error asked for, and is made
# where it does not refuse it (sandbox -t).  Not under qemu-user, which
# refuses to install a filter (the filter would see qemu's calls).
test_lazy_prereq SECCOMP '
	test -x "$SANDBOX" &&
	probe=vmsplice:EPERM,splice:EACCES,tee:ENOSYS &&
	probe=$probe,copy_file_range:EINVAL,sendfile:EOPNOTSUPP &&
	probe=$probe,F_SETPIPE_SZ:EXDEV,F_GETPIPE_SZ:EPERM &&
	${SPATE_EMULATOR:-} "$SANDBOX" -t "$probe" &&
	${SPATE_EMULATOR:-} "$SANDBOX" splice:EPERM -- true
'

# with_sandbox [-k] LIST CMD...: run the program CMD under t/sandbox.c's
# seccomp filter, which refuses the calls LIST names (comma separated,
# each CALL:ERRNO: "splice:EPERM,tee:EINVAL"), or with -k kills the
# process that makes one (SIGSYS; LIST has no errors then).  CALL is one
# of SANDBOX_CALLS.  CMD and what it runs inherit the filter; SIGPIPE at
# its default, at most 60 s (a hang exits 124: the program bounds it,
# without a timeout(1) more a run), the status CMD's.  If
# SPATE_INJECT_LOG names a file, "CMD seccomp LIST" is appended to it.
with_sandbox() {
	ws_kill=
	if [ "$1" = -k ]; then
		ws_kill=-k
		shift
	fi
	if [ -n "${SPATE_INJECT_LOG:-}" ]; then
		echo "${2##*/} seccomp $ws_kill${ws_kill:+ }$1" \
			>>"$SPATE_INJECT_LOG"
	fi
	ws_list=$1
	shift
	${SPATE_EMULATOR:-} "$SANDBOX" $ws_kill "$ws_list" -- "$@"
}
