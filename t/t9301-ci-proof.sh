#!/bin/sh
# CI's caches keyed by content (scripts/cache.sh) and its proofs
# (scripts/proof, the files each covers in scripts/ci-proofs.sh): a key
# that changed, an entry changed or cut short, or no cache at all runs
# the step in full; only the same content skips it.  The steps here are
# stand-ins that count their runs.

. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq GIT '
	git init -q repo
'

CACHE_SH=$SRC_DIR/scripts/cache.sh
PROOF=$SRC_DIR/scripts/proof

# make_entry DIR: an entry's content, two files and a subdirectory.
make_entry() {
	mkdir -p "$1/sub" && echo one >"$1/a" && echo two >"$1/sub/b"
}

test_expect_success 'an entry is found only for the key it was sealed for' '
	. "$CACHE_SH" &&
	make_entry e &&
	k1=$(echo first | cache_key) && k2=$(echo second | cache_key) &&
	test "$k1" != "$k2" &&
	! cache_ok e "$k1" &&
	cache_seal e "$k1" &&
	cache_ok e "$k1" &&
	! cache_ok e "$k2" &&
	! cache_ok missing "$k1"
'

test_expect_success 'an entry changed, grown, shrunk or cut short is no entry' '
	. "$CACHE_SH" &&
	k=$(echo key | cache_key) &&
	make_entry e && cache_seal e "$k" && cache_ok e "$k" &&
	echo ONE >e/a && ! cache_ok e "$k" &&
	echo one >e/a && cache_ok e "$k" &&
	echo new >e/sub/c && ! cache_ok e "$k" &&
	rm e/sub/c && cache_ok e "$k" &&
	rm e/sub/b && ! cache_ok e "$k" &&
	echo two >e/sub/b && cache_ok e "$k" &&
	rm e/.key && ! cache_ok e "$k" &&
	echo "$k" >e/.key && rm e/.sums && ! cache_ok e "$k"
'

# runs_are N: the step ran N times (the lines of runs).
runs_are() {
	test "$(wc -l <runs)" = "$1"
}

test_expect_success 'a proof runs once for the same files, again for others' '
	mkdir -p src/debian && echo 1 >src/debian/control &&
	echo readme >src/README.md &&
	cat >step <<-EOF &&
	#!/bin/sh
	echo run >>"$PWD/runs"
	EOF
	chmod +x step &&
	export PROOF_CACHE="$PWD/cache" PROOF_LOG="$PWD/log" &&
	(cd src && "$PROOF" pkg debian -- ../step) &&
	(cd src && "$PROOF" pkg debian -- ../step) &&
	runs_are 1 &&
	grep "^pkg: skipped: the same content passed at " log &&
	echo changed >src/README.md &&
	(cd src && "$PROOF" pkg debian -- ../step) &&
	runs_are 1 &&
	echo 2 >src/debian/control &&
	(cd src && "$PROOF" pkg debian -- ../step) &&
	runs_are 2 &&
	echo new >src/debian/rules &&
	(cd src && "$PROOF" pkg debian -- ../step) &&
	runs_are 3 &&
	(cd src && PROOF_KEY="another GNU" "$PROOF" pkg debian -- ../step) &&
	runs_are 4 &&
	(cd src && PROOF_FORCE=1 "$PROOF" pkg debian -- ../step) &&
	runs_are 5 &&
	(cd src && "$PROOF" --recorded pkg debian) >when &&
	grep "^at " when
'

test_expect_success 'a failed proof is not recorded; a broken record runs it' '
	mkdir -p src/t && echo a >src/t/x &&
	export PROOF_CACHE="$PWD/cache" &&
	(cd src && test_expect_code 3 "$PROOF" p t -- sh -c "exit 3") &&
	(cd src && test_expect_code 1 "$PROOF" --recorded p t) &&
	(cd src && "$PROOF" p t -- true) &&
	(cd src && "$PROOF" --recorded p t) &&
	for f in cache/p-*/pass; do echo forged >>"$f"; done &&
	(cd src && test_expect_code 1 "$PROOF" --recorded p t) &&
	rm -rf cache &&
	(cd src && test_expect_code 1 "$PROOF" --recorded p t)
'

# record_all: a pass of each of .ci/run's proofs, for the scratch
# repository's content now.
record_all() {
	for p in "check-system:$package_files" "check-cross-i386:$code_files" \
	    "check-load:$load_files"; do
		# shellcheck disable=SC2086 # the paths, a word each
		"$PROOF" "${p%%:*}" ${p#*:} -- true >/dev/null || return 1
	done
}
# recorded_now: the proofs recorded for the content now, a line each.
recorded_now() {
	for p in "check-system:$package_files" "check-cross-i386:$code_files" \
	    "check-load:$load_files"; do
		# shellcheck disable=SC2086 # the paths, a word each
		! "$PROOF" --recorded "${p%%:*}" ${p#*:} >/dev/null ||
			echo "${p%%:*}"
	done
}

test_expect_success GIT 'CI runs the proofs whose files a commit changed' '
	. "$SRC_DIR/scripts/ci-proofs.sh" &&
	export PROOF_CACHE="$PWD/cache" &&
	git init -q repo && cd repo &&
	git config user.email t@t && git config user.name t &&
	mkdir -p debian lib t &&
	echo 1 >debian/control && echo 1 >lib/lanes.c && echo 1 >lib/io.c &&
	echo 1 >README.md && echo "/build/" >.gitignore &&
	git add . && git commit -q -m first &&
	record_all &&
	printf "check-system\ncheck-cross-i386\ncheck-load\n" >../all &&
	recorded_now >../actual && test_cmp ../all ../actual &&
	echo 2 >README.md && mkdir build && echo x >build/obj &&
	git commit -q -am readme &&
	recorded_now >../actual && test_cmp ../all ../actual &&
	echo 2 >debian/control && git commit -q -am debian &&
	printf "check-cross-i386\ncheck-load\n" >../expect &&
	recorded_now >../actual && test_cmp ../expect ../actual &&
	record_all &&
	echo 2 >lib/io.c && git commit -q -am io &&
	printf "check-system\ncheck-load\n" >../expect &&
	recorded_now >../actual && test_cmp ../expect ../actual &&
	record_all &&
	echo 2 >lib/lanes.c && git commit -q -am lanes &&
	printf "check-system\n" >../expect &&
	recorded_now >../actual && test_cmp ../expect ../actual &&
	git revert --no-edit HEAD >/dev/null &&
	recorded_now >../actual && test_cmp ../all ../actual
'

test_done
