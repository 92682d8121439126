#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Render the device dictionary a LAVA server would give a job.

usage: lava-device.py TEMPLATES JOB.yaml

TEMPLATES is lava-server's device-types directory (qemu.jinja2 and the
base.jinja2 it extends).  The device is a plain "qemu" device: a
dictionary that only extends the device type, rendered with the job's
context the way the server renders it, so the job's context keys reach
the same template a lab uses.  Prints the device YAML; exits 2 on bad
usage or a job, template or device it cannot read.
"""
import argparse
import sys

import yaml

try:
    import jinja2
except ImportError:     # python3-jinja2 comes with tools/deps.sh --lava
    jinja2 = None

DEVICE = "{% extends 'qemu.jinja2' %}\n"


def render(templates, context):
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader([
            jinja2.DictLoader({'pi-futex-qemu.jinja2': DEVICE}),
            jinja2.FileSystemLoader(templates)]),
        trim_blocks=True, autoescape=False)
    text = env.get_template('pi-futex-qemu.jinja2').render(**context)
    yaml.safe_load(text)    # the lab would refuse a device it cannot read
    return text


def parse_args(argv):
    head, usage, rest = __doc__.strip().split('\n\n', 2)
    p = argparse.ArgumentParser(
        usage=usage.split(': ', 1)[1], description=f'{head}\n\n{rest}',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('templates', metavar='TEMPLATES',
                   help="lava-server's device-types directory")
    p.add_argument('job', metavar='JOB.yaml', help='a LAVA job')
    return p.parse_args(argv[1:])


def main(argv):
    opts = parse_args(argv)
    if jinja2 is None:
        print('lava-device: error: python3-jinja2 is not installed '
              '(tools/deps.sh --lava)', file=sys.stderr)
        return 2
    try:
        with open(opts.job, encoding='utf-8') as f:
            job = yaml.safe_load(f)
        if not isinstance(job, dict) or job.get('device_type') != 'qemu':
            raise ValueError(f'{opts.job}: not a job for device_type qemu')
        sys.stdout.write(render(opts.templates, job.get('context') or {}))
    except (OSError, ValueError, yaml.YAMLError, jinja2.TemplateError) as e:
        print(f'lava-device: error: {e}', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
