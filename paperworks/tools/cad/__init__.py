"""CAD tools for SPADA: a sandbox for model-written CadQuery programs, geometry and physics checks,
exports (STEP/STL) and renders (PNG). CadQuery is imported only inside the sandbox worker and the
functions that need it, never at package import.

Program convention (what SPADA writes, what ``paperworks cad check`` accepts)
----------------------------------------------------------------------------
A program is one Python file. The first of these that applies gives its shapes (``program.py``):

1. ``PARAMS = {"name": value, ...}`` (module level, JSON-able values, lengths in millimetres) and
   ``def build(params: dict) -> cq.Assembly``. The sandbox calls ``build({**PARAMS, **overrides})``,
   which is how parameter edits (``--set name=value``) work without a model call.
2. A module-level ``result`` (``cq.Assembly``, ``cq.Workplane`` or ``cq.Shape``).
3. ``show_object(obj, name=None, options=None)`` calls, as in CQ-editor and cq-cli (each call adds a part).
4. A module-level ``final_result`` (CADTestBench's programs end ``final_result = create_cad()``).
5. Another module-level shape variable: the last ``cq.Assembly``, else the last Workplane/Shape.
6. The last object given to an export call.

Export calls (``cq.exporters.export(...)``, ``.export(...)``, ``.save(...)``, ``.exportStep(...)``, ...)
write the file's base name into the sandbox's private ``exports/`` folder instead of the path given.
The program's ``__name__`` equals both ``"__main__"`` and ``"__cq_main__"``, so either script guard runs.
A file exported so can be imported back by the same path. The program sees ``sys.argv ==
["program.py"]`` (argparse defaults apply); ``sys.exit()``/``sys.exit(0)`` ends it normally (another code
is an error). Viewer calls record parts like ``show_object``: ``show(a, b, names=[...])`` of ocp_vscode,
jupyter-cadquery, yacv, cq-server and ``cadquery.vis`` (``show`` is also predefined); those packages
need not be installed (a stand-in makes their other calls no-ops). Rule 5 takes the variable assigned
last in the source, one holding solids before one holding only faces/edges. A part can also be a
``cq.Sketch`` (its faces: not a solid), an OCP ``TopoDS_Shape`` or a list of shapes (one compound);
``cq.Location``/``cq.Vector``/``cq.Plane`` markers among ``show_object`` calls are skipped. At most 256
parts per program.

Parts are the assembly's named children (``assy.add(shape, name="pin", loc=...)``, located); a
Workplane/Shape result is one part named "part".

Test convention (deterministic tests written next to the program)
------------------------------------------------------------------
A tests file defines ``def test_<name>(ctx):`` functions that ``assert``; ``ctx`` gives:
``ctx.params`` (the parameters used), ``ctx.parts`` (name → located ``cq.Shape``), ``ctx.assembly``,
and helpers ``ctx.bbox(name)`` (xmin, ymin, zmin, xmax, ymax, zmax), ``ctx.volume(name)``,
``ctx.interference(a, b)`` (intersection volume), ``ctx.distance(a, b)`` (minimum distance),
``ctx.center(name)`` (centre of mass), ``ctx.is_valid(name)``. A test passes when it returns without
raising; its failure message is the assertion's message (or the exception's one line).

Extensions (sandbox side): the program runs with ``show_object``, ``debug`` (no-op) and ``log`` (print)
defined; ``show_object(obj)`` without a name makes part ``part<N>`` (N counts calls from 1); an Assembly
shown under a name prefixes its children.
Overrides are coerced to the type of the ``PARAMS`` default (``--set w=40`` gives 40.0 for a float),
and an override missing from ``PARAMS`` is an error. More ``ctx`` helpers: ``ctx.size(name)``
(dx, dy, dz) and ``ctx.fit(shaft, bore, min_mm=None, max_mm=None)``: the diametral clearance (bore
Ø − shaft Ø, negative for an interference fit) of the closest coaxial cylindrical faces of the two
parts, raising AssertionError with both diameters when outside [min_mm, max_mm] or when no coaxial
cylinders exist. The tests are the module-level ``def test_*`` functions of the file (enumerated from its
source; a run reporting other names is an error), run in definition order (a name defined twice counts
once and its last definition runs; ``async def`` and generator tests fail: calling them runs none of
their body); a test that raises anything
else fails with "tests.py line N: Type: message". Multi-line messages are kept, joined with " | ".

Build and judgement are split: the candidate's sandbox only builds and exports one BREP per part plus
its resolved parameters; a separate judge sandbox that never runs candidate code loads that geometry
and runs the tests file and the checks; its reply is the only verdict. ``ctx.params`` are the
parameters the build reported.

Modules, host side: ``sandbox`` (public API: ``check_program``, ``WorkerPool``, ``sandbox_info``),
``results`` (dataclasses), ``verdict`` (build output → judge → result), ``zygote`` (one sandboxed
worker process), ``isolation`` (bubblewrap/unshare command, protections), ``cgroups`` (memory cgroups).
Sandbox side (standard library and CadQuery only, bind-mounted without the rest of paperworks):
``worker`` (the zygote loop: build and judge roles), ``procs`` (fork, limits, cgroups, copies),
``candidate`` and ``program`` (the build), ``judge`` (checks and tests children), ``guard`` (audit
hook, error lines), ``checks`` (assembly checks, ``Ctx``), ``exports`` (STEP, STL, renders).
"""
