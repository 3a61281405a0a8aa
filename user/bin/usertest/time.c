/*
 * time.c -- time and the system's figures: the monotonic and wall clocks,
 * a bad clock, yielding, sleeping until a deadline and for a while; and
 * sysinfo's figures, consistent with each other and with the clock.
 */
#include "usertest.h"

#define NS_PER_MS 1000000ull

/* test_time -- clocks, sleeping, yielding */
void test_time(void)
{
	uint64_t t0, t1, deadline;

	t0 = (uint64_t)OK(fe_time(FE_CLOCK_MONOTONIC));
	t1 = (uint64_t)OK(fe_time(FE_CLOCK_MONOTONIC));
	CHECK(t1 >= t0);
	CHECK(fe_time(FE_CLOCK_WALL) > 1600000000ll * 1000000000ll);
	ERR(fe_time(7), ERR_INVAL);

	EQ(fe_yield(), 0);
	deadline = fe_now() + 20 * NS_PER_MS;
	EQ(fe_sleep_until(deadline), 0);
	CHECK(fe_now() >= deadline);
	EQ(fe_sleep_until(0), 0);
	EQ(fe_sleep_ms(1), 0);
	CHECK(fe_now() > t1);
}

/* test_sysinfo -- the figures are consistent */
void test_sysinfo(void)
{
	struct fe_sysinfo si = sysinfo_now();

	CHECK(si.heap_size > 0);
	CHECK(si.heap_used <= si.heap_size);
	CHECK(si.heap_free <= si.heap_size - si.heap_used);
	CHECK(si.objects > 0);
	CHECK(si.names > 0);
	CHECK(si.power_ons >= 1);
	CHECK(si.processes >= 1);
	CHECK(si.uptime_ns > 0 && si.uptime_ns <= fe_now());
	CHECK(si.log_used <= si.log_size);
	CHECK(si.log_high_water <= si.log_size);
}
