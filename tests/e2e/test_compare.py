#!/usr/bin/python3
"""Self-test of compare.py on synthetic tensors: each case's expected exit status."""

import os
import subprocess
import sys
import tempfile

import numpy as np
from onnx import numpy_helper

COMPARE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare.py")


def write_pb(path, array):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())


def main():
    rng = np.random.RandomState(0)
    ref = (rng.randn(2, 3) * 5).astype(np.float32)
    ref[0, 0] = np.nan
    ref[1, 2] = np.inf
    ints = np.arange(4, dtype=np.int64)
    scale = float(np.abs(ref[np.isfinite(ref)]).max())  # allowed = 1e-3 * scale

    def mutate(kind):
        a = ref.copy()
        if kind == "within_tol":
            a[0, 1] += 0.5e-3 * scale
        elif kind == "beyond_tol":
            a[0, 1] += 2e-3 * scale
        elif kind == "shape":
            a = a.reshape(3, 2)
        elif kind == "dtype":
            a = a.astype(np.float64)
        elif kind == "nan":
            a[0, 0] = 1.0
        elif kind == "inf_sign":
            a[1, 2] = -np.inf
        return a

    # (case, expected exit status, how to write the actual dir)
    cases = [("identical", 0), ("within_tol", 0), ("beyond_tol", 1), ("shape", 1), ("dtype", 1),
             ("nan", 1), ("inf_sign", 1), ("int_differs", 1), ("missing", 1), ("extra", 1),
             ("npy", 0), ("garbage", 2)]
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        ref_dir = os.path.join(tmp, "ref")
        os.makedirs(ref_dir)
        write_pb(os.path.join(ref_dir, "output_0.pb"), ref)
        write_pb(os.path.join(ref_dir, "output_1.pb"), ints)
        for case, expected in cases:
            d = os.path.join(tmp, case)
            os.makedirs(d)
            if case == "npy":
                np.save(os.path.join(d, "output_0.npy"), ref)
                np.save(os.path.join(d, "output_1.npy"), ints)
            elif case == "garbage":
                with open(os.path.join(d, "output_0.pb"), "wb") as f:
                    f.write(b"\xff\xff\xff garbage")
                write_pb(os.path.join(d, "output_1.pb"), ints)
            else:
                kind = case if case not in ("identical", "int_differs", "missing", "extra") else None
                write_pb(os.path.join(d, "output_0.pb"), mutate(kind))
                if case != "missing":
                    write_pb(os.path.join(d, "output_1.pb"), ints + (case == "int_differs"))
                if case == "extra":
                    write_pb(os.path.join(d, "output_2.pb"), ints)
            p = subprocess.run([sys.executable, COMPARE, ref_dir, d], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, universal_newlines=True)
            status = "ok  " if p.returncode == expected else "FAIL"
            print("%s %-11s exit %d (expected %d)" % (status, case, p.returncode, expected))
            if p.returncode != expected:
                failed.append(case)
                print("     | " + p.stdout.rstrip().replace("\n", "\n     | "))
    if failed:
        print("test_compare: FAIL: %s" % " ".join(failed), file=sys.stderr)
        return 1
    print("test_compare: all %d cases ok" % len(cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
