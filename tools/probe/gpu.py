"""tools/probe/gpu.py: issue 15 item 7, the GPU side of a TensorMQ hop, measured only when a CUDA
GPU is there (nvidia-smi works and torch.cuda.is_available()); otherwise the probe prints one
line and goes on. Debian's python3-torch is built without CUDA, so this needs a CUDA build of
torch on the machine's python3. Ran on an H100 (2026-11-26): profiles/measured/h100/probe-gpu.json,
fitted in docs/calibration.md.

  memcpy     host->device from pinned and from pageable memory, device->host, device->device
             (same GPU, and GPU 0 -> GPU 1 when there are two); "path" names which
  transport  "cuda-ipc": a CUDA tensor passed to another process through torch.multiprocessing
             (which sends a CUDA IPC handle); put -> the receiver has the tensor
"""
import shutil
import subprocess
import time


def available():
    """(True, '') when nvidia-smi runs and torch sees a CUDA device, else (False, why)."""
    if shutil.which("nvidia-smi") is None:
        return False, "no nvidia-smi"
    try:
        subprocess.run(["nvidia-smi", "-L"], check=True, capture_output=True, timeout=30)
    except (subprocess.SubprocessError, OSError) as e:
        return False, f"nvidia-smi failed ({e})"
    import torch
    if not torch.cuda.is_available():
        return False, "torch has no CUDA (Debian's python3-torch is a CPU build)"
    return True, ""


def _copy_times(torch, dst, src, reps, warmup):
    out = []
    for i in range(warmup + reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        dst.copy_(src, non_blocking=False)
        torch.cuda.synchronize()
        if i >= warmup:
            out.append((time.perf_counter_ns() - t0) * 1e-9)
    return out


def _ipc_child(q_in, q_out):
    import torch
    while True:
        item = q_in.get()                   # rebuilds the tensor from its CUDA IPC handle
        if item is None:
            break
        t0, x = item
        torch.cuda.synchronize()
        q_out.put(time.perf_counter_ns() - t0)
        del x


def gpu_samples(sizes_bytes, reps, warmup, log):
    """memcpy and cuda-ipc samples (extra field 'path' on memcpy, device 'cuda')."""
    import torch
    import torch.multiprocessing as tmp
    samples = []
    dev = torch.device("cuda:0")
    for nbytes in sizes_bytes:
        n = nbytes // 4
        d = torch.empty(n, device=dev)
        paths = {
            "h2d-pinned": (d, torch.randn(n).pin_memory()),
            "h2d-pageable": (d, torch.randn(n)),
            "d2h-pinned": (torch.empty(n).pin_memory(), d),
            "d2h-pageable": (torch.empty(n), d),
            "d2d": (torch.empty(n, device=dev), d),
        }
        if torch.cuda.device_count() > 1:
            paths["d2d-peer"] = (torch.empty(n, device="cuda:1"), d)
        for path, (dst, src) in paths.items():
            lat = _copy_times(torch, dst, src, reps, warmup)
            samples.append({"kind": "memcpy", "path": path, "device": "cuda", "bytes": nbytes,
                            "latency_s": lat})
            log(f"gpu {path:12s} {nbytes:9d} B: best {nbytes / min(lat) / 1e9:6.2f} GB/s")
    ctx = tmp.get_context("spawn")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    child = ctx.Process(target=_ipc_child, args=(q_in, q_out), daemon=True)
    child.start()
    for nbytes in sizes_bytes:
        x = torch.randn(nbytes // 4, device=dev)
        lat = []
        for i in range(warmup + reps):
            q_in.put((time.perf_counter_ns(), x))
            ns = q_out.get()
            if i >= warmup:
                lat.append(ns * 1e-9)
        samples.append({"kind": "transport", "transport": "cuda-ipc", "bytes": nbytes,
                        "latency_s": lat})
        log(f"gpu cuda-ipc     {nbytes:9d} B: mean {1e3 * sum(lat) / len(lat):7.3f} ms")
    q_in.put(None)
    child.join(timeout=30)
    return samples
