/* deepeye-frugal.c: DeepEye with bounded fc memory (docs/masa-models.md
 * §4.6): deepeye.c built with FRUGAL, so the two share one implementation. */
#define FRUGAL 1
#include "deepeye.c"
