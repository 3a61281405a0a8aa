/*
 * common.c -- the helpers every group of checks shares, testing nothing
 * themselves: names of the run's own, new blobs, an object's id and a
 * handle's rights, usertest spawned as its own child and waited for,
 * sysinfo; and the touches of a forbidden address that a child reports to
 * its parent first (the faults and the peek of isolation.c).
 */
#include "usertest.h"

/* test_name -- "usertest/PID/suffix" into buf */
const char *test_name(char *buf, size_t cap, const char *suffix)
{
	snprintf(buf, cap, "usertest/%ld/%s", self_pid, suffix);
	return buf;
}

/* new_blob -- a blob of size bytes holding text at offset 0 -> handle */
int32_t new_blob(uint64_t size, const char *text)
{
	long h = OK(fe_obj_create(FE_TYPE_BLOB, size));

	if (h >= 0 && text != NULL)
		EQ(fe_obj_write((int32_t)h, 0, text, strlen(text)), (long)strlen(text));
	return (int32_t)h;
}

/* object_id -- the id of the object of handle, or 0 */
uint64_t object_id(int32_t h)
{
	struct fe_stat st;

	return fe_obj_stat(h, &st) < 0 ? 0 : st.id;
}

/* handle_rights -- the rights of handle, or 0 */
uint32_t handle_rights(int32_t h)
{
	struct fe_stat st;

	return fe_obj_stat(h, &st) < 0 ? 0 : st.rights;
}

/* spawn_self -- run "usertest ARGS..." (NULL-terminated) -> process handle */
long spawn_self(const char *const *argv, const struct fe_handle_grant *grants,
		uint32_t count)
{
	return fe_spawn_program_grant("usertest", argv, grants, count, 0);
}

/* wait_for -- wait for a child and close its handle -> the exit info */
struct fe_exit_info wait_for(long h)
{
	struct fe_exit_info info;

	memset(&info, 0, sizeof(info));
	if (h < 0)
		return info;
	OK(fe_wait((int32_t)h, &info, 0));
	EQ(fe_close((int32_t)h), 0);
	return info;
}

/* child_pid -- the pid of a child, from a wait that does not hang */
uint64_t child_pid(long h)
{
	struct fe_exit_info info;

	memset(&info, 0, sizeof(info));
	if (h < 0 || fe_wait((int32_t)h, &info, FE_WAIT_NOHANG) < 0)
		return 0;
	return info.pid;
}

/* sysinfo_now -- sysinfo, zeroed on failure */
struct fe_sysinfo sysinfo_now(void)
{
	struct fe_sysinfo si;

	memset(&si, 0, sizeof(si));
	OK(fe_sysinfo(&si));
	return si;
}

/* fault_report -- tell the parent where the coming page fault will be */
static void fault_report(uint64_t addr)
{
	if (fe_inherited_count > 0)
		fe_obj_write(FE_INHERITED_HANDLE(0), 0, &addr, sizeof(addr));
}

/* touch_read -- read a byte at addr (reported first) */
void touch_read(uint64_t addr)
{
	fault_report(addr);
	(void)*(volatile uint8_t *)ptr(addr);
}

/* touch_write -- write a byte at addr (reported first) */
void touch_write(uint64_t addr)
{
	fault_report(addr);
	*(volatile uint8_t *)ptr(addr) = 0xcc;
}

/* touch_exec -- call addr (reported first) */
void touch_exec(uint64_t addr)
{
	fault_report(addr);
	((void (*)(void))ptr(addr))();
}
