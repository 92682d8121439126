#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Render the device dictionary a LAVA server would give a job.

usage: lava-device.py TEMPLATES JOB.yaml

TEMPLATES is lava-server's device-types directory (qemu.jinja2 and the
base.jinja2 it extends).  The device is a plain "qemu" device: a
dictionary that only extends the device type, rendered with the job's
context the way the server renders it, so the job's context keys reach
the same template a lab uses.  Prints the device YAML.
"""
import sys

import jinja2
import yaml

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


def main(argv):
    if len(argv) != 3:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    try:
        with open(argv[2], encoding='utf-8') as f:
            job = yaml.safe_load(f)
        if not isinstance(job, dict) or job.get('device_type') != 'qemu':
            raise ValueError(f'{argv[2]}: not a job for device_type qemu')
        sys.stdout.write(render(argv[1], job.get('context') or {}))
    except (OSError, ValueError, yaml.YAMLError, jinja2.TemplateError) as e:
        print(f'lava-device: error: {e}', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
