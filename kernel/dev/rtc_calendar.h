/*
 * rtc_calendar.h -- turning what the CMOS clock says into seconds since
 * 1970-01-01 00:00:00 UTC. Pure arithmetic, no I/O: the host unit tests
 * (tests/unit/test_rtc.c) compile rtc_calendar.c as it is.
 */
#ifndef DEV_RTC_CALENDAR_H
#define DEV_RTC_CALENDAR_H

#include <stdbool.h>
#include <stdint.h>

/* The clock's registers as read (BCD or binary, 12- or 24-hour). */
struct rtc_raw {
	uint8_t second, minute, hour, day, month, year, century;
	uint8_t status_b; /* RTC_B_BINARY, RTC_B_24_HOUR */
};

#define RTC_B_24_HOUR 0x02
#define RTC_B_BINARY 0x04
#define RTC_HOUR_PM 0x80 /* in the hour register, 12-hour mode */

/* A civil date and time, UTC. */
struct rtc_time {
	unsigned year;   /* 1970.. */
	unsigned month;  /* 1..12 */
	unsigned day;    /* 1..days in the month */
	unsigned hour;   /* 0..23 */
	unsigned minute; /* 0..59 */
	unsigned second; /* 0..59 */
};

/* rtc_leap_year -- whether `year` has a 29 February (Gregorian) */
bool rtc_leap_year(unsigned year);

/* rtc_days_in_month -- days of `month` (1..12) in `year` */
unsigned rtc_days_in_month(unsigned year, unsigned month);

/* rtc_decode -- registers to a date: BCD or binary, 12- or 24-hour, the
 * century register when it is plausible (19..99), else 1970..2069 from the
 * two-digit year; 0 or -ERR_INVAL for a field out of range or bad BCD */
int rtc_decode(const struct rtc_raw *raw, struct rtc_time *t);

/* rtc_unix_seconds -- seconds from 1970-01-01 00:00:00 UTC to a valid date (year >= 1970) */
uint64_t rtc_unix_seconds(const struct rtc_time *t);

#endif
