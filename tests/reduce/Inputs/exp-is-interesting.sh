#!/bin/sh
# An interestingness test by mlir-reduce's rule: exit 1 when the candidate
# still holds a tensor.exp (interesting), 0 when not.
if grep -q 'tensor.exp' "$1"; then
  exit 1
fi
exit 0
