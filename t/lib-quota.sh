# lib-quota.sh: the commands under test run as an unprivileged uid of
# this script's own, for the user's pipe quota (fs.pipe-user-pages-soft),
# which the kernel counts per uid.  Source it after test-lib.sh.
#
# The uid has no passwd entry and is taken from this script's PID in a
# high range: two runs of the suite at once never share it, so neither
# sees the other's pipes, and every process of that uid is this
# script's.  The uid runs a copy of the commands under test, made in a
# world-readable directory of the scratch directory, so that it can run
# them wherever the checkout is (a clone in a private directory
# included), and never falls through to the system's commands in PATH:
# quota_wait checks that each process it counts runs that copy.

QUOTA_UID=$((2000000000 + $$))
QUOTA_BIN=$TRASH/quota-bin

# QUOTA_SETUID: root may become QUOTA_UID with setpriv (other privileged
# users are not exempt from the quota test's point: root is, hence the uid).
test_lazy_prereq QUOTA_SETUID '
	test_have_prereq ROOT && command -v setpriv &&
	setpriv --reuid=$QUOTA_UID --regid=$QUOTA_UID --clear-groups true
'

# QUOTA_COPY: QUOTA_UID can run the copy of yes, tee and cat in
# QUOTA_BIN, and test-lib's strace shim of the sanitizer build, if any.
# Missing where the scratch directory ($TMPDIR) is private to its owner:
# the copy cannot be reached there; and under an emulator (NATIVE):
# quota_wait knows the copy's processes by their program
# (/proc/PID/exe), which is then the emulator.
test_lazy_prereq QUOTA_COPY '
	test_have_prereq QUOTA_SETUID,NATIVE &&
	chmod 0711 "$TRASH" && mkdir -m 0755 "$QUOTA_BIN" &&
	for c in yes tee cat; do
		cp "$BIN_DIR/$c" "$QUOTA_BIN/$c" &&
		chmod 0755 "$QUOTA_BIN/$c" &&
		as_quota "$QUOTA_BIN/$c" --version || return 1
	done &&
	if test -x "$TRASH/bin/strace"; then
		cp "$TRASH/bin/strace" "$QUOTA_BIN/strace"
	fi
'

# QUOTA_PYTHON3: QUOTA_UID can run the system's python3, and so can this
# script (PYTHON3: quota_pipe_sizes runs it as root).
test_lazy_prereq QUOTA_PYTHON3 '
	test_have_prereq QUOTA_SETUID,PYTHON3 && as_quota python3 -c pass
'

# as_quota CMD...: run CMD as QUOTA_UID (group the same number, no
# supplementary groups), from /, with the copy of the commands under test
# first in PATH, then the system's directories (not root's own: a
# python3 in root's home is not the uid's to run).
as_quota() {
	setpriv --reuid="$QUOTA_UID" --regid="$QUOTA_UID" --clear-groups \
		env -C / PATH="$QUOTA_BIN:/usr/local/bin:/usr/bin:/bin" "$@"
}

# quota_next_pipe: print the size of a new pipe of QUOTA_UID's, in bytes.
quota_next_pipe() {
	as_quota python3 -c '
import fcntl, os
r, w = os.pipe()
print(fcntl.fcntl(w, 1032))	# F_GETPIPE_SZ
'
}

# quota_crowd N PIPELINE: start N copies of the shell command PIPELINE
# as QUOTA_UID in the background, each in a session and process group of
# its own (setsid), apart from this script's.  quota_stop ends them;
# what a failed case left running is ended first.  quota_more N PIPELINE
# starts N more beside those running.
quota_crowd() {
	quota_stop >/dev/null
	quota_more "$@"
}

quota_more() {
	qc_n=$1
	shift
	while [ "$qc_n" -gt 0 ]; do
		as_quota setsid sh -c "$*" </dev/null >/dev/null 2>&1 &
		qc_n=$((qc_n - 1))
	done
}

# quota_procs [NAME]: print "PID PGID STATE" for each process of
# QUOTA_UID's (its real uid) called NAME (its comm, as pgrep -x matches
# it), or for every one without NAME, a line each.  Read from /proc with
# the shell's own read, not with procps, which a minimal system lacks.
# A process that ends while it is read is left out.
quota_procs() {
	for qp_s in $(grep -ls "^Uid:[[:space:]]*$QUOTA_UID[[:space:]]" \
	    /proc/[0-9]*/status); do
		qp_p=${qp_s#/proc/}
		qp_p=${qp_p%/status}
		read -r qp_stat 2>/dev/null <"/proc/$qp_p/stat" || continue
		# "PID (COMM) STATE PPID PGRP ...": COMM may hold spaces and
		# parentheses; the last ")" ends it.
		qp_comm=${qp_stat#*\(}
		qp_comm=${qp_comm%\)*}
		[ $# = 0 ] || [ "$qp_comm" = "$1" ] || continue
		# shellcheck disable=SC2086
		quota_proc_line "$qp_p" ${qp_stat##*\) }
	done
}

# quota_proc_line PID STATE PPID PGRP ...: print "PID PGRP STATE".
quota_proc_line() {
	echo "$1 $4 $2"
}

# quota_wait N NAME [STATE]: wait until N processes of QUOTA_UID's are
# called NAME (yes, tee and cat: each running the copy QUOTA_BIN/NAME,
# whatever else: any program), and, with STATE,
# each asleep in the kernel where /proc/PID/wchan matches the shell
# pattern STATE (*pipe*: waiting on a pipe), or, STATE "input", waiting
# for input: in a pipe's read, or in poll(2) (tee with two outputs or
# more looks at a drained input first, so that a signal can come in
# while it waits), or, STATE "output", waiting to write: in a pipe's
# write, or in poll(2) (tee with two outputs or more waits so for room
# in a full output pipe).  A process called NAME
# that runs anything else fails at once: the shell fell through to
# another program.  Gives up after about 5 minutes, which only a hang
# takes on a loaded machine, and fails.
quota_wait() {
	qw_i=0
	while :; do
		qw_n=0
		for qw_p in $(quota_procs "$2" | cut -d" " -f1); do
			# Builtins only, in this loop over every process of the
			# uid: a fork each made a wait for 110 pipelines cost
			# minutes.  An exe that is gone (an exiting process)
			# fails -ef as a different one would: looked at again.
			if quota_under_test "$2" &&
			    ! [ "/proc/$qw_p/exe" -ef "$QUOTA_BIN/$2" ]; then
				[ -e "/proc/$qw_p/exe" ] || continue
				echo "quota_wait: process $qw_p runs" \
				    "$(readlink "/proc/$qw_p/exe"), not $QUOTA_BIN/$2"
				return 1
			fi
			if [ $# -ge 3 ]; then
				# wchan ends in no newline: read says 1, and sets it.
				qw_w=
				read -r qw_w <"/proc/$qw_p/wchan" 2>/dev/null ||
				    [ -n "$qw_w" ] || continue
				case $3 in
				input)
					case $qw_w in
					*pipe_read* | *poll*) ;;
					*) continue ;;
					esac ;;
				output)
					case $qw_w in
					*pipe_write* | *poll*) ;;
					*) continue ;;
					esac ;;
				*)	# shellcheck disable=SC2254
					case $qw_w in $3) ;; *) continue ;; esac ;;
				esac
			fi
			qw_n=$((qw_n + 1))
		done
		[ "$qw_n" -lt "$1" ] || return 0
		[ $qw_i -lt 3000 ] || {
			echo "quota_wait: $qw_n of $1 $2 processes, ${3:-}"
			return 1
		}
		sleep 0.1
		qw_i=$((qw_i + 1))
	done
}

# quota_pipe_sizes NAME: for each process of QUOTA_UID's called NAME,
# print the sizes of the pipes on its standard input and output, in
# bytes, a line each, sorted.  Root opens them through /proc, without
# reading or resizing them.
quota_pipe_sizes() {
	# One python for every process: one a process made a look at 110
	# pipelines cost a minute.
	# shellcheck disable=SC2046 # a word a process
	"$(python3_path)" -I -S -c '
import fcntl, os, sys
def size(pid, fd):
    p = os.open("/proc/%s/fd/%d" % (pid, fd), os.O_RDONLY | os.O_NONBLOCK)
    try:
        return fcntl.fcntl(p, 1032)	# F_GETPIPE_SZ
    finally:
        os.close(p)
for pid in sys.argv[1:]:
    print(size(pid, 0), size(pid, 1))
' $(quota_procs "$1" | cut -d" " -f1) | sort
}

# quota_under_test NAME: NAME is one of the commands under test.
quota_under_test() {
	case $1 in yes|tee|cat) return 0 ;; esac
	return 1
}

# quota_stop: end the process groups of QUOTA_UID's processes (all of
# them quota_crowd's: nobody else has the uid) and wait until none is
# left but zombies, which hold no pipes (the ones whose parent was
# killed are init's to reap); fail if one would be in this script's own
# group, or lives on after about 30 s.
quota_stop() {
	read -r qs_own <"/proc/$$/stat" &&
	qs_own=$(quota_proc_line $$ ${qs_own##*\) } | cut -d" " -f2) &&
	for qs_g in $(quota_procs | cut -d" " -f2 | sort -u); do
		if [ "$qs_g" = "$qs_own" ]; then
			echo "quota_stop: a process of uid $QUOTA_UID is in this script's group"
			return 1
		fi
		kill -- "-$qs_g" 2>/dev/null
	done
	wait
	qs_i=0
	while quota_procs | cut -d" " -f3 | grep -qv '^Z'; do
		[ $qs_i -lt 300 ] || {
			echo "quota_stop: processes of uid $QUOTA_UID left:"
			quota_procs
			return 1
		}
		sleep 0.1
		qs_i=$((qs_i + 1))
	done
}
