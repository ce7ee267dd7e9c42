/* topo_describe.c: what a topology amounts to, for people: counts, each
 * leaf's oversubscription, the bisection bandwidth, storage links.  The
 * figures follow from the links (their tiers and capacities), so they hold
 * for generated and explicit topologies alike. */
#include "net/topo_internal.h"

#include <math.h>
#include <stdlib.h>

/* Host-facing (host -> leaf) and uplink (leaf -> spine) capacity of a node. */
static void leaf_caps(const ss_topo *t, uint32_t v, double *down_bps, double *up_bps, size_t *nhost, size_t *nup)
{
    *down_bps = *up_bps = 0;
    *nhost = *nup = 0;
    for (uint32_t i = t->adj_off[v]; i < t->adj_off[v + 1]; i++) {
        uint32_t e = t->adj[i];
        if (t->links[e].tier == SS_TL_LEAF_SPINE) {
            *up_bps += t->cap_bps[e];
            ++*nup;
        } else if (t->links[e].tier == SS_TL_HOST_LEAF) {
            *down_bps += t->cap_bps[ss_topo_link_reverse(e)];
            ++*nhost;
        }
    }
}

double ss_topo_leaf_oversubscription(const ss_topo *t, uint32_t leaf)
{
    double down, up;
    size_t nh, nu;
    leaf_caps(t, leaf, &down, &up, &nh, &nu);
    if (nh == 0 || t->nodes[leaf].kind == SS_TN_HOST) return NAN;
    return nu ? down / up : INFINITY;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ss_topo_bisection_bps(const ss_topo *t)
{
    double *c = ss_xmalloc((t->nnodes ? t->nnodes : 1) * sizeof *c);
    size_t nl = 0;
    for (uint32_t v = 0; v < t->nnodes; v++) {
        double down, up;
        size_t nh, nu;
        leaf_caps(t, v, &down, &up, &nh, &nu);
        if (nh && t->nodes[v].kind != SS_TN_HOST) c[nl++] = fmin(down, up);
    }
    qsort(c, nl, sizeof *c, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < nl / 2; i++) sum += c[i];
    free(c);
    return sum;
}

/* "100 Gbit/s", "2 Gbit/s", "750 Mbit/s" */
static const char *rate(double bps, char *buf, size_t size)
{
    if (isinf(bps)) snprintf(buf, size, "unlimited");
    else if (bps >= 1e9) snprintf(buf, size, "%g Gbit/s", bps / 1e9);
    else if (bps >= 1e6) snprintf(buf, size, "%g Mbit/s", bps / 1e6);
    else snprintf(buf, size, "%g bit/s", bps);
    return buf;
}

void ss_topo_describe(const ss_topo *t, FILE *out)
{
    char a[64], b[64], c[64];
    fprintf(out, "topology '%s': %zu nodes, %zu directed links (%zu duplex)\n", t->name, t->nnodes, t->nlinks,
            t->nlinks / 2);
    size_t nk[SS_TN_COUNT] = {0}, nt[SS_TL_COUNT] = {0};
    for (size_t v = 0; v < t->nnodes; v++) nk[t->nodes[v].kind]++;
    for (size_t e = 0; e < t->nlinks; e += 2) nt[t->links[e].tier]++;
    fprintf(out, "  nodes:");
    for (int k = 0, first = 1; k < SS_TN_COUNT; k++)
        if (nk[k])
            fprintf(out, "%s %zu %s", first ? "" : ",", nk[k], ss_topo_node_kind_name((ss_topo_node_kind)k)), first = 0;
    fprintf(out, "\n  duplex links:");
    for (int k = 0, first = 1; k < SS_TL_COUNT; k++)
        if (nt[k])
            fprintf(out, "%s %zu %s", first ? "" : ",", nt[k], ss_topo_tier_name((ss_topo_tier)k)), first = 0;
    fprintf(out, "\n");

    size_t nleaves = 0;
    for (uint32_t v = 0; v < t->nnodes; v++) {
        double down, up;
        size_t nh, nu;
        leaf_caps(t, v, &down, &up, &nh, &nu);
        if (!nh || t->nodes[v].kind == SS_TN_HOST) continue;
        if (nleaves++ == 0) fprintf(out, "  oversubscription (host-facing / uplink capacity):\n");
        if (nu)
            fprintf(out, "    %-12s %zu host links %s / %zu uplinks %s = %.2f:1\n", t->nodes[v].name, nh,
                    rate(down, a, sizeof a), nu, rate(up, b, sizeof b), down / up);
        else
            fprintf(out, "    %-12s %zu host links %s / no uplinks\n", t->nodes[v].name, nh, rate(down, a, sizeof a));
    }
    if (nleaves >= 2)
        fprintf(out, "  bisection bandwidth: %s per direction (%zu of %zu leaves, spines non-blocking)\n",
                rate(ss_topo_bisection_bps(t), a, sizeof a), nleaves / 2, nleaves);
    for (uint32_t v = 0; v < t->nnodes; v++) {
        if (t->nodes[v].kind != SS_TN_STORAGE) continue;
        for (uint32_t i = t->adj_off[v]; i < t->adj_off[v + 1]; i++) {
            uint32_t e = t->adj[i];
            fprintf(out, "  storage %s on %s: %s from storage, %s to storage; per connection %s\n",
                    t->nodes[v].name, t->nodes[t->links[e].to].name, rate(t->cap_bps[e], a, sizeof a),
                    rate(t->cap_bps[ss_topo_link_reverse(e)], b, sizeof b),
                    rate(t->nodes[v].conn_cap_bps, c, sizeof c));
        }
    }
}
