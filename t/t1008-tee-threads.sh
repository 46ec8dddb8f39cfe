#!/bin/sh
# tee's copies on threads: files, which need a copy of every byte, are
# written by threads of their own once a stream shows it is worth it,
# one a CPU at most, tee's own thread included.  When threads start and when they
# do not; every byte, in order, wherever the stream ends; an output that
# fails or stalls while the others are mid-copy; SIGPIPE; and a process
# limit too low for a thread.  GNU has no threads: with TEST_HOST=1 only
# the cases that do not count threads run, against GNU's tee.
# Runs alone: threads start once 4 MiB pass within a second; its quota uid is
# t2005's too (t/run).
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-proc.sh"
. "$TEST_DIR/lib-quota.sh"

BIG=67108864

# SMP: this process may run on two CPUs or more.
test_lazy_prereq SMP '[ "$(nproc)" -ge 2 ]'

# SMALL_TMPFS: a tmpfs can be mounted in a mount namespace of our own.
test_lazy_prereq SMALL_TMPFS '
	mkdir m &&
	unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs m"
'

# traced CMD...: run CMD under strace, which writes the clone(2) calls of
# CMD and of every process and thread it starts into trace.  Only those
# calls stop CMD (--seccomp-bpf): threads start once 4 MiB went through
# within a second, which a CMD stopped at every call may not reach on a
# busy machine.
traced() {
	strace -f -qq --seccomp-bpf -e trace=clone,clone3 -o trace "$@"
}

# threads_started: how many threads the traced run started.
threads_started() {
	grep -c 'CLONE_THREAD.* = [0-9]' trace
}

# sockpeer.py MODE N CMD...: run CMD with its stdout a unix stream socket
# and read that socket: MODE "leave" reads N bytes, then stops CMD,
# drops what CMD has queued since, closes the socket and lets CMD go
# on; MODE "stall" reads N bytes, then nothing until the file "go"
# exists, then the rest.  The bytes read go to the file "sock"; exits
# as CMD did (128 + N when signal N killed it).
write_sockpeer() {
	$SYS_CAT >"$TRASH/sockpeer.py" <<-\EOF
	import os, signal, socket, sys, time
	mode, n = sys.argv[1], int(sys.argv[2])
	a, b = socket.socketpair()
	pid = os.fork()
	if pid == 0:
	    open("pid", "w").write("%d\n" % os.getpid())
	    a.close()
	    os.dup2(b.fileno(), 1)
	    b.close()
	    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
	    os.execvp(sys.argv[3], sys.argv[3:])
	b.close()
	def take(n, out):
	    while n != 0:
	        d = a.recv(65536 if n < 0 else min(n, 65536))
	        if not d:
	            break
	        out.write(d)
	        n -= len(d)
	with open("sock", "wb") as out:
	    take(n, out)
	    if mode == "stall":
	        out.flush()
	        while not os.path.exists("go"):
	            time.sleep(0.05)
	        take(-1, out)
	# Leaving, stop CMD, drop what is queued and close: CMD's next write
	# fails with EPIPE and SIGPIPE whatever the timing.  Closed with
	# bytes unread, the socket would make that write fail with
	# ECONNRESET instead, and a writer waiting for room when the reader
	# shuts it down gets EPIPE without SIGPIPE: races GNU's tee loses too.
	st = None
	if mode == "leave":
	    os.kill(pid, signal.SIGSTOP)
	    st = os.waitpid(pid, os.WUNTRACED)[1]
	    a.setblocking(False)
	    try:
	        while a.recv(65536):
	            pass
	    except BlockingIOError:
	        pass
	a.close()
	if st is None or os.WIFSTOPPED(st):
	    os.kill(pid, signal.SIGCONT)
	    st = os.waitpid(pid, 0)[1]
	sys.exit(128 + os.WTERMSIG(st) if os.WIFSIGNALED(st)
	    else os.WEXITSTATUS(st))
	EOF
}

sockpeer() {
	"$(python3_path)" -I -S "$TRASH/sockpeer.py" "$@"
}

test_expect_success 'setup: inputs' '
	head -c $BIG /dev/urandom >"$TRASH/in.big" &&
	for n in 4194304 4194305 8400001; do
		head -c $n "$TRASH/in.big" >"$TRASH/in.$n" || exit 1
	done &&
	write_sockpeer
'

test_expect_success ZEROCOPY,STRACE,SMP 'a big stream into files: copies on threads, every byte' '
	$SYS_CAT "$TRASH/in.big" | traced tee f1 f2 f3 >out &&
	n=$(threads_started) &&
	test "$n" -ge 1 &&
	test "$n" -lt "$(nproc)" &&
	for f in f1 f2 f3 out; do
		test_cmp "$TRASH/in.big" $f || exit 1
	done
'

test_expect_success SPATE,STRACE,SMP 'a short stream starts no thread' '
	echo x | traced tee f1 f2 >out &&
	test "$(threads_started)" = 0 &&
	echo x >expect &&
	test_cmp expect f1 && test_cmp expect f2 &&
	$SYS_CAT "$TRASH/in.4194304" | head -c 1048576 >in &&
	traced tee f1 f2 <in >/dev/null &&
	test "$(threads_started)" = 0 &&
	test_cmp in f1 && test_cmp in f2
'

test_expect_success SPATE,STRACE,SMP 'SPATE_THREADS=1: no thread, every byte' '
	$SYS_CAT "$TRASH/in.big" | SPATE_THREADS=1 traced tee f1 f2 >/dev/null &&
	test "$(threads_started)" = 0 &&
	test_cmp "$TRASH/in.big" f1 && test_cmp "$TRASH/in.big" f2
'

test_expect_success SPATE,STRACE 'one CPU: no thread' '
	$SYS_CAT "$TRASH/in.big" | traced taskset -c 0 tee f1 f2 >/dev/null &&
	test "$(threads_started)" = 0 &&
	test_cmp "$TRASH/in.big" f1 && test_cmp "$TRASH/in.big" f2
'

test_expect_success SPATE,STRACE,SMP 'one output that copies: no thread' '
	$SYS_CAT "$TRASH/in.big" | traced tee f1 /dev/null >/dev/null &&
	test "$(threads_started)" = 0 &&
	test_cmp "$TRASH/in.big" f1
'

# A socket bounds each chunk by its buffer, and stays on tee's own
# thread; the files beside it copy on threads, many small chunks a lane.
test_expect_success ZEROCOPY,STRACE,SMP,PYTHON3 'a socket beside files: the files on threads' '
	$SYS_CAT "$TRASH/in.big" | sockpeer leave $BIG \
		strace -f -qq --seccomp-bpf -e trace=clone,clone3 -o trace tee f1 f2 &&
	n=$(threads_started) &&
	test "$n" -ge 1 &&
	test "$n" -lt "$(nproc)" &&
	test_cmp "$TRASH/in.big" f1 && test_cmp "$TRASH/in.big" f2 &&
	test_cmp "$TRASH/in.big" sock
'

# An error there stops tee: no output may have had more than GNU gives.
test_expect_success SPATE,STRACE,SMP '--output-error=exit: outputs in order, no thread' '
	for m in exit exit-nopipe; do
		$SYS_CAT "$TRASH/in.big" |
		traced tee --output-error=$m f1 f2 >/dev/null &&
		test "$(threads_started)" = 0 &&
		test_cmp "$TRASH/in.big" f1 && test_cmp "$TRASH/in.big" f2 ||
		exit 1
	done
'

# Threads start once the stream has shown it is worth it, some 4 MiB
# in: streams that end about there, and right after, lose nothing.
for threads in "" 1; do
	test_expect_success "ends near where threads start${threads:+, SPATE_THREADS=$threads}" "
		for n in 4194304 4194305 8400001; do
			SPATE_THREADS=$threads &&
			export SPATE_THREADS &&
			$SYS_CAT \"\$TRASH/in.\$n\" | tee f1 f2 f3 | $SYS_CAT >out &&
			tee f4 f5 <\"\$TRASH/in.\$n\" >f6 &&
			for f in f1 f2 f3 out f4 f5 f6; do
				test_cmp \"\$TRASH/in.\$n\" \$f || exit 1
			done || exit 1
		done
	"
done

# tee_fill_run THREADS: in a mount namespace of its own, tee the big
# input into m/full, on a tmpfs of 1 MiB, and into f1 and f2 outside it;
# m/full's size is left in full.size, its first bytes compared.
tee_fill_run() {
	mkdir -p m &&
	$SYS_CAT "$TRASH/in.big" | SPATE_THREADS=$1 unshare -m sh -c '
		mount -t tmpfs -o size=1m tmpfs m &&
		tee m/full f1 f2 >/dev/null 2>err
		echo $? >status
		wc -c <m/full >full.size &&
		cmp -s m/full "$0" -n $($SYS_CAT full.size) && echo same >full.cmp
	' "$TRASH/in.big"
}

for threads in "" 1; do
	test_expect_success SMALL_TMPFS "an output fills up while the others copy${threads:+, SPATE_THREADS=$threads}" "
		tee_fill_run '$threads' &&
		echo \"tee: m/full: \$(strerror ENOSPC)\" >expect.err &&
		test_cmp expect.err err &&
		test_status 1 &&
		test \"\$($SYS_CAT full.size)\" -gt 0 &&
		test \"\$($SYS_CAT full.cmp)\" = same &&
		test_cmp \"\$TRASH/in.big\" f1 &&
		test_cmp \"\$TRASH/in.big\" f2
	"
done

# RLIMIT_FSIZE, half the input, for files copying on threads: the first
# write past it raises SIGXFSZ, which ends GNU's tee once every output
# before it has the chunk.  Every file then holds exactly the limit, a
# multiple of GNU's 8 KiB: none may lag behind, on whichever thread.
# Which file gets there first is timing: five runs.
test_expect_success 'SIGXFSZ from a file past the size limit: every file holds the limit' '
	n=$((BIG / 2)) &&
	head -c $n "$TRASH/in.big" >expect &&
	xfsz=$(env --default-signal=XFSZ sh -c "kill -XFSZ \$\$"; echo $?) &&
	for run in 1 2 3 4 5; do
		$SYS_CAT "$TRASH/in.big" |
		env --default-signal=XFSZ prlimit --fsize=$n tee f1 f2 f3 \
			>/dev/null 2>err
		echo $? >status &&
		test_status $xfsz &&
		test_must_be_empty err &&
		for f in f1 f2 f3; do
			test_cmp expect $f || exit 1
		done || exit 1
	done
'

# The reader of a socket output leaves after 1 MiB: tee, with SIGPIPE's
# default disposition, dies of it as GNU's does, the files a prefix of
# the input; with -p the files get everything, and status and messages
# are what GNU's tee gives.
test_expect_success PYTHON3 'SIGPIPE from a socket output, files copying' '
	$SYS_CAT "$TRASH/in.big" |
		save_status sockpeer leave 1048576 tee f1 f2 2>err &&
	test "$($SYS_CAT status)" = "$(sigpipe_code)" &&
	test_must_be_empty err &&
	test_is_prefix f1 "$TRASH/in.big" &&
	test_is_prefix f2 "$TRASH/in.big"
'

test_expect_success PYTHON3,GNU 'tee -p, a socket reader that leaves: as GNU, files complete' '
	for t in gnu:$GNU_TEE sut:tee; do
		$SYS_CAT "$TRASH/in.big" |
		sockpeer leave 1048576 ${t#*:} -p f1 f2 2>err.${t%%:*}
		echo $? >status.${t%%:*}
		test_cmp "$TRASH/in.big" f1 && test_cmp "$TRASH/in.big" f2 ||
		exit 1
	done &&
	test_cmp status.gnu status.sut &&
	test_cmp err.gnu err.sut
'

# A socket whose reader stalls, after 16 MiB, while files are outputs:
# the files may get what tee holds for the socket, at most 1 MiB of pipe
# (tee(1)) beyond what the socket took, and no more.  The bound is
# checked once tee is blocked; then the reader goes on and every output
# completes.  NATIVE: tee_gave_back counts the process's threads, and
# qemu-user runs one of its own there.
test_expect_success PYTHON3,NATIVE 'a stalled socket output: the files run ahead by the window, no more' '
	test_when_finished ": >go; wait" &&
	{ $SYS_CAT "$TRASH/in.big" |
		save_status sockpeer stall 16777216 tee f1 f2 2>err; } &
	i=0 last=-1 size=0 &&
	while [ $i -lt 300 ]; do
		sleep 0.1
		size=$(test_file_size f1 2>/dev/null || echo 0)
		[ "$size" = "$last" ] && [ "$size" -gt 0 ] && break
		last=$size i=$((i + 1))
	done &&
	echo "f1 holds $size bytes" &&
	sndbuf=$($SYS_CAT /proc/sys/net/core/wmem_default) &&
	test "$size" -le $((16777216 + sndbuf * 2 + 1048576 + 524288)) &&
	test "$size" -lt $BIG &&
	tee_gave_back "$($SYS_CAT pid)" &&
	: >go &&
	wait &&
	test_status 0 &&
	test_must_be_empty err &&
	test_cmp "$TRASH/in.big" f1 &&
	test_cmp "$TRASH/in.big" f2 &&
	test_cmp "$TRASH/in.big" sock
'

# The reader of standard output, a pipe, leaves: SIGPIPE ends tee, as
# GNU's, but not before every file holds what that reader got, and more.
test_expect_success 'a pipe reader that leaves: the files hold what it read' '
	for i in 1 2 3; do
		$SYS_CAT "$TRASH/in.big" | tee a b | head -c 20000000 >/dev/null &&
		test "$(test_file_size a)" -ge 20000000 &&
		test "$(test_file_size b)" -ge 20000000 &&
		test_is_prefix a "$TRASH/in.big" &&
		test_is_prefix b "$TRASH/in.big" || exit 1
	done
'

# Lanes take at most 4 MiB of the user pipe budget, a lane no less
# than 128 KiB: a dozen files share it; 70 would need more, and copy on
# one thread.  What the pipes tee sized hold, its chunk pipe and copy
# pipe of 1 MiB at most among them, is summed from the last size each
# descriptor was given.
test_expect_success ZEROCOPY,STRACE,SMP 'many files: lanes within 4 MiB, or no thread' '
	in=$TRASH/in.8400001 files= &&
	for i in $(seq 1 12); do files="$files f$i"; done &&
	$SYS_CAT "$in" |
	strace -f -qq --seccomp-bpf -e trace=fcntl,clone3 -o trace tee $files >/dev/null &&
	test "$(threads_started)" -ge 1 &&
	sed -n "s/.*fcntl(\([0-9]*\), F_SETPIPE_SZ, [0-9]*) *= \([0-9]*\)\$/\1 \2/p" \
		trace >sizes &&
	sum=$(awk "{ size[\$1] = \$2 } END { for (fd in size) s += size[fd]; print s }" sizes) &&
	echo "the pipes tee sized hold $sum bytes" &&
	test "$sum" -le $(((4 + 2) << 20)) &&
	for i in $(seq 13 70); do files="$files f$i"; done &&
	$SYS_CAT "$in" | traced tee $files >/dev/null &&
	test "$(threads_started)" = 0 &&
	for f in $files; do test_cmp "$in" $f || exit 1; done
'

# As an unprivileged uid of our own, with no process to spare, a thread
# cannot be made: tee copies on its own thread and loses nothing.  (The
# cases that count threads started need the zero-copy path, ZEROCOPY:
# lanes are fed by tee(2).)  Traced without --seccomp-bpf, as the
# unfiltered tee it tests.
test_expect_success ZEROCOPY,STRACE,SMP,QUOTA_SETUID,QUOTA_COPY 'ulimit -u too low for a thread: every byte, on one thread' '
	mkdir -m 0777 q &&
	$SYS_CAT "$TRASH/in.big" |
	strace -f -qq -e trace=clone,clone3 -o trace \
		setpriv --reuid="$QUOTA_UID" --regid="$QUOTA_UID" \
		--clear-groups prlimit --nproc=1 "$QUOTA_BIN/tee" q/f1 q/f2 \
		>/dev/null &&
	grep "CLONE_THREAD.* = -1 EAGAIN" trace &&
	test "$(threads_started)" = 0 &&
	test_cmp "$TRASH/in.big" q/f1 &&
	test_cmp "$TRASH/in.big" q/f2
'

test_done
