#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""targetcli restoreconfig's restore, without its quadratic lookup.

For make bench-clients with BENCH_CLIENTS_LIO_RESTORE=memo
(tests/debian/bench-clients.sh). rtslib's LUN.setup finds each LUN's
backstore by going through StorageObject.all(), a glob of every HBA
directory under target/core (rtslib gives each backstore its own HBA):
a restore of N LUNs reads N * N directories, which under TCG takes about
40 minutes at 1,000 LUNs and hours at 4,000, on either configfs module.

This runs the restore targetcli's restoreconfig runs
(RTSRoot.restore_from_file, with clear_existing off as targetcli's
default), with that one lookup answered from a single glob made when the
first LUN is set up, after every backstore was made. The same
directories, attribute writes and links reach configfs in the same
order; only the N * N reads are left out. targetcli's refresh of its own
UI after the restore is not run (its start on the full tree is timed as
its own step).

  clients-restore.py FILE

Prints what targetcli prints: the recoverable errors ("..., skipped"),
exit 1 if there are any, or "Configuration restored from FILE".
"""

import sys

from rtslib_fb import root, target, tcm


def memoise_lun_lookup():
    """StorageObject.all() answered once per run of LUN setups."""
    orig_all = tcm.StorageObject.all.__func__
    orig_setup = target.LUN.setup.__func__
    state = {"in_lun_setup": False, "found": None}

    def all_memo(cls):
        if not state["in_lun_setup"]:
            state["found"] = None
            return orig_all(cls)
        if state["found"] is None:
            state["found"] = list(orig_all(cls))
        return iter(state["found"])

    def setup_memo(cls, tpg_obj, lun, err_func):
        state["in_lun_setup"] = True
        try:
            return orig_setup(cls, tpg_obj, lun, err_func)
        finally:
            state["in_lun_setup"] = False

    tcm.StorageObject.all = classmethod(all_memo)
    target.LUN.setup = classmethod(setup_memo)


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    memoise_lun_lookup()
    errors = root.RTSRoot().restore_from_file(argv[1], False)
    if errors:
        print("Configuration restored, %d recoverable errors:\n%s" %
              (len(errors), "\n".join(errors)))
        return 1
    print("Configuration restored from %s" % argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
