# bench/lag.sh: the rows of tee with a lag (spate's --slow-output, which
# no other tool has), sourced by bench/run after scenarios.sh.
# shellcheck shell=bash
#
# A lag takes tee off zero-copy: the input goes through memory in chunks
# and a thread writes each output (doc/design.md, "With a lag").  Each
# row is its plain twin with --slow-output=close (its default lag of 4
# MiB), run by spate alone after the twin (row_own): the two rows
# differ by the option alone, and the CPU column says what it costs.

SCENARIOS+='
tee_null_lag	tee	rate	tee|splice+lag	pipe > tee --slow-output=close /dev/null > pipe, reader splices
tee_4files_lag	tee	rate	tee-4files+lag	pipe > tee --slow-output=close F1 F2 F3 F4 > /dev/null (tmpfs)
'
while IFS='	' read -r name _ _ _ text; do
	[ -n "$name" ] && TEXT[$name]=$text
done <<<"$SCENARIOS"

# Scenario SC with the option: set_cmd gives it to spate's command.
lag_of() { # SC TOOL N [PARAM]
	local sc=$1
	shift
	LAG=1 "sc_$sc" "$@"
}
sc_tee_null_lag() { lag_of tee_null "$@"; }
sc_tee_4files_lag() { lag_of tee_4files "$@"; }
