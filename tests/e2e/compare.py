#!/usr/bin/python3
"""Compares output tensors in two directories (ONNX test-data layout).

Usage: /usr/bin/python3 tests/e2e/compare.py REFERENCE_DIR ACTUAL_DIR [--tol 1e-3] [--quiet]

Every output_K.pb (serialized onnx.TensorProto) or output_K.npy in REFERENCE_DIR must have a
counterpart in ACTUAL_DIR (either format) with the same shape and dtype, and, for floating-point
tensors, max |actual - reference| <= tol * max(1, max |reference|). NaN matches NaN, +-inf must match
exactly. Integer and bool tensors must be equal. ACTUAL_DIR must not hold extra outputs.
Prints one line per output; exits 0 when all match, 1 on a mismatch, 2 on a usage or I/O error.
"""

import argparse
import os
import re
import sys

import numpy as np

OUTPUT_RE = re.compile(r"^output_(\d+)\.(pb|npy)$")


class CompareError(Exception):
    pass


def load_tensor(path):
    if path.endswith(".npy"):
        try:
            return np.load(path, allow_pickle=False)
        except Exception as e:
            raise CompareError("%s: not a readable .npy file (%s)" % (path, e))
    import onnx
    from onnx import numpy_helper

    t = onnx.TensorProto()
    try:
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        return numpy_helper.to_array(t)
    except Exception as e:
        raise CompareError("%s: not a readable serialized onnx.TensorProto (%s)" % (path, e))


def list_outputs(d):
    """Maps K -> path of output_K.{pb,npy} in directory d."""
    if not os.path.isdir(d):
        raise CompareError("%s: not a directory" % d)
    found = {}
    for name in sorted(os.listdir(d)):
        m = OUTPUT_RE.match(name)
        if not m:
            continue
        k = int(m.group(1))
        if k in found:
            raise CompareError("%s: both %s and %s exist" % (d, os.path.basename(found[k]), name))
        found[k] = os.path.join(d, name)
    return found


def compare_one(label, ref, act, tol):
    """Returns (ok, message)."""
    if ref.shape != act.shape:
        return False, "%s: shape mismatch: reference %s, actual %s" % (label, ref.shape, act.shape)
    if ref.dtype != act.dtype:
        return False, "%s: dtype mismatch: reference %s, actual %s" % (label, ref.dtype, act.dtype)
    shape = "x".join(map(str, ref.shape)) or "scalar"
    if ref.size == 0:
        return True, "%s: ok  %s %s (empty)" % (label, shape, ref.dtype)
    if not np.issubdtype(ref.dtype, np.floating) and not np.issubdtype(ref.dtype, np.complexfloating):
        diff = np.flatnonzero(ref.reshape(-1) != act.reshape(-1))
        if diff.size:
            idx = np.unravel_index(diff[0], ref.shape)
            return False, "%s: %d of %d elements differ (first at %s: reference %s, actual %s)" % (
                label, diff.size, ref.size, tuple(map(int, idx)), ref[idx], act[idx])
        return True, "%s: ok  %s %s (exact)" % (label, shape, ref.dtype)

    r = ref.astype(np.float64)
    a = act.astype(np.float64)
    rnan, anan = np.isnan(r), np.isnan(a)
    if (rnan != anan).any():
        idx = np.unravel_index(np.flatnonzero((rnan != anan).reshape(-1))[0], ref.shape)
        return False, "%s: NaN mismatch: %d positions (first at %s: reference %s, actual %s)" % (
            label, int((rnan != anan).sum()), tuple(map(int, idx)), ref[idx], act[idx])
    rinf, ainf = np.isinf(r), np.isinf(a)
    bad_inf = (rinf | ainf) & ~(rinf & ainf & (r == a))
    if bad_inf.any():
        idx = np.unravel_index(np.flatnonzero(bad_inf.reshape(-1))[0], ref.shape)
        return False, "%s: infinity mismatch at %s: reference %s, actual %s" % (
            label, tuple(map(int, idx)), ref[idx], act[idx])
    finite = ~(rnan | rinf)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.where(finite, np.abs(a - r), 0.0)
    ref_max = float(np.abs(r[finite]).max()) if finite.any() else 0.0
    allowed = tol * max(1.0, ref_max)
    max_err = float(err.max())
    mean_err = float(err[finite].mean()) if finite.any() else 0.0
    idx = tuple(map(int, np.unravel_index(int(err.argmax()), ref.shape)))
    stats = "%s %s  max|err| %.3g at %s (ref %.6g, got %.6g)  mean|err| %.3g  max|ref| %.4g  allowed %.3g" % (
        shape, ref.dtype, max_err, idx, r[idx], a[idx], mean_err, ref_max, allowed)
    if max_err > allowed:
        return False, "%s: MISMATCH  %s" % (label, stats)
    return True, "%s: ok  %s" % (label, stats)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("reference_dir")
    parser.add_argument("actual_dir")
    parser.add_argument("--tol", type=float, default=1e-3,
                        help="relative tolerance: allowed = tol * max(1, max|ref|) (default 1e-3)")
    parser.add_argument("--quiet", action="store_true", help="print only failures and the verdict")
    args = parser.parse_args()
    try:
        refs = list_outputs(args.reference_dir)
        acts = list_outputs(args.actual_dir)
        if not refs:
            raise CompareError("%s: no output_K.pb or output_K.npy files" % args.reference_dir)
        failures = []
        missing = sorted(set(refs) - set(acts))
        extra = sorted(set(acts) - set(refs))
        if missing:
            failures.append("missing in %s: %s" % (
                args.actual_dir, ", ".join("output_%d" % k for k in missing)))
        if extra:
            failures.append("unexpected extra outputs in %s: %s" % (
                args.actual_dir, ", ".join(os.path.basename(acts[k]) for k in extra)))
        for k in sorted(set(refs) & set(acts)):
            ok, msg = compare_one("output_%d" % k, load_tensor(refs[k]), load_tensor(acts[k]), args.tol)
            if not ok:
                failures.append(msg)
            if not ok or not args.quiet:
                print(msg)
    except CompareError as e:
        print("compare: error: %s" % e, file=sys.stderr)
        return 2
    if failures:
        for f in failures:
            if not f.startswith("output_"):
                print(f)
        print("compare: FAIL: %d problem(s) comparing %s against reference %s (tol %g)" % (
            len(failures), args.actual_dir, args.reference_dir, args.tol), file=sys.stderr)
        return 1
    print("compare: PASS: %d output(s) match (tol %g)" % (len(refs), args.tol))
    return 0


if __name__ == "__main__":
    sys.exit(main())
