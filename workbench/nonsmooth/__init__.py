"""Non-smooth joint mechanics: complementarity solvers for set-valued friction and side switching.

:mod:`workbench.nonsmooth.lcp` -- Lemke's method and brute-force enumeration for the small
linear complementarity problems of frictional joints (Wang, Wang & Zhuang; Pfeiffer & Glocker
(1996)).
"""
