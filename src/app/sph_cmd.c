/* sph_cmd.c — `gpusim sph`: prints the fields of a Shader Program Header
 * file, one per line, as gs_sph_dump writes them (gpusim/sph.h,
 * docs/sph.md). main.c dispatches `gpusim sph ...` here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/app.h"
#include "gpusim/sph.h"

#define EXIT_USAGE 2

static const char sph_usage[] =
  "usage: gpusim sph [--offset N] [--validate] FILE\n"
  "\n"
  "Prints the fields of the 80-byte Shader Program Header (SPH version 3,\n"
  "20 little-endian words) in FILE (- for standard input), one per line:\n"
  "its place, its name in NVIDIA's SPH description and its value:\n"
  "\n"
  "  w0[4:0]    SphType                           2 (PS)\n"
  "\n"
  "Every field of words 0-4 is listed; of words 5-19 the elements that are\n"
  "not zero. Layout and names: docs/sph.md.\n"
  "\n"
  "Options:\n"
  "  --offset N   read the header at byte N of a longer file, such as a\n"
  "               Maxwell program (which starts with its SPH) inside a\n"
  "               binary dump; N is decimal or 0x hex. Without it the file\n"
  "               must be exactly 80 bytes\n"
  "  --validate   also check the rules gpusim enforces (docs/sph.md,\n"
  "               \"Validation\") and fail naming the first one broken\n"
  "  -h, --help   print this help and exit\n"
  "\n"
  "Exit status: 0 when the header decodes (and, with --validate, is valid);\n"
  "1 when the file cannot be read, is too short or of the wrong size, has a\n"
  "SphType that is neither 1 (VTG) nor 2 (PS), or fails --validate (the\n"
  "message, naming the file and the field's word and bits, on stderr); 2 on\n"
  "a usage error.\n";

static int sph_usage_error(const char *fmt, const char *what) {
  fprintf(stderr, "gpusim sph: ");
  fprintf(stderr, fmt, what);
  fprintf(stderr, "\nTry 'gpusim sph --help' for more information.\n");
  return EXIT_USAGE;
}

/* Prints the dump of *s to standard output; 0, or 1 if it cannot. */
static int print_dump(const gs_sph *s) {
  size_t n = gs_sph_dump(s, NULL, 0) + 1;
  char *text = malloc(n);
  if (!text) {
    fprintf(stderr, "gpusim sph: out of memory\n");
    return 1;
  }
  gs_sph_dump(s, text, n);
  int bad = fputs(text, stdout) == EOF || fflush(stdout) == EOF;
  free(text);
  if (bad) fprintf(stderr, "gpusim sph: cannot write the listing: %s\n", strerror(errno));
  return bad;
}

int gs_sph_main(int argc, char **argv) {
  const char *in = NULL;
  int validate = 0, have_offset = 0;
  unsigned long long offset = 0;
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    const char *v;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(sph_usage, stdout);
      return 0;
    } else if ((v = gs_cli_option(argc, argv, &i, "--offset", &missing))) {
      char *end;
      errno = 0;
      offset = strtoull(v, &end, 0);
      if (errno || end == v || *end || v[0] == '-')
        return sph_usage_error("--offset '%s' is not a byte offset", v);
      have_offset = 1;
    } else if (strcmp(argv[i], "--validate") == 0) {
      validate = 1;
    } else if (missing) {
      return sph_usage_error("option '%s' needs a value", argv[i]);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return sph_usage_error("unknown option '%s'", argv[i]);
    } else if (in) {
      return sph_usage_error("more than one input file ('%s')", argv[i]);
    } else {
      in = argv[i];
    }
  }
  if (!in) return sph_usage_error("%s", "no input file");

  const char *name = strcmp(in, "-") == 0 ? "<stdin>" : in;
  char *data;
  size_t len;
  if (gs_cli_read_file(in, &data, &len) < 0) {
    fprintf(stderr, "gpusim sph: cannot read %s: %s\n", name, strerror(errno));
    return 1;
  }
  if (!have_offset && len != GS_SPH_BYTES) {
    fprintf(stderr, "gpusim sph: %s: %zu bytes, but an SPH is %d (--offset N reads one from "
            "a longer file)\n", name, len, GS_SPH_BYTES);
    free(data);
    return 1;
  }
  if (have_offset && (offset > len || len - offset < GS_SPH_BYTES)) {
    fprintf(stderr, "gpusim sph: %s: %zu bytes, no room for an %d-byte SPH at offset %llu\n",
            name, len, GS_SPH_BYTES, offset);
    free(data);
    return 1;
  }
  char at[48] = "";
  if (have_offset) snprintf(at, sizeof at, " at offset %llu", offset);
  gs_sph s;
  gs_diag d;
  int rc = gs_sph_decode_bytes((const unsigned char *)data + offset, &s, &d);
  free(data);
  if (rc < 0) {
    fprintf(stderr, "gpusim sph: %s%s: %s\n", name, at, d.msg);
    return 1;
  }
  if (print_dump(&s)) return 1;
  if (validate && gs_sph_validate(&s, &d) < 0) {
    fprintf(stderr, "gpusim sph: %s%s: %s\n", name, at, d.msg);
    return 1;
  }
  return 0;
}
