/* control.h: time-shared devices and controlled containers (control.c,
 * scenarios with `dispatch:` or `control:`, docs/control.md), as
 * sim/world/world.c builds them.  The substrate reaches them through the
 * hooks they set (ss_hooks, serve/serve.h). */
#ifndef SS_CONTROL_H
#define SS_CONTROL_H

#include "serve/serve.h"

/* control.c: time-shared devices and controlled containers (`dispatch:`,
 * `control:`, docs/control.md).  Call the ss_ctl_* hooks only when w->ctl
 * is set. */
typedef struct ss_control ss_control;
int ss_control_build(ss_world *w, ss_err *err);   /* after the instances */
void ss_control_start(ss_world *w);               /* every instance is up: gates pull */
void ss_control_declare(ss_world *w);
void ss_control_result(const ss_world *w, ss_run_result *r);
void ss_control_free(ss_world *w);
ss_gate *ss_ctl_free_gate(ss_world *w, const ss_group *g); /* a free time-shared device of g's model, or NULL */
void ss_ctl_gate_free(ss_world *w, ss_gate *gt, double now); /* an executable of gt ended a service */
void ss_ctl_done(ss_world *w, const ss_instance *in, const ss_request *r, double now); /* r's service ended */
void ss_ctl_enqueue(ss_world *w, uint32_t m, double enqueued_s); /* r joined m's shared queue */
void ss_ctl_dequeue(ss_world *w, uint32_t m, double enqueued_s); /* ... and left it */
double ss_ctl_cores(const ss_world *w, uint32_t m);  /* model m's containers' cores now */
/* A scripted capacity event on a controlled container sets its cores
 * (counted as the controller's would be); 0 if in is not one. */
int ss_ctl_set_cores(ss_world *w, const ss_instance *in, double cores);
/* Mean response time of m's requests completed in (now - span_s, now], NAN if none. */
double ss_ctl_rt_mean(const ss_world *w, uint32_t m, double now, double span_s);

#endif
