# SPDX-License-Identifier: GPL-2.0
#
# results.csv of scripts/bench-fakenbd.sh (client,round,case,kib_s,iops)
# to Markdown: per case, the median over rounds of each client's figure
# (MiB/s for sequential cases, IOPS for random ones) and of the ratio
# fakenbd / nbd.ko taken within each round, with [min-max] when rounds
# differ; then every round's ratio. A case's name ends in -cN: N
# connections. Variables: date, rounds, runtime, size_mb, max_kb (the
# request size both clients were held to, empty for their own), aa (1:
# an A/A run, the "fakenbd" rows a second nbd.ko disk, named "nbd.ko B").

function value(kib, iops, c)
{
	return c ~ /^seq/ ? kib / 1024 : iops
}

# med(A, N): the median of A[1..N], which it sorts.
function med(a, n,    i, j, t)
{
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

# cell(A, N, FMT): "median [min-max]", or the median alone.
function cell(a, n, fmt,    m, s)
{
	m = med(a, n)
	s = sprintf(fmt, m)
	if (a[1] != a[n])
		s = s sprintf(" [" fmt "-" fmt "]", a[1], a[n])
	return s
}

NR == 1 { next }
{
	if (!($3 in seen)) {
		seen[$3] = 1
		order[++ncases] = $3
	}
	v[$1, $2, $3] = value($4, $5, $3)
	if (!(($2) in rseen)) {
		rseen[$2] = 1
		rlist[++nr] = $2
	}
}

END {
	a = aa == 1 ? "nbd.ko B" : "fakenbd"
	print "# " a " / nbd.ko, " date
	if (aa == 1) {
		print ""
		print "**A/A run:** both sides are nbd.ko disks on one export; " \
		      "the ratios show"
		print "how far two equal disks differ here, not a driver's speed."
	}
	print ""
	printf "One guest boot, both clients on one export of nbd-server " \
	       "(%d MiB file on tmpfs, 127.0.0.1),\n", size_mb
	printf "fio with direct I/O and libaio, %d s per run after 1 s of " \
	       "ramp, %d rounds,\n", runtime, rounds
	print "the first client alternating. Sequential cases in MiB/s, " \
	      "random ones in IOPS;"
	print "ratio = " a " / nbd.ko within a round. Goal (issues 18, " \
	      "36): >= 1 in the median, never below 0.8."
	if (max_kb != "")
		printf "Requests of %s KiB at most on both disks " \
		       "(max_sectors_kb).\n", max_kb
	else
		print "Each driver's own request size (fakenbd 1 MiB)."
	print "A case ending in -cN: N connections, and one fio job per " \
	      "connection in use"
	print "(one per vCPU at most), each at the case's depth."
	print ""
	print "| case | unit | " a " | nbd.ko | " a " / nbd.ko | verdict |"
	print "|---|---|---:|---:|---:|---|"
	for (i = 1; i <= ncases; i++) {
		c = order[i]
		nf = nn = nq = 0
		split("", f); split("", n); split("", q)
		for (j = 1; j <= nr; j++) {
			r = rlist[j]
			if ((("fakenbd", r, c) in v))
				f[++nf] = v["fakenbd", r, c]
			if ((("nbd", r, c) in v))
				n[++nn] = v["nbd", r, c]
			if ((("fakenbd", r, c) in v) && (("nbd", r, c) in v) &&
			    v["nbd", r, c] > 0)
				q[++nq] = v["fakenbd", r, c] / v["nbd", r, c]
		}
		unit = c ~ /^seq/ ? "MiB/s" : "IOPS"
		fmt = c ~ /^seq/ ? "%.1f" : "%.0f"
		if (!nq) {
			printf "| %s | %s | - | - | - | no figures |\n", c, unit
			continue
		}
		m = med(q, nq)
		verdict = m >= 1 ? "met" : m >= 0.8 ? "below 1" : "**below 0.8**"
		if (m >= 0.8 && q[1] < 0.8)
			verdict = verdict ", a round below 0.8"
		printf "| %s | %s | %s | %s | %s | %s |\n", c, unit,
			cell(f, nf, fmt), cell(n, nn, fmt), cell(q, nq, "%.2f"),
			verdict
	}
	print ""
	print "Each round's " a " / nbd.ko:"
	print ""
	line = "| case |"
	sep = "|---|"
	for (j = 1; j <= nr; j++) {
		line = line " " rlist[j] " |"
		sep = sep "---:|"
	}
	print line
	print sep
	for (i = 1; i <= ncases; i++) {
		c = order[i]
		line = "| " c " |"
		for (j = 1; j <= nr; j++) {
			r = rlist[j]
			if ((("fakenbd", r, c) in v) && (("nbd", r, c) in v) &&
			    v["nbd", r, c] > 0)
				line = line sprintf(" %.2f |",
					v["fakenbd", r, c] / v["nbd", r, c])
			else
				line = line " - |"
		}
		print line
	}
	print ""
}
