"""One quad on the R500 job top (hdl/gpu/r500_top.py): load the program's state, the texture and
a context's lanes, run it, read back what it left (``python -m sim.r500 run --engine rtl``,
sim/r500/rtl.py)."""

from dataclasses import dataclass

from hdl.gpu.address_map import (R5Area, R5Reg, R5_CTRL_CLEAR, R5_CTRL_RUN, R5_TEMP_STRIDE,
                                 Region, host_address, r500_address)
from host.r500_state import r500_load_runs

__all__ = ["QuadReadback", "load_quad", "launch_quad", "read_quad", "run_quad_job"]


@dataclass
class QuadReadback:
    """What ``run_quad_job`` reads back of a context: per lane its temporaries (``temps[l][t]``,
    four words), render targets (``targets[l][r]``, four words, 0 where not written) and the
    channels written (``written[l][r]``, a 4-bit mask), W, whether it was killed; the
    instructions executed, the fault (``hdl.isa.QuadFault``) and its PC, the quad's cycles."""
    temps: list
    targets: list
    written: list
    w: list
    killed: list
    instructions: int
    fault: int
    fault_pc: int
    cycles: int


async def load_quad(port, lanes, context=0):
    """Claim ``context`` and load ``lanes`` (four (temps {index: 4 words}, covered) pairs)."""
    await port.write(r500_address(R5Area.REGS, R5Reg.CONTEXT), [context])
    await port.write(r500_address(R5Area.REGS, R5Reg.CTRL), [R5_CTRL_CLEAR])
    for lane, (temps, _) in enumerate(lanes):
        for index, value in sorted(temps.items()):
            await port.write(r500_address(R5Area.TEMPS, 4 * (R5_TEMP_STRIDE * lane + index)),
                             list(value))


async def launch_quad(port, lanes, context=0):
    covered = sum(1 << lane for lane, (_, is_covered) in enumerate(lanes) if is_covered)
    await port.write(r500_address(R5Area.REGS, R5Reg.CONTEXT), [context])
    await port.write(r500_address(R5Area.REGS, R5Reg.COVERED), [covered])
    await port.write(r500_address(R5Area.REGS, R5Reg.CTRL), [R5_CTRL_RUN])


async def read_quad(port, temporaries, context=0):
    """The QuadReadback of ``context`` (its first ``temporaries`` temporaries per lane)."""
    await port.write(r500_address(R5Area.REGS, R5Reg.CONTEXT), [context])
    fault, _, instructions, cycles = await port.read(r500_address(R5Area.REGS, R5Reg.FAULT), 4)
    temps, targets, written, w, killed = [], [], [], [], []
    for lane in range(4):
        words = await port.read(r500_address(R5Area.TEMPS, 4 * R5_TEMP_STRIDE * lane),
                                4 * temporaries)
        temps.append([words[i:i + 4] for i in range(0, len(words), 4)])
        words = await port.read(r500_address(R5Area.TARGETS, 16 * lane), 16)
        targets.append([words[i:i + 4] for i in range(0, 16, 4)])
        info = await port.read(r500_address(R5Area.LANES, 8 * lane), 8)
        w.append(info[0])
        killed.append(bool(info[1]))
        written.append(info[4:8])
    return QuadReadback(temps, targets, written, w, killed, instructions, fault & 0xFFFF,
                        fault >> 16, cycles)


async def run_quad_job(port, state, texture, lanes, temporaries, context=0):
    """One quad on the R500 job top: load ``state`` (an R500State) and the ``texture`` words,
    claim and load ``context`` with ``lanes``, run it, wait for its end; the QuadReadback."""
    for address, words in r500_load_runs(state):
        await port.write(address, words)
    if texture:
        await port.write(host_address(Region.TEXTURE), list(texture))
    await load_quad(port, lanes, context)
    await launch_quad(port, lanes, context)
    await port.wait_frame()
    return await read_quad(port, temporaries, context)
