/* dumpcl.c — `gpusim dump-cl`: dumps a raw control-list file as the CLE
 * would run it from a bus address, one line per packet (gs_cl_dump in
 * gpusim/cl.h). main.c dispatches `gpusim dump-cl ...` here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/app.h"
#include "gpusim/cl.h"

/* Runs `gpusim dump-cl`. argv[0] is "dump-cl" and argv[1..argc-1] are the
 * arguments after it. Returns the exit status: 0 when the whole list
 * decoded, 1 when it did not or the file cannot be read, 2 on a usage
 * error. */

#define EXIT_USAGE 2

static const char dumpcl_usage[] =
  "usage: gpusim dump-cl [--base ADDR] [--end ADDR] [--prims TYPE/DATA] [--depth N]\n"
  "                      [--no-prims] [--no-records] FILE.bin\n"
  "\n"
  "Dumps the VideoCore IV control list in FILE.bin (- for standard input) as\n"
  "if it were loaded at bus address ADDR, one line per packet: its address,\n"
  "its ID (decimal, as in the Reference Guide's Table 38), name and fields:\n"
  "\n"
  "  0x00000010  115 TILE_COORDINATES  column=1 row=0\n"
  "\n"
  "The list runs from ADDR until it reaches the end of the file (or --end),\n"
  "as the control-list executor runs until its current address equals its\n"
  "end address. Branch, Branch to Sub-list and Return are followed when\n"
  "their target lies in the file; sub-lists are indented. Compressed\n"
  "primitive lists show one line per primitive, shader-state packets the\n"
  "record they point to (when it is in the file). A list that comes back to\n"
  "a packet with the same sub-list stack and primitive format loops forever:\n"
  "that is an error naming the packet and the jump back (a Branch, or a\n"
  "compressed list whose relative branch ends it before it starts), after\n"
  "at most three turns of the loop. Packets and fields: docs/control-lists.md.\n"
  "\n"
  "Options:\n"
  "  --base ADDR       bus address of the first byte of FILE.bin (default 0)\n"
  "  --end ADDR        where the list ends (default: ADDR + size of FILE.bin)\n"
  "  --prims TYPE/DATA primitive list format in force before any Primitive\n"
  "                    List Format packet, to dump a bare tile list: TYPE is\n"
  "                    points, lines, triangles or rhts; DATA is index16,\n"
  "                    index24 or xy32 (e.g. --prims triangles/index16)\n"
  "  --depth N         sub-list nesting allowed, 1..64 (default 2, as the Guide says)\n"
  "  --no-prims        do not list the primitives of compressed lists\n"
  "  --no-records      do not show the records shader-state packets point to\n"
  "  -h, --help        print this help and exit\n"
  "\n"
  "Exit status: 0 when the whole list decoded; 1 when it did not (the lines\n"
  "before the fault are printed, then \"gpusim dump-cl: 0xADDR: what\" on\n"
  "stderr) or FILE.bin cannot be read; 2 on a usage error.\n";

typedef struct dumpcl_args {
  const char *in;
  uint32_t base, end;
  int have_end;
  gs_cl_dump_opts opts;
} dumpcl_args;

static int dumpcl_usage_error(FILE *err, const char *fmt, const char *what) {
  fprintf(err, "gpusim dump-cl: ");
  fprintf(err, fmt, what);
  fprintf(err, "\nTry 'gpusim dump-cl --help' for more information.\n");
  return EXIT_USAGE;
}

static int parse_addr(const char *text, uint32_t *v) {
  char *end;
  errno = 0;
  unsigned long long x = strtoull(text, &end, 0);
  if (errno || end == text || *end || text[0] == '-' || x > 0xFFFFFFFFull) return -1;
  *v = (uint32_t)x;
  return 0;
}

/* Index of `name` among the value names of field `field` of Primitive
 * List Format (56): the command line uses the table's own names. */
static int prim_code(const char *field, const char *name, size_t len) {
  const gs_cl_format_info *f = gs_cl_packet_info(56);
  const gs_cl_field_info *fi = &f->fields[gs_cl_field_index(f, field)];
  for (unsigned k = 0; k < fi->nvalues; k++)
    if (fi->values[k] && strlen(fi->values[k]) == len && strncmp(fi->values[k], name, len) == 0) return (int)k;
  return -1;
}

static int parse_prims(const char *text, gs_cl_prim_format *fmt) {
  const char *slash = strchr(text, '/');
  if (!slash) return -1;
  int type = prim_code("prim_type", text, (size_t)(slash - text));
  int data = prim_code("data_type", slash + 1, strlen(slash + 1));
  if (type < 0 || data < 0) return -1;
  fmt->type = (uint8_t)type;
  fmt->data = (uint8_t)data;
  return 0;
}

/* Parses the arguments; returns -1 when valid, else the exit status. */
static int dumpcl_parse(int argc, char **argv, dumpcl_args *a, FILE *out, FILE *err) {
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    const char *v;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(dumpcl_usage, out);
      return 0;
    } else if ((v = gs_cli_option(argc, argv, &i, "--base", &missing))) {
      if (parse_addr(v, &a->base) < 0)
        return dumpcl_usage_error(err, "--base '%s' is not a bus address (0 .. 0xffffffff)", v);
    } else if ((v = gs_cli_option(argc, argv, &i, "--end", &missing))) {
      if (parse_addr(v, &a->end) < 0)
        return dumpcl_usage_error(err, "--end '%s' is not a bus address (0 .. 0xffffffff)", v);
      a->have_end = 1;
    } else if ((v = gs_cli_option(argc, argv, &i, "--prims", &missing))) {
      if (parse_prims(v, &a->opts.fmt) < 0)
        return dumpcl_usage_error(err, "--prims '%s': expected TYPE/DATA such as triangles/index16", v);
    } else if ((v = gs_cli_option(argc, argv, &i, "--depth", &missing))) {
      char *end;
      long n = strtol(v, &end, 10);
      if (*end || end == v || n < 1 || n > 64) return dumpcl_usage_error(err, "--depth '%s' is not 1..64", v);
      a->opts.max_depth = (int)n;
    } else if (strcmp(argv[i], "--no-prims") == 0) {
      a->opts.no_prims = 1;
    } else if (strcmp(argv[i], "--no-records") == 0) {
      a->opts.no_records = 1;
    } else if (missing) {
      return dumpcl_usage_error(err, "option '%s' needs a value", argv[i]);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return dumpcl_usage_error(err, "unknown option '%s'", argv[i]);
    } else if (a->in) {
      return dumpcl_usage_error(err, "more than one input file ('%s')", argv[i]);
    } else {
      a->in = argv[i];
    }
  }
  if (!a->in) return dumpcl_usage_error(err, "%s", "no input file");
  return -1;
}

/* The whole tool, with its streams as parameters so that tests can run it. */
static int dumpcl_run(int argc, char **argv, FILE *out, FILE *err) {
  dumpcl_args a;
  int rc = dumpcl_parse(argc, argv, &a, out, err);
  if (rc >= 0) return rc;
  const char *name = strcmp(a.in, "-") == 0 ? "<stdin>" : a.in;
  char *text;
  size_t len;
  if (gs_cli_read_file(a.in, &text, &len) < 0) {
    fprintf(err, "gpusim dump-cl: cannot read %s: %s\n", name, strerror(errno));
    return 1;
  }
  if ((uint64_t)a.base + len > 0x100000000ull) {
    fprintf(err, "gpusim dump-cl: %s: %zu bytes at 0x%08x run past the 32-bit bus address space\n", name, len, a.base);
    free(text);
    return 1;
  }
  gs_cl_view view = {NULL, (const uint8_t *)text, a.base, (uint32_t)len};
  gs_addr end = a.have_end ? a.end : a.base + (uint32_t)len;
  gs_diag d;
  gs_diag_clear(&d);
  rc = gs_cl_dump(&view, a.base, end, &a.opts, out, &d);
  free(text);
  fflush(out);
  if (rc < 0) {
    fprintf(err, "gpusim dump-cl: %s: %s\n", name, d.msg);
    return 1;
  }
  return 0;
}

int gs_dumpcl_main(int argc, char **argv) { return dumpcl_run(argc, argv, stdout, stderr); }

int gs_dumpcl_frame(const gs_mem *mem, gs_addr bin_start, gs_addr bin_end, gs_addr render_start,
                    gs_addr render_end, FILE *out, gs_diag *d) {
  gs_cl_view view = {mem, NULL, 0, 0};
  const struct {
    const char *name, *thread;
    gs_addr start, end;
  } lists[2] = {{"binning list", "CT0", bin_start, bin_end}, {"rendering list", "CT1", render_start, render_end}};
  for (int i = 0; i < 2; i++) {
    fprintf(out, "# %s (%sCA 0x%08x, %sEA 0x%08x)\n", lists[i].name, lists[i].thread, lists[i].start,
            lists[i].thread, lists[i].end);
    int rc = gs_cl_dump(&view, lists[i].start, lists[i].end, NULL, out, d);
    if (rc < 0) {
      char msg[GS_DIAG_MAX];
      snprintf(msg, sizeof msg, "%s", d->msg);
      return gs_diag_set(d, rc, "%s: %s", lists[i].name, msg);
    }
    if (i == 0) fputc('\n', out);
  }
  return GS_OK;
}
