/*
 * lua-repl.c -- a Lua REPL built from Debian's liblua5.4.a, the small main
 * the Linux-programs tests keep in the tree (tests/linux/linux.mk).
 *
 * It reads a line from standard input, runs it as a chunk (as "return
 * LINE" first, so that an expression's value is printed, as lua's own
 * REPL does), prints the results or the error, and prompts again with
 * "> ". Everything it knows lives in the Lua state in its memory: in
 * Ferrite, that memory is the persistent heap, so the globals a user set
 * survive a power cut with no save code at all.
 */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

/* run -- one line: as an expression if it is one, else as a statement */
static void run(lua_State *L, const char *line)
{
	char expr[1100];
	int top = lua_gettop(L);
	int err;

	snprintf(expr, sizeof(expr), "return %s", line);
	err = luaL_loadstring(L, expr);
	if (err) {
		lua_pop(L, 1);
		err = luaL_loadstring(L, line);
	}
	if (!err)
		err = lua_pcall(L, 0, LUA_MULTRET, 0);
	if (err) {
		printf("error: %s\n", lua_tostring(L, -1));
	} else {
		int n = lua_gettop(L) - top;

		for (int i = 1; i <= n; i++)
			printf("%s%s", luaL_tolstring(L, top + i, NULL), i < n ? "\t" : "\n"),
				lua_pop(L, 1);
	}
	lua_settop(L, top);
}

int main(void)
{
	lua_State *L = luaL_newstate();
	char line[1024];

	if (!L)
		return 1;
	luaL_openlibs(L);
	printf("%s REPL\n", LUA_RELEASE);
	for (;;) {
		printf("> ");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			break;
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			run(L, line);
	}
	lua_close(L);
	return 0;
}
