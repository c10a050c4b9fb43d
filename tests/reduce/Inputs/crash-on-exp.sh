#!/bin/sh
# A stand-in for a compiler that crashes on tensor.exp: it dies by SIGSEGV
# when the file it is given holds one, and exits 0 otherwise.
if grep -q 'tensor.exp' "$1"; then
  kill -SEGV $$
fi
exit 0
