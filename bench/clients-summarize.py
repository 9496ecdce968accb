#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""results.csv of make bench-clients to summary.md (bench/README.md).

Usage: clients-summarize.py CSV SYSTEMS ROUNDS LUNS SUBSYS [DATE]
  SYSTEMS "stock ours", ROUNDS the rounds run, LUNS the LIO sizes ("20"),
  SUBSYS nvmet's (0: none), DATE for the title.

Prints the summary on stdout. Exits 1, naming each on stderr, when a step
of a run lacks its figure on a system: every step of every run must have
been timed on each module in each round.
"""

import csv
import sys

# The steps both trees share: the walks, then our tool's round trip.
WALKS_AND_TOOL = [
    ("tree_cold", "configfs tree, cold"),
    ("tree_warm", "configfs tree, warm"),
    ("ls_cold", "ls -lR, cold"),
    ("ls_warm", "ls -lR, warm"),
    ("cfs_save", "configfs save"),
    ("cfs_rm", "configfs rm --all"),
    ("cfs_restore", "configfs restore"),
]

STEPS = {
    "lio": [
        ("py_start", "python3 importing configshell (no configfs work)"),
        ("tcli_start_empty", "targetcli version, empty tree (its start)"),
        ("tcli_restore", "targetcli restoreconfig FILE"),
        ("tcli_start_full", "targetcli version, full tree (start + its walk)"),
        ("tcli_save", "targetcli saveconfig"),
    ] + WALKS_AND_TOOL + [
        ("tcli_save_after", "targetcli saveconfig, after our restore"),
        ("tcli_clear", "targetcli clearconfig"),
    ],
    "nvmet": [
        ("nv_start", "python3 importing nvmetcli's modules (no configfs "
         "work)"),
        ("nv_restore", "nvmetcli restore FILE"),
        ("nv_save", "nvmetcli save"),
    ] + WALKS_AND_TOOL + [
        ("nv_save_after", "nvmetcli save, after our restore"),
        ("nv_clear", "nvmetcli clear"),
    ],
}
UNIT = {"lio": "LUNs", "nvmet": "subsystems"}
# The step of each run that does no configfs work: what its ours/stock
# reads is the noise of that run's host, the same for every step.
NULL_STEP = {"lio": "py_start", "nvmet": "nv_start"}
# A step another may stand for (BENCH_CLIENTS_LIO_RESTORE=memo).
INSTEAD = {"tcli_restore": ("rts_restore_memo",
                            "rtslib's restore FILE, its lookup memoised")}


def steps_of(client, n, fig):
    """The steps of a run: a step with no figure at all is replaced by
    the one that stands for it, when that one has figures."""
    out = []
    for step, what in STEPS[client]:
        alt = INSTEAD.get(step)
        if alt and not any(k[2:5] == (client, n, step) for k in fig) and \
                any(k[2:5] == (client, n, alt[0]) for k in fig):
            step, what = alt
        out.append((step, what))
    return out


def median(v):
    v = sorted(v)
    k = len(v)
    return v[k // 2] if k % 2 else (v[k // 2 - 1] + v[k // 2]) / 2


def cell(v, fmt):
    """'median [min-max]', or the median alone."""
    if not v:
        return "-"
    s = fmt(median(v))
    if min(v) != max(v):
        s += " [%s-%s]" % (fmt(min(v)), fmt(max(v)))
    return s


def sec(ms):
    return "%.1f" % (ms / 1000) if ms >= 10000 else "%.2f" % (ms / 1000)


def ratio(x):
    return "%.2f" % x


def ratios(fig, rounds, client, n, step):
    """ours/stock of a step, one per round that has both figures."""
    q = []
    for r in range(1, rounds + 1):
        o = fig.get(("ours", r, client, n, step, "real"))
        st = fig.get(("stock", r, client, n, step, "real"))
        if o is not None and st:
            q.append(o / st)
    return q


def main(argv):
    if len(argv) < 6:
        sys.exit(__doc__)
    path, systems = argv[1], argv[2].split()
    rounds, luns, subsys = int(argv[3]), argv[4].split(), int(argv[5])
    date = argv[6] if len(argv) > 6 else ""
    fig = {}
    attrs = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            key = (row["system"], int(row["round"]), row["test"],
                   int(row["n"]), row["metric"], row["x"])
            fig[key] = float(row["value"])
            attrs[(row["test"], int(row["n"]))] = int(row["attrs"])

    runs = [("lio", int(n)) for n in luns]
    if subsys > 0:
        runs.append(("nvmet", subsys))
    missing = []
    for client, n in runs:
        for step, _ in steps_of(client, n, fig):
            for s in systems:
                for r in range(1, rounds + 1):
                    if (s, r, client, n, step, "real") not in fig:
                        missing.append("%s round %d %s %d: %s" %
                                       (s, r, client, n, step))

    out = []
    p = out.append
    p("# configfs clients at scale: ours against stock" +
      (", " + date if date else ""))
    p("")
    p("One Debian guest boot (TCG), the modules swapped between runs, "
      "rounds alternating which goes first;")
    p("%d round(s). Wall time in seconds, median over rounds "
      "[min-max]; ours/stock is taken" % rounds)
    p("within each round, then its median. user/sys: the command's own "
      "CPU seconds (with its children),")
    p("median; guest sys: the whole guest's kernel CPU time in the step "
      "(all its vCPUs, 10 ms ticks).")
    both = "ours" in systems and "stock" in systems
    for client, n in runs:
        p("")
        a = attrs.get((client, n), 0)
        p("## %s, %d %s (%d attribute files under %s/)" %
          (client, n, UNIT[client], a,
           "target" if client == "lio" else "nvmet"))
        p("")
        hdr = "| step |"
        sep = "|---|"
        for s in systems:
            hdr += " %s s | %s user / sys | %s guest sys |" % (s, s, s)
            sep += "---:|---:|---:|"
        if both:
            hdr += " ours/stock |"
            sep += "---:|"
        p(hdr)
        p(sep)
        q0 = ratios(fig, rounds, client, n, NULL_STEP[client]) if both else []
        noise = max(abs(x - 1) for x in q0) if q0 else None
        for step, what in steps_of(client, n, fig):
            line = "| %s (`%s`) |" % (what, step)
            for s in systems:
                def vals(x, s=s):
                    return [fig[(s, r, client, n, step, x)]
                            for r in range(1, rounds + 1)
                            if (s, r, client, n, step, x) in fig]
                real, user, syst = vals("real"), vals("user"), vals("sys")
                gsys = vals("cpu_sys")
                us = "-" if not user else "%s / %s" % (
                    sec(median(user)), sec(median(syst)))
                line += " %s | %s | %s |" % (
                    cell(real, sec), us,
                    "-" if not gsys else sec(median(gsys)))
            if both:
                q = ratios(fig, rounds, client, n, step)
                c = cell(q, ratio)
                if step == NULL_STEP[client]:
                    c += " (the noise)"
                elif q and median(q) > 1 + (noise or 0):
                    c += " **slower**"
                elif q and median(q) > 1:
                    c += " (within the noise)"
                line += " %s |" % c
            p(line)
        if noise is not None:
            p("")
            p("Noise: `%s` does no configfs work, yet its ours/stock read "
              "%s: a ratio within %.2f of 1 is no difference." %
              (NULL_STEP[client], cell(q0, ratio), noise))
    if missing:
        p("")
        p("Missing figures (a step that failed or never ran):")
        p("")
        for m in missing:
            p("- " + m)
    print("\n".join(out))
    for m in missing:
        print("clients-summarize: no figure: " + m, file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
