# lib-tty.sh: a command under test with a terminal for its standard
# error, run as a shell with job control runs a job, and what the
# terminal was sent.  Source it after test-lib.sh.  Runs python3: for
# cases that need PYTHON3.

# tty_run COLS LOG CTL MODE CMD...: run the program CMD (exec'd, its
# standard input and output this one's) with its standard error a
# terminal (a pseudo-terminal) of COLS columns, in a session of its own
# whose controlling terminal that is; CMD in a process group of its
# own, the terminal's foreground if MODE is fg, in its background if
# MODE is bg.  Every byte CMD sends the terminal is appended to LOG as
# it comes.  CTL, if not -, is a FIFO of requests, a line each:
#	cols N		make the terminal N columns wide (SIGWINCH)
#	stop SECS	type ^Z (SIGTSTP from the terminal); once CMD has
#			stopped, take the terminal back, wait SECS, then
#			give it back and send SIGCONT, as fg does
# Events are appended to the file events, a line each: "cols N",
# "stopped SIG", "continued AT" (AT: LOG's size then), and at the end
# "bound SECS", the seconds CMD lived less those it was surely stopped
# (from the stop seen to SIGCONT: CMD's own count of its stopped time is
# at least that), and "exit STATUS".  The status is CMD's (128 + the
# signal that killed it); a CMD still running after 120 s is killed,
# and the status is then 124.
TTY_RUN_PY='
import fcntl, os, select, signal, struct, sys, termios, time
cols, log, ctl, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
cmd = sys.argv[5:]

def size(fd, n):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, n, 0, 0))

def event(text):
    with open("events", "a") as f:
        f.write(text + "\n")

os.setsid()
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
size(slave, cols)
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
go_r, go_w = os.pipe()
born = time.monotonic()
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    os.read(go_r, 1)
    for s in (signal.SIGTTOU, signal.SIGPIPE, signal.SIGTSTP):
        signal.signal(s, signal.SIG_DFL)
    os.dup2(slave, 2)
    for fd in (master, slave, go_r, go_w):
        os.close(fd)
    os.execvp(cmd[0], cmd)
try:
    os.setpgid(pid, pid)
except OSError:
    pass
if mode == "fg":
    os.tcsetpgrp(slave, pid)
os.write(go_w, b"x")
ctl_fd = None if ctl == "-" else os.open(ctl, os.O_RDWR | os.O_NONBLOCK)
out = open(log, "ab", buffering=0)
pending, hold, stopped_at, surely_stopped = b"", 0.0, None, 0.0

def copy():
    try:
        data = os.read(master, 65536)
    except OSError:
        return False
    out.write(data)
    return len(data) > 0

while True:
    fds = [master] + ([ctl_fd] if ctl_fd is not None else [])
    ready = select.select(fds, [], [], 0.05)[0]
    if master in ready:
        copy()
    if ctl_fd in ready:
        pending += os.read(ctl_fd, 4096)
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            word = line.decode().split()
            if word[0] == "cols":
                size(slave, int(word[1]))
                event("cols " + word[1])
            elif word[0] == "stop":
                hold = float(word[1])
                os.write(master, b"\x1a")
    if stopped_at is not None and time.monotonic() - stopped_at >= hold:
        os.tcsetpgrp(slave, pid)
        surely_stopped += time.monotonic() - stopped_at
        os.killpg(pid, signal.SIGCONT)
        stopped_at = None
        event("continued %d" % os.fstat(out.fileno()).st_size)
    wpid, status = os.waitpid(pid, os.WNOHANG | os.WUNTRACED)
    if wpid and os.WIFSTOPPED(status):
        stopped_at = time.monotonic()
        os.tcsetpgrp(slave, os.getpgrp())
        event("stopped %d" % os.WSTOPSIG(status))
    elif wpid:
        break
    if time.monotonic() - born > 120:
        os.killpg(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        event("exit 124")
        sys.exit(124)
lived = time.monotonic() - born
os.set_blocking(master, False)
while copy():
    pass
code = os.waitstatus_to_exitcode(status)
code = 128 - code if code < 0 else code
event("bound %.9f" % (lived - surely_stopped))
event("exit %d" % code)
sys.exit(code)
'
tty_run() {
	test_python3 -c "$TTY_RUN_PY" "$@"
}

# tty_segments LOG: print what LOG shows as lines drawn, one a line: its
# text cut at each carriage return and line feed, the empty pieces left
# out, the blanks that end a piece kept.  No LOG yet: none.
tty_segments() {
	{ tr '\r' '\n' <"$1"; } 2>/dev/null | grep -v '^$'
}

# tty_count LOG MAX PATTERN: print how many segments of LOG (tty_segments)
# match the extended regular expression PATTERN and are at most MAX
# characters long.
tty_count() {
	tty_segments "$1" | awk -v max="$2" -v re="$3" \
		'length($0) <= max && $0 ~ re { n++ } END { print n + 0 }'
}

# tty_feed CMD...: a slow input.  Write a line to stdout, and to the file
# fed, every 0.1 s until CMD succeeds; fail after about 60 s.
tty_feed() {
	tf_i=0
	until "$@"; do
		[ $tf_i -lt 600 ] || {
			echo "tty_feed: never: $*" >&2
			return 1
		}
		tf_line="line $tf_i of a slow input"
		echo "$tf_line" >>fed && echo "$tf_line" || return 1
		sleep 0.1
		tf_i=$((tf_i + 1))
	done
}

# tty_has LOG MAX N PATTERN: LOG has at least N segments of at most MAX
# characters that match PATTERN (tty_count).
tty_has() {
	[ "$(tty_count "$1" "$2" "$4")" -ge "$3" ]
}

# Fields of a line, as extended regular expressions: TTY_RATE a rate,
# TTY_RUNNING a rate, a percentage and a time left, TTY_FINAL a final
# line's time and rate at its end.
TTY_RATE='[0-9.]+ ([KMGTPE]i)?B/s'
TTY_RUNNING="$TTY_RATE,? [0-9]+%,? [0-9:]+"
TTY_FINAL='([0-9]+\.[0-9]+ s|[0-9]+:[0-9][0-9](:[0-9][0-9])?),? '"$TTY_RATE"' *$'

# tty_drain CMD...: a slow reader.  Copy 64 KiB of stdin to stdout every
# 0.1 s until CMD succeeds; fail after about 60 s.
tty_drain() {
	td_i=0
	until "$@"; do
		[ $td_i -lt 600 ] || {
			echo "tty_drain: never: $*" >&2
			return 1
		}
		head -c 65536 || return 1
		sleep 0.1
		td_i=$((td_i + 1))
	done
}

# tty_after LOG AT MAX N PATTERN: what LOG holds past its first AT bytes
# (put in the file tail) has at least N segments of at most MAX
# characters that match PATTERN.
tty_after() {
	tail -c +$(($2 + 1)) "$1" >tail && tty_has tail "$3" "$4" "$5"
}

# tty_event WORD: print the rest of the first line of the file events
# that starts with WORD; fail if there is none.
tty_event() {
	sed -n "s/^$1 //p" events | sed -n 1p | grep .
}

# tty_seen WORD: the file events has a line that starts with WORD.
tty_seen() {
	grep -q "^$1 " events 2>/dev/null
}

# tty_final LOG: put LOG's last segment in the file final, and print
# its time in seconds and its rate in bytes a second.
tty_final() {
	tty_segments "$1" | tail -n 1 >final &&
	awk '{
		t = $0; sub(/,? [0-9.]+ [KMGTPEi]*B\/s *$/, "", t)
		sub(/ s$/, "", t); sub(/.* /, "", t)
		if (t ~ /:/) { n = split(t, p, ":"); t = 0
			for (i = 1; i <= n; i++) t = t * 60 + p[i] }
		match($0, /[0-9.]+ [KMGTPEi]*B\/s *$/)
		split(substr($0, RSTART), r, " ")
		m = index("KMGTPE", substr(r[2], 1, 1))
		print t + 0, r[1] * (r[2] ~ /^B/ ? 1 : 1024 ^ m)
	}' final
}

# tty_final_ok LOG BYTES: the final line in LOG is one of its own (the
# only line end in LOG), has a time and a rate (TTY_FINAL), and the rate
# times the time is BYTES, to the three figures each is given in.  What
# tty_final prints is left in the file figures.
tty_final_ok() {
	test "$(tr -dc '\n' <"$1" | wc -c)" = 1 &&
	tty_final "$1" >figures &&
	grep -Eq "$TTY_FINAL" final &&
	awk -v bytes="$2" '$1 * $2 < bytes * 0.985 || $1 * $2 > bytes * 1.015 {
		print "time " $1 " times rate " $2 " is not " bytes; exit 1
	}' figures
}
