# sluice build configuration: edit here or override on the make command line.

VERSION = 0.1.0

PREFIX = /usr/local
BINDIR = $(PREFIX)/bin
MANPREFIX = $(PREFIX)/share/man

CC = cc
CFLAGS = -O2 -g -Wall -Wextra
CPPFLAGS = -Iinclude
LDFLAGS =

# Where objects and binaries go; the sanitizer build uses its own.
BUILD = build

# Flags of the sanitizer build that `make check-san` runs.
SANFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
