/*
 * modules.h -- the boot modules, imported as programs bin/NAME (modules.c).
 */
#ifndef PROC_MODULES_H
#define PROC_MODULES_H

struct boot_info;

/* modules_import -- the boot modules as code objects bin/NAME, one
 * transaction each, at genesis or when the command line says `import`;
 * otherwise say they are ignored. After heap_init succeeded. */
void modules_import(const struct boot_info *bi);

#endif
