"""tools/probe/transfer.py: the transfer experiment - one sender to k receivers over TCP, by k
unicast streams and by a relay chain (issue 41, item 1).

A model's weights reach k new replicas either by k unicast streams from one source (each replica
downloads its own copy) or by a TCP chain (Flashpoint §6.2: each receiver forwards what it
receives to the next while it receives). On a real fabric both are bounded by NICs; here every
node is a process on this machine and the bytes cross the loopback device, so what bounds them is
what each byte costs the machine's cores (the kernel's copies on both sides of each connection)
and how well concurrent streams share them. That is what this experiment measures, for
`servesim calibrate` to fit and `servesim validate` to predict.

What runs, per (mode, k, size):
- k receiver processes (and, for the chain, each receiver but the last also a relay), each with
  its listening socket bound on 127.0.0.1 before the clock starts, and one sender process;
- the sender holds the whole payload in its memory (a model's weights in host RAM: one buffer of
  the size, filled once, reused by every run of that size);
- t0: the sender process takes its clock (CLOCK_MONOTONIC, perf_counter_ns, one clock for every
  process) and then opens its connection(s): connection set-up is inside the measured time;
- unicast: the sender opens k connections and sends the payload on each from its own thread (a
  server that streams to k clients at once); receivers `recv_into` a ring of 64 MiB (the bytes
  land in memory as a replica's would; the ring bounds the experiment's memory), every page of
  which the receiver touched before the clock started (a first touch costs a page fault, about
  7 ms per 64 MiB on the development VM: a cost of allocating memory, not of the transfer);
- chain: the sender opens one connection to r1; relay i receives a chunk (`--chunk`, 1 MiB by
  default) into its ring and sends that chunk on to r(i+1) before receiving the next (one
  thread per relay: receive, forward, repeat), as Flashpoint's chain manager copies and forwards;
- each receiver stamps the instant its last byte arrived and its first byte arrived; the run's
  record gives, per receiver, done_s and first_s (seconds since t0).

Samples: kind "transfer", mode unicast|chain, receivers k, bytes, chunk_bytes, rep, and the
per-receiver done_s and first_s arrays (receiver order: for a chain, hop order). SO_SNDBUF and
SO_RCVBUF stay at the kernel's defaults (autotuned), TCP_NODELAY is off, as a plain transfer has it.
"""
import os
import random
import socket
import struct
import threading
import time

RING_BYTES = 64 << 20
STAMP = struct.Struct("<qq")  # first-byte ns, last-byte ns


def _listen():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(4)
    return s


def _recv_all(conn, nbytes, ring, nxt, chunk):
    """Receive nbytes into the ring (and forward each piece to nxt when relaying)."""
    view = memoryview(ring)
    got = 0
    first = 0
    pos = 0
    while got < nbytes:
        want = min(chunk, nbytes - got, len(ring) - pos)
        n = conn.recv_into(view[pos:pos + want], want)
        if n == 0:
            raise RuntimeError("transfer: connection closed early")
        if first == 0:
            first = time.perf_counter_ns()
        if nxt is not None:
            nxt.sendall(view[pos:pos + n])
        got += n
        pos = (pos + n) % len(ring)
    return first, time.perf_counter_ns()


def _receiver(lsock, nbytes, chunk, next_port, ready_w, report_w):
    """One receiver process: fault its ring in, say ready, accept, (connect onwards), receive,
    report its stamps."""
    ring = bytearray(min(RING_BYTES, max(nbytes, 1)))
    ring[::4096] = b"\1" * len(range(0, len(ring), 4096))  # every page touched before the clock starts
    os.write(ready_w, b"r")
    nxt = None
    conn, _ = lsock.accept()
    if next_port:
        nxt = socket.create_connection(("127.0.0.1", next_port))
    first, last = _recv_all(conn, nbytes, ring, nxt, chunk)
    if nxt is not None:
        nxt.shutdown(socket.SHUT_WR)
        nxt.recv(1)  # wait until the next hop has everything (its close)
        nxt.close()
    conn.close()
    os.write(report_w, STAMP.pack(first, last))


def _sender(payload, nbytes, ports, go_r, t0_w):
    """The sender process: wait for the go, stamp t0, connect and stream to every port."""
    os.read(go_r, 1)
    t0 = time.perf_counter_ns()
    view = memoryview(payload)[:nbytes]

    def stream(port):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(view)
        s.shutdown(socket.SHUT_WR)
        s.recv(1)
        s.close()

    threads = [threading.Thread(target=stream, args=(p,)) for p in ports]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    os.write(t0_w, struct.pack("<q", t0))


def _fork(fn, *args):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            fn(*args)
        except BaseException:  # noqa: BLE001 - the child reports by its exit status
            import traceback
            traceback.print_exc()
            code = 1
        os._exit(code)
    return pid


def one_run(payload, nbytes, mode, k, chunk):
    """Run one transfer; returns (done_s, first_s), per receiver, seconds since t0."""
    listens = [_listen() for _ in range(k)]
    ports = [s.getsockname()[1] for s in listens]
    pipes = [os.pipe() for _ in range(k)]
    ready_r, ready_w = os.pipe()
    pids = []
    for i in range(k):
        nxt = ports[i + 1] if mode == "chain" and i + 1 < k else 0
        pids.append(_fork(_receiver, listens[i], nbytes, chunk, nxt, ready_w, pipes[i][1]))
    for s in listens:
        s.close()
    go_r, go_w = os.pipe()
    t0_r, t0_w = os.pipe()
    pids.append(_fork(_sender, payload, nbytes, ports if mode == "unicast" else ports[:1], go_r, t0_w))
    _read_exact(ready_r, k)  # every receiver's ring is in memory
    time.sleep(0.02)  # and every child is at accept() or read()
    os.write(go_w, b"g")
    stamps = [STAMP.unpack(_read_exact(r, STAMP.size)) for r, _ in pipes]
    t0 = struct.unpack("<q", _read_exact(t0_r, 8))[0]
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        if status != 0:
            raise RuntimeError(f"transfer: a {mode} process failed (status {status})")
    for fd in [go_r, go_w, t0_r, t0_w, ready_r, ready_w] + [fd for p in pipes for fd in p]:
        os.close(fd)
    return [(last - t0) * 1e-9 for _, last in stamps], [(first - t0) * 1e-9 for first, _ in stamps]


def _read_exact(fd, n):
    out = b""
    while len(out) < n:
        b = os.read(fd, n - len(out))
        if not b:
            raise RuntimeError("transfer: a process ended without reporting")
        out += b
    return out


FULL = {"fit_sizes_mib": [64, 256, 1024, 2048], "fit_ks": [1, 2, 4, 8], "fit_reps": 2,
        "val_sizes_mib": [64, 256, 1024, 2048], "val_ks": list(range(1, 9)), "val_reps": 3}
QUICK = {"fit_sizes_mib": [64, 256], "fit_ks": [1, 2, 4], "fit_reps": 2,
         "val_sizes_mib": [64, 256], "val_ks": [1, 2, 4, 8], "val_reps": 1}


def transfer_samples(cfg, chunk, log, seed=7):
    """kind 'transfer' samples: the fit plan (use fit, for calibrate) and the validation plan (use
    validate, never fitted), every (mode, k) of both plans run in one shuffled order per size, so
    that the machine's drift falls on both alike."""
    rng = random.Random(seed)
    samples = []
    sizes = sorted(set(cfg["fit_sizes_mib"]) | set(cfg["val_sizes_mib"]))
    for mib in sizes:
        nbytes = mib << 20
        plan = []
        for use, key in (("fit", "fit"), ("validate", "val")):
            if mib in cfg[key + "_sizes_mib"]:
                plan += [(use, m, k, r + 1) for m in ("unicast", "chain") for k in cfg[key + "_ks"]
                         for r in range(cfg[key + "_reps"])]
        rng.shuffle(plan)
        payload = bytearray(os.urandom(1 << 20)) * mib
        one_run(payload, 8 << 20, "unicast", 1, chunk)  # warm the path
        for use, mode, k, rep in plan:
            done, first = one_run(payload, nbytes, mode, k, chunk)
            log(f"transfer {use:8s} {mode:7s} k={k} {mib:5d} MiB rep {rep}: last {max(done):7.3f} s, "
                f"first {min(done):7.3f} s ({8 * nbytes * k / max(done) / 1e9:5.2f} Gbit/s delivered)")
            smp = {"kind": "transfer", "mode": mode, "receivers": k, "bytes": nbytes, "rep": rep, "use": use,
                   "done_s": [round(v, 6) for v in done], "first_s": [round(v, 6) for v in first]}
            if mode == "chain":
                smp["chunk_bytes"] = chunk
            samples.append(smp)
        del payload
    return samples


def main():
    import argparse
    import datetime
    import sys
    import time as _time
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a short plan for development (~20 s)")
    ap.add_argument("--out", required=True, help="folder for probe-transfer.json and transfer-log.txt")
    ap.add_argument("--chunk", type=int, default=1 << 20, help="the relays' chunk, bytes (default 1 MiB)")
    ap.add_argument("--seed", type=int, default=7, help="seed of the runs' order")
    a = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import run as probe_run
    os.makedirs(a.out, exist_ok=True)
    cfg = QUICK if a.quick else FULL
    t0 = _time.monotonic()
    with open(os.path.join(a.out, "transfer-log.txt"), "w", encoding="utf-8") as logf:
        log = probe_run.tee_log(logf, t0)
        before = os.getloadavg()
        smp = transfer_samples(cfg, a.chunk, log, a.seed)
        wall = _time.monotonic() - t0
        notes = (f"{'quick' if a.quick else 'full'} transfer experiment (tools/probe/transfer.py), seed {a.seed}, "
                 f"wall {wall:.0f} s; every node a process of this machine, over 127.0.0.1 (loopback TCP, kernel "
                 f"defaults: autotuned socket buffers, Nagle on); relays forward chunks of {a.chunk} bytes; "
                 f"uptime load average (1, 5, 15 min) before {' '.join(f'{x:.2f}' for x in before)}, after "
                 f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; machine shared with other jobs; "
                 f"{datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}")
        probe_run.write_profile(os.path.join(a.out, "probe-transfer.json"), probe_run.environment(notes),
                                "tools/probe (measured): one sender to k receivers over TCP, unicast and relay "
                                "chain (transfer.py)", samples=smp)
        log(f"transfer: done in {wall:.0f} s, {len(smp)} runs, {os.path.join(a.out, 'probe-transfer.json')}")


if __name__ == "__main__":
    main()
