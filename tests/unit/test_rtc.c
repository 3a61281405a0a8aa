/*
 * test_rtc.c -- host unit tests of the wall clock's date arithmetic
 * (kernel/dev/rtc_calendar.c): register decoding (BCD, binary, 12- and
 * 24-hour, the century), leap years, and seconds since 1970 against values
 * computed independently (Python's datetime) and against a day-by-day walk
 * of the calendar.
 */
#include "check.h"

#include "libc_names.h"

#include "kernel/dev/rtc_calendar.h"

#include <ferrite/errors.h>

/* seconds -- rtc_unix_seconds of a date given field by field */
static uint64_t seconds(unsigned year, unsigned month, unsigned day,
			unsigned hour, unsigned minute, unsigned second)
{
	struct rtc_time t = { year, month, day, hour, minute, second };

	return rtc_unix_seconds(&t);
}

CHECK_TEST(unix_seconds_of_known_dates)
{
	CHECK_EQ(seconds(1970, 1, 1, 0, 0, 0), 0);
	CHECK_EQ(seconds(1970, 1, 1, 0, 0, 1), 1);
	CHECK_EQ(seconds(1999, 12, 31, 23, 59, 59), 946684799);
	CHECK_EQ(seconds(2000, 2, 29, 0, 0, 0), 951782400);
	CHECK_EQ(seconds(2000, 3, 1, 0, 0, 0), 951868800);
	CHECK_EQ(seconds(2024, 2, 29, 12, 34, 56), 1709210096);
	CHECK_EQ(seconds(2038, 1, 19, 3, 14, 8), 2147483648u);
	CHECK_EQ(seconds(2069, 12, 31, 23, 59, 59), 3155759999u);
	CHECK_EQ(seconds(2100, 2, 28, 23, 59, 59), 4107542399u);
	CHECK_EQ(seconds(2100, 3, 1, 0, 0, 0), 4107542400u);
}

CHECK_TEST(leap_years_follow_the_gregorian_rule)
{
	CHECK(rtc_leap_year(1972));
	CHECK(rtc_leap_year(2000)); /* every 400th */
	CHECK(rtc_leap_year(2024));
	CHECK(rtc_leap_year(2400));
	CHECK(!rtc_leap_year(1970));
	CHECK(!rtc_leap_year(1900)); /* a century */
	CHECK(!rtc_leap_year(2023));
	CHECK(!rtc_leap_year(2100));
	CHECK_EQ(rtc_days_in_month(2000, 2), 29);
	CHECK_EQ(rtc_days_in_month(2100, 2), 28);
	CHECK_EQ(rtc_days_in_month(2023, 4), 30);
	CHECK_EQ(rtc_days_in_month(2023, 12), 31);
}

/* month_length -- the days of a month, by the knuckle rule, for the walk */
static unsigned month_length(unsigned year, unsigned month)
{
	bool leap = year % 400 == 0 || (year % 4 == 0 && year % 100 != 0);

	if (month == 2)
		return leap ? 29 : 28;
	return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
}

CHECK_TEST(every_day_from_1970_to_2400_is_one_day_after_the_last)
{
	uint64_t expected = 0;
	unsigned mismatches = 0;

	for (unsigned y = 1970; y <= 2400; y++)
		for (unsigned m = 1; m <= 12; m++)
			for (unsigned d = 1; d <= month_length(y, m); d++) {
				if (seconds(y, m, d, 0, 0, 0) != expected &&
				    mismatches++ < 5)
					printf("    %u-%02u-%02u\n", y, m, d);
				expected += 86400;
			}
	CHECK_EQ(mismatches, 0);
}

/* decode -- rtc_decode of registers given one by one */
static int decode(uint8_t status_b, uint8_t century, uint8_t year,
		  uint8_t month, uint8_t day, uint8_t hour, uint8_t minute,
		  uint8_t second, struct rtc_time *t)
{
	struct rtc_raw raw = { second, minute, hour, day, month, year, century,
			       status_b };

	return rtc_decode(&raw, t);
}

CHECK_TEST(decode_bcd_24_hour)
{
	struct rtc_time t;

	CHECK_EQ(decode(RTC_B_24_HOUR, 0x20, 0x24, 0x02, 0x29, 0x23, 0x59,
			0x58, &t), 0);
	CHECK_EQ(t.year, 2024);
	CHECK_EQ(t.month, 2);
	CHECK_EQ(t.day, 29);
	CHECK_EQ(t.hour, 23);
	CHECK_EQ(t.minute, 59);
	CHECK_EQ(t.second, 58);
}

CHECK_TEST(decode_binary_12_hour)
{
	struct rtc_time t;
	uint8_t b = RTC_B_BINARY;

	CHECK_EQ(decode(b, 20, 24, 7, 4, 12, 0, 0, &t), 0); /* 12 AM */
	CHECK_EQ(t.hour, 0);
	CHECK_EQ(decode(b, 20, 24, 7, 4, 12 | RTC_HOUR_PM, 0, 0, &t), 0);
	CHECK_EQ(t.hour, 12);
	CHECK_EQ(decode(b, 20, 24, 7, 4, 1 | RTC_HOUR_PM, 0, 0, &t), 0);
	CHECK_EQ(t.hour, 13);
	CHECK_EQ(decode(b, 20, 24, 7, 4, 11, 0, 0, &t), 0);
	CHECK_EQ(t.hour, 11);
	/* BCD, 12-hour: 0x81 is 1 PM. */
	CHECK_EQ(decode(0, 0x20, 0x24, 0x07, 0x04, 0x81, 0, 0, &t), 0);
	CHECK_EQ(t.hour, 13);
}

CHECK_TEST(decode_century_fallback)
{
	struct rtc_time t;

	/* No plausible century register: two-digit years 70..99 are 19xx. */
	CHECK_EQ(decode(RTC_B_24_HOUR, 0x00, 0x99, 1, 1, 0, 0, 0, &t), 0);
	CHECK_EQ(t.year, 1999);
	CHECK_EQ(decode(RTC_B_24_HOUR, 0xff, 0x69, 1, 1, 0, 0, 0, &t), 0);
	CHECK_EQ(t.year, 2069);
	CHECK_EQ(decode(RTC_B_24_HOUR, 0x21, 0x00, 1, 1, 0, 0, 0, &t), 0);
	CHECK_EQ(t.year, 2100);
}

CHECK_TEST(decode_refuses_nonsense)
{
	struct rtc_time t;
	uint8_t h24 = RTC_B_24_HOUR;

	CHECK_EQ(decode(h24, 0x20, 0x1a, 1, 1, 0, 0, 0, &t), -ERR_INVAL); /* bad BCD */
	CHECK_EQ(decode(h24, 0x20, 0x23, 0x02, 0x29, 0, 0, 0, &t), -ERR_INVAL); /* not leap */
	CHECK_EQ(decode(h24, 0x20, 0x24, 0x13, 0x01, 0, 0, 0, &t), -ERR_INVAL);
	CHECK_EQ(decode(h24, 0x20, 0x24, 0x00, 0x01, 0, 0, 0, &t), -ERR_INVAL);
	CHECK_EQ(decode(h24, 0x20, 0x24, 0x01, 0x00, 0, 0, 0, &t), -ERR_INVAL);
	CHECK_EQ(decode(h24, 0x20, 0x24, 0x01, 0x01, 0x24, 0, 0, &t), -ERR_INVAL);
	CHECK_EQ(decode(h24, 0x20, 0x24, 0x01, 0x01, 0, 0x60, 0, &t), -ERR_INVAL);
	CHECK_EQ(decode(h24, 0x20, 0x24, 0x01, 0x01, 0, 0, 0x60, &t), -ERR_INVAL);
	CHECK_EQ(decode(0, 0x20, 0x24, 0x01, 0x01, 0x13, 0, 0, &t), -ERR_INVAL); /* 13 o'clock, 12-hour */
	CHECK_EQ(decode(0, 0x20, 0x24, 0x01, 0x01, 0x00, 0, 0, &t), -ERR_INVAL);
	CHECK_EQ(decode(RTC_B_BINARY | h24, 20, 100, 1, 1, 0, 0, 0, &t), -ERR_INVAL);
}

int main(void)
{
	return check_run_all();
}
