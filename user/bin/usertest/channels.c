/*
 * channels.c -- channels: messages sent and received (truncation, order,
 * the largest message and one too large, a full queue), handles travelling
 * with messages with their rights, the rights of the ends themselves, a
 * closed peer, and an end carried by a queued message, which stays open
 * until the message is received or dies with its channel.
 */
#include "usertest.h"

/* test_channel_messages -- send, receive, truncation, order, full queue */
void test_channel_messages(void)
{
	static char big[FE_CHAN_MSG_MAX + 1];
	struct fe_msg_info mi;
	int32_t e[2] = {-1, -1};
	char buf[16];
	unsigned i;

	EQ(fe_chan_create(e), 0);
	CHECK(e[0] != e[1]);
	OK(fe_chan_send(e[0], "ping", 4, -1));
	memset(&mi, 0, sizeof(mi));
	EQ(fe_chan_recv(e[1], buf, sizeof(buf), &mi, 0), 4);
	EQ(mi.len, 4);
	EQ(mi.handle, -1);
	CHECK(memcmp(buf, "ping", 4) == 0);
	OK(fe_chan_send(e[1], "pong", 4, -1));
	EQ(fe_chan_recv(e[0], buf, sizeof(buf), &mi, FE_CHAN_NONBLOCK), 4);
	ERR(fe_chan_recv(e[1], buf, sizeof(buf), &mi, FE_CHAN_NONBLOCK), ERR_AGAIN);

	OK(fe_chan_send(e[0], "0123456789", 10, -1));
	EQ(fe_chan_recv(e[1], buf, 4, &mi, 0), 4);
	EQ(mi.len, 10);
	OK(fe_chan_send(e[0], big, FE_CHAN_MSG_MAX, -1));
	EQ(fe_chan_recv(e[1], big, sizeof(big), &mi, 0), FE_CHAN_MSG_MAX);
	ERR(fe_chan_send(e[0], big, FE_CHAN_MSG_MAX + 1, -1), ERR_TOOBIG);

	for (i = 0; i < FE_CHAN_QUEUE; i++)
		OK(fe_chan_send(e[0], &i, sizeof(i), -1));
	ERR(fe_chan_send(e[0], &i, sizeof(i), -1), ERR_NOSPC);
	for (i = 0; i < FE_CHAN_QUEUE; i++) {
		unsigned got = ~0u;

		EQ(fe_chan_recv(e[1], &got, sizeof(got), &mi, FE_CHAN_NONBLOCK), sizeof(got));
		EQ(got, i);
	}
	ERR(fe_chan_recv(e[1], buf, sizeof(buf), &mi, 0x40), ERR_INVAL);
	EQ(fe_close(e[0]), 0);
	EQ(fe_close(e[1]), 0);
}

/* test_channel_handles -- handles travel with messages, with their rights */
void test_channel_handles(void)
{
	struct fe_msg_info mi;
	int32_t e[2] = {-1, -1};
	int32_t h = new_blob(PAGE, "passed");
	char buf[8];
	long ro, weak;

	EQ(fe_chan_create(e), 0);
	OK(fe_chan_send(e[0], "h", 1, h));
	memset(&mi, 0, sizeof(mi));
	EQ(fe_chan_recv(e[1], buf, sizeof(buf), &mi, 0), 1);
	CHECK(mi.handle >= 0 && mi.handle != h);
	EQ(object_id(mi.handle), object_id(h));
	EQ(fe_obj_read(mi.handle, 0, buf, 6), 6);
	CHECK(memcmp(buf, "passed", 6) == 0);
	EQ(fe_close(mi.handle), 0);

	ro = OK(fe_dup(h, FE_RIGHT_READ));
	ERR(fe_chan_send(e[0], "h", 1, (int32_t)ro), ERR_PERM);
	ERR(fe_chan_send(e[0], "h", 1, FE_HANDLE_VALUE(3, 999)), ERR_BADF);
	EQ(fe_close((int32_t)ro), 0);

	/* The rights of the ends themselves. */
	weak = OK(fe_dup(e[0], FE_RIGHT_READ));
	ERR(fe_chan_send((int32_t)weak, "x", 1, -1), ERR_PERM);
	EQ(fe_close((int32_t)weak), 0);
	weak = OK(fe_dup(e[1], FE_RIGHT_WRITE));
	ERR(fe_chan_recv((int32_t)weak, buf, sizeof(buf), &mi, FE_CHAN_NONBLOCK), ERR_PERM);
	EQ(fe_close((int32_t)weak), 0);
	FAILS(fe_chan_send(h, "x", 1, -1));
	FAILS(fe_chan_recv(h, buf, sizeof(buf), &mi, FE_CHAN_NONBLOCK));

	/* A closed peer. */
	EQ(fe_close(e[0]), 0);
	ERR(fe_chan_send(e[1], "x", 1, -1), ERR_PEER);
	ERR(fe_chan_recv(e[1], buf, sizeof(buf), &mi, 0), ERR_PEER);
	EQ(fe_close(e[1]), 0);
	EQ(fe_close(h), 0);
}

/* test_channel_end_in_flight -- an end carried by a queued message is open */
void test_channel_end_in_flight(void)
{
	struct fe_msg_info mi;
	int32_t e[2] = {-1, -1}, reply[2] = {-1, -1};
	char buf[8];

	/* Passed, and the sender's copy closed: the end is still open. */
	EQ(fe_chan_create(e), 0);
	EQ(fe_chan_create(reply), 0);
	OK(fe_chan_send(e[1], "req", 3, reply[1]));
	EQ(fe_close(reply[1]), 0);
	ERR(fe_chan_recv(reply[0], buf, sizeof(buf), &mi, FE_CHAN_NONBLOCK), ERR_AGAIN);
	/* Received: the new handle keeps it open, and answers. */
	EQ(fe_chan_recv(e[0], buf, sizeof(buf), &mi, 0), 3);
	CHECK(mi.handle >= 0);
	OK(fe_chan_send(mi.handle, "ans", 3, -1));
	EQ(fe_close(mi.handle), 0);
	EQ(fe_chan_recv(reply[0], buf, sizeof(buf), &mi, 0), 3);
	/* Dropped unanswered: the waiter learns no answer can come. */
	ERR(fe_chan_recv(reply[0], buf, sizeof(buf), &mi, 0), ERR_PEER);
	EQ(fe_close(reply[0]), 0);

	/* A message carrying an end dies with its channel: the end closes. */
	EQ(fe_chan_create(reply), 0);
	OK(fe_chan_send(e[1], "req", 3, reply[1]));
	EQ(fe_close(reply[1]), 0);
	EQ(fe_close(e[0]), 0);
	EQ(fe_close(e[1]), 0);
	ERR(fe_chan_recv(reply[0], buf, sizeof(buf), &mi, 0), ERR_PEER);
	EQ(fe_close(reply[0]), 0);
}
