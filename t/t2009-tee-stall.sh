#!/bin/sh
# A reader of tee that stops reading: once its output has stayed full
# for a while, tee reads the chunk into memory, closes its private pipes
# (their pages count against the user's pipe quota: t2005) and waits to
# write: in write(2), as GNU's tee does, or, where it holds signals
# (two outputs or more), for room in ppoll(2) (lib/io.c, pipe_wait_room).  When the reader goes on, every output
# still gets every byte, in order, and the stream takes zero-copy again.
# Runs alone: a stall must be seen within its time (t/run).
. "$(dirname "$0")/test-lib.sh"

# tee_stall_reader PID: a python3 program, its stdin the output of tee
# PID, its stdout where the bytes go: read 8 MiB, then stop reading
# until PID waits to write (in write(2), or in a ppoll(2) of one
# descriptor with no time limit, where /proc tells the call) holding no
# pipe of its own (close-on-exec: not one it inherited) but its stdin
# and stdout (fails after about 60 s, which only a hang takes), twice,
# then read to the end.
$SYS_CAT >"$TRASH/stall.py" <<-\EOF
	import os, sys, time
	pid = sys.argv[1]
	def waits_to_write():
	    with open("/proc/%s/wchan" % pid) as w:
	        wchan = w.read()
	    if "pipe_write" in wchan:
	        return True
	    if "poll" not in wchan:
	        return False
	    try:
	        with open("/proc/%s/syscall" % pid) as c:
	            call = c.read().split()
	    except OSError:
	        return True	# ptrace-restricted: the wait alone
	    return len(call) > 3 and int(call[2], 16) == 1 and \
	        int(call[3], 16) == 0
	def gave_back():
	    try:
	        if not waits_to_write():
	            return False
	        for fd in os.listdir("/proc/%s/fd" % pid):
	            if fd in ("0", "1") or not os.readlink(
	                    "/proc/%s/fd/%s" % (pid, fd)).startswith("pipe:"):
	                continue
	            with open("/proc/%s/fdinfo/%s" % (pid, fd)) as i:
	                flags = [l for l in i if l.startswith("flags:")][0]
	            if int(flags.split()[1], 8) & os.O_CLOEXEC:
	                return False	# its own: inherited ones are not
	        return True
	    except OSError:
	        return False
	def take(n):
	    while n > 0:
	        b = os.read(0, min(n, 1 << 20))
	        if not b:
	            return
	        os.write(1, b)
	        n -= len(b)
	for _ in range(2):
	    take(8 << 20)
	    for _ in range(600):
	        if gave_back():
	            break
	        time.sleep(0.1)
	    else:
	        sys.exit("tee %s never waited to write without pipes" % pid)
	take(1 << 62)
	EOF

test_expect_success PYTHON3 'set-up: 64 MiB of random bytes' '
	head -c 67108864 /dev/urandom >"$TRASH/in" &&
	test $(test_file_size "$TRASH/in") = 67108864
'

for input in file pipe; do
	test_expect_success PYTHON3 "$input input, tee FILE | stalling reader: all bytes, everywhere" '
		mkfifo out &&
		if [ '$input' = file ]; then
			{ tee f1 <"$TRASH/in" >out & }
		else
			{ $SYS_CAT "$TRASH/in" | tee f1 >out & }
		fi &&
		test_python3 "$TRASH/stall.py" $! <out >got &&
		wait $! &&
		cmp "$TRASH/in" got &&
		cmp "$TRASH/in" f1
	'
done

test_expect_success PYTHON3 'tee FIFO | stalling reader, the FIFO read on: all bytes, everywhere' '
	mkfifo out fifo &&
	{ $SYS_CAT fifo >got2 & } &&
	{ tee fifo <"$TRASH/in" >out & } &&
	test_python3 "$TRASH/stall.py" $! <out >got &&
	wait &&
	cmp "$TRASH/in" got &&
	cmp "$TRASH/in" got2
'

test_expect_success PYTHON3 'tee STALLING-FIFO, stdout read on: all bytes, everywhere' '
	mkfifo out fifo &&
	{ $SYS_CAT out >got2 & } &&
	{ tee fifo <"$TRASH/in" >out & } &&
	test_python3 "$TRASH/stall.py" $! <fifo >got &&
	wait &&
	cmp "$TRASH/in" got &&
	cmp "$TRASH/in" got2
'

# Seeing a stall costs no look a round: the splice(2) from the input
# pipe and the tee(2) into the output pipe ask not to wait
# (SPLICE_F_NONBLOCK), and tee polls only after one of them said EAGAIN,
# or on the read/write path right before a read(2) of the input, or a
# write(2) into an output pipe that is full, which would wait (there a
# SIGPIPE from outside must get in).
test_expect_success STRACE 'pipe input, tee FILE | reader: poll(2) only where a call would wait' '
	head -c 16777216 /dev/urandom >in16 &&
	$SYS_CAT in16 |
		save_status timeout 60 strace -f -qq -o trace \
		-e trace=poll,ppoll,splice,tee,read,write tee f1 2>err | $SYS_CAT >got &&
	test_status 0 &&
	cmp in16 got &&
	cmp in16 f1 &&
	awk "
		/poll\\(/ { if (pend) bad++; pend = !again; again = 0; next }
		{ if (pend && !/(read|write)\\(/) bad++; pend = 0 }
		/EAGAIN/ { again = 1 }
		END {
			if (pend) bad++
			if (bad) print bad \" poll(2) calls with no EAGAIN before, no read(2) or write(2) after\"
			exit bad > 0
		}
	" trace
'

test_done
