# shellcheck shell=bash disable=SC2034 # the variables are .ci/run's
# ci-proofs.sh: the files each of CI's proofs covers (.ci/run,
# scripts/proof): a change to any of them runs the proof;
# t/t9301-ci-proof.sh reads them too.  Paths are the repository's,
# directories whole.

# check-deb, check-system: the packages' files and the install rules.
package_files='debian Makefile config.mk scripts/dist scripts/check-fresh
	scripts/check-install'
# check-cross-i386, the whole suite on a 32-bit machine: the code and
# its tests.
code_files='lib src include t Makefile config.mk scripts/check-cross
	scripts/arch-emu scripts/arch-info'
# check-load: the scripts that lean on the scheduler most, and the
# files of the threads they test.
load_scripts='t/t1008-tee-threads.sh t/t1010-tee-lanes-edges.sh
	t/t1012-tee-lag.sh t/t1013-tee-slow-output.sh t/t1014-tee-lag-errors.sh
	t/t2002-faults-tee.sh t/t2005-pipe-quota.sh t/t2009-tee-stall.sh
	t/t9003-progress.sh t/t9004-progress-tty.sh t/t9005-progress-process.sh'
load_files="$load_scripts t/test-lib.sh t/lib-proc.sh t/lib-fault.sh
	t/lib-fd.sh t/lib-tty.sh scripts/check-load lib/lanes.c lib/lag.c
	lib/lagmem.c lib/lagout.c lib/lagtell.c lib/fanout.c lib/watch.c
	lib/signals.c
	lib/handoff.c src/progress.c src/progress-line.c"
