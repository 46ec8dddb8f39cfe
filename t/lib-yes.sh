# lib-yes.sh: runs of yes checked against GNU's stream.  Source it after
# test-lib.sh and lib-fault.sh.  (yes_ref and yes_prefix, which the tee
# scripts use too, are in lib-data.sh.)

# yes_faulted N SPEC ARG...: run `yes ARG...` under with_faults SPEC; the
# first N bytes of its output go to actual, its stderr to err, its status
# to status.  Then test_yes_run checks them.
yes_faulted() {
	yf_n=$1 yf_spec=$2
	shift 2
	save_status with_faults "$yf_spec" yes "$@" 2>err |
		head -c "$yf_n" >actual
}

# test_yes_run WHAT N ARG...: the run of `yes ARG...` that left actual
# (N bytes read), err and status was WHAT:
#
#   exact	actual is the first N bytes of the stream, err is empty, and
#		yes was killed by SIGPIPE when the reader left
#   skip:K	the same, but the stream lacks its first K bytes (a faked
#		call claimed K bytes that never went out)
#   error:E	err is "yes: standard output: strerror(E)", the status 1,
#		and nothing was written
#   late:E	the same message and status, after a non-empty exact
#		prefix of the stream
test_yes_run() {
	yr_what=$1 yr_n=$2
	shift 2
	case $yr_what in
	exact)
		yes_ref "$@" | head -c "$yr_n" >expect &&
		cmp expect actual &&
		test_must_be_empty err &&
		test_status $SIGPIPE_STATUS ;;
	skip:*)
		yes_ref "$@" | tail -c +$((${yr_what#skip:} + 1)) |
			head -c "$yr_n" >expect &&
		cmp expect actual &&
		test_must_be_empty err &&
		test_status $SIGPIPE_STATUS ;;
	error:*|late:*)
		echo "yes: standard output: $(strerror ${yr_what#*:})" \
			>expect.err &&
		test_cmp expect.err err &&
		test_status 1 &&
		if [ "${yr_what%%:*}" = error ]; then
			test_must_be_empty actual
		else
			test -s actual &&
			yes_prefix actual "$@"
		fi ;;
	*)	echo "test_yes_run: unknown $yr_what"; return 1 ;;
	esac
}

# yes_big_mmap ARG...: print the number of the mmap call, counted from
# the start of the process, that maps the big buffer of `yes ARG...`: the
# first mmap after its first vmsplice.  Found in a traced run; prints
# nothing and fails if yes made no such call.
yes_big_mmap() {
	timeout 60 strace -qq -o trace.mmap -e trace=mmap,vmsplice yes "$@" |
		head -c $((4 * 1048576)) >/dev/null &&
	awk '/^vmsplice/ { v = 1 }
		/^mmap\(/ { n++; if (v) { print n; found = 1; exit } }
		END { exit !found }' trace.mmap
}
