#!/bin/sh
# tee's threads at their edges: a file that refused splice(2) on its
# worker stays on write(2) after a stall gave the lanes back; failures
# on several threads are told in GNU's order, and before a held signal
# ends tee (without threads too: a failure in the round of a SIGPIPE);
# a tee whose input goes quiet gives back the pipes and threads it grew,
# and takes them again when the stream is fast.  GNU's tee is the
# reference: every case but those marked SPATE runs against it too.
# Runs alone: the input goes quiet and fast again on cue (t/run).
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-proc.sh"
. "$TEST_DIR/lib-fault.sh"

BIG=41943040

# SMP: this process may run on two CPUs or more, where threads start.
test_lazy_prereq SMP '[ "$(nproc)" -ge 2 ]'

# SMALL_TMPFS: a tmpfs can be mounted in a mount namespace of our own.
test_lazy_prereq SMALL_TMPFS '
	mkdir m &&
	unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs m"
'

test_expect_success 'setup: 40 MiB of random bytes' '
	head -c $BIG /dev/urandom >"$TRASH/in" &&
	test "$(test_file_size "$TRASH/in")" = $BIG
'

# The reader of the FIFO P takes 8 MiB, stops for two seconds (tee gives
# its lanes back after one), then reads the rest; F refuses splice(2)
# (EINVAL, as a file system without splice_write), G does not, and
# standard output, O_APPEND, takes only write(2).  F gets a lane before
# the stall and again after it: its worker falls back to write(2) the
# first time, and F must stay there, not be taken for a file that
# zero-copy reached.
test_expect_success STRACE 'a file that refused splice, across a stall: every byte, no error' '
	mkfifo P &&
	{ { dd bs=1M count=8 iflag=fullblock 2>/dev/null; sleep 2;
	    $SYS_CAT; } <P >got & } &&
	$SYS_CAT "$TRASH/in" |
	strace -f -qq --seccomp-bpf -o trace -P "$PWD/F" -e trace=splice \
		-e inject=splice:error=EINVAL tee F G P >>out 2>err &&
	wait &&
	test_must_be_empty err &&
	for f in F G got out; do
		test_cmp "$TRASH/in" $f || exit 1
	done
'

# tee_in_tmpfs SIZES CMD...: in a mount namespace of its own, with a
# tmpfs of each size in SIZES (a list, "8m 8196k") mounted on m1, m2 ...,
# run CMD; its status goes to the file status.
tee_in_tmpfs() {
	tt_sizes=$1
	shift
	mkdir -p m1 m2 m3 &&
	unshare -m sh -c '
		i=1
		for s in $0; do
			mount -t tmpfs -o size=$s tmpfs m$i || exit 125
			i=$((i + 1))
		done
		"$@"
		echo $? >status
	' "$tt_sizes" "$@"
}

# same_messages: err.gnu and err.sut hold the same messages, each
# program named tee, however it was called.
same_messages() {
	sed "s|^[^:]*tee: |tee: |" err.gnu >expect &&
	test_cmp expect err.sut
}

# Two files fill their file systems 4 KiB apart, within one of GNU's
# 8 KiB reads: GNU's tee says so in the order of the files, whichever
# thread of ours met the failure first.  So for each mode that warns,
# and on one file system, and past a size limit with SIGXFSZ ignored.
for mode in "" -p --output-error=warn; do
	test_expect_success SMALL_TMPFS "two files full 4 KiB apart: told in GNU's order${mode:+, $mode}" "
		for t in gnu:\$GNU_TEE sut:tee; do
			tee_in_tmpfs '8m 8196k' \${t#*:} $mode f1 m1/f2 m2/f3 \
				<\"\$TRASH/in\" >/dev/null 2>err.\${t%%:*} &&
			mv status status.\${t%%:*} || exit 1
		done &&
		test_cmp status.gnu status.sut &&
		same_messages &&
		test_cmp \"\$TRASH/in\" f1
	"
done

# The files fill up in two different 8 KiB reads of GNU's that one
# round of tee's holds, the earlier operand in the later read: GNU tells
# the later operand first.  With threads and without.
for threads in "" 1; do
	test_expect_success SMALL_TMPFS "two files full in two of GNU's reads, one round: told in GNU's order${threads:+, SPATE_THREADS=$threads}" "
		for t in gnu:\$GNU_TEE sut:tee; do
			SPATE_THREADS=$threads tee_in_tmpfs '8200k 8m' \${t#*:} \
				f1 m1/f2 m2/f3 <\"\$TRASH/in\" >/dev/null \
				2>err.\${t%%:*} &&
			mv status status.\${t%%:*} || exit 1
		done &&
		test_cmp status.gnu status.sut &&
		same_messages
	"
done

# Rounds smaller than GNU's reads (an output pipe of 4 KiB, the least):
# the files fill up 4 KiB apart, in one read of GNU's, the later operand
# in the earlier round: GNU tells them in the order of the operands.
# pipe4k.py CMD...: CMD's stdout is a pipe of 4 KiB, read to its end.
test_expect_success SMALL_TMPFS,PYTHON3 "an output pipe of 4 KiB, two files full in one of GNU's reads: told in GNU's order" '
	$SYS_CAT >pipe4k.py <<-\EOF &&
	import fcntl, os, subprocess, sys
	r, w = os.pipe()
	fcntl.fcntl(w, 1031, 4096)
	p = subprocess.Popen(sys.argv[1:], stdout=w)
	os.close(w)
	while os.read(r, 1 << 16):
	    pass
	sys.exit(p.wait())
	EOF
	for t in gnu:$GNU_TEE sut:tee; do
		tee_in_tmpfs "8196k 8m" "$(python3_path)" -I -S pipe4k.py \
			${t#*:} m1/f2 m2/f3 <"$TRASH/in" 2>err.${t%%:*} &&
		mv status status.${t%%:*} || exit 1
	done &&
	test_cmp status.gnu status.sut &&
	same_messages
'

# Two files on one file system: the space one takes is the other's, so
# where each fails is where the other's thread left it, which the
# scheduler decides.  Each failure is told by the 8 KiB read of GNU's it
# came in, the size its file was left at (every byte before the failing
# write went in), and within one read in the order of the operands: the
# order the sizes say, GNU's when they fail in one read.  With threads
# and without.
for threads in "" 1; do
	test_expect_success SMALL_TMPFS "two files on one full file system: told by where each failed${threads:+, SPATE_THREADS=$threads}" "
		SPATE_THREADS=$threads tee_in_tmpfs 16m sh -c '
			\"\$@\" 2>err
			s=\$?
			wc -c <m1/f2 >size.f2 && wc -c <m1/f3 >size.f3 && exit \$s
		' sh tee f1 m1/f2 m1/f3 <\"\$TRASH/in\" >/dev/null &&
		test_status 1 &&
		r2=\$((\$($SYS_CAT size.f2) / 8192)) &&
		r3=\$((\$($SYS_CAT size.f3) / 8192)) &&
		echo \"f2 failed in read \$r2, f3 in read \$r3\" &&
		if [ \$r3 -lt \$r2 ]; then set -- f3 f2; else set -- f2 f3; fi &&
		printf 'tee: m1/%s: %s\\n' \$1 \"\$(strerror ENOSPC)\" \\
			\$2 \"\$(strerror ENOSPC)\" >expect &&
		test_cmp expect err &&
		test_cmp \"\$TRASH/in\" f1
	"
done

test_expect_success "three files past the size limit, SIGXFSZ ignored: told in GNU's order" '
	for t in gnu:$GNU_TEE sut:tee; do
		env --ignore-signal=XFSZ prlimit --fsize=20000000 ${t#*:} \
			f1 f2 f3 <"$TRASH/in" >/dev/null 2>err.${t%%:*}
		echo $? >status.${t%%:*}
		for f in f1 f2 f3; do
			test "$(test_file_size $f)" = 20000000 || exit 1
		done
	done &&
	test_cmp status.gnu status.sut &&
	same_messages
'

# RLIMIT_FSIZE not a multiple of GNU's 8 KiB, SIGXFSZ at its default,
# standard output the first file to reach it: SIGXFSZ ends tee, but
# every file after it holds at least what GNU's holds, the reads before
# the one that failed, with threads and without, from a file and a pipe.
for threads in "" 1; do
	test_expect_success "SIGXFSZ ends tee: every file holds at least GNU's${threads:+, SPATE_THREADS=$threads}" "
		for how in file pipe; do
			for t in gnu:\$GNU_TEE sut:tee; do
				rm -f o f1 f2 f3 &&
				if [ \$how = file ]; then
					SPATE_THREADS=$threads env --default-signal=XFSZ \
						prlimit --fsize=20000000 \${t#*:} f1 f2 f3 \
						<\"\$TRASH/in\" >o 2>err.\${t%%:*}
				else
					\$SYS_CAT \"\$TRASH/in\" |
					SPATE_THREADS=$threads env --default-signal=XFSZ \
						prlimit --fsize=20000000 \${t#*:} f1 f2 f3 \
						>o 2>err.\${t%%:*}
				fi
				echo \$? >status.\${t%%:*} &&
				for f in o f1 f2 f3; do
					test_is_prefix \$f \"\$TRASH/in\" &&
					test_file_size \$f || exit 1
				done >sizes.\${t%%:*} || exit 1
			done &&
			test_cmp status.gnu status.sut &&
			test_cmp err.gnu err.sut &&
			paste sizes.gnu sizes.sut >both &&
			awk '\$2 < \$1 { exit 1 }' both || exit 1
		done
	"
done

# The file on a 16 MiB tmpfs fills up on its thread; the reader of
# standard output, a little past 16 MiB, waits for that file to be full
# and leaves: SIGPIPE ends tee, as GNU's, but not before tee has told of
# the full file, as GNU's did when it got there.  Whether tee's own
# thread had heard of the failure before the SIGPIPE is timing: three
# runs.
test_expect_success SMALL_TMPFS,PYTHON3 'a file full on its thread, then SIGPIPE: told before tee dies' '
	$SYS_CAT >leave.py <<-\EOF &&
	import os, sys
	left = (16 << 20) + (64 << 10)
	while left > 0:
	    b = os.read(0, min(left, 1 << 20))
	    if not b:
	        sys.exit("the input ended early")
	    left -= len(b)
	for _ in range(600):
	    if os.stat("m1/F").st_size >= 16 << 20:
	        sys.exit(0)
	    os.system("sleep 0.1")
	sys.exit("m1/F never filled up")
	EOF
	echo "tee: m1/F: $(strerror ENOSPC)" >expect &&
	for run in 1 2 3; do
		tee_in_tmpfs 16m sh -c "
			{ \"\$0\" m1/F G <\"\$1\" 2>err; echo \$? >tee.status; } |
			\"\$2\" -I -S leave.py" tee "$TRASH/in" "$(python3_path)" &&
		test_status 0 &&
		test_cmp expect err &&
		test "$($SYS_CAT tee.status)" = "$(sigpipe_code)" &&
		test_is_prefix G "$TRASH/in" &&
		test "$(test_file_size G)" -ge $(((16 << 20) + (64 << 10))) ||
		exit 1
	done
'

# idle.py PID FIFO IN: write IN's first 32 MiB into FIFO, which tee PID
# reads, wait until tee holds no pipe of its own and runs one thread
# (fail after 30 s), then write the rest, noting in the file "again" the
# most private pipes and threads tee had while it came.  PID @T is the
# tee that tracer T runs, once it runs.  NATIVE here and below: the
# process's threads are counted, and qemu-user runs one of its own there.
test_expect_success PYTHON3,NATIVE 'a quiet input: tee gives back its pipes and threads, then takes them again' '
	$SYS_CAT >"$TRASH/idle.py" <<-\EOF &&
	import os, sys, time
	pid, fifo, src = sys.argv[1], sys.argv[2], sys.argv[3]
	def traced(tracer):
	    for _ in range(300):
	        with open("/proc/%s/task/%s/children" % (tracer, tracer)) as c:
	            for p in c.read().split():
	                try:
	                    with open("/proc/%s/cmdline" % p, "rb") as a:
	                        if a.read().split(b"\0")[0].endswith(b"tee"):
	                            return p
	                except OSError:
	                    pass
	        time.sleep(0.1)
	    sys.exit("tracer %s never ran tee" % tracer)
	def private_pipes():
	    n = 0
	    for fd in os.listdir("/proc/%s/fd" % pid):
	        try:
	            if not os.readlink("/proc/%s/fd/%s" % (pid, fd)).startswith("pipe:"):
	                continue
	            with open("/proc/%s/fdinfo/%s" % (pid, fd)) as i:
	                fl = [l for l in i if l.startswith("flags:")][0]
	        except OSError:
	            continue
	        n += (int(fl.split()[1], 8) & os.O_CLOEXEC) != 0
	    return n
	def threads():
	    return len(os.listdir("/proc/%s/task" % pid))
	data = open(src, "rb").read()
	out = os.open(fifo, os.O_WRONLY)
	if pid.startswith("@"):
	    pid = traced(pid[1:])
	def write(b):
	    while b:
	        b = b[os.write(out, b):]
	write(data[:32 << 20])
	for _ in range(300):
	    if private_pipes() == 0 and threads() == 1:
	        break
	    time.sleep(0.1)
	else:
	    sys.exit("tee %s held on to what it grew" % pid)
	most = [0, 0]
	for off in range(32 << 20, len(data), 1 << 20):
	    write(data[off:off + (1 << 20)])
	    most = [max(most[0], private_pipes()), max(most[1], threads())]
	open("again", "w").write("pipes %d threads %d\n" % tuple(most))
	EOF
	mkfifo fin &&
	{ tee f1 f2 f3 <fin >out & } &&
	test_python3 "$TRASH/idle.py" $! fin "$TRASH/in" &&
	wait $! &&
	for f in f1 f2 f3 out; do
		test_cmp "$TRASH/in" $f || exit 1
	done &&
	$SYS_CAT again &&
	if test_have_prereq SPATE,ZEROCOPY; then
		grep "^pipes [1-9]" again
	fi &&
	if test_have_prereq SPATE,ZEROCOPY,SMP; then
		! grep " threads 1\$" again
	fi
'

# Threads that were not to be had (the first thread's clone3(2) fails
# with EAGAIN, as past the user's process limit) are asked for again
# once the input was quiet and the next burst warrants them.
test_expect_success STRACE,PYTHON3 'threads not to be had: asked again after a quiet input' '
	mkfifo fin &&
	{ strace -f -qq -o trace -e trace=clone,clone3 \
		-e inject=clone,clone3:error=EAGAIN:when=1 \
		tee f1 f2 f3 <fin >out & } &&
	test_python3 "$TRASH/idle.py" @$! fin "$TRASH/in" &&
	wait $! &&
	for f in f1 f2 f3 out; do
		test_cmp "$TRASH/in" $f || exit 1
	done &&
	$SYS_CAT again &&
	if test_have_prereq SPATE,ZEROCOPY,SMP; then
		grep "EAGAIN (Resource temporarily unavailable) (INJECTED)" trace &&
		! grep " threads 1\$" again
	fi
'

# A burst, then a trickle (a line each 0.3 s, never quiet for a second):
# tee gives back what it grew all the same, within 30 s, while the
# trickle goes on, and every byte reaches every output.
test_expect_success PYTHON3,NATIVE 'a burst, then a trickle: tee gives back its pipes and threads' '
	$SYS_CAT >trickle.py <<-\EOF &&
	import os, sys, time
	pid, fifo, src = sys.argv[1], sys.argv[2], sys.argv[3]
	def private_pipes():
	    n = 0
	    for fd in os.listdir("/proc/%s/fd" % pid):
	        try:
	            if not os.readlink("/proc/%s/fd/%s" % (pid, fd)).startswith("pipe:"):
	                continue
	            with open("/proc/%s/fdinfo/%s" % (pid, fd)) as i:
	                fl = [l for l in i if l.startswith("flags:")][0]
	        except OSError:
	            continue
	        n += (int(fl.split()[1], 8) & os.O_CLOEXEC) != 0
	    return n
	data = open(src, "rb").read()
	out = os.open(fifo, os.O_WRONLY)
	off = 0
	while off < 32 << 20:
	    off += os.write(out, data[off:32 << 20])
	for _ in range(100):
	    os.write(out, data[off:off + 80])
	    off += 80
	    if private_pipes() == 0 and len(os.listdir("/proc/%s/task" % pid)) == 1:
	        break
	    time.sleep(0.3)
	else:
	    sys.exit("tee %s held on to what it grew while the input trickled" % pid)
	while off < len(data):
	    off += os.write(out, data[off:])
	EOF
	mkfifo fin &&
	{ tee f1 f2 f3 <fin >out & } &&
	test_python3 trickle.py $! fin "$TRASH/in" &&
	wait $! &&
	for f in f1 f2 f3 out; do
		test_cmp "$TRASH/in" $f || exit 1
	done
'

# A failure told in the same round as a held SIGPIPE, and before it in
# GNU's order: the outputs after the broken pipe still get what GNU's tee
# gives them, every 8 KiB read before the one the pipe broke in.  The
# read/write path writes 64 KiB a round (the FIFO's pipe); f1's second
# write fails (ENOSPC).  The FIFO's reader takes 20 KiB, waits until tee
# has filled the pipe again, and leaves: the pipe took 84 KiB, GNU's
# 11th read broke it, and f3 holds the first 10 reads.  GNU's tee gives
# f3 the same: its writes go through stdio, out of the injector's reach,
# and where f1 fails does not move where GNU's dies.  SPATE: under
# TEST_HOST the injected failure would not come.
tee_fifo_leaves() {
	test_python3 -c "
import fcntl, os, struct, termios, time
fd = os.open(\"fifo\", os.O_RDONLY)
got = 0
while got < 20480:
    got += len(os.read(fd, 20480 - got))
while struct.unpack(\"i\", fcntl.ioctl(fd, termios.FIONREAD,
        bytes(4)))[0] < 65536:
    time.sleep(0.01)
" &
	SPATE_ZEROCOPY=0 save_status with_inject "write:out=3:nth=2:error=ENOSPC" \
		"$1" f1 fifo f3 <"$TRASH/in" >/dev/null 2>err
	wait
}
test_expect_success INJECT,PYTHON3,SPATE 'a failure told just before a held SIGPIPE: the outputs after it get GNU'"'"'s' '
	rm -f fifo && mkfifo fifo &&
	head -c 81920 "$TRASH/in" >expect &&
	if test_have_prereq GNU; then
		tee_fifo_leaves "$GNU_TEE" &&
		test_status "$(sigpipe_code)" &&
		test_cmp expect f3
	fi &&
	tee_fifo_leaves tee &&
	test_injected "^write\(-1, 3\) nth=2: error=ENOSPC$" &&
	test_status "$(sigpipe_code)" &&
	echo "tee: f1: $(strerror ENOSPC)" >expect.err &&
	test_cmp expect.err err &&
	test_cmp expect f3
'

test_done
