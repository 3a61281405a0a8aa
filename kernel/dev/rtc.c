/*
 * rtc.c -- reading the CMOS real-time clock (MC146818 and its successors).
 *
 * The clock keeps UTC here (QEMU's default, -rtc base=utc). It updates its
 * registers once a second, and a read during an update can mix two
 * seconds: so we wait until status A says no update is in progress, read
 * every register, and do it again until two reads in a row agree. Bytes to
 * numbers (BCD or binary, 12- or 24-hour) and numbers to seconds since
 * 1970 are in rtc_calendar.c, tested on the host.
 *
 * Register selection through port 0x70 leaves bit 7 (NMI disable) clear:
 * NMIs stay enabled.
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"
#include "core/printk.h"
#include "dev/rtc.h"
#include "dev/rtc_calendar.h"

#define CMOS_INDEX 0x70
#define CMOS_DATA 0x71

#define RTC_SECOND 0x00
#define RTC_MINUTE 0x02
#define RTC_HOUR 0x04
#define RTC_DAY 0x07
#define RTC_MONTH 0x08
#define RTC_YEAR 0x09
#define RTC_STATUS_A 0x0a
#define RTC_STATUS_B 0x0b
#define RTC_CENTURY 0x32 /* where QEMU and most PCs keep it (ACPI FADT "century") */

#define RTC_A_UPDATE_IN_PROGRESS 0x80
#define UPDATE_WAIT_POLLS 1000000 /* an update lasts under 2 ms */
#define READ_ATTEMPTS 10
#define NS_PER_SECOND 1000000000ull

/* cmos_read -- one CMOS register */
static uint8_t cmos_read(uint8_t reg)
{
	arch_outb(CMOS_INDEX, reg);
	return arch_inb(CMOS_DATA);
}

/* wait_no_update -- until the clock is not updating its registers (bounded) */
static void wait_no_update(void)
{
	for (unsigned i = 0; i < UPDATE_WAIT_POLLS; i++)
		if (!(cmos_read(RTC_STATUS_A) & RTC_A_UPDATE_IN_PROGRESS))
			return;
}

/* read_registers -- the time registers, outside an update */
static void read_registers(struct rtc_raw *raw)
{
	wait_no_update();
	raw->second = cmos_read(RTC_SECOND);
	raw->minute = cmos_read(RTC_MINUTE);
	raw->hour = cmos_read(RTC_HOUR);
	raw->day = cmos_read(RTC_DAY);
	raw->month = cmos_read(RTC_MONTH);
	raw->year = cmos_read(RTC_YEAR);
	raw->century = cmos_read(RTC_CENTURY);
	raw->status_b = cmos_read(RTC_STATUS_B);
}

/* same_reading -- whether two readings are identical */
static bool same_reading(const struct rtc_raw *a, const struct rtc_raw *b)
{
	return a->second == b->second && a->minute == b->minute &&
	       a->hour == b->hour && a->day == b->day && a->month == b->month &&
	       a->year == b->year && a->century == b->century &&
	       a->status_b == b->status_b;
}

/* rtc_wall_ns -- nanoseconds since 1970-01-01 00:00:00 UTC by the RTC; 0 on nonsense */
uint64_t rtc_wall_ns(void)
{
	struct rtc_raw last, now;
	struct rtc_time t;
	unsigned attempts = 0;

	read_registers(&now);
	do {
		last = now;
		read_registers(&now);
	} while (!same_reading(&last, &now) && ++attempts < READ_ATTEMPTS);
	if (rtc_decode(&now, &t)) {
		pr_warn("rtc: the clock reads nonsense (%02x-%02x-%02x %02x:%02x:%02x, status B %#x)\n",
			now.year, now.month, now.day, now.hour, now.minute,
			now.second, now.status_b);
		return 0;
	}
	return rtc_unix_seconds(&t) * NS_PER_SECOND;
}
