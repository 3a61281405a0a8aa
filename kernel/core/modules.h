/*
 * modules.h -- the boot modules, imported as programs bin/NAME (modules.c).
 */
#ifndef CORE_MODULES_H
#define CORE_MODULES_H

#include <stdbool.h>

struct boot_info;
struct boot_module;

/* modules_wanted -- whether the boot modules are imported in this
 * power-on: at genesis, or when the command line says `import` */
bool modules_wanted(void);

/* modules_ignored -- say that the boot modules are ignored (and how to
 * import them) */
void modules_ignored(const struct boot_info *bi);

/* modules_import -- boot module m as the code object bin/NAME, in the
 * running transaction (the caller commits it: kernel/main.c); 0, or an
 * error after which the transaction was undone and the console says why.
 * After heap_init succeeded. */
int modules_import(const struct boot_module *m);

#endif
