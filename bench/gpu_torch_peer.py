"""PyTorch's CUDA row norms on the shapes and byte accounting of gpu_bench,
so a borrowed GPU machine (which has PyTorch) times halnorm's peer in the
same session: F.layer_norm and F.rms_norm forward, and their autograd
backward (dx, dweight and dbias, as halnorm's backward computes).

  python3 gpu_torch_peer.py [--rows 4096] [--hidden 768,1024,...]

Prints a markdown table in gpu_bench's columns, with the device-to-device
copy bandwidth measured here the way gpu_bench measures it."""

import argparse
import statistics
import sys

import torch
import torch.nn.functional as F

EPS = 1e-5
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def median_seconds(body, iterations, repeats):
    """Median over `repeats` of the mean seconds a call, timed by CUDA events
    around `iterations` back-to-back calls."""
    body()  # warm-up
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    seconds = []
    for _ in range(repeats):
        start.record()
        for _ in range(iterations):
            body()
        stop.record()
        stop.synchronize()
        seconds.append(start.elapsed_time(stop) * 1e-3 / iterations)
    return statistics.median(seconds)


def copy_bytes_per_second(iterations, repeats):
    """Device-to-device copy of 1 GiB: bytes read plus bytes written."""
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    return 2 * src.numel() / median_seconds(lambda: dst.copy_(src), iterations, repeats)


def norm_forward(op, x, w, b):
    if op == "layer_norm":
        return F.layer_norm(x, (x.shape[-1],), w, b, eps=EPS)
    return F.rms_norm(x, (x.shape[-1],), w, eps=EPS)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--hidden", default="768,1024,2048,4096,8192,16384")
    parser.add_argument("--ops", default="layer_norm,rms_norm")
    parser.add_argument("--dtypes", default="bf16,f16,f32")
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("gpu_torch_peer: CUDA is not available to PyTorch here")
        return 0
    copy = copy_bytes_per_second(args.iterations, args.repeats)
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"device-to-device copy {copy / 1e9:.0f} GB/s")
    print("| op | dir | dtype | M | N | peer | us | GB/s | of copy |")
    print("|---|---|---|---|---|---|---|---|---|")
    for op in args.ops.split(","):
        for dtype_name in args.dtypes.split(","):
            dtype = DTYPES[dtype_name]
            for hidden in map(int, args.hidden.split(",")):
                x = torch.randn(args.rows, hidden, device="cuda", dtype=dtype, requires_grad=True)
                # Parameters in x's dtype, as PyTorch models hold them
                # (gpu_bench passes f32 ones: N elements, next to M x N).
                w = torch.randn(hidden, device="cuda", dtype=dtype, requires_grad=True)
                bias = torch.randn_like(w, requires_grad=True) if op == "layer_norm" else None
                dy = torch.randn_like(x)
                y = norm_forward(op, x, w, bias)
                inputs = (x, w) if bias is None else (x, w, bias)
                runs = {
                    "fwd": lambda: norm_forward(op, x, w, bias),
                    "bwd": lambda: torch.autograd.grad(y, inputs, dy, retain_graph=True),
                }
                for direction, body in runs.items():
                    with torch.no_grad() if direction == "fwd" else torch.enable_grad():
                        seconds = median_seconds(body, args.iterations, args.repeats)
                    rate = (2 if direction == "fwd" else 3) * x.numel() * x.element_size() / seconds
                    print(f"| {op} | {direction} | {dtype_name} | {args.rows} | {hidden} | "
                          f"torch | {seconds * 1e6:.1f} | {rate / 1e9:.0f} | {rate / copy:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
