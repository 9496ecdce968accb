// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of more than one core, run in the guest: one process per
 * directory given does the same operations at the same time as the
 * others, phase by phase, and the figure of a phase is the operations of
 * all processes over its wall time (from the start given to every
 * process to the last one's end).
 *
 * Usage: cng_bench_smp [-n N] [-C CYCLES] [-s SYSTEM] [-r ROUND] [-a NAME]
 *                      [-c CASE] [-t] DIR...
 *   -n N       items each process makes (default 1000)
 *   -C CYCLES  the phases, all of them, this many times over (default 1):
 *              a figure is then over the time of every cycle's phase
 *   -s SYSTEM  label of the rows: stock, ours or tmpfs (default stock)
 *   -r ROUND   label of the rows (default 1)
 *   -a NAME    the attribute each item has (default a0); tmpfs: made
 *   -c CASE    label of the rows: where the directories are (default dirs)
 *   -t         DIR is a plain file system: make the attribute file
 *
 * Process k works on DIR_k/k<k>i<i>, i < N; two processes may share a
 * directory. The phases, each over every item of the process:
 *
 *   spin        no system call: 2,000 multiply-adds in user space, the
 *               host's own measure (two processes reach 2.00 over one
 *               only when the host gives each vCPU a core)
 *   mkdir       mkdir
 *   stat_cold   stat, after dentries and inodes are dropped (drop_caches)
 *   stat_warm   stat again
 *   read        open, read and close of the attribute
 *   write       open, write and close of the attribute
 *   rmdir       rmdir
 *
 * Rows (bench/README.md): system,round,smp_CASE,N,0,PHASE,PROCS,OPS_PER_S;
 * then, per phase, where its time went: PHASE_oncpu_x1000, the processes'
 * CPU time (user and system, their own clocks) over their own wall time
 * of the phase, x 1000 (1000: never off the CPU), and PHASE_cpu_ns, the
 * CPU time per operation. A phase that failed in any process in any
 * cycle has no row.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CNG_SMP_PATH_MAX	512
#define CNG_SMP_MAX_PROCS	16

enum cng_smp_phase {
	CNG_SMP_SPIN,
	CNG_SMP_MKDIR,
	CNG_SMP_STAT_COLD,
	CNG_SMP_STAT_WARM,
	CNG_SMP_READ,
	CNG_SMP_WRITE,
	CNG_SMP_RMDIR,
	CNG_SMP_PHASES,
};

static const char * const cng_smp_phase_names[CNG_SMP_PHASES] = {
	"spin", "mkdir", "stat_cold", "stat_warm", "read", "write", "rmdir",
};

/*
 * Where the spin phase's result goes: a global the compiler must assume
 * is read elsewhere, so that it keeps the loop.
 */
unsigned long long cng_smp_sink;

static struct {
	unsigned int n;
	unsigned int cycles;
	unsigned int round;
	const char *system;
	const char *attr;
	const char *label;
	bool plain;
} opts = { .n = 1000, .cycles = 1, .round = 1, .system = "stock", .attr = "a0",
	   .label = "dirs" };

/*
 * What a worker tells the parent at its end: its own wall and CPU time in
 * each phase, summed over the cycles. One write of it is atomic (it is
 * far below PIPE_BUF), so the workers may share one pipe.
 */
struct cng_smp_times {
	unsigned long long wall_ns[CNG_SMP_PHASES];
	unsigned long long cpu_ns[CNG_SMP_PHASES];
};

static unsigned long long cng_smp_clock(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static unsigned long long cng_smp_now(void)
{
	return cng_smp_clock(CLOCK_MONOTONIC);
}

static void cng_smp_path(char *buf, const char *dir, unsigned int k,
			 unsigned int i, const char *leaf)
{
	snprintf(buf, CNG_SMP_PATH_MAX, "%s/k%ui%06u%s%s", dir, k, i,
		 leaf ? "/" : "", leaf ? leaf : "");
}

static int cng_smp_rw(const char *path, bool do_write)
{
	char buf[64];
	int fd = open(path, do_write ? O_WRONLY : O_RDONLY);
	int ret = 0;

	if (fd < 0)
		return -1;
	if (do_write)
		ret = write(fd, "1\n", 2) == 2 ? 0 : -1;
	else
		ret = read(fd, buf, sizeof(buf)) < 0 ? -1 : 0;
	if (close(fd))
		ret = -1;
	return ret;
}

/* One phase of process K over its N items in DIR; 0, or -1 (errno). */
static int cng_smp_phase(enum cng_smp_phase phase, const char *dir,
			 unsigned int k)
{
	char path[CNG_SMP_PATH_MAX];
	struct stat st;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < opts.n && !ret; i++) {
		switch (phase) {
		case CNG_SMP_SPIN: {
			unsigned long long x = i + k;
			unsigned int j;

			for (j = 0; j < 2000; j++)
				x = x * 6364136223846793005ull + 1442695040888963407ull;
			cng_smp_sink = x;
			break;
		}
		case CNG_SMP_MKDIR:
			cng_smp_path(path, dir, k, i, NULL);
			ret = mkdir(path, 0755);
			if (!ret && opts.plain) {
				int fd;

				cng_smp_path(path, dir, k, i, opts.attr);
				fd = open(path, O_CREAT | O_WRONLY, 0644);
				ret = fd < 0 ? -1 : close(fd);
			}
			break;
		case CNG_SMP_STAT_COLD:
		case CNG_SMP_STAT_WARM:
			cng_smp_path(path, dir, k, i, NULL);
			ret = stat(path, &st);
			break;
		case CNG_SMP_READ:
		case CNG_SMP_WRITE:
			cng_smp_path(path, dir, k, i, opts.attr);
			ret = cng_smp_rw(path, phase == CNG_SMP_WRITE);
			break;
		case CNG_SMP_RMDIR:
			if (opts.plain) {
				cng_smp_path(path, dir, k, i, opts.attr);
				ret = unlink(path);
				if (ret)
					break;
			}
			cng_smp_path(path, dir, k, i, NULL);
			ret = rmdir(path);
			break;
		default:
			errno = EINVAL;
			ret = -1;
		}
	}
	if (ret)
		fprintf(stderr, "cng_bench_smp: %s of %s: %s\n",
			cng_smp_phase_names[phase], path, strerror(errno));
	return ret;
}

/*
 * A worker: waits for a byte on GO before each phase, does it, and
 * answers a byte on DONE ('+' done, '-' failed). After a failure it
 * goes on answering '-', so that the parent never waits for nothing. At
 * its end it writes its times to TIMES.
 */
static void cng_smp_worker(const char *dir, unsigned int k, int go, int done,
			   int times)
{
	struct cng_smp_times t;
	unsigned long long wall0, cpu0;
	bool failed = false;
	unsigned int i;
	int phase;
	char c;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < opts.cycles * CNG_SMP_PHASES; i++) {
		phase = i % CNG_SMP_PHASES;
		if (read(go, &c, 1) != 1)
			_exit(1);
		wall0 = cng_smp_now();
		cpu0 = cng_smp_clock(CLOCK_PROCESS_CPUTIME_ID);
		if (!failed && cng_smp_phase(phase, dir, k))
			failed = true;
		t.cpu_ns[phase] += cng_smp_clock(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
		t.wall_ns[phase] += cng_smp_now() - wall0;
		c = failed ? '-' : '+';
		if (write(done, &c, 1) != 1)
			_exit(1);
	}
	if (write(times, &t, sizeof(t)) != sizeof(t))
		_exit(1);
	_exit(failed);
}

static int cng_smp_drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, "2\n", 2) == 2 ? 0 : -1;
	close(fd);
	return ret;
}

static void cng_smp_usage(void)
{
	fprintf(stderr,
		"usage: cng_bench_smp [-n N] [-s SYSTEM] [-r ROUND] [-a NAME] [-c CASE] [-t] DIR...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long phase_ns[CNG_SMP_PHASES] = { 0 };
	bool phase_failed[CNG_SMP_PHASES] = { false };
	struct cng_smp_times t, sum;
	int go[CNG_SMP_MAX_PROCS], done[2], times[2], pipefd[2];
	unsigned int procs, k, cycle, failed = 0;
	int opt, phase, status;
	char c;

	while ((opt = getopt(argc, argv, "n:C:s:r:a:c:t")) != -1) {
		switch (opt) {
		case 'n':
			opts.n = strtoul(optarg, NULL, 0);
			break;
		case 'C':
			opts.cycles = strtoul(optarg, NULL, 0);
			break;
		case 's':
			opts.system = optarg;
			break;
		case 'r':
			opts.round = strtoul(optarg, NULL, 0);
			break;
		case 'a':
			opts.attr = optarg;
			break;
		case 'c':
			opts.label = optarg;
			break;
		case 't':
			opts.plain = true;
			break;
		default:
			cng_smp_usage();
		}
	}
	procs = argc - optind;
	if (!procs || procs > CNG_SMP_MAX_PROCS || !opts.n || !opts.cycles)
		cng_smp_usage();
	memset(&sum, 0, sizeof(sum));
	if (pipe(done) || pipe(times))
		return 1;
	for (k = 0; k < procs; k++) {
		if (pipe(pipefd))
			return 1;
		switch (fork()) {
		case -1:
			perror("cng_bench_smp: fork");
			return 1;
		case 0:
			close(pipefd[1]);
			close(done[0]);
			close(times[0]);
			cng_smp_worker(argv[optind + k], k, pipefd[0], done[1],
				       times[1]);
			break;
		}
		close(pipefd[0]);
		go[k] = pipefd[1];
	}
	close(done[1]);
	close(times[1]);

	for (cycle = 0; cycle < opts.cycles; cycle++) {
		for (phase = 0; phase < CNG_SMP_PHASES; phase++) {
			unsigned long long t0;

			if (phase == CNG_SMP_STAT_COLD && cng_smp_drop_caches())
				perror("cng_bench_smp: drop_caches");
			t0 = cng_smp_now();
			c = 'g';
			for (k = 0; k < procs; k++)
				if (write(go[k], &c, 1) != 1)
					return 1;
			for (k = 0; k < procs; k++) {
				if (read(done[0], &c, 1) != 1)
					return 1;
				if (c != '+')
					phase_failed[phase] = true;
			}
			phase_ns[phase] += cng_smp_now() - t0;
		}
	}
	for (k = 0; k < procs; k++) {
		if (read(times[0], &t, sizeof(t)) != sizeof(t)) {
			fprintf(stderr, "cng_bench_smp: a worker's times are missing\n");
			return 1;
		}
		for (phase = 0; phase < CNG_SMP_PHASES; phase++) {
			sum.wall_ns[phase] += t.wall_ns[phase];
			sum.cpu_ns[phase] += t.cpu_ns[phase];
		}
	}
	for (phase = 0; phase < CNG_SMP_PHASES; phase++) {
		double ops = (double)procs * opts.n * opts.cycles;

		if (phase_failed[phase] || !sum.wall_ns[phase])
			continue;
		printf("%s,%u,smp_%s,%u,0,%s,%u,%.0f\n", opts.system,
		       opts.round, opts.label, opts.n,
		       cng_smp_phase_names[phase], procs,
		       ops * 1e9 / (double)phase_ns[phase]);
		printf("%s,%u,smp_%s,%u,0,%s_oncpu_x1000,%u,%.0f\n",
		       opts.system, opts.round, opts.label, opts.n,
		       cng_smp_phase_names[phase], procs,
		       1000.0 * (double)sum.cpu_ns[phase] /
		       (double)sum.wall_ns[phase]);
		printf("%s,%u,smp_%s,%u,0,%s_cpu_ns,%u,%.0f\n", opts.system,
		       opts.round, opts.label, opts.n,
		       cng_smp_phase_names[phase], procs,
		       (double)sum.cpu_ns[phase] / ops);
	}
	for (k = 0; k < procs; k++) {
		close(go[k]);
		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed++;
	}
	fflush(stdout);
	return failed ? 1 : 0;
}
