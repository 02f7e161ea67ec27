"""The minimal-coordinate (relative-coordinate) path of the spatial engine: code generated per
mechanism for trees of ideal joints rooted at the ground (``[solver] formulation = "minimal"``).

* :mod:`.tree`: what the path takes (:func:`.tree.problems`: closed loops, clearance joints,
  joint friction, drivers and spherical joints are refused) and the tree of joints of the
  assembled start;
* :mod:`.derive`: the equations of motion in the joint coordinates by Kane's method (Kane &
  Levinson (1985); ``sympy.physics.mechanics``);
* :mod:`.codegen`: their ``cse``-simplified source compiled with numba, written and cached as
  :mod:`workbench.mbs.codegen_module` does;
* :mod:`.run`: the run, and its samples in the absolute path's state for the same dataset.
"""
from __future__ import annotations

from .tree import problems

__all__ = ["problems"]
