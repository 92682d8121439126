#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host-side tests of the harness (no kernel needed).
cd "$(dirname "$0")/../.." || exit 1
exec python3 -m unittest discover -v -s tests/host -p 'test_*.py'
