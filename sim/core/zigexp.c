/* zigexp.c: the exponential ziggurat of zigexp.h.  Tables are built once, on
 * first use, from the recurrence in Marsaglia and Tsang (2000), section 4. */
#include "core/zigexp.h"

#include <math.h>
#include <stdint.h>

#include "core/rng.h"

#define STRIPS 256
#define R_TAIL 7.69711747013104972     /* start of the tail strip */
#define V_AREA 3.949659822581572e-3    /* area of each strip */
#define SCALE 16777216.0               /* 2^24: positions are 24-bit */

uint32_t ss_zig_ke[STRIPS]; /* accept u < ke[i] at once */
double ss_zig_we[STRIPS];   /* x = u * we[i] */
static double fe[STRIPS];   /* exp(-x_i) at strip edges */
static int ready;

static void build(void)
{
    uint32_t *ke = ss_zig_ke;
    double *we = ss_zig_we;
    double de = R_TAIL, te = de;
    double q = V_AREA / exp(-de);
    ke[0] = (uint32_t)((de / q) * SCALE);
    ke[1] = 0;
    we[0] = q / SCALE;
    we[STRIPS - 1] = de / SCALE;
    fe[0] = 1.0;
    fe[STRIPS - 1] = exp(-de);
    for (int i = STRIPS - 2; i >= 1; i--) {
        de = -log(V_AREA / de + exp(-de));
        ke[i + 1] = (uint32_t)((de / te) * SCALE);
        te = de;
        fe[i] = exp(-de);
        we[i] = de / SCALE;
    }
    ready = 1;
}

double ss_ran_exp1_rest(gsl_rng *r, uint32_t j)
{
    if (!ready) build(); /* the 32-bit requirement is checked where streams are made (rng.c) */
    const uint32_t *ke = ss_zig_ke;
    const double *we = ss_zig_we;
    for (;; j = ss_rng_u32(r)) {
        uint32_t i = j & (STRIPS - 1), u = j >> 8;
        /* Tested again: j may be the inline path's word, met before the
         * tables were built, or a fresh word of this loop. */
        if (u < ke[i]) return u * we[i];
        if (i == 0) return R_TAIL - log(ss_rng_u01_pos(r)); /* memoryless tail */
        double x = u * we[i];
        if (fe[i] + ss_rng_u01(r) * (fe[i - 1] - fe[i]) < exp(-x)) return x;
    }
}
