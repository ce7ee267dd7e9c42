/* cfg_range.c: the physical range of a number read from an input file,
 * told by its key's unit suffix (docs/limits.md, "Physical ranges").
 *
 * Every number that ss_node_num reads (YAML, JSON and --set alike) must
 * lie in the range of its unit in magnitude (the floor only where the key
 * must be > 0 or is a count: what may be 0 may be as near 0 as noise): a time in
 * seconds from a nanosecond to 1e9 s (about 32 years), a bandwidth from
 * 1 bit/s to 1 Pbit/s, a byte count from one byte to an exabyte, and so
 * on.  A key without a known unit suffix is dimensionless (a count, a
 * factor, a coefficient) and must lie in [1e-15, 1e15].  The bounds are
 * the edges of what any serving system measures, not a model's limits:
 * they exist so that no product or quotient of two inputs can overflow to
 * inf or vanish to 0 inside a model (issue 40: `memory_mib: 1e-300` and
 * `bandwidth_gbps: 1e300` reached assertions in the flow model, a period
 * near 1e-300 s never ended).  Whether 0 or a negative value is allowed
 * is the key's own flags' business (cfg.h). */
#include "core/cfg_internal.h"

#include <string.h>

static const ss_key_range ranges[] = {
    /* suffix          lo        hi       unit */
    {"_per_byte", 1e-15, 1.0, "s per byte"},
    {"_flops_per_s", 1.0, 1e18, "FLOP/s"},
    {"_bytes_per_s", 1.0, 1e15, "bytes/s"},
    {"_per_s", 1e-9, 1e18, "per second"},
    {"_rps", 1e-9, 1e9, "requests/s"},
    {"_ms", 1e-6, 1e12, "ms"},
    {"_us", 1e-3, 1e15, "us"},
    {"_s", 1e-9, 1e9, "s"},
    {"_gbps", 1e-9, 1e6, "Gbit/s"},
    {"_mbps", 1e-6, 1e9, "Mbit/s"},
    {"_bps", 1.0, 1e15, "bit/s"},
    {"_bytes", 1.0, 1e18, "bytes"},
    {"_kib", 1.0 / 1024, 1e15, "KiB"},
    {"_mib", 1.0 / 1048576, 1e12, "MiB"},
    {"_gib", 1.0 / 1073741824, 1e9, "GiB"},
    {"_w", 1e-6, 1e7, "W"},
};

static const ss_key_range dimensionless = {"", 1e-15, 1e15, ""};

/* Does key (less an index, "stretch_s[0]") end in suffix? */
static int ends_with(const char *s, const char *suffix)
{
    const char *br = strchr(s, '[');
    size_t n = br ? (size_t)(br - s) : strlen(s), k = strlen(suffix);
    return n > k && memcmp(s + n - k, suffix, k) == 0;
}

const ss_key_range *ss_key_range_of(const char *key)
{
    for (size_t i = 0; key && i < sizeof ranges / sizeof *ranges; i++)
        if (ends_with(key, ranges[i].suffix)) return &ranges[i];
    return &dimensionless;
}

int ss_key_range_holds(const ss_key_range *r, double v, double floor)
{
    double a = v < 0 ? -v : v;
    return a <= r->hi && (a == 0 || a >= floor);
}
