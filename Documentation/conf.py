# SPDX-License-Identifier: GPL-2.0
# Sphinx configuration for Documentation/timingwheel, built by scripts/docs.sh
# with the kernel's own kernel-doc extension.  scripts/docs.sh passes the
# kernel source tree in TW_KERNEL_SRC; nothing else here is configurable.

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_ksrc = os.environ.get('TW_KERNEL_SRC')
if not _ksrc:
    raise RuntimeError('TW_KERNEL_SRC is not set: build with scripts/docs.sh')

sys.path.insert(0, os.path.join(_ksrc, 'Documentation', 'sphinx'))

project = 'timingwheel'
master_doc = 'timingwheel/index'
extensions = ['kerneldoc']

# As the kernel's Documentation/conf.py: kernel-doc from the tree, and file
# names in kernel-doc:: directives relative to a directory.  Here that is
# Documentation/timingwheel, the directory of the .rst files, so that a
# directive names ../../tw_core.c for the module's tw_core.c.
kerneldoc_bin = os.path.join(_ksrc, 'scripts', 'kernel-doc')
kerneldoc_srctree = os.path.join(_here, 'timingwheel')

# As the kernel's: attributes Sphinx's C parser does not know.
c_id_attributes = ['__always_inline', '__user', '__must_check']

exclude_patterns = ['_build']
html_theme = 'alabaster'
