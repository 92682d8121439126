# Known failure on the pinned 6.12 kernel, not yet fixed by the series:
# a boost that outlives a lock attempt refused with -EDEADLK.
#
# Found by rt-random at 4 vCPUs (seed 32) while the tester briefly let
# plain locks reach the kernel's deadlock detection; rewritten here with
# lockintdl, the full-chain-walk lock that FUTEX_LOCK_PI's proxy-lock
# path also uses.  Thread 6 (prio 62) tries mutex 4 and closes the cycle
# 6 -> 4 (owner 0) -> 0 (owner 7) -> 3 (owner 3) -> 5 (owner 6).  The
# lock fails with -EDEADLK as it should, but thread 3 stays at 62: the
# boost the chain walk applied on the way is not undone for it.
#
# Run it with: make run RTTEST_EXTRA=docs/findings
# Seen failing at line "T: prioeq: 3: 37" (thread 3 showed P: 62), on
# 2 vCPUs, with the series at the commit that added this file.
C: schedfifo:     0: 8
C: schedfifo:     1: 26
C: schedfifo:     2: 17
C: schedfifo:     3: 37
C: schedfifo:     4: 88
C: schedfifo:     5: 29
C: schedfifo:     6: 62
C: schedfifo:     7: 2
W: opcodeeq:      0: 0
W: opcodeeq:      1: 0
W: opcodeeq:      2: 0
W: opcodeeq:      3: 0
W: opcodeeq:      4: 0
W: opcodeeq:      5: 0
W: opcodeeq:      6: 0
W: opcodeeq:      7: 0
C: lockintnowait: 7: 5
W: locked:        7: 5
C: trylock:       3: 3
W: locked:        3: 3
C: locknowait:    3: 5
W: blocked:       3: 5
C: trylock:       0: 4
W: locked:        0: 4
C: locknowait:    7: 0
W: locked:        7: 0
C: locknowait:    0: 0
W: blocked:       0: 0
C: locknowait:    7: 6
W: locked:        7: 6
C: locknowait:    5: 6
W: blocked:       5: 6
C: lockintnowait: 6: 5
W: blocked:       6: 5
C: unlock:        7: 5
W: locked:        6: 5
W: unlocked:      7: 5
C: lockintnowait: 7: 3
W: blocked:       7: 3
W: prioeq:        3: 37
C: lockintdl:     6: 4
W: opcodeeq:      6: -35
T: prioeq:        3: 37
T: prioeq:        7: 29
T: prioeq:        0: 8
