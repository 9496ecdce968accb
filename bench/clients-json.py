#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The saved configurations of make bench-clients (tests/debian/bench-clients.sh).

A big configuration is the client's own save of a small one, multiplied:
the guest restores a seed of one LUN (one nvmet subsystem) with the
client, saves it with the client, and this script copies each object of
that save N times under new names. Every attribute the client saves on
this kernel is in the big file with the value the client wrote, so its
restore does what restoring a real saved setup does.

  clients-json.py lio-seed OUT
      rtslib's format: one rd_mcp backstore (1 MiB, nullio: no pages) and
      one loopback (tcm_loop) target whose TPG has it as LUN 0.
  clients-json.py lio SAVED N OUT
      SAVED (targetcli saveconfig of the seed) with N backstores
      bench00000.. and N LUNs 0..N-1 of the one TPG, one per backstore.
  clients-json.py nvmet-seed NSFILE OUT
      nvmetcli's format: one host, one subsystem allowing it with one
      namespace on NSFILE, one port linking it: TCP on 127.0.0.1:4420
      (Debian's kernel has no nvme-loop).
  clients-json.py nvmet SAVED M DIR OUT
      SAVED (nvmetcli save of the seed) with M subsystems, each with its
      namespace on DIR/nsNNNNN.img, made here as sparse 1 MiB files; the
      port links them all.
  clients-json.py same A B
      Exit 0 when the two saves hold the same configuration (lists
      compared as sets: their order is the directory's, which a restore
      may change); else print a diff and exit 1.
"""

import copy
import difflib
import json
import os
import sys

SO_NAME = "bench%05d"
SUBSYS_NQN = "nqn.2014-08.org.example.cng:bench-%05d"
HOST_NQN = "nqn.2014-08.org.example.cng:bench-host"
LOOP_WWN = "naa.5001405c0ffee000"


def uuid_of(kind, i):
    """A fixed UUID-shaped string per object, so that reruns compare."""
    return "c%07x-0000-4000-8000-%012x" % (kind, i)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def dump(obj, path):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def lio_seed(out):
    dump({
        "fabric_modules": [],
        "storage_objects": [{
            "name": SO_NAME % 0,
            "plugin": "ramdisk",
            "size": 1 << 20,
            "nullio": True,
            "wwn": uuid_of(1, 0),
        }],
        "targets": [{
            "fabric": "loopback",
            "wwn": LOOP_WWN,
            "tpgs": [{
                "tag": 1,
                "luns": [{
                    "index": 0,
                    "storage_object": "/backstores/ramdisk/" + SO_NAME % 0,
                }],
            }],
        }],
    }, out)


def one(items, what):
    if len(items) != 1:
        sys.exit("clients-json: the seed's save has %d %s, not 1" %
                 (len(items), what))
    return items[0]


def lio(saved, n, out):
    cfg = load(saved)
    so = one(cfg["storage_objects"], "storage objects")
    target = one(cfg["targets"], "targets")
    tpg = one(target["tpgs"], "TPGs")
    lun = one(tpg["luns"], "LUNs")
    sos, luns = [], []
    for i in range(n):
        s = copy.deepcopy(so)
        s["name"] = SO_NAME % i
        s["wwn"] = uuid_of(1, i)
        sos.append(s)
        l = copy.deepcopy(lun)
        l["index"] = i
        l["storage_object"] = "/backstores/%s/%s" % (so["plugin"], s["name"])
        # The LUN's link name; rtslib makes a random one per LUN.
        l["alias"] = "%010x" % (0xb000000000 + i)
        luns.append(l)
    cfg["storage_objects"] = sos
    tpg["luns"] = luns
    dump(cfg, out)


def nvmet_seed(nsfile, out):
    dump({
        "hosts": [{"nqn": HOST_NQN}],
        "subsystems": [{
            "nqn": SUBSYS_NQN % 0,
            "attr": {"allow_any_host": "0"},
            "allowed_hosts": [HOST_NQN],
            "namespaces": [{
                "nsid": 1,
                "enable": 1,
                "device": {"path": nsfile},
            }],
        }],
        "ports": [{
            "portid": 1,
            "addr": {"trtype": "tcp", "adrfam": "ipv4",
                     "traddr": "127.0.0.1", "trsvcid": "4420"},
            "subsystems": [SUBSYS_NQN % 0],
        }],
    }, out)


def nvmet(saved, m, nsdir, out):
    cfg = load(saved)
    sub = one(cfg["subsystems"], "subsystems")
    port = one(cfg["ports"], "ports")
    ns = one(sub["namespaces"], "namespaces")
    subs = []
    for i in range(m):
        path = os.path.join(nsdir, "ns%05d.img" % i)
        with open(path, "a", encoding="utf-8") as f:
            f.truncate(1 << 20)
        s = copy.deepcopy(sub)
        s["nqn"] = SUBSYS_NQN % i
        if "serial" in s.get("attr", {}):
            s["attr"]["serial"] = "cng%013x" % i
        n = copy.deepcopy(ns)
        n["device"]["path"] = path
        if "uuid" in n["device"]:
            n["device"]["uuid"] = uuid_of(2, i)
        if "nguid" in n["device"]:
            n["device"]["nguid"] = uuid_of(3, i)
        s["namespaces"] = [n]
        subs.append(s)
    cfg["subsystems"] = subs
    port["subsystems"] = [s["nqn"] for s in subs]
    dump(cfg, out)


def canonical(obj):
    """obj with every list sorted by its items' own canonical JSON."""
    if isinstance(obj, dict):
        return {k: canonical(v) for k, v in obj.items()}
    if isinstance(obj, list):
        items = [canonical(v) for v in obj]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    return obj


def same(a, b):
    ca, cb = canonical(load(a)), canonical(load(b))
    if ca == cb:
        return 0
    la = json.dumps(ca, indent=1, sort_keys=True).splitlines()
    lb = json.dumps(cb, indent=1, sort_keys=True).splitlines()
    diff = list(difflib.unified_diff(la, lb, a, b, lineterm=""))
    print("\n".join(diff[:60]))
    if len(diff) > 60:
        print("... %d more diff lines" % (len(diff) - 60))
    return 1


def main(argv):
    usage = __doc__.split("\n\n")[2]
    if len(argv) < 2:
        sys.exit(usage)
    cmd, args = argv[1], argv[2:]
    if cmd == "lio-seed" and len(args) == 1:
        lio_seed(args[0])
    elif cmd == "lio" and len(args) == 3:
        lio(args[0], int(args[1]), args[2])
    elif cmd == "nvmet-seed" and len(args) == 2:
        nvmet_seed(args[0], args[1])
    elif cmd == "nvmet" and len(args) == 4:
        nvmet(args[0], int(args[1]), args[2], args[3])
    elif cmd == "same" and len(args) == 2:
        return same(args[0], args[1])
    else:
        sys.exit(usage)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
