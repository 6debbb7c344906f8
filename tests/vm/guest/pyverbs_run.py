#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rdma-core's tests/run_tests.py, plus one line per test in $PYV_OUT.

Same arguments as run_tests.py (run from /opt/rdma-core); PYV_SEED repeats
a run's random choices (its seed is printed and recorded). Parsing the
unittest -v stream loses tests whose output interleaves with it; this
records each outcome as the runner sees it: "<module>.<test> <status>
[<skip reason>]", status one of ok, FAIL, ERROR, skipped (expected
failures count as ok, unexpected successes as FAIL).
"""
import faulthandler
import os
import random
import sys
import time
import unittest
from importlib.machinery import SourceFileLoader

sys.path.insert(0, os.path.join(os.getcwd(), 'tests'))
from args_parser import parser  # noqa: E402

tests = SourceFileLoader('tests', os.path.join(os.getcwd(), 'tests', '__init__.py')).load_module()
parser.parse_args()
record = open(os.environ['PYV_OUT'], 'w')
# A crash prints the Python stack of every thread; the seed of the suite's
# random choices (sizes, QP caps, access flags) makes a run repeatable.
faulthandler.enable()
seed = int(os.environ.get('PYV_SEED') or random.SystemRandom().randrange(1 << 32))
random.seed(seed)
print('PYVERBS seed %d' % seed, flush=True)
record.write('#seed %d\n' % seed)

SLOW_S = 3.0


def name_of(test):
    parts = test.id().split('.')
    if len(parts) >= 3 and parts[0] == 'tests':
        return parts[1] + '.' + parts[-1]
    # A class or module fixture that failed: "setUpClass (tests.mod.Class)".
    desc = str(test)
    mod = desc.split('(')[-1].rstrip(')').split('.')
    return (mod[1] if len(mod) > 1 else 'unknown') + '.' + desc.split(' ')[0]


class Recorder(unittest.TextTestResult):
    # The tests that take longest, for the log: where a slow run's time went.
    def startTest(self, test):
        self._t0 = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        took = time.monotonic() - self._t0
        if took >= SLOW_S:
            print('PYVERBS slow %s %.1f s' % (name_of(test), took), flush=True)
        super().stopTest(test)

    def _note(self, test, status, why=''):
        record.write('%s %s %s\n' % (name_of(test), status, ' '.join(str(why).split())))
        record.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self._note(test, 'ok')

    # A failure's exception goes with it: the report at the end of the run
    # is lost when the process dies first.
    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._note(test, 'FAIL', '%s: %s' % (err[0].__name__, err[1]))

    def addError(self, test, err):
        super().addError(test, err)
        self._note(test, 'ERROR', '%s: %s' % (err[0].__name__, err[1]))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._note(test, 'skipped', reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._note(test, 'ok')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._note(test, 'FAIL')


unittest.main(module=tests, testRunner=unittest.TextTestRunner(resultclass=Recorder, verbosity=2), exit=False)
# Only a suite that ran to its end writes this: a crash leaves it out.
record.write('#end\n')
record.close()
