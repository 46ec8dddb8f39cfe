#!/bin/sh
# Messages in other languages.  Every text that yes, tee and cat share
# with GNU comes from GNU's own catalogs, quoted with the locale's marks:
# in each locale, each command and `sluice CMD` must say, to the byte and
# with the same status, what GNU 9.1 in /usr/bin says there when called
# by the same name.  sluice's own texts (--version, the last line of
# --help, the multi-call sluice's) stay in English.
. "$(dirname "$0")/test-lib.sh"

# LANGUAGE would choose the catalog over LC_ALL, for GNU and sluice alike.
unset LANGUAGE

# nls_speaks LOCALE: LOCALE is generated here, its encoding is UTF-8, and
# GNU speaks it (a catalog translates its --help).
nls_speaks() {
	test "$(LC_ALL=$1 locale charmap)" = UTF-8 &&
	LC_ALL=$1 /usr/bin/cat --help | head -n 1 >l &&
	LC_ALL=C /usr/bin/cat --help | head -n 1 >c &&
	! cmp l c
}

# LOCALE_DE, LOCALE_FR, LOCALE_EN: de_DE.UTF-8 and fr_FR.UTF-8 are spoken
# by GNU; en_US.UTF-8, which has no catalog, is generated.
test_lazy_prereq LOCALE_DE 'nls_speaks de_DE.UTF-8'
test_lazy_prereq LOCALE_FR 'nls_speaks fr_FR.UTF-8'
test_lazy_prereq LOCALE_EN '
	test "$(LC_ALL=en_US.UTF-8 locale charmap)" = UTF-8
'

NLS_VERSION=$(sed -n 's/^#define SLUICE_VERSION "\(.*\)"$/\1/p' \
	"$SRC_DIR/include/sluice.h")

# nls_gnu CMD ARG...: GNU's CMD in the locale NLS_L, called by the name
# CMD, as the command under test is.
nls_gnu() {
	env LC_ALL="$NLS_L" PATH=/usr/bin "$@"
}

# nls_own CMD ARG...: the command under test in the locale NLS_L, called
# by the name CMD: directly, or `sluice CMD ARG...` if NLS_VIA is sluice.
nls_own() {
	env LC_ALL="$NLS_L" $NLS_VIA "$@"
}

# nls_same CMD ARG...: GNU's CMD and the one under test, each with stdin
# from the file in, write the same stderr, exit with the same status, and
# write the same stdout, unless NLS_OUT names where it goes (/dev/full).
nls_same() {
	{
		nls_gnu "$@" <in >"${NLS_OUT:-expect}" 2>expect.err
		echo $? >expect.rc
	} &&
	{
		nls_own "$@" <in >"${NLS_OUT:-actual}" 2>actual.err
		echo $? >actual.rc
	} &&
	test_cmp_v expect.err actual.err &&
	test_cmp expect.rc actual.rc &&
	if [ -z "${NLS_OUT:-}" ]; then test_cmp_v expect actual; fi
}

# nls_help_head FILE: the --help text in FILE up to its last paragraph,
# which is GNU's links to its manual, or sluice's line about itself.
nls_help_head() {
	awk '{ line[NR] = $0 } $0 == "" { last = NR }
		END { for (i = 1; i <= last; i++) print line[i] }' "$1"
}

# An argument with every locale's closing quote in it (’ “ » and « »
# with a no-break space, as French puts them), a backslash, an ASCII
# quote and a character that is not printable (U+0085).
NLS_QUOTES=$(printf "a'b\\\\c\342\200\230d\342\200\231e\342\200\236f\342\200\234g\302\253\302\240h\302\240\302\273i\"j\302\205k")
# File names quoted as the shell would take them, some by the locale:
# é is printable only where the encoding is UTF-8.
NLS_NAMES=$(printf "a b\nit's\n\303\251\nx\302\205y\nq\tz\na:b")

for nls in de_DE.UTF-8:LOCALE_DE fr_FR.UTF-8:LOCALE_FR \
	en_US.UTF-8:LOCALE_EN C.UTF-8: C:; do
	NLS_L=${nls%:*}
	for NLS_VIA in '' sluice; do
		p=${nls#*:}
		if [ -n "$NLS_VIA" ]; then
			p=$p${p:+,}MULTICALL
		fi
		t="$NLS_L${NLS_VIA:+, sluice CMD}"

		test_expect_success "$p" "$t: invalid, unknown, ambiguous options" '
			: >in &&
			nls_same cat -q && nls_same cat --bogus &&
			nls_same cat --n && nls_same cat --show &&
			nls_same cat --help=x &&
			nls_same tee -x && nls_same tee --bogus &&
			nls_same tee --append=x &&
			nls_same yes -q && nls_same yes --bogus &&
			nls_same yes --help=x
		'

		test_expect_success "$p" "$t: missing files and directories" '
			echo data >in && mkdir dir &&
			nls_same cat nosuch dir &&
			nls_same tee nodir/f dir &&
			nls_same tee --output-error=exit nodir/f
		'

		test_expect_success "$p" "$t: names quoted for the shell" '
			echo data >in &&
			echo "$NLS_NAMES" >names &&
			while read -r n; do
				nls_same cat "$n" || exit 1
			done <names &&
			nls_same tee "dir/$(sed -n 3p names)"
		'

		test_expect_success "DEVFULL${p:+,}$p" "$t: /dev/full" '
			seq 1000 >in &&
			NLS_OUT=/dev/full && export NLS_OUT &&
			nls_same cat && nls_same cat -n in &&
			nls_same tee && nls_same tee --output-error=warn &&
			nls_same tee --output-error=exit &&
			nls_same yes && nls_same yes x &&
			nls_same yes --help && nls_same tee --help &&
			nls_same cat --help && nls_same cat --version &&
			NLS_OUT= && nls_same tee /dev/full
		'

		test_expect_success "$p" "$t: input file is output file" '
			echo data >f &&
			{ nls_gnu cat f >>f 2>expect.err; echo $? >expect.rc; } &&
			echo data >f &&
			{ nls_own cat f >>f 2>actual.err; echo $? >actual.rc; } &&
			test_cmp_v expect.err actual.err &&
			test_cmp expect.rc actual.rc
		'

		test_expect_success "$p" "$t: closed standard input" '
			for c in tee cat; do
				{ nls_gnu $c <&- >expect 2>expect.err
					echo $? >expect.rc; } &&
				{ nls_own $c <&- >actual 2>actual.err
					echo $? >actual.rc; } &&
				test_cmp_v expect.err actual.err &&
				test_cmp expect.rc actual.rc || exit 1
			done
		'

		test_expect_success "$p" "$t: --output-error with a bad MODE" '
			: >in &&
			nls_same tee --output-error=x &&
			nls_same tee --output-error=e &&
			nls_same tee --output-error= &&
			nls_same tee -p --output-error=warn-nopipe,exit &&
			nls_same tee "--output-error=$NLS_QUOTES"
		'

		test_expect_success "$p" "$t: --help up to its last paragraph" '
			for c in yes tee cat; do
				nls_gnu $c --help >gnu &&
				nls_own $c --help >own &&
				nls_help_head gnu >expect &&
				nls_help_head own >actual &&
				test_cmp_v expect actual &&
				test $(wc -l <expect) -gt 3 || exit 1
			done
		'

		test_expect_success "SLUICE${p:+,}$p" "$t: --help ends with sluice's line, in English" '
			for c in yes tee cat; do
				nls_own $c --help >own &&
				tail -n 2 own >actual &&
				printf "\nsluice %s: fast yes, tee and cat.  See %s(1) for details.\n" \
					"$NLS_VERSION" $c >expect &&
				test_cmp_v expect actual || exit 1
			done
		'

		test_expect_success "SLUICE${p:+,}$p" "$t: --version: GNU's first line, then sluice's in English" '
			for c in yes tee cat; do
				nls_gnu $c --version | head -n 1 |
					sed "s/ (GNU coreutils) .*/ (sluice) $NLS_VERSION/" \
					>expect &&
				cat >>expect <<-\EOF &&
				Copyright (C) 2026 The sluice authors.
				License ISC: <https://opensource.org/licenses/ISC>.
				This is free software: you are free to change and redistribute it.
				There is NO WARRANTY, to the extent permitted by law.
				EOF
				nls_own $c --version >actual &&
				test_cmp_v expect actual || exit 1
			done
		'
	done

	p=${nls#*:}
	test_expect_success "$p" "$NLS_L: a command called by its path is named so" '
		for c in yes tee cat; do
			{ env LC_ALL="$NLS_L" /usr/bin/$c --bogus </dev/null 2>&1
				echo $?; } | sed "s|/usr/bin/$c|$c|g" >expect &&
			{ env LC_ALL="$NLS_L" "$BIN_DIR/$c" --bogus </dev/null 2>&1
				echo $?; } | sed "s|$BIN_DIR/$c|$c|g" >actual &&
			test_cmp_v expect actual || exit 1
		done
	'

	test_expect_success "MULTICALL${p:+,}$p" "$NLS_L: sluice's own messages in English, GNU's hint and quotes" '
		nls_gnu tee --bogus </dev/null 2>gnu;
		tail -n 1 gnu | sed "s/tee --help/sluice --help/" >hint &&
		echo "sluice: missing command" >expect &&
		cat hint >>expect &&
		test_expect_code 1 env LC_ALL="$NLS_L" sluice 2>actual &&
		test_cmp_v expect actual &&
		nls_gnu tee --output-error=frob </dev/null 2>gnu;
		q=$(head -n 1 gnu | grep -o "[^ ]*frob[^ ]*") &&
		echo "sluice: unknown command $q" >expect &&
		test_expect_code 1 env LC_ALL="$NLS_L" sluice frob 2>actual &&
		test_cmp_v expect actual &&
		echo "sluice: unrecognized option $(echo "$q" | sed s/frob/--frob/)" >expect &&
		cat hint >>expect &&
		test_expect_code 1 env LC_ALL="$NLS_L" sluice --frob 2>actual &&
		test_cmp_v expect actual
	'

	# sluice's own text, which t9101 checks in the C locale: the same here.
	test_expect_success "MULTICALL${p:+,}$p" "$NLS_L: sluice --help and --version as in the C locale" '
		for o in --help --version; do
			LC_ALL=C sluice $o >expect &&
			env LC_ALL="$NLS_L" sluice $o >actual &&
			test_cmp_v expect actual || exit 1
		done
	'
done

test_done
