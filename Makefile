# sluice: fast yes and tee.  See README.md.
.POSIX:

include config.mk

LIB = lib/fdkind.c lib/fanout.c lib/io.c lib/pipe.c lib/repeat.c
CMD = src/cmd.c src/quote.c
UNIT = t/unit/test_io.c t/unit/test_repeat.c t/unit/test_fanout.c
MAN = man/yes.1 man/tee.1

LIBOBJ = $(LIB:%.c=$(BUILD)/%.o)
CMDOBJ = $(CMD:%.c=$(BUILD)/%.o)
UNITBIN = $(UNIT:t/unit/%.c=$(BUILD)/unit/%)
HDR = include/sluice.h src/cmd.h

all: $(BUILD)/yes $(BUILD)/tee

$(BUILD)/lib/%.o: lib/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/src/%.o: src/%.c $(HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/libsluice.a: $(LIBOBJ)
	rm -f $@
	$(AR) rcs $@ $(LIBOBJ)

$(BUILD)/yes: $(BUILD)/src/yes.o $(CMDOBJ) $(BUILD)/libsluice.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BUILD)/src/yes.o $(CMDOBJ) $(BUILD)/libsluice.a

$(BUILD)/tee: $(BUILD)/src/tee.o $(CMDOBJ) $(BUILD)/libsluice.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BUILD)/src/tee.o $(CMDOBJ) $(BUILD)/libsluice.a

$(BUILD)/unit/%: t/unit/%.c t/unit/tap.h $(BUILD)/libsluice.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libsluice.a

unit: $(UNITBIN)

# Unit tests of the engine, then shell tests of the commands.
check: all unit
	BUILD=$(BUILD) t/run

# The same tests against an ASan+UBSan build.
check-san:
	SLUICE_SAN=1 $(MAKE) BUILD=build-san CFLAGS="$(SANFLAGS)" LDFLAGS="$(SANFLAGS)" check

# The shell tests against the reference: GNU yes and tee in /usr/bin.
check-host:
	TEST_HOST=1 t/run

bench: all
	BUILD=$(BUILD) bench/run

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANPREFIX)/man1
	cp -f $(BUILD)/yes $(BUILD)/tee $(DESTDIR)$(BINDIR)/
	chmod 755 $(DESTDIR)$(BINDIR)/yes $(DESTDIR)$(BINDIR)/tee
	for m in $(MAN); do \
		if [ -f $$m ]; then cp -f $$m $(DESTDIR)$(MANPREFIX)/man1/ && \
		chmod 644 $(DESTDIR)$(MANPREFIX)/man1/$${m#man/}; fi; done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/yes $(DESTDIR)$(BINDIR)/tee
	rm -f $(DESTDIR)$(MANPREFIX)/man1/yes.1 $(DESTDIR)$(MANPREFIX)/man1/tee.1

clean:
	rm -rf build build-san

.PHONY: all unit check check-san check-host bench install uninstall clean
