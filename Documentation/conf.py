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
# kernel-doc warns, and exits 0, when a directive names a DOC block or an
# identifier the file does not have; with KDOC_WERROR it exits non-zero, the
# extension turns that into a Sphinx warning, and sphinx-build -W fails.
os.environ['KDOC_WERROR'] = '1'

# As the kernel's: attributes Sphinx's C parser does not know.
c_id_attributes = ['__always_inline', '__user', '__must_check']

exclude_patterns = ['_build']
html_theme = 'alabaster'


def setup(app):
    """The shim: kernel-doc warns of a missing name only when it finds none
    of those asked for, so a directive naming several identifiers, one of
    them misspelt, builds without a word.  Ask for each name alone first,
    and make a name that yields nothing a Sphinx warning (an error under -W).
    """
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    import kerneldoc
    from sphinx.util import logging

    log = logging.getLogger('kerneldoc')
    # One kernel-doc a name is most of the build's time: as many at once as
    # there are CPUs, the directive's own run beside them.
    pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1)

    class StrictKernelDoc(kerneldoc.KernelDocDirective):
        def run(self):
            env = self.state.document.settings.env
            config = env.config
            path = config.kerneldoc_srctree + '/' + self.arguments[0]
            names = self.options.get('identifiers', '').split()
            if 'doc' in self.options:
                names.append(self.options['doc'])
            def found(name):
                p = subprocess.run([config.kerneldoc_bin, '-rst',
                                    '-function', name, path],
                                   capture_output=True, text=True)
                return not p.returncode and p.stdout.strip()

            checks = [(name, pool.submit(found, name)) for name in names]
            nodes = super().run()
            for name, check in checks:
                if not check.result():
                    log.warning("%s has no kernel-doc comment named '%s'",
                                self.arguments[0], name,
                                location=(env.docname, self.lineno))
            return nodes

    app.add_directive('kernel-doc', StrictKernelDoc, override=True)
