# SPDX-License-Identifier: GPL-2.0
#
# timingwheel: out-of-tree build and the project's own targets.
#
#   make                  build the module against KDIR (the running kernel)
#   make demo             load it and show it working (in a QEMU guest if
#                         this machine cannot load modules)
#   make check            every test: lint, KUnit under UML (normal and
#                         debug), e2e on Debian 6.1, 6.12 and 6.12-rt in QEMU
#   make soak             the fuzzers for an hour each (SOAK_SECONDS=...)
#   make bench-core       the wheel against a binary heap, in userspace, on
#                         Ratas' workload too (RATAS_DIR=/abs/ratas adds Ratas)
#   make bench-device     the device against timerfd and an in-process wheel:
#                         kernel-side (UML), host native, a projection for
#                         real hardware, and end to end in a 6.12 TCG guest
#
KDIR ?= /lib/modules/$(shell uname -r)/build

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C tools/timingwheel clean

check:
	bash scripts/check.sh

# The fuzzers for an hour each (SOAK_SECONDS=...): userspace, UML debug, RT.
SOAK_SECONDS ?= 3600
soak:
	TW_FUZZ_SECONDS=$(SOAK_SECONDS) bash scripts/fuzz-core.sh
	TW_FUZZ_SECONDS=$(SOAK_SECONDS) TW_UML_TIMEOUT=$$(($(SOAK_SECONDS) * 8 + 900)) \
		bash scripts/uml-e2e.sh debug
	TW_FUZZ_SECONDS=$(SOAK_SECONDS) TW_QEMU_TIMEOUT=$$(($(SOAK_SECONDS) * 8 + 900)) \
		bash scripts/qemu-run.sh 6.12-rt e2e

demo:
	bash scripts/demo.sh

bench-device:
	bash scripts/bench-device.sh

bench-core:
	$(MAKE) -C tools/timingwheel bench-core

.PHONY: all modules clean check soak demo bench-core bench-device
