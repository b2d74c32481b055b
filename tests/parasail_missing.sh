#!/bin/sh
# Stands in for diff_parasail when configure found no parasail: the differential test
# against parasail is skipped, and says so (Debian: parasail libparasail-dev).
echo "SKIP: parasail was not found at configure time (install libparasail-dev and reconfigure)"
exit 77
