# SPDX-License-Identifier: GPL-2.0
#
# timingwheel: out-of-tree build and the project's own targets.
#
#   make                  build the module against KDIR (the running kernel's
#                         /lib/modules/$(uname -r)/build unless given)
#   make clean            remove every build output; needs no kernel tree
#   make deb              the Debian packages, into $(DEB_OUT) (debian/)
#   make demo             load it and show it working (in a QEMU guest if
#                         this machine cannot load modules)
#   make check            every test: lint, KUnit under UML (normal and
#                         debug), e2e on Debian 6.1, 6.12 and 6.12-rt in QEMU
#   make soak             the fuzzers for an hour each (SOAK_SECONDS=...)
#   make bench-core       the wheel against a binary heap, in userspace, on
#                         Ratas' workload too (RATAS_DIR=/abs/ratas adds Ratas)
#   make bench-ratas      Ratas' own benchmark program, unmodified, on Ratas
#                         and on tw_core (RATAS_DIR=/abs/ratas, else a clone
#                         in $TW_CACHE/ratas; skipped if unreachable)
#   make bench-device     the device against timerfd and an in-process wheel:
#                         kernel-side (UML), host native, a projection for
#                         real hardware, and end to end in a 6.12 TCG guest
#
KDIR ?= /lib/modules/$(shell uname -r)/build

all: modules

# Without the running kernel's headers, say so rather than let kbuild fail
# obscurely; the module is not guessed for another kernel, which could not
# load it anyway: name one with KDIR= (dkms does).
modules:
	@test -f $(KDIR)/Makefile || { \
		echo "timingwheel: no kernel build tree at $(KDIR)" >&2; \
		echo "  install the running kernel's headers, or name a tree:" >&2; \
		for d in /lib/modules/*/build; do \
			test -f $$d/Makefile && echo "  make KDIR=$$d" >&2; \
		done; \
		exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# kbuild's outputs in this directory, removed without a kernel tree (dkms
# cleans with this too), then the userspace programs' and the library's.
KBUILD_OUTPUTS := *.o *.ko *.ko.* *.mod *.mod.c *.mod.o .*.cmd .*.d *.dwo *.su \
	Module.symvers modules.order .module-common.o .tmp_versions .cache.mk

clean:
	rm -rf $(KBUILD_OUTPUTS)
	if [ -f tools/Makefile ]; then $(MAKE) -C tools clean; fi
	if [ -f lib/Makefile ]; then $(MAKE) -C lib clean; fi

check:
	bash scripts/check.sh

# The fuzzers for an hour each (SOAK_SECONDS=...): userspace, UML debug, RT.
SOAK_SECONDS ?= 3600
soak:
	TW_FUZZ_SECONDS=$(SOAK_SECONDS) bash scripts/fuzz-core.sh
	TW_FUZZ_SECONDS=$(SOAK_SECONDS) TW_UML_TIMEOUT=$$(($(SOAK_SECONDS) * 8 + 900)) \
		bash scripts/guest/uml-e2e.sh debug
	TW_FUZZ_SECONDS=$(SOAK_SECONDS) TW_QEMU_TIMEOUT=$$(($(SOAK_SECONDS) * 8 + 900)) \
		bash scripts/guest/qemu-run.sh 6.12-rt e2e

demo:
	bash scripts/demo.sh

bench-device:
	bash scripts/bench-device.sh

bench-core:
	$(MAKE) -C tools bench-core

bench-ratas:
	bash scripts/bench-ratas.sh

# The Debian packages (debian/): dpkg-buildpackage writes them, as it
# always does, to the parent directory; they are then moved to DEB_OUT.
# The build dependencies are installed with apt when missing.
DEB_OUT ?= $(abspath ..)
deb:
	bash scripts/package/deb.sh $(DEB_OUT)

.PHONY: all modules clean check soak demo bench-core bench-ratas bench-device deb
