# lib-strace.sh: the strace the cases run, a shim first in PATH in front
# of the system's.  Sourced by test-lib.sh, once TRASH exists.
#
# strace --seccomp-bpf puts a filter on what it traces, which the engine
# would take for a sandbox's and keep to GNU 9.11's calls (lib/sandbox.c):
# the shim tells it to trust that filter (SPATE_SECCOMP=trust, where the
# case has not set SPATE_SECCOMP), so that a trace sees the engine's own
# calls.  In the sanitizer build (SPATE_SAN=1), LeakSanitizer cannot run
# under ptrace: the shim turns leak checks off too.
if real_strace=$(command -v strace); then
	shim_env='SPATE_SECCOMP=${SPATE_SECCOMP-trust}'
	if [ "${SPATE_SAN:-}" = 1 ]; then
		shim_env="$shim_env ASAN_OPTIONS=detect_leaks=0"
	fi
	mkdir "$TRASH/bin" &&
	printf '#!/bin/sh\n%s exec %s "$@"\n' "$shim_env" "$real_strace" \
		>"$TRASH/bin/strace" &&
	chmod +x "$TRASH/bin/strace" || exit 1
	PATH=$TRASH/bin:$PATH
fi
