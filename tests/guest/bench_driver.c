// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark driver, built by the guest programs' rule of the Makefile
 * into /tests/bin/bench_driver, for bench_quick.sh. Its source is bench/'s.
 */
#include "../../bench/cng_bench_driver.c"
