# spate build configuration: edit here or override on the make command line.

# The version is the one in include/spate.h, read when a recipe needs it.
VERSION = $$(sed -n 's/^\#define SPATE_VERSION "\(.*\)"$$/\1/p' include/spate.h)

PREFIX = /usr/local
BINDIR = $(PREFIX)/bin
MANPREFIX = $(PREFIX)/share/man
LIBDIR = $(PREFIX)/lib
INCLUDEDIR = $(PREFIX)/include
PKGCONFIGDIR = $(LIBDIR)/pkgconfig

# MULTICALL = 1 makes `make install` install the multi-call spate, with
# yes, tee and cat as links to it, in place of the three programs;
# `make uninstall` removes either.
MULTICALL =

# PORTABLE = 1 builds without the Linux zero-copy calls (splice, vmsplice,
# tee, F_SETPIPE_SZ): read(2)/write(2) only, into build-portable.
PORTABLE =

# NLS = 0 builds without message translation: every message in English,
# into build-nonls.  With NLS = 1 the messages GNU coreutils has are
# translated by its own catalogs (coreutils.mo), which spate reads from
# LOCALEDIR, where the coreutils package installs them; spate has none.
NLS = 1
LOCALEDIR = /usr/share/locale

CC = cc
CFLAGS = -O2 -g -Wall -Wextra
# LFSFLAGS: a 64-bit off_t and time_t on every target, as they are on
# 64-bit ones: a 32-bit build (i386, armhf) without them cannot open a
# file of 2 GiB or more (EOVERFLOW), and its clock ends in 2038.  No
# off_t or time_t is in spate.h, so the library's ABI is the same for
# a program built with them or without.  glibc 2.34 and later know
# _TIME_BITS (it needs _FILE_OFFSET_BITS=64); musl's are 64-bit anyway.
LFSFLAGS = -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64
CPPFLAGS = -Iinclude $(LFSFLAGS) $(PORTABLE:1=-DSPATE_PORTABLE) \
	$(if $(filter 1,$(NLS)),-DSPATE_NLS -DSPATE_LOCALEDIR='"$(LOCALEDIR)"')
LDFLAGS =

# Where objects and binaries go; the sanitizer, portable, static and
# NLS = 0 builds use their own.
BUILD = build$(PORTABLE:1=-portable)$(if $(filter 0,$(NLS)),-nonls)

# The C compiler of the static build (`make static`): musl's wrapper.
MUSLCC = musl-gcc

# Flags of the sanitizer build that `make check-san` runs.
SANFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
