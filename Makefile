# SPDX-License-Identifier: GPL-2.0
#
# timingwheel: out-of-tree build and the project's own targets.
#
#   make                  build the module against KDIR (the running kernel)
#   make check            every test: lint, KUnit under UML (normal and debug)
#   make bench-core       the wheel against a binary heap, in userspace
#
KDIR ?= /lib/modules/$(shell uname -r)/build

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools/timingwheel clean

check:
	bash scripts/check.sh

bench-core:
	$(MAKE) -C tools/timingwheel bench-core

.PHONY: all modules clean check bench-core
