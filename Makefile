# spate: fast yes, tee and cat.  See README.md.  GNU make: the
# rules use % patterns.  Recipes longer than a few lines are in scripts/.

include config.mk

LIB = lib/chunk.c lib/concat.c lib/cpu.c lib/fanout.c lib/fd.c \
	lib/format.c lib/handoff.c lib/io.c lib/lag.c lib/lagmem.c lib/lagout.c \
	lib/lagtell.c \
	lib/lanes.c lib/outputs.c lib/pipe.c lib/plain.c lib/refusal.c \
	lib/repeat.c lib/sandbox.c lib/signals.c lib/sizes.c lib/watch.c \
	lib/xfer.c
# cat's loops for AVX2 and AVX-512: x86-64 builds only, each file compiled
# for its instruction set (ISAFLAGS); lib/format.c calls them (FORMAT_AVX)
# where lib/cpu.c finds the CPU has them.
LIB_AVX = lib/format-avx2.c lib/format-avx512.c
AVX2FLAGS = -mavx2 -mbmi -mpopcnt
AVX512FLAGS = -mavx512f -mavx512bw -mavx512vl -mavx512vbmi -mavx512vbmi2 \
	-mbmi -mbmi2 -mpopcnt
X86_64 := $(shell echo __x86_64__ | $(CC) $(CFLAGS) -E -P - 2>/dev/null)
LIBSRC = $(LIB)
ifeq ($(X86_64),1)
LIBSRC += $(LIB_AVX)
$(BUILD)/lib/format.o $(BUILD)/pic/lib/format.o: ISAFLAGS = -DFORMAT_AVX
$(BUILD)/lib/format-avx2.o $(BUILD)/pic/lib/format-avx2.o: \
	ISAFLAGS = $(AVX2FLAGS)
$(BUILD)/lib/format-avx512.o $(BUILD)/pic/lib/format-avx512.o: \
	ISAFLAGS = $(AVX512FLAGS)
endif
CMD = src/cmd.c src/quote.c
# --progress's display, for the commands that copy (cat, tee).
PROGRESS = src/progress.c src/progress-line.c
# The fan-out's unit tests: its rounds, lanes, stalls and held signals.
FANOUT_UNIT = t/unit/test_fanout.c t/unit/test_lanes.c t/unit/test_watch.c \
	t/unit/test_signals.c t/unit/test_lag.c t/unit/test_lag_ends.c
# The refusal rule's tests put seccomp filters on children, with the
# kernel's <linux/seccomp.h>, which musl's headers lack: the static
# build (check-static) leaves them out (SECCOMP_UNIT=); its refusal.c is
# the same code.
SECCOMP_UNIT = t/unit/test_refusal.c t/unit/test_sandbox.c
# cat's text transformations: against the model, GNU's outputs, widths.
FORMAT_UNIT = t/unit/test_format.c t/unit/test_format_calls.c \
	t/unit/test_format_widths.c
# The unit tests: each file a program whose main() is t/unit/tap.c's.
# xfer_pipe, the chunk and the retry policy's zero-copy cases are tee(2)
# and splice(2), which the portable build lacks.
UNIT = t/unit/test_concat.c t/unit/test_concat_progress.c $(FANOUT_UNIT) \
	t/unit/test_fd.c t/unit/test_handoff.c \
	$(FORMAT_UNIT) t/unit/test_io.c t/unit/test_outputs.c \
	t/unit/test_pipe.c $(SECCOMP_UNIT) \
	t/unit/test_repeat.c t/unit/test_retry.c t/unit/test_sizes.c \
	t/unit/test_xfer_copy_range.c \
	t/unit/test_xfer_errors.c t/unit/test_xfer_nonblock.c \
	t/unit/test_xfer_put.c t/unit/test_xfer_records.c \
	t/unit/test_xfer_retarget.c \
	t/unit/test_xfer_rw.c t/unit/test_xfer_splice.c \
	t/unit/test_xfer_via_pipe.c \
	$(if $(filter 1,$(PORTABLE)),,t/unit/test_xfer_pipe.c t/unit/test_chunk.c \
	t/unit/test_retry_zerocopy.c)
UNITHDR = t/unit/tap.h t/unit/lib-xfer.h t/unit/lib-fanout.h t/unit/lib-lag.h \
	t/unit/lib-format.h t/unit/lib-retry.h t/unit/lib-concat.h
MAN = man/yes.1 man/tee.1 man/cat.1
# The commands of the multi-call spate: src/multicall.c's table names them.
COMMANDS = yes tee cat

LIBOBJ = $(LIBSRC:%.c=$(BUILD)/%.o)
PICOBJ = $(LIBSRC:%.c=$(BUILD)/pic/%.o)
CMDOBJ = $(CMD:%.c=$(BUILD)/%.o)
PROGRESSOBJ = $(PROGRESS:%.c=$(BUILD)/%.o)
MULTIOBJ = $(COMMANDS:%=$(BUILD)/multi/%.o) $(BUILD)/src/multicall.o
UNITBIN = $(UNIT:t/unit/%.c=$(BUILD)/unit/%)
HDR = include/spate.h src/cmd.h src/progress.h src/progress-line.h \
	lib/cpu.h lib/engine.h lib/fanout.h lib/lag.h lib/format.h \
	lib/format-loops.h lib/sys.h

# The engine starts threads (lib/lanes.c): before glibc 2.34 that takes
# libpthread, which -pthread links (spate.pc asks for it too, for a
# static link); glibc 2.34 and later, and musl, have it in libc.
THREADS = -pthread

# The ABI version of libspate.so: bump it when the API changes.
SONAME = libspate.so.1

# The binutils of $(CC)'s target, so that `make CC=aarch64-linux-gnu-gcc`
# (or debhelper's cross build, which passes CC alone) cross-builds: a
# cross gcc or clang names its own (-print-prog-name), else the tool
# prefixed with its triplet (-dumpmachine) if there is one, else the
# plain name.  AR and OBJCOPY given on the command line win.
target_tool = $(shell p=$$($(CC) -print-prog-name=$(1) 2>/dev/null); \
	case $$p in (*/*) echo "$$p"; exit;; esac; \
	t=$$($(CC) -dumpmachine 2>/dev/null) && command -v "$$t-$(1)" || \
	echo $(1))
OBJCOPY = $(call target_tool,objcopy)
ifeq ($(origin AR),default)
AR = $(call target_tool,ar)
endif

# Shell tests of a copy that runs the same code as build/ (installed,
# packaged, built by clang): options, messages, errors; not the matrices.
QUICK = t/t0001-yes-basic.sh t/t0003-yes-options.sh t/t0004-yes-errors.sh \
	t/t0005-yes-fallback.sh t/t9001-man.sh t/t1001-tee-options.sh \
	t/t1002-tee-errors.sh t/t1006-tee-output-error.sh \
	t/t1007-tee-open-errors.sh t/t1011-tee-signals.sh \
	t/t3001-cat-options.sh \
	t/t3002-cat-errors.sh t/t9002-cat-man.sh
# Shell tests of the musl build: the data paths, and the texts that are
# translated with no libc wording in them.  The others expect glibc's
# wording of strerror(3) and getopt_long(3) messages, as GNU has.
STATICTESTS = t/t0002-yes-stream.sh t/t0004-yes-errors.sh t/t9001-man.sh \
	t/t1003-tee-matrix.sh t/t3003-cat-matrix.sh t/t9002-cat-man.sh \
	t/t9202-nls-text.sh

all: bin spate libs

bin: $(BUILD)/yes $(BUILD)/tee $(BUILD)/cat

libs: $(BUILD)/libspate.a $(BUILD)/libspate.so

$(BUILD)/lib/%.o: lib/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(ISAFLAGS) -c -o $@ $<

$(BUILD)/src/%.o: src/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The engine as the programs here link it: one member an object, so that
# each takes only the objects it needs; the unit tests call internals.
$(BUILD)/engine.a: $(LIBOBJ)
	rm -f $@
	$(AR) rcs $@ $(LIBOBJ)

# The installed archive is one object whose only global names are the
# spate_* API that lib/spate.map lists: the engine's internals (write_all,
# fmt_run ...) are local to it, so that they cannot clash with the names
# of a program that links it.  The compiler driver links the objects
# (-r), so that the linker is its target's, not the bare ld of the host.
$(BUILD)/libspate.a: $(LIBOBJ) lib/spate.map
	rm -f $@
	$(CC) -r -nostdlib -o $(BUILD)/libspate.o $(LIBOBJ)
	sed -n 's/^[[:space:]]*\(spate_[a-z_]*\);$$/\1/p' lib/spate.map \
		>$(BUILD)/libspate.syms
	$(OBJCOPY) --keep-global-symbols=$(BUILD)/libspate.syms \
		$(BUILD)/libspate.o
	$(AR) rcs $@ $(BUILD)/libspate.o

$(BUILD)/pic/lib/%.o: lib/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(ISAFLAGS) -fPIC -c -o $@ $<

# The version script keeps every name but the spate_* API private.
$(BUILD)/$(SONAME): $(PICOBJ) lib/spate.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) \
		-Wl,--version-script=lib/spate.map -o $@ $(PICOBJ) $(THREADS)

$(BUILD)/libspate.so: $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $@

$(BUILD)/yes: $(BUILD)/src/yes.o $(CMDOBJ) $(BUILD)/engine.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BUILD)/src/yes.o $(CMDOBJ) \
		$(BUILD)/engine.a $(THREADS)

$(BUILD)/tee: $(BUILD)/src/tee.o $(CMDOBJ) $(PROGRESSOBJ) $(BUILD)/engine.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BUILD)/src/tee.o $(CMDOBJ) \
		$(PROGRESSOBJ) $(BUILD)/engine.a $(THREADS)

$(BUILD)/cat: $(BUILD)/src/cat.o $(CMDOBJ) $(PROGRESSOBJ) $(BUILD)/engine.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BUILD)/src/cat.o $(CMDOBJ) \
		$(PROGRESSOBJ) $(BUILD)/engine.a $(THREADS)

# The multi-call spate: each command compiled again with its main()
# renamed CMD_main, and src/multicall.c's main() to choose one by name.
spate: $(BUILD)/spate

$(BUILD)/multi/%.o: src/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Dmain=$*_main -c -o $@ $<

$(BUILD)/spate: $(MULTIOBJ) $(CMDOBJ) $(PROGRESSOBJ) $(BUILD)/engine.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(MULTIOBJ) $(CMDOBJ) \
		$(PROGRESSOBJ) $(BUILD)/engine.a $(THREADS)

# The unit tests' runner, outside $(BUILD)/unit, which holds only tests.
$(BUILD)/tap/tap.o: t/unit/tap.c t/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ t/unit/tap.c

# -Werror=unused-function: a case written as a plain function, not
# TEST(), would never run; it must not build.
$(BUILD)/unit/%: t/unit/%.c $(UNITHDR) $(BUILD)/tap/tap.o $(BUILD)/engine.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ilib $(CFLAGS) -Werror=unused-function $(LDFLAGS) \
		-o $@ $< $(BUILD)/tap/tap.o $(BUILD)/engine.a $(THREADS)

unit: $(UNITBIN)

# The fault tests' injector (t/inject/, lib-fault.sh's with_inject),
# preloaded into the commands under test: built without $(CFLAGS), so
# that it loads into every build's commands (the sanitizers' too) and
# into GNU's.  faults.c reads the faults, each other file fakes a
# family of calls.
INJECT = $(BUILD)/t/inject.so
INJECT_SRC = t/inject/faults.c t/inject/io.c t/inject/fcntl.c \
	t/inject/poll.c t/inject/alloc.c
$(INJECT): $(INJECT_SRC) t/inject/inject.h
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -fPIC -shared -o $@ $(INJECT_SRC) -ldl

# The sandbox tests' seccomp filter (t/sandbox.c, lib-sandbox.sh), in
# front of the commands under test: a program of the build's
# architecture, whose filter knows that architecture's calls.
SANDBOX = $(BUILD)/t/sandbox
$(SANDBOX): t/sandbox.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -o $@ t/sandbox.c

# The filters over call numbers (t/callfilter.c): GNU's allow-lists
# (t2014), systemd's ~@process, the bench's filtered rows.
CALLFILTER = $(BUILD)/t/callfilter
$(CALLFILTER): t/callfilter.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -o $@ t/callfilter.c

# Unit tests of the engine, then shell tests of the commands: all of
# them, or the unit tests (CHECK_UNIT) and the scripts CHECK_TESTS names.
CHECK_TESTS =
CHECK_UNIT = $(UNITBIN)
check: all unit $(INJECT) $(SANDBOX) $(CALLFILTER)
	BUILD=$(BUILD) t/run $(if $(CHECK_TESTS),$(CHECK_UNIT) $(CHECK_TESTS))

# make check as where the optional tools are missing (scripts/check-bare):
# those BARE_TOOLS names hidden, every case passes or skips; the scripts
# that can change without them, or those CHECK_TESTS names.
BARE_TOOLS = strace python3 mandoc procps locales
check-bare:
	MAKE="$(MAKE)" BARE_TOOLS="$(BARE_TOOLS)" CHECK_TESTS="$(CHECK_TESTS)" \
		scripts/check-bare

# The same tests against an ASan+UBSan build.
check-san:
	SPATE_SAN=1 $(MAKE) BUILD=build-san CFLAGS="$(SANFLAGS)" LDFLAGS="$(SANFLAGS)" check

# The fan-out's unit tests, threads and lanes included, under
# ThreadSanitizer.
TSANFLAGS = -O1 -g -fsanitize=thread
check-tsan:
	$(MAKE) BUILD=build-tsan CFLAGS="$(TSANFLAGS)" LDFLAGS="$(TSANFLAGS)" \
		$(FANOUT_UNIT:t/unit/%.c=build-tsan/unit/%)
	BUILD=build-tsan t/run $(FANOUT_UNIT:t/unit/%.c=build-tsan/unit/%)

# cat's portable loops as a build without SSE2 has them (8 bytes in a
# word), tested against the model beside the SIMD levels of this CPU.
check-format-portable:
	$(MAKE) BUILD=build-nosse2 CFLAGS="$(CFLAGS) -mno-sse2" \
		$(FORMAT_UNIT:t/unit/%.c=build-nosse2/unit/%)
	BUILD=build-nosse2 t/run $(FORMAT_UNIT:t/unit/%.c=build-nosse2/unit/%)

# The shell tests against the reference: GNU yes, tee and cat in /usr/bin.
# Not the data-path matrices of SELF_CHECKED: their expectations are the
# input itself or GNU's own output of the run (yes_ref, GNU_CAT; t2013:
# GNU's run under the same refusals), so that with GNU's commands under
# test they would compare GNU with GNU.
SELF_CHECKED = t/t0002-yes-stream.sh t/t1003-tee-matrix.sh \
	t/t2012-large-files.sh t/t2013-sandbox.sh t/t3003-cat-matrix.sh
check-host: $(INJECT)
	TEST_HOST=1 t/run $(filter-out $(SELF_CHECKED),$(wildcard t/t[0-9]*.sh))

# The shell tests against the multi-call spate, called through links
# yes, tee and cat to it in $(BUILD)/multi/bin: all of them, or those
# MULTI_TESTS names.
MULTI_TESTS = t/t[0-9]*.sh
check-multi: bin spate $(INJECT) $(SANDBOX) $(CALLFILTER)
	rm -rf $(BUILD)/multi/bin && mkdir $(BUILD)/multi/bin
	for c in spate $(COMMANDS); do \
		ln -s ../../spate $(BUILD)/multi/bin/$$c || exit 1; done
	BUILD=$(BUILD) SPATE_BIN=$(BUILD)/multi/bin t/run $(MULTI_TESTS)

# Self-contained static binaries, linked with musl, in build-static: the
# separate commands and the multi-call spate.
static:
	$(MAKE) BUILD=build-static CC="$(MUSLCC)" LDFLAGS=-static bin spate

# The unit tests and data-path shell tests of the static build, which
# must need no loader and no libc.so.
check-static:
	$(MAKE) BUILD=build-static CC="$(MUSLCC)" LDFLAGS=-static \
		SECCOMP_UNIT= bin spate unit
	for b in build-static/yes build-static/tee build-static/cat \
	    build-static/spate; do \
		if readelf -d $$b | grep -q NEEDED; then \
			echo "$$b is not static"; exit 1; fi; done
	BUILD=build-static t/run build-static/unit/* $(STATICTESTS)

# clang with warnings as errors: the unit tests and the quick shell tests.
check-clang:
	$(MAKE) CC=clang BUILD=build-clang CFLAGS="$(CFLAGS) -Werror" all unit
	BUILD=build-clang t/run build-clang/unit/* $(QUICK)

# Without NLS: the unit tests and the quick shell tests, which speak C.
check-nonls:
	$(MAKE) NLS=0 all unit
	BUILD=build-nonls t/run build-nonls/unit/* $(QUICK)

# Debian's release architectures, each cross-built into build-cross/ARCH
# and tested under qemu-user (scripts/check-cross): on FULL_ARCHES (the
# 32-bit and the big-endian one) the whole make check, the unit tests
# and every shell test; on the others the unit tests and the shell
# tests of CROSS_TESTS (cat's options and format loops against GNU's,
# tee's messages and signals), with CROSS_TESTS32 on the 32-bit ones
# (files past 2 and 4 GiB).  amd64 natively.  What needs strace or
# native memory skips under the emulator (NATIVE).
ARCHES = amd64 arm64 armhf i386 ppc64el riscv64 s390x
FULL_ARCHES = i386 s390x
CROSS_TESTS = t/t1002-tee-errors.sh t/t1011-tee-signals.sh \
	t/t3001-cat-options.sh
CROSS_TESTS32 = t/t2012-large-files.sh
full = $(filter $(1),$(FULL_ARCHES))
# Each architecture a rule of its own, so that `make -j2 check-cross`
# runs two at once; the long ones first.
check-cross: $(FULL_ARCHES:%=check-cross-%) \
	$(filter-out $(FULL_ARCHES:%=check-cross-%),$(ARCHES:%=check-cross-%))

$(ARCHES:%=check-cross-%): check-cross-%:
	MAKE="$(MAKE)" CFLAGS="$(CFLAGS)" ARCHES="$*" \
		CROSS_TESTS="$(if $(call full,$*),$(wildcard t/t[0-9]*.sh),$(CROSS_TESTS))" \
		CROSS_TESTS32="$(if $(call full,$*),,$(CROSS_TESTS32))" \
		scripts/check-cross

# The Debian packages (spate, libspate1, libspate-dev), built from the
# release tarball: twice, compared byte for byte; lintian on them; then
# installed, tested (/usr/lib/spate/bin, the library by pkg-config) and
# removed; then cross-built for CROSS_ARCH (arm64 unless set), its
# commands run under qemu-user.  check-repro and check-lintian are each
# step alone.
check-deb: dist
	TARBALL=spate-$(VERSION).tar.gz QUICK="$(QUICK)" debian/check

check-repro: dist
	TARBALL=spate-$(VERSION).tar.gz debian/check repro

check-lintian: dist
	TARBALL=spate-$(VERSION).tar.gz debian/check lintian

# README.md's set-up and `make check` in a fresh minimal Debian, and the
# .debs built there from the source package with only its Build-Depends
# (scripts/check-fresh: root, mmdebstrap): both steps, or those
# FRESH_STEPS names (readme, deb; system and piuparts: check-system's;
# nspawn: check-nspawn's; upgrade: check-upgrade's).
FRESH_STEPS =
check-fresh:
	VERSION=$(VERSION) SPATE_BIN=$(or $(SPATE_BIN),$(BUILD)) \
		scripts/check-fresh $(FRESH_STEPS)

# Pipelines of cat, tee and yes under systemd-nspawn's seccomp filter
# (NSPAWN_FILTER), in a fresh minimal Debian, against GNU's there
# (scripts/check-fresh nspawn: root, mmdebstrap, systemd-container).
check-nspawn: bin
	VERSION=$(VERSION) SPATE_BIN=$(or $(SPATE_BIN),$(BUILD)) \
		scripts/check-fresh nspawn

# spate-as-coreutils, the package that makes spate's cat, tee and yes
# the system's, in a fresh minimal Debian (scripts/check-fresh system,
# debian/check-as-coreutils), each case in a root of its own (those
# SYSTEM_CASES names, or all), and piuparts: root, mmdebstrap, dpkg-dev,
# debhelper, piuparts.
SYSTEM_CASES =
check-system:
	SYSTEM_CASES="$(SYSTEM_CASES)" VERSION=$(VERSION) \
		scripts/check-fresh system piuparts

# A fresh minimal bookworm with spate-as-coreutils installed upgraded to
# trixie (apt-get full-upgrade), cat, tee and yes checked all along
# (debian/check-as-coreutils' case trixie): root, mmdebstrap, and
# Debian's mirror.  By hand: README.md says when it last passed.
check-upgrade:
	VERSION=$(VERSION) scripts/check-fresh upgrade

# Every check CI has, as before a release: .ci/run --release (root: it
# installs what they need), the proofs a commit's CI may skip run
# whatever is recorded, with the release's own (the whole suite on s390x
# too, the 50 GiB soak, distcheck's and check-fresh's whole runs, the
# package build in a fresh root, check-upgrade).
check-release:
	bash .ci/run --release

# The benchmark's helper programs (bench/*.c), then the quick benchmark.
BENCHBIN = $(BUILD)/bench/drain $(BUILD)/bench/fan $(BUILD)/bench/limit-yes \
	$(BUILD)/bench/limit-tee $(BUILD)/bench/limit-cat

$(BUILD)/bench/%: bench/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

bench-bin: $(BENCHBIN)

bench: all bench-bin $(CALLFILTER)
	BUILD=$(BUILD) bench/run quick

install: install-bin$(MULTICALL:1=-multi) install-lib

# The commands and their man pages.  rm first: cp would write through
# the links that an install with MULTICALL=1 left, into spate.
install-bin: bin
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANPREFIX)/man1
	rm -f $(DESTDIR)$(BINDIR)/yes $(DESTDIR)$(BINDIR)/tee \
		$(DESTDIR)$(BINDIR)/cat
	cp -f $(BUILD)/yes $(BUILD)/tee $(BUILD)/cat $(DESTDIR)$(BINDIR)/
	chmod 755 $(DESTDIR)$(BINDIR)/yes $(DESTDIR)$(BINDIR)/tee \
		$(DESTDIR)$(BINDIR)/cat
	cp -f $(MAN) $(DESTDIR)$(MANPREFIX)/man1/
	chmod 644 $(DESTDIR)$(MANPREFIX)/man1/yes.1 \
		$(DESTDIR)$(MANPREFIX)/man1/tee.1 $(DESTDIR)$(MANPREFIX)/man1/cat.1

# MULTICALL=1: the multi-call spate, the commands as links to it, and
# the man pages.
install-bin-multi: spate
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANPREFIX)/man1
	cp -f $(BUILD)/spate $(DESTDIR)$(BINDIR)/
	chmod 755 $(DESTDIR)$(BINDIR)/spate
	for c in $(COMMANDS); do \
		ln -sf spate $(DESTDIR)$(BINDIR)/$$c || exit 1; done
	cp -f $(MAN) man/spate.1 $(DESTDIR)$(MANPREFIX)/man1/
	for m in yes tee cat spate; do \
		chmod 644 $(DESTDIR)$(MANPREFIX)/man1/$$m.1 || exit 1; done

# The engine: static and shared library, header, pkg-config file.
install-lib: libs
	mkdir -p $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR)
	cp -f $(BUILD)/libspate.a $(BUILD)/$(SONAME) $(DESTDIR)$(LIBDIR)/
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libspate.so
	chmod 644 $(DESTDIR)$(LIBDIR)/libspate.a
	chmod 755 $(DESTDIR)$(LIBDIR)/$(SONAME)
	cp -f include/spate.h $(DESTDIR)$(INCLUDEDIR)/
	chmod 644 $(DESTDIR)$(INCLUDEDIR)/spate.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e "s|@VERSION@|$(VERSION)|" \
		spate.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/spate.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/spate.pc

# Whichever install it was: the multi-call spate too, if there.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/yes $(DESTDIR)$(BINDIR)/tee $(DESTDIR)$(BINDIR)/cat \
		$(DESTDIR)$(BINDIR)/spate
	rm -f $(DESTDIR)$(MANPREFIX)/man1/yes.1 $(DESTDIR)$(MANPREFIX)/man1/tee.1 \
		$(DESTDIR)$(MANPREFIX)/man1/cat.1 $(DESTDIR)$(MANPREFIX)/man1/spate.1
	rm -f $(DESTDIR)$(LIBDIR)/libspate.a $(DESTDIR)$(LIBDIR)/$(SONAME) \
		$(DESTDIR)$(LIBDIR)/libspate.so $(DESTDIR)$(INCLUDEDIR)/spate.h \
		$(DESTDIR)$(PKGCONFIGDIR)/spate.pc

# Install into a scratch DESTDIR, test the installed commands, uninstall.
check-install: all
	MAKE="$(MAKE)" BINDIR="$(BINDIR)" QUICK="$(QUICK)" scripts/check-install

# Build examples/yes-lite.c against the installed library, found by
# pkg-config, and run it; both libraries must export spate_* and nothing
# else, and a program that defines the engine's internal names must link
# against each.
check-example: all
	MAKE="$(MAKE)" CC="$(CC)" CFLAGS="$(CFLAGS)" BUILD="$(BUILD)" \
		LIBDIR="$(LIBDIR)" PKGCONFIGDIR="$(PKGCONFIGDIR)" \
		SONAME="$(SONAME)" scripts/check-example

# The release tarball spate-$(VERSION).tar.gz: every tracked file but
# those scripts/dist excludes.  distcheck builds, tests, installs and
# uninstalls it in a fresh directory (scripts/distcheck).
dist:
	VERSION=$(VERSION) scripts/dist

distcheck:
	MAKE="$(MAKE)" VERSION=$(VERSION) scripts/distcheck

# Reliability: fuzzing, valgrind, linters and the soak test.
# `make fuzz` builds each libFuzzer target in fuzz/ with ASan and UBSan
# and runs it FUZZ_SECONDS seconds, from the seeds in fuzz/corpus/<target>
# (new inputs go to build-fuzz/corpus/<target>).
FUZZ_SECONDS = 60
FUZZ_TARGETS = fanout repeat
FUZZCC = clang
FUZZFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
VALGRIND = valgrind -q --leak-check=full --error-exitcode=1 \
	--suppressions=$(CURDIR)/t/valgrind.supp
# The shell tests run with yes, tee and cat under valgrind: those that do
# not depend on argv[0], on spare descriptors, or on speed, and inject no
# faults with strace (t0004 does: its EINTR reaches valgrind's own writes
# too, and valgrind dies of one in the fork the engine makes to probe a
# call under strace's seccomp filter); --lag's threads (t1012, t1014; not
# t1013's many runs under load); --progress's but t9005, which counts
# descriptors and calls, and stops on ^Z, which valgrind does not.
VALGRIND_TESTS = t/t0001-yes-basic.sh \
	t/t1001-tee-options.sh t/t1006-tee-output-error.sh \
	t/t1007-tee-open-errors.sh t/t1012-tee-lag.sh t/t1014-tee-lag-errors.sh \
	t/t9003-progress.sh t/t9004-progress-tty.sh
LINT_SRC = $(LIB) $(CMD) $(PROGRESS) src/yes.c src/tee.c src/cat.c src/multicall.c \
	fuzz/fanout.c fuzz/repeat.c
SOAK_GIB = 50

# Each target is a rule of its own, so that `make -j2 fuzz` runs two at
# once, a CPU each.
fuzz: $(FUZZ_TARGETS:%=fuzz-%)

$(FUZZ_TARGETS:%=fuzz-%): fuzz-%: build-fuzz/%
	mkdir -p build-fuzz/corpus/$*
	build-fuzz/$* -max_total_time=$(FUZZ_SECONDS) -timeout=60 \
		-artifact_prefix=build-fuzz/ \
		-rss_limit_mb=4096 -print_final_stats=1 \
		build-fuzz/corpus/$* fuzz/corpus/$*

build-fuzz/%: fuzz/%.c $(LIB) $(HDR)
	@mkdir -p $(@D)
	$(FUZZCC) $(FUZZFLAGS) $(CPPFLAGS) -Ilib -o $@ $< $(LIB) $(THREADS)

check-valgrind: bin unit
	BUILD="$(BUILD)" UNITBIN="$(UNITBIN)" TESTS="$(VALGRIND_TESTS)" \
		VALGRIND="$(VALGRIND)" scripts/check-valgrind

# cppcheck, and clang-tidy on each file, each a rule of its own, so that
# `make -j2 lint` runs two at once, a CPU each.
lint: lint-cppcheck $(LINT_SRC:%=lint-tidy-%) $(LIB_AVX:%=lint-tidy-%)

lint-cppcheck:
	cppcheck -q --enable=warning,performance,portability --error-exitcode=1 \
		--inline-suppr -Iinclude -Isrc -Ilib -D_GNU_SOURCE $(LINT_SRC) \
		$(LIB_AVX)

$(LINT_SRC:%=lint-tidy-%): lint-tidy-%:
	clang-tidy --quiet $* -- $(CPPFLAGS) -Isrc -Ilib -D_GNU_SOURCE \
		-DFORMAT_AVX

lint-tidy-lib/format-avx2.c:
	clang-tidy --quiet lib/format-avx2.c -- $(CPPFLAGS) -Ilib $(AVX2FLAGS)

lint-tidy-lib/format-avx512.c:
	clang-tidy --quiet lib/format-avx512.c -- $(CPPFLAGS) -Ilib $(AVX512FLAGS)

soak: bin
	BUILD=$(BUILD) SOAK_GIB=$(SOAK_GIB) t/soak.sh

# GNU coreutils' own tests of cat, tee and yes (t/README), from the newest
# coreutils source the machine's Debian archive serves: with GNU's binaries,
# then with those of SPATE_BIN or $(BUILD) in their place.
check-gnu: bin
	SPATE_BIN=$(or $(SPATE_BIN),$(BUILD)) scripts/check-gnu

# Whole suites with spate as the system's cat, tee and yes (root, not
# run by CI: see README): GNU coreutils' every test, and git's t/.
check-gnu-all: bin
	SPATE_BIN=$(or $(SPATE_BIN),$(BUILD)) GNU_TESTS=all scripts/check-gnu

# The GNU tree check-gnu tests with, fetched and built into its cache
# alone (CI builds it behind its other steps).
check-gnu-build:
	GNU_TESTS=none scripts/check-gnu

check-git: bin
	SPATE_BIN=$(or $(SPATE_BIN),$(BUILD)) scripts/check-git

# cat and tee across file systems, every pair: tmpfs, ext4, xfs and
# btrfs on loop devices, overlayfs, FUSE (fuse-overlayfs), squashfs as
# an input; and the copies btrfs and xfs share (scripts/check-fs: root).
check-fs: bin
	SPATE_BIN=$(or $(SPATE_BIN),$(BUILD)) scripts/check-fs

# The differential scenario test against GNU (t/README): its self-test,
# then DIFF_SECONDS of random scenarios from DIFF_SEED (when empty, a new
# seed each run, printed) with the commands in SPATE_BIN or $(BUILD).
DIFF_SECONDS = 60
DIFF_SEED =
check-diff: bin check-diff-self
	t/diff/run.py --seconds $(DIFF_SECONDS) $(if $(DIFF_SEED),--seed $(DIFF_SEED)) \
		--bin $(or $(SPATE_BIN),$(BUILD)) --tools $(BUILD)/t

# The sandbox family's refusals: t/sandbox.c and t/inject/, in $(BUILD)/t.
check-diff-self: $(INJECT) $(SANDBOX)
	t/diff/run.py --self-test --tools $(BUILD)/t

# Every BUILD the rules above make: the default and PORTABLE=1, each
# with NLS=0 too, and those of the checks.
clean:
	rm -rf build build-nonls build-portable build-portable-nonls \
		build-san build-tsan build-static build-clang build-nosse2 \
		build-fuzz build-cross

.PHONY: all bin libs spate unit check check-bare check-san check-format-portable \
	check-tsan check-host check-multi static check-static check-clang \
	check-nonls check-cross $(ARCHES:%=check-cross-%) check-deb check-repro check-lintian dist distcheck \
	bench bench-bin install install-bin install-bin-multi install-lib \
	uninstall check-install check-example fuzz \
	$(FUZZ_TARGETS:%=fuzz-%) check-valgrind lint lint-cppcheck \
	$(LINT_SRC:%=lint-tidy-%) $(LIB_AVX:%=lint-tidy-%) soak check-gnu check-gnu-all check-gnu-build check-git check-fs check-diff \
	check-diff-self check-fresh check-nspawn check-system check-upgrade \
	check-release clean
