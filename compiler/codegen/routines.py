"""Routines of the effect language as methods of the generated engine class.

Every routine compiles to plain Python methods (``self`` is the scenario's engine object,
holding its static data; ``S`` is the state list):

``f_<name>(S, ...)``
    a function: computes a value, changes nothing.
``p_<name>(S, ...)``
    the *machine form* of a procedure, card effect or flow step that never waits: it changes
    the state and writes the log.
``r_<name>(S, F, v, ...)``
    the machine form of one that may wait for a decision. Straight-line Python between
    resume points; where it must wait it returns ``SUSPEND`` after appending its frame
    ``(routine id, resume pc, *locals)`` to ``S[UNWIND]``. The driver resumes a frame ``F``
    with ``v``, the answer or the value the routine it called returned. Only constructs
    that contain a resume point are split into arms of a ``pc`` switch.
``q_<name>(S, R, ...)``
    the *playout form*: the same rules as plain calls, every decision drawn with ``R()``
    (uniform over the options, a forced choice draws nothing) and no log.

The work is split by form: ``forms.py`` writes the plain forms (``f``, ``p``, ``q``) and the
statements they share, ``machine.py`` the machine form with its resume points, frames and
liveness, ``analysis.py`` finds which routines wait, ``class_tables.py`` numbers templates,
decision sites and routines, and ``pytext.py`` tidies the Python text.
"""

from __future__ import annotations

from .analysis import find_suspending, method_stem
from .class_tables import ClassTables
from .machine import MachineForm

__all__ = ["ClassTables", "RoutineGen", "find_suspending", "method_stem"]


class RoutineGen(MachineForm):
    """Compiles one routine of one scenario into one form: ``F`` (function), ``P``
    (machine, never waits), ``R`` (machine, may wait), ``Q`` (playout). ``plain()`` gives
    the ``F``, ``P`` and ``Q`` methods, ``machine()`` the ``R`` method."""
