/*
 * life.c -- life [ROWS COLS [PERIOD_MS]]: Conway's Game of Life on a ROWS x
 * COLS torus (default 20 x 40), one generation every PERIOD_MS ms (default
 * 200), drawn with VT100 codes: each frame clears the screen, homes the
 * cursor and prints "life: generation N, population P", then the board.
 * It runs until Ctrl-C (or kill).
 *
 * It is there to be watched across a power cut: the boards, the generation
 * number and the pseudo-random generator are ordinary memory, persistent
 * like the rest of the process, so after power-on the picture and the
 * count carry on from the frame last shown (output commit: DESIGN.md
 * section 4), not from the start.
 *
 * The first board is a pseudo-random soup (a fixed seed: every run starts
 * the same). When the board settles (the next generation equals the
 * current one or the one before, so still lifes and blinkers only), a new
 * soup is sown so there is always something moving.
 */
#include <fe.h>

#define ROWS_DEFAULT 20
#define COLS_DEFAULT 40
#define PERIOD_DEFAULT_MS 200
#define SIDE_MAX 200
#define SOUP_PERCENT 30
#define NS_PER_MS 1000000ull

static uint32_t rows, cols;
static uint8_t *board_now, *board_before, *board_next; /* rows * cols cells, 1 = alive */
static uint64_t generation;
static uint64_t sowings;           /* soups sown, the first included */
static uint64_t rng_state = 1;    /* fe_rand_next's: a fixed seed */
static char *frame;                /* one frame's bytes */

/* sow -- fill the board with a fresh soup */
static void sow(void)
{
	for (uint32_t i = 0; i < rows * cols; i++)
		board_now[i] = fe_rand_below(&rng_state, 100) < SOUP_PERCENT;
	memset(board_before, 0, rows * cols);
	sowings++;
}

/* neighbours -- live cells around (r, c), the edges wrapping round */
static unsigned neighbours(const uint8_t *b, uint32_t r, uint32_t c)
{
	unsigned n = 0;

	for (uint32_t dr = rows - 1; dr <= rows + 1; dr++)
		for (uint32_t dc = cols - 1; dc <= cols + 1; dc++)
			if (dr != rows || dc != cols)
				n += b[((r + dr) % rows) * cols + (c + dc) % cols];
	return n;
}

/* step -- compute the next generation; sow again if the board has settled */
static void step(void)
{
	uint8_t *spare = board_before;
	bool settled;

	for (uint32_t r = 0; r < rows; r++) {
		for (uint32_t c = 0; c < cols; c++) {
			unsigned n = neighbours(board_now, r, c);
			uint8_t alive = board_now[r * cols + c];

			board_next[r * cols + c] = n == 3 || (alive && n == 2);
		}
	}
	settled = memcmp(board_next, board_now, rows * cols) == 0 ||
		  memcmp(board_next, board_before, rows * cols) == 0;
	board_before = board_now;
	board_now = board_next;
	board_next = spare;
	generation++;
	if (settled)
		sow();
}

/* draw -- clear the screen and show the generation and the board */
static void draw(void)
{
	uint32_t population = 0;
	int at;

	for (uint32_t i = 0; i < rows * cols; i++)
		population += board_now[i];
	at = snprintf(frame, 128,
		      "\033[H\033[2Jlife: generation %lu, population %u, soup %lu (Ctrl-C ends)\n",
		      generation, population, sowings);
	for (uint32_t r = 0; r < rows; r++) {
		for (uint32_t c = 0; c < cols; c++)
			frame[at++] = board_now[r * cols + c] ? '#' : '.';
		frame[at++] = '\n';
	}
	fe_write_all(frame, (uint64_t)at);
}

/* parse_arg -- a decimal argument from min to max into *out; false (and a message) otherwise */
static bool parse_arg(const char *what, const char *text, uint64_t min,
		      uint64_t max, uint64_t *out)
{
	if (!fe_parse_arg("life", what, text, out))
		return false;
	if (*out < min || *out > max) {
		printf("life: %s must be from %lu to %lu\n", what, min, max);
		return false;
	}
	return true;
}

/* setup -- read the arguments and make the boards; false (and a message) on failure */
static bool setup(int argc, char **argv, uint64_t *period_ms)
{
	uint64_t r = ROWS_DEFAULT, c = COLS_DEFAULT;

	if (argc == 2 || argc > 4) {
		printf("usage: life [ROWS COLS [PERIOD_MS]]\n");
		return false;
	}
	if (argc >= 3 && (!parse_arg("ROWS", argv[1], 3, SIDE_MAX, &r) ||
			  !parse_arg("COLS", argv[2], 3, SIDE_MAX, &c)))
		return false;
	if (argc == 4 && !parse_arg("PERIOD_MS", argv[3], 0, 60000, period_ms))
		return false;
	rows = (uint32_t)r;
	cols = (uint32_t)c;
	board_now = malloc(rows * cols);
	board_before = malloc(rows * cols);
	board_next = malloc(rows * cols);
	frame = malloc(128 + rows * (cols + 1));
	if (!board_now || !board_before || !board_next || !frame) {
		printf("life: out of memory\n");
		return false;
	}
	return true;
}

/* main -- sow, then draw and step forever, one generation a period */
int main(int argc, char **argv)
{
	uint64_t period_ms = PERIOD_DEFAULT_MS;
	uint64_t deadline;

	if (!setup(argc, argv, &period_ms))
		return 2;
	sow();
	deadline = fe_now();
	for (;;) {
		draw();
		deadline += period_ms * NS_PER_MS;
		if (deadline < fe_now())
			deadline = fe_now(); /* fell behind: no burst to catch up */
		fe_sleep_until(deadline);
		step();
	}
}
