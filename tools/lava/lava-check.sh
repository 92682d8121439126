#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lava-check.sh validate DIR
# lava-check.sh agree EXPECT OUTDIR JOB RUN-QEMU-OPTS...
#
# Check the LAVA jobs of tools/lava/lava-job.py locally with Debian's
# lava-dispatcher (installed by tools/deps.sh --lava) on a plain QEMU
# device rendered from lava-server's own device type.
#
#   validate DIR
#       every DIR/*/job.yaml: LAVA's job schema, then `lava-run
#       --validate` on the device the job's context renders
#   agree EXPECT OUTDIR JOB RUN-QEMU-OPTS...
#       run JOB with lava-run (its log: OUTDIR/lava.log), and the same
#       kernel and initramfs with tools/run-qemu.sh RUN-QEMU-OPTS (its
#       log: OUTDIR/run-qemu.log); both verdicts must be EXPECT (pass,
#       fail or infra) and tools/lava/lava-verdict.py must find them in
#       agreement, suite by suite
#
# lava-run runs as root (sudo when not root).  Each run has its own job
# id; lava-run's copy of the images under /var/lib/lava/dispatcher/tmp
# is removed afterwards.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"

PY=/usr/bin/python3     # the interpreter that has LAVA's modules
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo

# device_types: lava-server's device-type templates, read out of its
# .deb (not installed: it is the server) into the download cache.
device_types() {
	local dir deb
	dir=$(cache_dir)/lava
	if [ ! -f "$dir/device-types/qemu.jinja2" ]; then
		mkdir -p "$dir/deb"
		rm -f "$dir"/deb/*.deb
		if ! (cd "$dir/deb" && apt-get download lava-server) >"$dir/apt.log" 2>&1; then
			$sudo apt-get update >>"$dir/apt.log" 2>&1 || true
			(cd "$dir/deb" && apt-get download lava-server) >>"$dir/apt.log" 2>&1 ||
				die "apt-get download lava-server failed (see $dir/apt.log)"
		fi
		rm -rf "$dir/x"
		dpkg-deb -x "$dir"/deb/lava-server_*.deb "$dir/x"
		[ -f "$dir/x/usr/share/lava-server/device-types/qemu.jinja2" ] ||
			die "lava-server's .deb has no device-types/qemu.jinja2"
		rm -rf "$dir/device-types"
		mv "$dir/x/usr/share/lava-server/device-types" "$dir/device-types"
		rm -rf "$dir/x" "$dir/deb"
	fi
	printf '%s\n' "$dir/device-types"
}

# device JOB OUT: the device dictionary for JOB, in OUT.
device() {
	"$PY" "$PIFUTEX_ROOT/tools/lava/lava-device.py" "$TEMPLATES" "$1" >"$2" ||
		die "cannot render a qemu device for $1"
}

# job_id: a fresh id for lava-run (its work directory is named after it).
seq=0
job_id() {
	seq=$((seq + 1))
	printf 'pi-futex-%s-%s-%s\n' "$(date +%s)" "$$" "$seq"
}

# lava_run ARGS...: lava-run as root, with a fresh job id and output
# directory; removes its work directory afterwards.
lava_run() {
	local id rc out
	id=$(job_id)
	out=$(mktemp -d)
	set +e
	$sudo lava-run --job-id "$id" --output-dir "$out" "$@"
	rc=$?
	set -e
	$sudo rm -rf "$out" "/var/lib/lava/dispatcher/tmp/$id"
	return $rc
}

# schema JOB: LAVA's job schema accepts JOB; its complaint on stderr.
schema() {
	"$PY" -c '
import sys, yaml
from lava_common.schemas import validate
with open(sys.argv[1]) as f:
    validate(yaml.safe_load(f))' "$1"
}

# dispatcher JOB: lava-run --validate accepts JOB on its device; its log
# on stdout.
dispatcher() {
	device "$1" "$work/device.yaml"
	lava_run --validate --device "$work/device.yaml" "$1" 2>&1
}

validate() {
	local dir=$1 job n=0 first=''
	work=$(mktemp -d)
	for job in "$dir"/*/job.yaml; do
		[ -f "$job" ] || die "no job in $dir (make lava-jobs)"
		[ -n "$first" ] || first=$job
		schema "$job" 2>"$work/schema.err" || {
			sed 's/^/  /' "$work/schema.err" >&2
			die "$job: not a valid LAVA job (schema)"
		}
		dispatcher "$job" >"$work/validate.log" || {
			grep -v '"lvl": "target"' "$work/validate.log" | tail -n 20 | sed 's/^/  /' >&2
			die "$job: lava-run --validate failed"
		}
		n=$((n + 1))
	done
	# Both checks can fail: a deploy to a method LAVA does not have is
	# refused by the schema, a kernel URL that leads nowhere by lava-run.
	sed 's/^    to: tmpfs$/    to: nowhere/' "$first" >"$work/bad-schema.yaml"
	grep -q 'to: nowhere' "$work/bad-schema.yaml" || die "$first: no tmpfs deploy to break"
	! schema "$work/bad-schema.yaml" 2>/dev/null ||
		die "LAVA's schema accepted a job that deploys to 'nowhere'"
	sed 's|^\(        url: file://.*\)/bzImage$|\1/no-such-bzImage|' "$first" >"$work/bad-url.yaml"
	if grep -q no-such-bzImage "$work/bad-url.yaml"; then
		! dispatcher "$work/bad-url.yaml" >/dev/null ||
			die "lava-run --validate accepted a job whose kernel does not exist"
	fi
	rm -rf "$work"
	note "$n job(s) in $dir pass LAVA's schema and lava-run --validate (and both reject a broken job)"
}

agree() {
	local expect=$1 out=$2 job=$3 got rc start
	shift 3
	mkdir -p "$out"
	device "$job" "$out/device.yaml"
	note "lava-run $job (log: $out/lava.log)"
	start=$(date +%s)
	lava_run --device "$out/device.yaml" "$job" >"$out/lava.log" 2>&1 || true
	note "lava-run took $(($(date +%s) - start))s"
	set +e
	"$PIFUTEX_ROOT/tools/run-qemu.sh" "$@" --log "$out/run-qemu.log" >"$out/run-qemu.out" 2>&1
	rc=$?
	set -e
	grep '^verdict: [A-Z]' "$out/run-qemu.out" >&2 || true
	case $rc in 0) got=pass ;; 1) got=fail ;; *) got=infra ;; esac
	[ -f "$out/run-qemu.json" ] || die "run-qemu.sh wrote no verdict (see $out/run-qemu.out)"
	[ "$got" = "$expect" ] ||
		die "run-qemu.sh says $got where $expect was expected (see $out/run-qemu.out)"
	set +e
	"$PY" "$PIFUTEX_ROOT/tools/lava/lava-verdict.py" --json "$out/lava.json" \
		"$out/lava.log" >"$out/lava-verdict.out" 2>&1
	rc=$?
	set -e
	sed 's/^/  /' "$out/lava-verdict.out" >&2
	case $rc in 0) got=pass ;; 1) got=fail ;; *) got=infra ;; esac
	[ "$got" = "$expect" ] ||
		die "the LAVA job's verdict is $got where $expect was expected (see $out/lava.log)"
	"$PY" "$PIFUTEX_ROOT/tools/lava/lava-verdict.py" --compare "$out/run-qemu.json" \
		"$out/lava.log" | grep -e 'differs' -e 'agree' -e 'DISAGREE' >&2 ||
		die "LAVA and run-qemu.sh disagree on $job"
}

[ $# -ge 1 ] || die "usage: lava-check.sh validate DIR | agree EXPECT OUTDIR JOB RUN-QEMU-OPTS..."
command -v lava-run >/dev/null || die "lava-run not installed (tools/deps.sh --lava)"
TEMPLATES=$(device_types)
cmd=$1
shift
case $cmd in
validate)
	[ $# -eq 1 ] || die "usage: lava-check.sh validate DIR"
	validate "$1" ;;
agree)
	[ $# -ge 4 ] || die "usage: lava-check.sh agree EXPECT OUTDIR JOB RUN-QEMU-OPTS..."
	case $1 in pass|fail|infra) ;; *) die "EXPECT is pass, fail or infra, not '$1'" ;; esac
	agree "$@" ;;
*) die "unknown command $cmd (validate, agree)" ;;
esac
