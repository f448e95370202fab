#!/usr/bin/env python3
"""For every tensor of a mounted model that has data.npy: numpy.load(data.npy, mmap_mode='r')
must be mapped, have the dtype info names (npy_dtype: <f4, or <f2 / <f8 ... for stored float
types) and the shape info gives (outermost first), and equal data.f32 read as little-endian
float32.
Prints one line per tensor checked and exits 1 at the first mismatch.
  npy_matches_f32.py MOUNT"""
import os
import sys

import numpy as np


def info_fields(path):
    fields = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition(": ")
            fields[key] = value
    return fields


def main():
    mount = sys.argv[1]
    tensors = os.path.join(mount, "tensors")
    checked = 0
    for name in sorted(os.listdir(tensors)):
        folder = os.path.join(tensors, name)
        npy = os.path.join(folder, "data.npy")
        if not os.path.exists(npy):
            continue
        info = info_fields(os.path.join(folder, "info"))
        shape = tuple(int(d) for d in info["shape"].split())
        dtype = np.dtype(info["npy_dtype"])
        loaded = np.load(npy, mmap_mode="r")
        decoded = np.fromfile(os.path.join(folder, "data.f32"), dtype="<f4").reshape(shape)
        if not isinstance(loaded, np.memmap):
            sys.exit(f"{name}: numpy.load did not map data.npy")
        if loaded.dtype != dtype or loaded.shape != shape:
            sys.exit(f"{name}: data.npy is {loaded.dtype} {loaded.shape}, info says {dtype} {shape}")
        values = np.asarray(loaded, dtype="<f4")
        # NaN counts as equal to NaN; the sign bits must agree too, so -0.0 is not 0.0.
        if not np.array_equal(values, decoded, equal_nan=True) or not np.array_equal(
                np.signbit(values), np.signbit(decoded)):
            sys.exit(f"{name}: data.npy differs from data.f32")
        print(f"{name}: {loaded.dtype} {shape} equal")
        checked += 1
    print(f"checked {checked} tensors")


if __name__ == "__main__":
    main()
