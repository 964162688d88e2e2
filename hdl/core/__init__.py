"""A THEIA shader core: the execution pipeline (``core.Core``, glue over one unit per concern),
its decoder, register file, flow-control stack engine and per-band control unit
(``shader_core.ShaderCore`` puts them together)."""
