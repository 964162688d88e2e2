"""The host side of the GPU (docs/host-interface.md), for every host that talks to it: the
simulators' (sim/), the UART link's (boards/) and the benches'. The address map and register
layouts it writes are the RTL's tables (hdl/gpu/address_map.py); what is here only a host needs:

* ``host.port``: the port a sequence talks to, and running a sequence on a synchronous host;
* ``host.scene_writes``: a scene (and its bins, and its R500 program) as the host's writes;
* ``host.r500_state``: an R500 program and its state as writes to the R500 stage;
* ``host.frame``: the frame sequence every host runs (``render_frame``);
* ``host.r500_job``: one quad on the R500 job top (hdl/gpu/r500_top.py);
* ``host.errors``: what went wrong, as one line of text.

Plain Python, no simulator. A scene is anything with ``name``, ``width``, ``height``,
``user_code`` (64-bit words or None), ``texture``, ``triangles`` (rows of (x, y, z)),
``config`` (rows), ``bands`` ((initial, final) rows), ``band_output_base(band)`` and ``shader``
(an R500 program and its state, ``sim.r500.shading.R500Shading``, or None)."""
