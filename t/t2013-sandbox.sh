#!/bin/sh
# yes, tee and cat in a sandbox that refuses the zero-copy calls: a
# refusal is a route, not an error.  Each call (vmsplice, splice, tee,
# copy_file_range, sendfile, fcntl's F_SETPIPE_SZ and F_GETPIPE_SZ), and
# all of them at once, refused with each error a sandbox gives (EPERM,
# EACCES, ENOSYS, EINVAL, EOPNOTSUPP):
#
#   first	every call refused, by a seccomp filter (t/sandbox.c), as a
#		container profile or systemd's SystemCallFilter= refuses it
#   later	refused from the 3rd call on (t/inject/, nth=3+), so that
#		the refusal comes once the copy is under way: the inputs are
#		300 KiB (4 MiB for cat's handed-off output), several pipes'
#		worth
#
# on every path the data-path matrices know (t0002, t1003, t3003):
# inputs a file, a pipe, a FIFO, a socket; outputs a pipe, a file, an
# O_APPEND file, /dev/null, a socket, a FIFO, several at once, /dev/full;
# tee -a and -p, cat -n, -A and -v.  The paths are sb_run's.  On the
# paths marked full in SB_PATHS every call is refused with an error of
# each kind that the refusal rule (lib/refusal.c) and GNU tell apart
# for it, the errors of a kind taken in turn from path to path; on the
# others each call with one error, a different one from path to path,
# so that each (call, error, first or later) comes on several (sb_specs;
# on the socket paths, where python3 starts in every run, all the calls
# at once with two errors).
#
# The expectation of each run is GNU's command run the same way under
# the same refusals: its status, its stderr, each output byte for byte.
# GNU 9.1 makes none of these calls but copy_file_range (cat, from a file
# into a file), and where it makes none (it completes under a filter
# that kills a process making one) its run without refusals stands for
# all; where it makes one it runs again for each refusal.  GNU 9.11
# makes vmsplice, splice and the fcntl calls too and falls back wherever
# they are refused, at the first call or later: it completes as 9.1
# does, and as spate must.  A failure is the path's and the refusal's
# (the cell), listed in the case's output.  (copy_file_range's EACCES is
# an error of the input to GNU: its first refusal is told as GNU tells
# it, and it is not refused later, where GNU, which copies a file below
# 1 GiB in one call, never meets it.)
#
# KILL: a filter whose action is to kill (systemd's, without
# SystemCallErrorNumber=) ends a process that makes one of the calls:
# SB_KILL, the system calls such a filter names (not fcntl's pipe sizes:
# it cannot tell fcntl's commands apart).  GNU 9.11 dies so wherever it
# makes them (yes into a pipe, cat from a file into a pipe); tee FILE
# and cat -n, which make none in GNU, must complete: the cases marked
# KILL.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-fault.sh"
. "$TEST_DIR/lib-fd.sh"
. "$TEST_DIR/lib-proc.sh"
test_require_prereq GNU

ERRNOS="EPERM EACCES ENOSYS EINVAL EOPNOTSUPP"
SB_ALL=$(echo $SANDBOX_CALLS | tr " " ,)
SB_KILL=vmsplice,splice,tee,copy_file_range,sendfile
IN=$TRASH/in
BIG=$TRASH/big
SMALL=$TRASH/small
PRIOR="prior content
"
# The paths (sb_run), each NAME:MODE, MODE the refusals it gets
# (sb_specs): full, one or all.
SB_PATHS="yes-pipe:full cat-ff:full cat-fp:full tee-fop:full
	yes-fifo:one yes-file:one yes-full:one
	cat-pp:one cat-pf:one cat-fn:one cat-pn:one cat-fa:one cat-qp:one
	cat-ops:one cat-full:one cat-n:one cat-A:one cat-v:one cat-nbig:one
	cat-Abig:one cat-sp:all cat-fs:all
	tee-pp:one tee-pf:one tee-ffop:one tee-all:one tee-dn:one
	tee-nullop:one tee-allapp:one tee-qp:one tee-p:one tee-full:one
	tee-sp:all tee-ps:all"

test_expect_success 'setup: inputs, GNU called by the names yes, tee, cat' '
	head -c 307200 /dev/urandom >"$IN" &&
	head -c 4194304 /dev/urandom >"$BIG" &&
	echo small >"$SMALL" &&
	printf "%s\n" "$SOCKET_STDOUT_PY" >"$TRASH/sockout.py" &&
	mkdir "$TRASH/gnu" &&
	ln -s "$GNU_YES" "$TRASH/gnu/yes" &&
	ln -s "$GNU_TEE" "$TRASH/gnu/tee" &&
	ln -s "$GNU_CAT" "$TRASH/gnu/cat"
'

# sb_drain: read a pipe stdout into out; or, where the run has a
# reference already (SB_REF, a directory), compare it with the
# reference's out as it comes, one process fewer: out.cmp says "same",
# or how they differ.
sb_drain() {
	if [ -z "${SB_REF:-}" ]; then
		$SYS_CAT >out
	elif cmp - "$SB_REF/out" >out.cmp 2>&1; then
		echo same >out.cmp
	fi
}

# sb_run PATH WRAP...: run PATH's command after WRAP (a command and its
# words, or nothing) in this directory, which has a FIFO fifo: stdout
# into out (sb_drain, for a pipe), FILE operands f1 and f2, what comes
# through a FIFO operand into fo.out, stderr into err, the status into
# status.  Every one of them is emptied first, so that an output not
# written is seen.  yes, tee and cat are whichever PATH finds: the ones
# under test, or GNU's (sb_gnu).  PY is python3 (a socket).
sb_run() {
	rp=$1
	shift
	: >out && : >out.cmp && : >f1 && : >f2 && : >fo.out && : >err &&
	: >status || return 1
	case $rp in
	yes-pipe) save_status "$@" yes 2>err | head -c 1048577 >out ;;
	yes-fifo) { save_status "$@" yes >fifo 2>err & } &&
		head -c 1048577 fifo >out && wait ;;
	yes-file) ( ulimit -f 1200 &&
		save_status "$@" env --ignore-signal=XFSZ yes >out 2>err ) ;;
	yes-full) save_status "$@" yes >/dev/full 2>err ;;
	yes-null) save_status "$@" timeout 1 yes >/dev/null 2>err ;;
	cat-ff)	save_status "$@" cat "$IN" >out 2>err ;;
	cat-fp)	save_status "$@" cat "$IN" 2>err | sb_drain ;;
	cat-pp)	$SYS_CAT "$IN" | save_status "$@" cat 2>err | sb_drain ;;
	cat-pf)	$SYS_CAT "$IN" | save_status "$@" cat >out 2>err ;;
	cat-fn)	save_status "$@" cat "$IN" >/dev/null 2>err ;;
	cat-pn)	$SYS_CAT "$IN" | save_status "$@" cat >/dev/null 2>err ;;
	cat-fa)	printf "$PRIOR" >out &&
		save_status "$@" cat "$IN" >>out 2>err ;;
	cat-qp)	fifo_writer fifo "$IN" &&
		save_status "$@" cat fifo 2>err | sb_drain
		fifo_writer_end fifo ;;
	cat-sp)	$SYS_CAT "$IN" | save_status "$@" "$PY" -I -S \
			-c "$SOCKET_STDIN_PY" cat 2>err | sb_drain ;;
	cat-fs)	save_status "$@" "$PY" -I -S "$TRASH/sockout.py" \
			cat "$IN" >out 2>err ;;
	cat-ops) fifo_writer fifo "$IN" &&
		$SYS_CAT "$IN" | save_status "$@" cat "$SMALL" - fifo "$IN" \
			>out 2>err
		fifo_writer_end fifo ;;
	cat-full) save_status "$@" cat "$IN" >/dev/full 2>err ;;
	cat-n)	save_status "$@" cat -n "$IN" 2>err | sb_drain ;;
	cat-A)	$SYS_CAT "$IN" | save_status "$@" cat -A 2>err |
			sb_drain ;;
	cat-v)	save_status "$@" cat -v "$IN" >out 2>err ;;
	cat-nbig) save_status "$@" cat -n "$BIG" "$BIG" 2>err | sb_drain ;;
	cat-Abig) $SYS_CAT "$BIG" | save_status "$@" cat -A 2>err | sb_drain ;;
	tee-pp)	$SYS_CAT "$IN" | save_status "$@" tee 2>err | sb_drain ;;
	tee-pf)	$SYS_CAT "$IN" | save_status "$@" tee >out 2>err ;;
	tee-fop) $SYS_CAT "$IN" | save_status "$@" tee f1 2>err | sb_drain ;;
	tee-ffop) save_status "$@" tee f1 <"$IN" >out 2>err ;;
	tee-dn)	$SYS_CAT "$IN" |
			save_status "$@" tee f1 >/dev/null 2>err ;;
	tee-nullop) $SYS_CAT "$IN" |
			save_status "$@" tee /dev/null 2>err | sb_drain ;;
	tee-all) fifo_reader fifo fo.out &&
		$SYS_CAT "$IN" | save_status "$@" tee f1 /dev/null fifo f2 \
			2>err | sb_drain
		fifo_reader_end ;;
	tee-allapp) printf "$PRIOR" >f1 && printf "$PRIOR" >out &&
		fifo_reader fifo fo.out &&
		save_status "$@" tee -a f1 fifo f2 <"$IN" >>out 2>err
		fifo_reader_end ;;
	tee-qp)	{ $SYS_CAT "$IN" >fifo & } &&
		save_status "$@" tee f1 <fifo 2>err | sb_drain
		wait ;;
	tee-sp)	$SYS_CAT "$IN" | save_status "$@" "$PY" -I -S \
			-c "$SOCKET_STDIN_PY" tee f1 2>err | sb_drain ;;
	tee-ps)	$SYS_CAT "$IN" | save_status "$@" "$PY" -I -S \
			"$TRASH/sockout.py" tee f1 >out 2>err ;;
	tee-p)	$SYS_CAT "$IN" | save_status "$@" tee -p f1 2>err |
			sb_drain ;;
	tee-full) $SYS_CAT "$IN" | save_status "$@" tee f1 >/dev/full 2>err ;;
	*)	echo "sb_run: no path $rp"; return 1 ;;
	esac
}

# sb_gnu DIR PATH WRAP...: sb_run PATH WRAP... with GNU's commands, in
# DIR (made if need be, with its FIFO).
sb_gnu() {
	(
		PATH=$TRASH/gnu:$PATH SB_REF=
		if ! [ -d "$1" ]; then
			mkdir "$1" && mkfifo "$1/fifo" || exit 1
		fi
		cd "$1" && shift && sb_run "$@"
	)
}

# sb_same REF: the last run in this directory made what the run in the
# directory REF made: the same status, stderr and outputs, byte for
# byte.  If not, say how in sb_diff.
sb_same() {
	read -r ss_cmp <out.cmp || :
	case $ss_cmp in
	same|'')	;;
	*)	sb_diff="out: $ss_cmp"
		return 1 ;;
	esac
	read -r ss_got <status
	read -r ss_want <"$1/status"
	if [ "$ss_got" != "$ss_want" ]; then
		sb_diff="status $ss_got, GNU's $ss_want"
		return 1
	fi
	for ss_f in err out f1 f2 fo.out; do
		[ $ss_f:$ss_cmp != out:same ] || continue
		if { [ -s $ss_f ] || [ -s "$1/$ss_f" ]; } &&
		    ! cmp -s $ss_f "$1/$ss_f"; then
			sb_diff="$ss_f: $(test_file_size $ss_f) bytes"
			sb_diff="$sb_diff, GNU's $(test_file_size "$1/$ss_f")"
			if [ $ss_f = err ] && [ -s "$1/err" ]; then
				read -r ss_line <"$1/err" || :
				sb_diff="$sb_diff ($ss_line)"
			fi
			return 1
		fi
	done
}

# sb_specs PATH WHEN I: the refusals of PATH (NAME:MODE, the I-th of
# SB_PATHS), WHEN first or later, one a word: CALL:ERRNO, or all:ERRNO
# for every call at once.  MODE:
#   full	each call with each error that lib/refusal.c (and GNU) tell
#		apart for it (sb_classes): a class of one error is that
#		error, a class of several is one of them, the (I + J)th for
#		the Jth call, so that across the full paths each call meets
#		each; sendfile, which neither GNU nor spate makes, only
#		among all
#   one		all, vmsplice, splice, tee, copy_file_range and
#		F_SETPIPE_SZ, each with one error, the (I + J)th of ERRNOS
#		for the Jth (round), so that each comes on several paths
#   all		all, with two errors (python3 starts in every run)
# copy_file_range's EACCES is not refused later (above).
sb_specs() {
	sp_calls="all vmsplice splice tee copy_file_range F_SETPIPE_SZ"
	case $1 in
	*:full)	sp_calls="$sp_calls F_GETPIPE_SZ" ;;
	*:all)	sp_calls="all all" ;;
	esac
	sp_j=0
	for sp_call in $sp_calls; do
		sp_j=$((sp_j + 1))
		case $1 in
		*:full)	sp_errs=$(sb_classes $sp_call $(($3 + sp_j))) ;;
		*)	sp_errs=$(sb_nth $(($3 + sp_j)) $ERRNOS) ;;
		esac
		for sp_e in $sp_errs; do
			case $2,$sp_call:$sp_e in
			later,copy_file_range:EACCES) continue ;;
			esac
			echo "$sp_call:$sp_e"
		done
	done
}

# sb_classes CALL K: an error of each class of ERRNOS that the refusal
# rule takes apart for CALL, the Kth (sb_nth) of a class of several.
# is_refusal takes EACCES apart (copy_file_range's is the input's
# error, in GNU's words; the others' a refusal), and EPERM, ENOSYS,
# EINVAL and EOPNOTSUPP alike (a refusal; GNU's cat falls back on each);
# pipe_grow_to halves F_SETPIPE_SZ's size on EPERM and stops on any
# other.  F_GETPIPE_SZ's failure is one for every error, but it is
# refused alone on the full paths only, too few to meet each in turn:
# each error.  all refuses every call with the error: EACCES, EPERM,
# and one of the rest.
sb_classes() {
	case $1 in
	all)	set -- $2 EACCES EPERM "ENOSYS EINVAL EOPNOTSUPP" ;;
	F_SETPIPE_SZ) set -- $2 EPERM "EACCES ENOSYS EINVAL EOPNOTSUPP" ;;
	F_GETPIPE_SZ) set -- $2 $ERRNOS ;;
	*)	set -- $2 EACCES "EPERM ENOSYS EINVAL EOPNOTSUPP" ;;
	esac
	sc_k=$1
	shift
	for sc_class in "$@"; do
		sb_nth $sc_k $sc_class
	done
}

# sb_nth K WORD...: the Kth WORD, counted from 0 and modulo their number.
sb_nth() {
	sn_k=$1
	shift
	shift $((sn_k % $#))
	echo $1
}

# sb_wrap WHEN SPEC: set SB_WRAP to the words in front of the command
# for the refusal SPEC (sb_specs), WHEN first or later.
sb_wrap() {
	sw_call=${2%%:*} sw_e=${2#*:}
	sw_calls=$sw_call
	if [ $sw_call = all ]; then
		sw_calls=$SANDBOX_CALLS
	fi
	sw_list=
	for sw_c in $sw_calls; do
		case $1 in
		first)	sw_list=$sw_list${sw_list:+,}$sw_c:$sw_e ;;
		later)	[ $sw_c:$sw_e = copy_file_range:EACCES ] ||
			sw_list=$sw_list${sw_list:+,}$sw_c:nth=3+:error=$sw_e ;;
		esac
	done
	case $1 in
	first)	SB_WRAP="with_sandbox $sw_list" ;;
	later)	SB_WRAP="sb_inject $sw_list" ;;
	esac
}

# sb_inject LIST CMD...: with_inject with the faults LIST, separated by
# commas, so that the words of sb_wrap stay words.
sb_inject() {
	si_rest=$1, si_spec=
	while [ -n "$si_rest" ]; do
		si_spec="$si_spec${si_spec:+ }${si_rest%%,*}"
		si_rest=${si_rest#*,}
	done
	shift
	with_inject "$si_spec" "$@"
}

# sb_reference PATH: GNU's run of PATH without refusals, in
# $TRASH/ref.PATH, once; and whether GNU makes any of the calls there:
# it does if it does not run to the same end under a filter that kills
# a process that makes one (without SECCOMP, say it does).  The file
# $TRASH/ref.PATH/calls says yes or no.
sb_reference() {
	sr=$TRASH/ref.$1
	[ -f "$sr/calls" ] && return 0
	sb_gnu "$sr" $1 &&
	if test_have_prereq SECCOMP; then
		sb_gnu "$TRASH/kill.$1" $1 with_sandbox -k "$SB_ALL" &&
		if sb_same_in "$TRASH/kill.$1" "$sr"; then
			echo no >"$sr/calls"
		else
			echo yes >"$sr/calls"
		fi
	else
		echo yes >"$sr/calls"
	fi
}

# sb_same_in DIR REF: sb_same REF, in DIR.
sb_same_in() {
	(cd "$1" && sb_same "$2")
}

# sb_cells PATH WHEN I: run PATH (NAME:full or NAME:one, the I-th of
# SB_PATHS) under each of its refusals WHEN (first or later), and GNU
# the same way where it makes the calls; each cell that differs is a
# line of the file failed.  Later, a cell whose refusal came is a line
# of $TRASH/came (its call).
sb_cells() {
	sc_path=${1%:*}
	sb_reference $sc_path || return 1
	read -r sc_calls <"$TRASH/ref.$sc_path/calls"
	mkfifo fifo || return 1
	for sc_spec in $(sb_specs $1 $2 $3); do
		sb_wrap $2 $sc_spec
		SB_REF=$TRASH/ref.$sc_path
		if [ $sc_calls = yes ]; then
			SB_REF=$PWD/gnu
			sb_gnu gnu $sc_path $SB_WRAP
		fi
		sb_run $sc_path $SB_WRAP
		if ! sb_same "$SB_REF"; then
			read -r sc_err <err || :
			sb_diff="$sc_path $2 $sc_spec: $sb_diff"
			echo "$sb_diff${sc_err:+; $sc_err}" >>failed
		fi
		if [ $2 = later ]; then
			while read -r sc_line; do
				case $sc_line in
				*nth=*)	echo "${sc_line%%(*}" \
						>>"$TRASH/came" ;;
				esac
			done <injected
		fi
	done
	[ -f failed ] || return 0
	$SYS_CAT failed
	echo "$(wc -l <failed) of $(sb_specs $1 $2 $3 | wc -l) cells differ"
	return 1
}

# sb_prereq PATH WHEN: set SB_PREREQ to the prerequisites of PATH's case
# WHEN.
sb_prereq() {
	case $2 in
	first)	SB_PREREQ=SECCOMP ;;
	later)	SB_PREREQ=INJECT ;;
	esac
	case $1 in
	*-sp|*-fs|*-ps)	SB_PREREQ=$SB_PREREQ,PYTHON3 ;;
	*-full)	SB_PREREQ=$SB_PREREQ,DEVFULL ;;
	esac
}

sb_i=0
for sb_p in $SB_PATHS; do
	sb_i=$((sb_i + 1))
	for sb_when in first later; do
		sb_prereq ${sb_p%:*} $sb_when
		test_expect_success $SB_PREREQ \
			"${sb_p%:*}: each call refused, $sb_when" '
			case $sb_p in
			*-sp:*|*-fs:*|*-ps:*) PY=$(python3_path) ;;
			esac &&
			sb_cells $sb_p $sb_when $sb_i
		'
	done
done

# /dev/null is no end for yes: it runs until timeout 1 (status 124), and
# must not have failed before.
test_expect_success SECCOMP 'yes-null: every call refused, first' '
	mkfifo fifo &&
	sb_wrap first all:EPERM &&
	sb_run yes-null $SB_WRAP &&
	test_status 124 &&
	test_must_be_empty err
'

# The later refusals came: a matrix where none came tests nothing.
test_expect_success INJECT 'later: vmsplice, splice and tee were refused' '
	for c in vmsplice splice tee; do
		grep -qx $c "$TRASH/came" 2>/dev/null || {
			echo "no $c refused from its 3rd call in any cell"
			exit 1
		}
	done
'

# KILL: tee FILE and cat -n complete, as GNU's do: spate does not make
# the calls there, or finds them killed before it makes them.
for sb_p in tee-fop tee-ffop tee-all cat-n cat-nbig cat-Abig; do
	test_expect_success SECCOMP \
		"KILL: $sb_p completes under a filter that kills the calls" '
		mkfifo fifo &&
		sb_gnu gnu $sb_p with_sandbox -k $SB_KILL &&
		SB_REF=$PWD/gnu &&
		sb_run $sb_p with_sandbox -k $SB_KILL &&
		sb_same gnu || {
			echo "$sb_p, -k $SB_KILL: $sb_diff"
			exit 1
		}
	'
done

test_done
