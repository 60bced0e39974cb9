/* app.h — what the parts of the gpusim program provide to main.c, which
 * parses the command line and dispatches:
 *
 *   gpusim [options] SCRIPT.lua [ARGS...]   main.c: run a scene script
 *   gpusim asm ... / gpusim disasm ...      main.c: assemble, disassemble
 *   gpusim bench [...]                      bench.c: the benchmarks
 */
#ifndef GS_APP_APP_H
#define GS_APP_APP_H

/* Runs `gpusim bench`. argv[0] is "bench" and argv[1..argc-1] are the
 * arguments after it. Returns the process exit status (0 on success, 1 on
 * failure, 2 on a usage error); messages go to stdout and stderr. */
int gs_bench_main(int argc, char **argv);

#endif
