# Runs Autobahn|Testsuite's `wstest` from the private install in .tools/autobahn.
# zope is a namespace package, so the folder must be added as a site directory
# (PYTHONPATH alone does not process its .pth files).
import os
import site
import sys

site.addsitedir(os.environ["AUTOBAHN_SITE"])
from autobahntestsuite.wstest import run  # noqa: E402

sys.argv[0] = "wstest"
run()
