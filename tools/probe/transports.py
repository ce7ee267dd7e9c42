"""tools/probe/transports.py: the two ways a tensor goes from one block process to the next.

  zmq-copy    BlockFlow's copy path: the tensor is pickled, sent whole over a ZeroMQ PUSH
              socket, and unpickled by the receiver (a copy into the socket, a copy out).
  shm-handle  the CPU analogue of TensorMQ's CUDA IPC handle: each hop owns a ring of slots in
              one shared-memory file (/dev/shm); the sender copies the tensor into a free slot
              and sends only a small pickled handle (slot, shape, dtype) over ZeroMQ PUSH; the
              receiver maps the slot as a tensor without copying. A slot comes back to the
              sender (a one-integer credit on a second PUSH/PULL pair) once the receiver's
              compute has consumed it, so a full ring blocks the sender (back-pressure).
              Unlike CUDA IPC (where the output already lives in device memory), the sender
              pays one memcpy into the slot: torch allocates the block's output itself.

Every message is two ZeroMQ frames: a fixed header (request id, client id, client send time,
time the hop started; see HDR) and the payload. Endpoints are ipc:// paths in one run folder,
so concurrent probes never collide on TCP ports.
"""
import mmap
import os
import pickle
import struct
import time

import torch
import zmq

TRANSPORTS = ("zmq-copy", "shm-handle")
HDR = struct.Struct("<qiqq")   # request id, client id, client send ns, hop start ns
STOP_ID = -1                   # request id of the stop message that walks down the chain
DTYPE = torch.float32
ITEM_BYTES = 4


def endpoint(run_dir, name):
    """ipc:// endpoint for a named socket inside run_dir."""
    return "ipc://" + os.path.join(run_dir, name + ".sock")


def slot_file(run_dir, hop):
    """Path of a hop's shared-memory ring (in /dev/shm so it is memory, not disk)."""
    base = os.path.basename(run_dir.rstrip("/"))
    return f"/dev/shm/{base}-{hop}.ring"


def create_ring(run_dir, hop, slots, slot_bytes):
    """Create (size) the shared-memory file of one hop; the launcher unlinks it at the end."""
    path = slot_file(run_dir, hop)
    with open(path, "wb") as f:
        f.truncate(slots * slot_bytes)
    return path


class Sender:
    """Sending end of one hop. send(hdr_fields, tensor) returns when the message is queued."""

    def __init__(self, ctx, kind, run_dir, hop, slots=0, slot_bytes=0):
        self.kind = kind
        self.sock = ctx.socket(zmq.PUSH)
        self.sock.setsockopt(zmq.LINGER, 1000)
        self.sock.connect(endpoint(run_dir, hop))
        if kind == "shm-handle":
            self.credit = ctx.socket(zmq.PULL)
            self.credit.bind(endpoint(run_dir, hop + ".credit"))
            fd = os.open(slot_file(run_dir, hop), os.O_RDWR)
            self.mem = mmap.mmap(fd, slots * slot_bytes)
            os.close(fd)
            # fault every page in now, not on a slot's first use inside a measurement
            torch.frombuffer(self.mem, dtype=torch.uint8).zero_()
            self.slot_bytes = slot_bytes
            self.free = list(range(slots))

    def _take_slot(self):
        while True:
            try:
                self.free.append(int(self.credit.recv(zmq.NOBLOCK)))
            except zmq.Again:
                break
        if not self.free:
            self.free.append(int(self.credit.recv()))
        return self.free.pop(0)

    def send(self, rid, cid, t_client_ns, tensor):
        """Send one tensor (header fields first); the hop's clock starts here."""
        t0 = time.perf_counter_ns()
        hdr = HDR.pack(rid, cid, t_client_ns, t0)
        if self.kind == "zmq-copy":
            self.sock.send_multipart([hdr, pickle.dumps(tensor, protocol=pickle.HIGHEST_PROTOCOL)],
                                     copy=False)
            return
        n = tensor.numel()
        if n * ITEM_BYTES > self.slot_bytes:
            raise ValueError(f"tensor of {n * ITEM_BYTES} B does not fit a {self.slot_bytes} B slot")
        slot = self._take_slot()
        view = torch.frombuffer(self.mem, dtype=DTYPE, count=n, offset=slot * self.slot_bytes)
        view.view(tensor.shape).copy_(tensor)
        meta = {"slot": slot, "shape": tuple(tensor.shape), "dtype": "float32"}
        self.sock.send_multipart([hdr, pickle.dumps(meta, protocol=pickle.HIGHEST_PROTOCOL)])

    def send_raw(self, frames):
        """Forward frames unchanged (the dispatcher's zmq-copy path, and stop messages)."""
        self.sock.send_multipart(frames, copy=False)

    def send_stop(self):
        self.sock.send_multipart([HDR.pack(STOP_ID, 0, 0, 0), b""])


class Receiver:
    """Receiving end of one hop. recv() -> (header tuple, tensor or None, release callback)."""

    def __init__(self, ctx, kind, run_dir, hop, slots=0, slot_bytes=0):
        self.kind = kind
        self.sock = ctx.socket(zmq.PULL)
        self.sock.bind(endpoint(run_dir, hop))
        if kind == "shm-handle":
            self.credit = ctx.socket(zmq.PUSH)
            self.credit.setsockopt(zmq.LINGER, 0)
            self.credit.connect(endpoint(run_dir, hop + ".credit"))
            fd = os.open(slot_file(run_dir, hop), os.O_RDWR)
            self.mem = mmap.mmap(fd, slots * slot_bytes)
            os.close(fd)
            torch.frombuffer(self.mem, dtype=torch.uint8).sum()     # map every page now
            self.slot_bytes = slot_bytes

    def recv_frames(self):
        """Raw frames (for forwarding without deserialising)."""
        return self.sock.recv_multipart(copy=False)

    def decode(self, frames):
        """Header and tensor from frames; the tensor is a view of the slot under shm-handle."""
        hdr = HDR.unpack(frames[0].bytes)
        if hdr[0] < 0:             # a control message (stop, stats): no payload
            return hdr, None, _noop
        payload = pickle.loads(frames[1].buffer)
        if self.kind == "zmq-copy":
            return hdr, payload, _noop
        slot = payload["slot"]
        n = 1
        for d in payload["shape"]:
            n *= d
        view = torch.frombuffer(self.mem, dtype=DTYPE, count=n, offset=slot * self.slot_bytes)
        return hdr, view.view(payload["shape"]), lambda: self.credit.send(b"%d" % slot)

    def recv(self):
        return self.decode(self.recv_frames())


def _noop():
    pass


def new_context():
    """One ZeroMQ context (one I/O thread, the default) per process."""
    return zmq.Context()
