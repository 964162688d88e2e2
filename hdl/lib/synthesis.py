"""Hints the RTL gives synthesis (Yosys attributes), and the Yosys commands that act on them.

``READ_COLLISION_UNDEFINED``: on a ``lib.memory.Memory`` with one write port and one
synchronous read port whose reader does not use what a read returns in the cycle the write
port writes the same row (the register file builds its own bypass for that cycle; the
texture and output stores are not read and written at one address at once: docs/fpga.md).
Amaranth's memories promise the old word on such a read (its simulators give it), and a
block RAM's two ports promise nothing: Yosys then delays every write by a cycle and adds a
comparator and a multiplexer after the block RAM (``emulate_read_first``), on the read data's
path. The attribute lets it map the memory as it is (``RD_COLLISION_X_MASK``).

``KEEP``: a wire synthesis keeps as it is (Yosys' ``keep``): logic is not merged across it.
It does not keep a register's flip-flops apart from others that load the same value (Yosys'
``opt_merge`` merges those and leaves the wire as an alias).

``REGISTER_COPY``: a register that is a copy of another (it loads the same value), made so
that each copy drives a group of loads placed far apart (one register fanning out across the
chip is a long route to its farthest loads). The board build's Yosys script marks the
flip-flops driving such wires ``keep``, which ``opt_merge`` leaves apart.

``YOSYS_AFTER_READ``: the commands, for the board build's synthesis script (``hdl.build``).
"""

__all__ = ["KEEP", "REGISTER_COPY", "READ_COLLISION_UNDEFINED", "YOSYS_AFTER_READ"]

KEEP = {"keep": 1}
_COPY_ATTR = "theia_register_copy"
REGISTER_COPY = {_COPY_ATTR: 1}

_COLLISION_ATTR = "theia_read_collision_undefined"
READ_COLLISION_UNDEFINED = {_COLLISION_ATTR: 1}

# (one read and one write port: the mask has a bit per read port and write port)
# (``%ci1:+[Q]``: the cells whose Q drives a marked wire; ``c:* %i`` keeps only cells)
YOSYS_AFTER_READ = ("proc; memory_collect; "
                    f"setparam -set RD_COLLISION_X_MASK 1'1 t:$mem_v2 a:{_COLLISION_ATTR} %i; "
                    f"setattr -set keep 1 w:* a:{_COPY_ATTR} %i %ci1:+[Q] c:* %i")
