/* peer_osmesa.c — gpusim-peer-osmesa: the two frames of `gpusim bench`
 * rendered by Mesa through OSMesa (llvmpipe, or softpipe with
 * GALLIUM_DRIVER=softpipe; LP_NUM_THREADS sets llvmpipe's threads), for
 * `gpusim bench --peer` to time side by side with gpusim (docs/pipeline.md,
 * "Against llvmpipe and softpipe").
 *
 * The frames are gs_v3d_bench_fill's and gs_v3d_bench_triangles' (see
 * src/v3d/cle_bench.c), drawn from the same vertices:
 *   fill:      W x H, L full-screen quads (two triangles each) drawn back to
 *              front at Z = 1 - (l + 1) / (L + 1) with the depth test "less",
 *              so every layer is shaded;
 *   triangles: N right triangles with 6-pixel legs, their corner at the
 *              positions of the same LCG (seed 12345, 1664525, 1013904223)
 *              in 1/16 pixels, Z = (seed >> 24) / 256.
 * Both clear colour to 0 and depth to 1.0, bind a 24-bit depth buffer (as
 * gpusim's tile buffer has), and colour every fragment (0.6, 0.4, 0.2, 1.0):
 * bytes 0x99 0x66 0x33 0xff, as the bench's fragment programs write.
 * Vertices are window positions mapped to clip space with W = 1 (gpusim's
 * frames are pre-shaded: NV mode); the vertex shader only passes them on.
 *
 * One run: --warmup frames (default 1: the first compiles llvmpipe's
 * shader variants), then --frames timed frames, each glClear, the draws and
 * glFinish (which copies the frame out to the caller's buffer, as gpusim's
 * tile stores write its frame buffer). Prints one line:
 *   renderer=<GL_RENDERER> frame=fill seconds=<median frame> fragments=<n> triangles=<n>
 * and, with --image FILE, writes the last frame as raw RGBA8 bytes in the
 * buffer's order (gpusim's). Errors name the step and exit 1.
 */
#define GL_GLEXT_PROTOTYPES 0
#include <GL/osmesa.h>
#include <GL/glext.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static PFNGLCREATESHADERPROC CreateShader;
static PFNGLSHADERSOURCEPROC ShaderSource;
static PFNGLCOMPILESHADERPROC CompileShader;
static PFNGLGETSHADERIVPROC GetShaderiv;
static PFNGLGETSHADERINFOLOGPROC GetShaderInfoLog;
static PFNGLCREATEPROGRAMPROC CreateProgram;
static PFNGLATTACHSHADERPROC AttachShader;
static PFNGLBINDATTRIBLOCATIONPROC BindAttribLocation;
static PFNGLLINKPROGRAMPROC LinkProgram;
static PFNGLGETPROGRAMIVPROC GetProgramiv;
static PFNGLUSEPROGRAMPROC UseProgram;
static PFNGLGENBUFFERSPROC GenBuffers;
static PFNGLBINDBUFFERPROC BindBuffer;
static PFNGLBUFFERDATAPROC BufferData;
static PFNGLVERTEXATTRIBPOINTERPROC VertexAttribPointer;
static PFNGLENABLEVERTEXATTRIBARRAYPROC EnableVertexAttribArray;

static const char *const vertex_src = "#version 120\n"
                                      "attribute vec3 pos;\n"
                                      "void main() { gl_Position = vec4(pos, 1.0); }\n";
static const char *const fragment_src = "#version 120\n"
                                        "void main() { gl_FragColor = vec4(0.6, 0.4, 0.2, 1.0); }\n";

static void die(const char *what) {
  fprintf(stderr, "gpusim-peer-osmesa: %s\n", what);
  exit(1);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A GL entry point (as void (*)(void), the type GCC lets one cast to any
 * other function pointer type). */
typedef void (*gl_proc)(void);
static gl_proc proc(const char *name) {
  OSMESAproc p = OSMesaGetProcAddress(name);
  if (!p) {
    fprintf(stderr, "gpusim-peer-osmesa: OSMesaGetProcAddress(\"%s\") gave NULL\n", name);
    exit(1);
  }
  return (gl_proc)p;
}

static void load_procs(void) {
  CreateShader = (PFNGLCREATESHADERPROC)proc("glCreateShader");
  ShaderSource = (PFNGLSHADERSOURCEPROC)proc("glShaderSource");
  CompileShader = (PFNGLCOMPILESHADERPROC)proc("glCompileShader");
  GetShaderiv = (PFNGLGETSHADERIVPROC)proc("glGetShaderiv");
  GetShaderInfoLog = (PFNGLGETSHADERINFOLOGPROC)proc("glGetShaderInfoLog");
  CreateProgram = (PFNGLCREATEPROGRAMPROC)proc("glCreateProgram");
  AttachShader = (PFNGLATTACHSHADERPROC)proc("glAttachShader");
  BindAttribLocation = (PFNGLBINDATTRIBLOCATIONPROC)proc("glBindAttribLocation");
  LinkProgram = (PFNGLLINKPROGRAMPROC)proc("glLinkProgram");
  GetProgramiv = (PFNGLGETPROGRAMIVPROC)proc("glGetProgramiv");
  UseProgram = (PFNGLUSEPROGRAMPROC)proc("glUseProgram");
  GenBuffers = (PFNGLGENBUFFERSPROC)proc("glGenBuffers");
  BindBuffer = (PFNGLBINDBUFFERPROC)proc("glBindBuffer");
  BufferData = (PFNGLBUFFERDATAPROC)proc("glBufferData");
  VertexAttribPointer = (PFNGLVERTEXATTRIBPOINTERPROC)proc("glVertexAttribPointer");
  EnableVertexAttribArray = (PFNGLENABLEVERTEXATTRIBARRAYPROC)proc("glEnableVertexAttribArray");
}

static GLuint shader(GLenum kind, const char *src) {
  GLuint s = CreateShader(kind);
  GLint ok = 0;
  ShaderSource(s, 1, &src, NULL);
  CompileShader(s);
  GetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = "";
    GetShaderInfoLog(s, sizeof log, NULL, log);
    fprintf(stderr, "gpusim-peer-osmesa: %s shader: %s\n", kind == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
    exit(1);
  }
  return s;
}

/* A vertex at window position (x16 / 16, y16 / 16) pixels, depth z: clip
 * space with W = 1. GL's window coordinates are gpusim's screen coordinates
 * unchanged, so the buffer's row y (OSMesa's row 0 is window row 0) is
 * gpusim's frame buffer row y. */
static void vertex(float *v, int32_t x16, int32_t y16, float z, uint32_t width, uint32_t height) {
  v[0] = (float)x16 / (8.0f * (float)width) - 1.0f;
  v[1] = (float)y16 / (8.0f * (float)height) - 1.0f;
  v[2] = 2.0f * z - 1.0f;
}

static void usage(FILE *f) {
  fprintf(f, "usage: gpusim-peer-osmesa fill|triangles [--width W] [--height H] [--layers L] [--count N]\n"
             "                          [--warmup N] [--frames N] [--image FILE]\n");
}

int main(int argc, char **argv) {
  uint32_t width = 1920, height = 1080, layers = 8, count = 100000;
  int warmup = 1, frames = 1, fill;
  const char *image = NULL;
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "fill")) fill = 1;
  else if (!strcmp(argv[1], "triangles")) fill = 0;
  else if (!strcmp(argv[1], "--help")) {
    usage(stdout);
    return 0;
  } else {
    usage(stderr);
    return 2;
  }
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) {
      usage(stderr);
      return 2;
    }
    i++;
    if (!strcmp(a, "--width")) width = (uint32_t)strtoul(v, NULL, 0);
    else if (!strcmp(a, "--height")) height = (uint32_t)strtoul(v, NULL, 0);
    else if (!strcmp(a, "--layers")) layers = (uint32_t)strtoul(v, NULL, 0);
    else if (!strcmp(a, "--count")) count = (uint32_t)strtoul(v, NULL, 0);
    else if (!strcmp(a, "--warmup")) warmup = atoi(v);
    else if (!strcmp(a, "--frames")) frames = atoi(v);
    else if (!strcmp(a, "--image")) image = v;
    else {
      usage(stderr);
      return 2;
    }
  }
  /* the limits of gs_v3d_bench_fill and gs_v3d_bench_triangles */
  if (width < 16 || height < 16 || width > 2048 || height > 2048 || layers < 1 || layers > 1000 || count < 1 ||
      count > (1u << 20) || warmup < 0 || frames < 1 || frames > 1000) {
    usage(stderr);
    return 2;
  }

  const int attribs[] = {OSMESA_FORMAT,  OSMESA_RGBA,           OSMESA_DEPTH_BITS, 24, OSMESA_STENCIL_BITS, 0,
                         OSMESA_PROFILE, OSMESA_COMPAT_PROFILE, 0};
  OSMesaContext ctx = OSMesaCreateContextAttribs(attribs, NULL);
  if (!ctx) die("OSMesaCreateContextAttribs failed (RGBA, 24-bit depth, compatibility profile)");
  uint8_t *buf = calloc((size_t)width * height, 4);
  if (!buf) die("out of memory");
  if (!OSMesaMakeCurrent(ctx, buf, GL_UNSIGNED_BYTE, (GLsizei)width, (GLsizei)height))
    die("OSMesaMakeCurrent failed");
  load_procs();

  GLuint prog = CreateProgram();
  AttachShader(prog, shader(GL_VERTEX_SHADER, vertex_src));
  AttachShader(prog, shader(GL_FRAGMENT_SHADER, fragment_src));
  BindAttribLocation(prog, 0, "pos");
  LinkProgram(prog);
  GLint ok = 0;
  GetProgramiv(prog, GL_LINK_STATUS, &ok);
  if (!ok) die("glLinkProgram failed");
  UseProgram(prog);

  /* the vertices, uploaded once (gpusim's are in its memory before timing) */
  uint32_t nverts = fill ? 4 * layers : 3 * count;
  float *v = malloc(sizeof(float) * 3 * nverts);
  if (!v) die("out of memory");
  if (fill) {
    int32_t X = (int32_t)width * 16, Y = (int32_t)height * 16;
    for (uint32_t l = 0; l < layers; l++) {
      float z = 1.0f - (float)(l + 1) / (float)(layers + 1);
      vertex(v + 12 * l, 0, 0, z, width, height);
      vertex(v + 12 * l + 3, X, 0, z, width, height);
      vertex(v + 12 * l + 6, X, Y, z, width, height);
      vertex(v + 12 * l + 9, 0, Y, z, width, height);
    }
  } else {
    uint32_t seed = 12345;
    for (uint32_t i = 0; i < count; i++) {
      seed = seed * 1664525u + 1013904223u;
      int32_t x = (int32_t)((seed >> 8) % ((width - 8) * 16)), y = (int32_t)((seed >> 3) % ((height - 8) * 16));
      float z = (float)(seed >> 24) / 256.0f;
      vertex(v + 9 * i, x, y, z, width, height);
      vertex(v + 9 * i + 3, x + 96, y, z, width, height);
      vertex(v + 9 * i + 6, x, y + 96, z, width, height);
    }
  }
  GLuint vbo;
  GenBuffers(1, &vbo);
  BindBuffer(GL_ARRAY_BUFFER, vbo);
  BufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 3 * nverts), v, GL_STATIC_DRAW);
  VertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
  EnableVertexAttribArray(0);
  free(v);

  glViewport(0, 0, (GLsizei)width, (GLsizei)height);
  glDisable(GL_CULL_FACE);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glClearColor(0, 0, 0, 0);
  glClearDepth(1.0);

  double *t = malloc(sizeof(double) * (size_t)frames);
  if (!t) die("out of memory");
  for (int f = -warmup; f < frames; f++) {
    double t0 = now();
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    if (fill)
      for (uint32_t l = 0; l < layers; l++) glDrawArrays(GL_TRIANGLE_FAN, (GLint)(4 * l), 4);
    else
      glDrawArrays(GL_TRIANGLES, 0, (GLsizei)(3 * count));
    glFinish();
    if (f >= 0) t[f] = now() - t0;
  }
  GLenum err = glGetError();
  if (err != GL_NO_ERROR) {
    fprintf(stderr, "gpusim-peer-osmesa: GL error 0x%x\n", (unsigned)err);
    return 1;
  }
  qsort(t, (size_t)frames, sizeof t[0], cmp_double);
  const char *renderer = (const char *)glGetString(GL_RENDERER);
  printf("renderer=%s frame=%s seconds=%.9f fragments=%llu triangles=%llu\n", renderer ? renderer : "?",
         fill ? "fill" : "triangles", t[frames / 2],
         fill ? (unsigned long long)width * height * layers : 0ull, fill ? 2ull * layers : (unsigned long long)count);

  if (image) {
    FILE *out = fopen(image, "wb");
    if (!out) {
      fprintf(stderr, "gpusim-peer-osmesa: cannot write %s\n", image);
      return 1;
    }
    size_t wrote = fwrite(buf, 4, (size_t)width * height, out);
    if (fclose(out) != 0 || wrote != (size_t)width * height) {
      fprintf(stderr, "gpusim-peer-osmesa: cannot write %s\n", image);
      return 1;
    }
  }
  free(t);
  OSMesaDestroyContext(ctx);
  free(buf);
  return 0;
}
