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

# with_fd_limit N CMD...: run CMD with only descriptors 0, 1 and 2 open
# and at most N descriptors (RLIMIT_NOFILE's soft limit N, the hard limit
# as it was), SIGPIPE at its default.  Every descriptor from 3 up is
# closed, whatever its number, so that N - 3 is what CMD can open.  Runs
# python3: for cases that need PYTHON3.
with_fd_limit() {
	test_python3 -c '
import os, resource, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
os.closerange(3, 65536)
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), hard))
os.execvp(sys.argv[2], sys.argv[2:])
' "$@"
}

# with_socket_stdin CMD...: run CMD with its stdin a unix stream socket
# that carries this stdin, copied by a child process (which ends at end
# of input, or quietly when CMD stops reading); SIGPIPE at its default
# for CMD.  CMD is exec'd: a program, not a shell function.  Runs
# python3: for cases that need PYTHON3.  SOCKET_STDIN_PY holds the
# program, for a place where a shell function cannot go (after strace or
# with_faults): "$(python3_path)" -I -S -c "$SOCKET_STDIN_PY" CMD...
SOCKET_STDIN_PY='
import os, signal, socket, sys
a, b = socket.socketpair()
if os.fork() == 0:
    b.close()
    try:
        while True:
            d = os.read(0, 65536)
            if not d:
                break
            a.sendall(d)
        a.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    os._exit(0)
a.close()
os.dup2(b.fileno(), 0)
b.close()
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])
'
with_socket_stdin() {
	test_python3 -c "$SOCKET_STDIN_PY" "$@"
}

# SOCKET_STDOUT_PY: the program that runs CMD with its stdout a unix
# stream socket and copies what comes out of it to this stdout, then
# exits as CMD did (by the same signal, if one killed it); SIGPIPE at
# its default for CMD.  A file, not a function, as it goes where a word
# list must (in front of the command after with_faults): the script
# writes it once, printf '%s\n' "$SOCKET_STDOUT_PY" >FILE, and runs
# "$(python3_path)" -I -S FILE CMD...  For cases that need PYTHON3.
SOCKET_STDOUT_PY='
import os, signal, socket, sys
a, b = socket.socketpair()
pid = os.fork()
if pid == 0:
    a.close()
    os.dup2(b.fileno(), 1)
    b.close()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.execvp(sys.argv[1], sys.argv[1:])
b.close()
while True:
    d = a.recv(65536)
    if not d:
        break
    os.write(1, d)
st = os.waitpid(pid, 0)[1]
if os.WIFSIGNALED(st):
    signal.signal(os.WTERMSIG(st), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(st))
sys.exit(os.WEXITSTATUS(st))
'

# with_record_stdin KIND SIZE CMD...: run CMD with its stdin a socket
# that keeps records apart, KIND seqpacket or dgram (a unix socket pair
# of that type), that carries this stdin in records of SIZE bytes (the
# last one shorter if the input ends so), sent by a child process.  The
# end of input is the child's close (seqpacket) or an empty datagram
# (dgram), as read(2) takes either.  The child ends quietly when CMD
# stops reading, and says why on stderr if a send fails otherwise (a
# record over the socket's send buffer).  SIGPIPE at its default for CMD.
# CMD is exec'd: a program, not a shell function.  Runs python3: for
# cases that need PYTHON3.  RECORD_STDIN_PY holds the program, for a
# place where a shell function cannot go (with_record_stdout's CMD):
# "$(python3_path)" -I -S -c "$RECORD_STDIN_PY" KIND SIZE CMD...
RECORD_STDIN_PY='
import errno, os, signal, socket, sys
kind, size = sys.argv[1], int(sys.argv[2])
a, b = socket.socketpair(socket.AF_UNIX, {"seqpacket":
    socket.SOCK_SEQPACKET, "dgram": socket.SOCK_DGRAM}[kind])
if os.fork() == 0:
    b.close()
    try:
        while True:
            d = b""
            while len(d) < size:
                k = os.read(0, size - len(d))
                if not k:
                    break
                d += k
            if d:
                a.send(d)
            if len(d) < size:
                break
        if kind == "dgram":
            a.send(b"")
    except OSError as e:
        if e.errno not in (errno.EPIPE, errno.ECONNREFUSED,
                errno.ECONNRESET):
            sys.stderr.write("with_record_stdin: %s\n" % e)
    os._exit(0)
a.close()
os.dup2(b.fileno(), 0)
b.close()
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
os.execvp(sys.argv[3], sys.argv[3:])
'
with_record_stdin() {
	test_python3 -c "$RECORD_STDIN_PY" "$@"
}

# with_record_stdout KIND MAX CMD...: run CMD with its stdout an output
# that keeps each write(2) apart: KIND seqpacket or dgram (a unix socket
# pair of that type), or packet (a pipe in packet mode, O_DIRECT).  Each
# record (packet) is read whole, into a buffer bigger than any write, and
# its size printed on a line of its own; the bytes go to the file
# records.  After MAX records (0: all, until CMD exits) CMD is killed.
# CMD's status, or "killed", goes to the file status; SIGPIPE is at its
# default for CMD.  The end of a datagram stream is told by an empty
# datagram sent once CMD has exited, after everything it wrote.  Runs
# python3: for cases that need PYTHON3.
with_record_stdout() {
	test_python3 -c '
import os, socket, subprocess, sys, threading
kind, most, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
if kind == "packet":
    r, w = os.pipe2(os.O_DIRECT)
    recv = lambda: os.read(r, 1 << 22)
else:
    a, b = socket.socketpair(socket.AF_UNIX, {"seqpacket":
        socket.SOCK_SEQPACKET, "dgram": socket.SOCK_DGRAM}[kind])
    w = b.fileno()
    recv = lambda: a.recv(1 << 22)
p = subprocess.Popen(cmd, stdout=w)
if kind == "dgram":
    def end():
        p.wait()
        b.send(b"")
    threading.Thread(target=end, daemon=True).start()
else:
    os.close(w)
n, status = 0, None
with open("records", "wb") as f:
    while most == 0 or n < most:
        d = recv()
        if not d:
            break
        f.write(d)
        print(len(d))
        n += 1
if most and n == most and p.poll() is None:
    p.kill()
    status = "killed"
p.wait()
open("status", "w").write("%s\n" % (status or p.returncode))
' "$@"
}
