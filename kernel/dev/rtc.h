/*
 * rtc.h -- the wall clock: the PC's CMOS real-time clock.
 */
#ifndef DEV_RTC_H
#define DEV_RTC_H

#include <stdint.h>

/* rtc_wall_ns -- nanoseconds since 1970-01-01 00:00:00 UTC by the RTC
 * (whole seconds); 0 when the clock reads nonsense */
uint64_t rtc_wall_ns(void);

#endif
