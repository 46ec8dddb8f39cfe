# lib-nls.sh: the commands under test against GNU in other locales, each
# called by the same name.  Source it after test-lib.sh.

# LANGUAGE would choose the catalog over LC_ALL, for GNU and spate alike.
unset LANGUAGE

# The locales compared must be generated; a fresh system with the
# locales package has their definitions but has generated none (that
# takes root and a choice in /etc/locale.gen).  If one is missing and
# localedef can make all three, they are made in the scratch directory
# and LOCPATH names it, for GNU's commands and those under test alike.
# All three: with LOCPATH set, glibc no longer reads the system's
# locale archive.  Without the definitions the cases skip (LOCALE_*).
nls_make_locales() {
	nm_missing=
	for nm in de_DE fr_FR en_US; do
		test "$(LC_ALL=$nm.UTF-8 locale charmap 2>/dev/null)" = UTF-8 ||
			nm_missing=$nm
	done
	test -n "$nm_missing" || return 0
	mkdir "$TRASH/locale" || return 1
	for nm in de_DE fr_FR en_US; do
		test -f "/usr/share/i18n/locales/$nm" &&
		localedef -i "$nm" -c -f UTF-8 "$TRASH/locale/$nm.UTF-8" \
			>/dev/null 2>&1 || return 1
	done
	LOCPATH=$TRASH/locale
	export LOCPATH
}
nls_make_locales || :

# nls_speaks LOCALE: LOCALE is generated here, its encoding is UTF-8, and
# GNU speaks it (a catalog translates its --help).
nls_speaks() {
	test "$(LC_ALL=$1 locale charmap)" = UTF-8 &&
	LC_ALL=$1 $GNU_CAT --help | head -n 1 >l &&
	LC_ALL=C $GNU_CAT --help | head -n 1 >c &&
	! cmp l c
}

# LOCALE_DE, LOCALE_FR: GNU speaks de_DE.UTF-8, fr_FR.UTF-8.  LOCALE_EN:
# en_US.UTF-8, which has no catalog, is generated.  Without them the
# cases skip, and SPATE_NO_SKIP=1 (CI, which generates them) makes that
# a failure.
test_lazy_prereq LOCALE_DE 'nls_speaks de_DE.UTF-8'
test_lazy_prereq LOCALE_FR 'nls_speaks fr_FR.UTF-8'
test_lazy_prereq LOCALE_EN '
	test "$(LC_ALL=en_US.UTF-8 locale charmap)" = UTF-8
'

# The locales compared, each LOCALE:PREREQ.  C.UTF-8 and C need none.
NLS_LOCALES="de_DE.UTF-8:LOCALE_DE fr_FR.UTF-8:LOCALE_FR
	en_US.UTF-8:LOCALE_EN C.UTF-8: C:"

# nls_each FUNCTION: call FUNCTION, which declares cases, once for each
# locale of NLS_LOCALES and each way of calling the command under test,
# with NLS_L the locale, NLS_VIA '' or spate (for nls_own), NLS_PREREQ
# the prerequisites of a case there (the locale's, MULTICALL for spate
# CMD), NLS_TITLE the start of its title.
nls_each() {
	for ne in $NLS_LOCALES; do
		NLS_L=${ne%:*}
		for NLS_VIA in '' spate; do
			NLS_PREREQ=${ne#*:}
			if [ -n "$NLS_VIA" ]; then
				NLS_PREREQ=$NLS_PREREQ${NLS_PREREQ:+,}MULTICALL
			fi
			NLS_TITLE="$NLS_L${NLS_VIA:+, spate CMD}"
			"$1"
		done
	done
}

# nls_each_locale FUNCTION: the same, once for each locale, NLS_VIA ''.
nls_each_locale() {
	NLS_VIA=
	for ne in $NLS_LOCALES; do
		NLS_L=${ne%:*}
		NLS_PREREQ=${ne#*:}
		NLS_TITLE=$NLS_L
		"$1"
	done
}

NLS_VERSION=$(sed -n 's/^#define SPATE_VERSION "\(.*\)"$/\1/p' \
	"$SRC_DIR/include/spate.h")

# nls_gnu CMD ARG...: GNU's CMD in the locale NLS_L, called by the name
# CMD, as the command under test is.
nls_gnu() {
	env LC_ALL="$NLS_L" PATH=/usr/bin "$@"
}

# nls_own CMD ARG...: the command under test in the locale NLS_L, called
# by the name CMD: directly, or `spate CMD ARG...` if NLS_VIA is spate.
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
