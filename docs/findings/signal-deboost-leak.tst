# Known failure on the pinned 6.12 kernel, not yet fixed by the series:
# a boost kept after a waiter leaves its lock on a signal.
#
# Found by `make stress` (rt-random seed 747, shrunk from 48 to 10
# steps).  Thread 1 (prio 79) waits interruptibly on mutex 0 at the head
# of the chain 1 -> 0 (owner 2) -> 4 (owner 4) -> 1 (owner 5) -> 2
# (owner 0), which boosts thread 0 to 79.  A signal takes thread 1 out
# with -EINTR, but thread 0 stays at 79 instead of 56 (thread 4's prio,
# lent through thread 5).  Seen failing twice in a row on 2 vCPUs at
# "T: prioeq: 0: 56" (thread 0 showed P: 79).
#
# Run it with: make run RTTEST_EXTRA=docs/findings
#
# Reproducer from rt-random.py: seed 747: step 9 (signal thread 1 mutex 0): thread 0 P 79, model 56 (N 37, waiters [5])
# Replayed with rt-tester.py -r; the model expects every step
# below to leave the status the kernel showed then.
C: schedfifo:     0: 37
C: schedfifo:     1: 79
C: schedfifo:     2: 14
C: schedfifo:     3: 98
C: schedfifo:     4: 56
C: schedfifo:     5: 33
C: schedfifo:     6: 35
C: schedfifo:     7: 63
W: opcodeeq:      0: 0
W: opcodeeq:      1: 0
W: opcodeeq:      2: 0
W: opcodeeq:      3: 0
W: opcodeeq:      4: 0
W: opcodeeq:      5: 0
W: opcodeeq:      6: 0
W: opcodeeq:      7: 0
C: locknowait:    5: 4
W: locked:        5: 4
W: opcodeeq:      5: 0
C: lockintnowait: 2: 0
W: locked:        2: 0
W: opcodeeq:      2: 0
C: locknowait:    5: 1
W: locked:        5: 1
W: opcodeeq:      5: 0
C: lockintnowait: 4: 1
W: blocked:       4: 1
C: lockintnowait: 0: 2
W: locked:        0: 2
W: opcodeeq:      0: 0
C: locknowait:    5: 2
W: blocked:       5: 2
C: locknowait:    2: 4
W: blocked:       2: 4
C: lockintnowait: 1: 0
W: blocked:       1: 0
C: locknowait:    7: 6
W: locked:        7: 6
W: opcodeeq:      7: 0
C: signal:        1: 0
W: opcodeeq:      1: -4
# The check that failed:
T: prioeq:        0: 56
