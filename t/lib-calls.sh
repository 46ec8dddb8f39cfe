# lib-calls.sh: seccomp filters over system call numbers
# (t/callfilter.c), as an allow-list traced from a program or systemd's
# ~@process builds them.  Source it after test-lib.sh.

CALLFILTER=$SRC_DIR/${BUILD:-build}/t/callfilter

# call_numbers NAME...: print the numbers of the system calls NAME (as
# strace and the kernel's headers name them) on this machine, comma
# separated; a name it has no number for is left out.
call_numbers() {
	if [ ! -f "$TRASH/call-numbers" ]; then
		printf '#include <sys/syscall.h>\n' |
		${CC:-cc} -dM -E - |
		sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9]*\)$/\1 \2/p' \
			>"$TRASH/call-numbers" || return 1
	fi
	for cn in "$@"; do
		echo "$cn"
	done | awk 'NR == FNR { nr[$1] = $2; next }
		($1 in nr) { printf "%s%s", sep, nr[$1]; sep = "," }
		END { print "" }' "$TRASH/call-numbers" -
}

# CALLFILTER: the filter is built, installs, and the kernel applies it:
# a refused write(2) fails echo, getppid(2) refused harms nothing.  Not
# under an emulator, whose calls the filter would see.
test_lazy_prereq CALLFILTER '
	test_have_prereq NATIVE &&
	test -x "$CALLFILTER" &&
	"$CALLFILTER" -e "$(call_numbers getppid)" -- /bin/true &&
	! "$CALLFILTER" -e "$(call_numbers write)" -- /bin/echo x \
		>/dev/null 2>&1
'

# PLAIN_BUILD: the commands under test make their own calls alone: not
# the sanitizer build's (SPATE_SAN), whose runtime makes calls of its own
# (a thread for its leak check at exit, among others).
test_lazy_prereq PLAIN_BUILD '
	test "${SPATE_SAN:-}" != 1
'

# calls_listed FILE: print call_numbers of the calls FILE lists (one
# name a line, # comments): an allow-list for callfilter -a.
calls_listed() {
	call_numbers $(grep -v "^#" "$1")
}
