/* stb_image_impl.c — stb_image compiled from Debian's header into the fuzz
 * build (GS_FUZZ=ON only), so that libFuzzer sees its branches and ASan
 * checks its accesses; the other builds use Debian's libstb. */
#define STB_IMAGE_IMPLEMENTATION
#include "stb_image.h"
