#!/bin/sh
# tools/probe/calibrate.sh: the probe's regeneration chain, one command (make probe-calibrate):
# the micro-benchmark profile (and the scheduler's, probe-stacking.json, the hops after idle,
# probe-wake.json, CPU interference, probe-corun.json, the memory bandwidth, probe-memshare.json,
# and the host's speed, probe-speed.json, when there) ->
# servesim calibrate -> the model file the probe scenario reads (models/resnet50-cpu.json:
# its blocks' service, both transports' laws, the run queues and the wake-up stacking, waking after
# idle, CPU interference) ->
# servesim validate of the scenario against the end-to-end runs (never fitted).
#
#   tools/probe/calibrate.sh SERVESIM PROBE_DIR [VALIDATE_CSV [E2E_PROFILE]]
#
# PROBE_DIR profiles/measured (the committed measurements): writes models/resnet50-cpu.json
# and validates scenarios/probe/resnet50-cpu.yaml. Any other PROBE_DIR (a quick run, a trial):
# models/ is left alone; the model goes to PROBE_DIR/scenario/models/resnet50-cpu.json beside a
# copy of the scenario that reads it (PROBE_DIR/scenario/resnet50-cpu.yaml). E2E_PROFILE
# defaults to PROBE_DIR/probe-e2e.json; without one, validation is skipped. VALIDATE_CSV
# defaults to PROBE_DIR/validate.csv. Exit status: calibrate's (2: bad input), then
# validate's (1: some prediction beyond its tolerance, the table says which). The scenario runs the
# cores as per-core run queues where calibrate fitted them (the ring's profile records its kernel),
# and then the runs are validated with the max-min host and the stacking too, into VALIDATE_CSV
# less .csv plus -max-min.csv: reported, not in the exit status. An older measurement's ring gives
# the stacking alone: the scenario then uses the max-min host with it.
set -eu
bin=$1
dir=${2%/}
csv=${3:-$dir/validate.csv}
e2e=${4:-$dir/probe-e2e.json}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
python3 tools/probe/check_profile.py "$dir/probe-micro.json"
if [ "$dir" = profiles/measured ]; then
    model=models/resnet50-cpu.json
    scenario=scenarios/probe/resnet50-cpu.yaml
else
    mkdir -p "$dir/scenario/models"
    model=$dir/scenario/models/resnet50-cpu.json
    scenario=$dir/scenario/resnet50-cpu.yaml
    sed 's#\.\./\.\./models/resnet50-cpu\.json#models/resnet50-cpu.json#g' scenarios/probe/resnet50-cpu.yaml >"$scenario"
    # a measurement without a benchmark is validated without its mechanism: the wake benchmark
    # (probe-wake.json, pipeline.wake) came on 2026-11-27, the co-run one (probe-corun.json,
    # pipeline.interference) at 06:00 that day; the ring (probe-stacking.json) is absent from a
    # probe run of one part (--only micro): the scheduler below, from what calibrate fitted
    for pair in wake:wake corun:interference memshare:memory_bandwidth; do
        if [ ! -f "$dir/probe-${pair%%:*}.json" ]; then
            sed -i "/^  ${pair#*:}: /d" "$scenario"
        fi
    done
fi
# The other benchmarks, each where the measurement has it: the scheduler's wake-up stacking
# (stacking.py: pipeline.stacking), hops into a process that has been idle (wake.py:
# pipeline.wake), CPU interference (corun.py: pipeline.interference), and the host's speed beside
# the micro-benchmarks and beside the end-to-end runs (speed.py): calibrate reports their ratio
# (host_speed), warns when the host moved, and with --at-run-speed fits the micro-benchmarks' times
# at the speed the host had while the runs ran (docs/calibration.md)
inputs="$dir/probe-micro.json"
for part in stacking wake corun memshare speed; do
    if [ -f "$dir/probe-$part.json" ]; then
        python3 tools/probe/check_profile.py "$dir/probe-$part.json"
        inputs="$inputs $dir/probe-$part.json"
    fi
done
speed_opt=""
if [ -f "$dir/probe-speed.json" ]; then
    speed_opt="--at-run-speed"
fi
# shellcheck disable=SC2086 # file names without spaces (probe output folders), and an option or none
"$bin" calibrate $inputs -o "$model" $speed_opt
echo "calibrate.sh: $model written from $inputs"
# has_key SECTION KEY: whether the model file calibrate wrote has SECTION.KEY
has_key() {
    python3 -c 'import json,sys; sys.exit(0 if sys.argv[3] in json.load(open(sys.argv[1])).get(sys.argv[2], {}) else 1)' "$model" "$1" "$2"
}
# The scheduler: the run queues where calibrate fitted them (the ring's profile records its kernel
# and its deliveries: every measurement since 2026-11-27 at 14:37), else the max-min host with the
# wake-up stacking the older rings give (docs/calibration.md, "Run queues"), else neither (no ring)
# (the committed scenario itself is not edited: its validation is told so with --set, and says so)
model_abs=$(cd "$(dirname "$model")" && pwd)/$(basename "$model")
set -- # the validation's scheduler options, if any (the script's own arguments are read above)
if ! has_key scheduler run_queues; then
    if [ "$dir" != profiles/measured ]; then
        if has_key scheduler stacking; then
            sed -i 's/^  run_queues: /  stacking: /' "$scenario"
        else
            sed -i '/^  run_queues: /d' "$scenario"
        fi
    elif has_key scheduler stacking; then
        set -- --set pipeline.run_queues= --set "pipeline.stacking={profile: $model_abs}"
        echo "calibrate.sh: no scheduler.run_queues (calibrate's summary says why): validating with the max-min host and the stacking"
    else
        set -- --set pipeline.run_queues=
        echo "calibrate.sh: no scheduler.run_queues nor stacking: validating with the max-min host alone"
    fi
fi
# each run at its host's speed: where the speed checks name their runs, calibrate writes each run's
# time factor (host_speed.runs, the checks around it) and the scenario applies it
# (validation.host_speed; docs/calibration.md, "The host drifts within a measurement"); a trial's
# copy loses that line where its checks do not name their runs
if [ "$dir" != profiles/measured ] && ! has_key host_speed runs; then
    sed -i '/^  host_speed: {host: vm/d' "$scenario"
fi
if [ ! -f "$e2e" ]; then
    echo "calibrate.sh: no $e2e: validation skipped"
    exit 0
fi
mkdir -p "$(dirname "$csv")"
rc=0
"$bin" validate "$scenario" "$e2e" "$@" -o "$csv" || rc=$?
# the max-min host with the wake-up stacking beside the run queues, where calibrate fitted both
# (docs/calibration.md, "Run queues"): the same runs with the cores shared by max-min; reported,
# the exit status is the run queues'
if has_key scheduler run_queues && has_key scheduler stacking; then
    mm_csv=${csv%.csv}-max-min.csv
    "$bin" validate "$scenario" "$e2e" --quiet --set pipeline.run_queues= \
        --set "pipeline.stacking={profile: $model_abs}" -o "$mm_csv" |
        sed 's/^validate:/calibrate.sh: with the max-min host and the stacking (scheduler.stacking):/' || true
fi
exit $rc
