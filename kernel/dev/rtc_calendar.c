/*
 * rtc_calendar.c -- the date arithmetic behind the wall clock (rtc.c).
 *
 * Days before a year count the leap years before it with the Gregorian
 * rule (every 4th year, except centuries, except every 4th century), so
 * the result is exact for any year, not only 1901..2099.
 */
#include <stdbool.h>
#include <stdint.h>

#include "dev/rtc_calendar.h"
#include "ferrite/errors.h"

#define EPOCH_YEAR 1970
#define SECONDS_PER_DAY 86400ull

/* rtc_leap_year -- whether `year` has a 29 February (Gregorian) */
bool rtc_leap_year(unsigned year)
{
	return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

/* rtc_days_in_month -- days of `month` (1..12) in `year` */
unsigned rtc_days_in_month(unsigned year, unsigned month)
{
	static const uint8_t days[12] = { 31, 28, 31, 30, 31, 30,
					  31, 31, 30, 31, 30, 31 };

	if (month == 2 && rtc_leap_year(year))
		return 29;
	return days[month - 1];
}

/* leap_years_through -- leap years in [1, year] */
static uint64_t leap_years_through(unsigned year)
{
	return year / 4 - year / 100 + year / 400;
}

/* days_before_year -- days from 1970-01-01 to 1 January of `year` */
static uint64_t days_before_year(unsigned year)
{
	return 365ull * (year - EPOCH_YEAR) + leap_years_through(year - 1) -
	       leap_years_through(EPOCH_YEAR - 1);
}

/* rtc_unix_seconds -- seconds from 1970-01-01 00:00:00 UTC to a valid date */
uint64_t rtc_unix_seconds(const struct rtc_time *t)
{
	uint64_t days = days_before_year(t->year);

	for (unsigned m = 1; m < t->month; m++)
		days += rtc_days_in_month(t->year, m);
	days += t->day - 1;
	return days * SECONDS_PER_DAY + t->hour * 3600u + t->minute * 60u +
	       t->second;
}

/* from_bcd -- a BCD byte as a number; false for a digit above 9 */
static bool from_bcd(uint8_t v, unsigned *out)
{
	if ((v & 0x0f) > 9 || (v >> 4) > 9)
		return false;
	*out = (v >> 4) * 10u + (v & 0x0f);
	return true;
}

/* register_value -- a register in the clock's number format */
static bool register_value(uint8_t v, bool binary, unsigned *out)
{
	if (binary) {
		*out = v;
		return true;
	}
	return from_bcd(v, out);
}

/* decode_hour -- the hour register, in 12- or 24-hour mode, as 0..23 */
static bool decode_hour(uint8_t v, uint8_t status_b, unsigned *hour)
{
	bool pm = !(status_b & RTC_B_24_HOUR) && (v & RTC_HOUR_PM);

	if (!(status_b & RTC_B_24_HOUR))
		v &= (uint8_t)~RTC_HOUR_PM;
	if (!register_value(v, status_b & RTC_B_BINARY, hour))
		return false;
	if (status_b & RTC_B_24_HOUR)
		return *hour < 24;
	if (*hour < 1 || *hour > 12)
		return false;
	*hour = *hour % 12 + (pm ? 12 : 0); /* 12 AM is 0, 12 PM is 12 */
	return true;
}

/* rtc_decode -- registers to a date; 0 or -ERR_INVAL */
int rtc_decode(const struct rtc_raw *raw, struct rtc_time *t)
{
	bool binary = raw->status_b & RTC_B_BINARY;
	unsigned year, century;

	if (!register_value(raw->second, binary, &t->second) ||
	    !register_value(raw->minute, binary, &t->minute) ||
	    !decode_hour(raw->hour, raw->status_b, &t->hour) ||
	    !register_value(raw->day, binary, &t->day) ||
	    !register_value(raw->month, binary, &t->month) ||
	    !register_value(raw->year, binary, &year) || year > 99)
		return -ERR_INVAL;
	if (register_value(raw->century, binary, &century) && century >= 19 &&
	    century <= 99)
		t->year = century * 100 + year;
	else
		t->year = (year >= EPOCH_YEAR % 100 ? 1900 : 2000) + year;
	if (t->year < EPOCH_YEAR || t->month < 1 || t->month > 12 ||
	    t->day < 1 || t->day > rtc_days_in_month(t->year, t->month) ||
	    t->minute > 59 || t->second > 59)
		return -ERR_INVAL;
	return 0;
}
