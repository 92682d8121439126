#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# skip.sh REASON...: a suite that cannot run here.  Prints the reason as a
# KTAP comment and exits with kselftest's skip status (4), which /init
# reports as "ok N name # SKIP".
echo "# SKIP: $*"
exit 4
