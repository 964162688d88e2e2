"""The source slots of a lane-op (r500-us.md §3.2): temporaries, constants and inline constants
put together for the lane datapath, with the quad's slot 0 for MDH/MDV.

A lane-op enters in its issue cycle I with its slots' sources (``decode.SlotSource``) while
the core addresses the temporaries; their words (``temp_rgb``, ``temp_alpha``) arrive at I+1.
Constants are the same in every lane, so slot n's constant is read in the cycle of lane n's
lane-op (``ConstantStore``) and kept in slot n's buffer for the instruction's four lanes. Each
slot is put together in the first cycle its constant is there for lane 0, slot n at I+2+n:
the last lane then takes it at I+5+n, before the next instruction's lane n overwrites the
buffer (at I+6+n at the earliest), so one buffer a slot is enough (no choice between two by
the instruction's parity on the slots' path). Slot 0 of lanes 0-2, which every lane reads for
MDH and MDV, is kept in one of two buffers by the instruction's ``parity``, so that the next
instruction's lanes do not overwrite what the last lanes of this one still use.

The slots leave at I+5 (``LATENCY``): lane 0 of an instruction then has the slot 0 of lane 2
(complete at I+4).
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.lib.pipeline import register_stage
from hdl.r500.constants import ConstantStore, ConstantWrite
from hdl.r500.decode import SLOTS, SlotSource, SourceKind
from hdl.r500.operand_values import inline_constant

__all__ = ["Vec4", "Slots", "OperandFetch"]

RGB_CHANNELS = 3
QUAD_SLOT0_LANES = 3        # MDH reads lanes 0 and 1, MDV lanes 0 and 2
Vec4 = data.ArrayLayout(32, 4)
Slots = data.ArrayLayout(Vec4, SLOTS)
_Sources = data.ArrayLayout(SlotSource, SLOTS)


class OperandFetch(wiring.Component):
    LATENCY = 5

    i_valid: In(1)
    i_lane: In(2)
    i_parity: In(1)
    i_rgb_src: In(_Sources)
    i_alpha_src: In(_Sources)
    temp_rgb: In(data.ArrayLayout(32, RGB_CHANNELS)).array(SLOTS)
    temp_alpha: In(32).array(SLOTS)
    const_write: In(ConstantWrite)
    o_valid: Out(1)
    o_slots: Out(Slots)
    o_quad_slot0: Out(Slots)

    def elaborate(self, platform):
        m = Module()
        m.submodules.constants = constants = ConstantStore()
        m.d.comb += constants.write.eq(self.const_write)
        # I: slot n's constant is read by lane n's lane-op
        with m.Switch(self.i_lane):
            for n in range(SLOTS):
                with m.Case(n):
                    m.d.comb += [constants.rgb_index.eq(self.i_rgb_src[n].index),
                                 constants.alpha_index.eq(self.i_alpha_src[n].index)]
        tag = {"valid": self.i_valid, "lane": self.i_lane, "parity": self.i_parity,
               "rgb_src": self.i_rgb_src.as_value(), "alpha_src": self.i_alpha_src.as_value()}
        s1 = register_stage(m, "op1", tag)

        # I+1: the temporaries' words and the constant of slot ``lane`` arrive
        const_buffers = [Signal(Vec4, name=f"const_{n}") for n in range(SLOTS)]
        with m.If(s1["valid"]):
            for n in range(SLOTS):
                with m.If(s1["lane"] == n):
                    m.d.sync += const_buffers[n].eq(Cat(constants.rgb, constants.alpha))
        stage = register_stage(m, "op2", {
            **s1, **{f"temp{n}": Cat(self.temp_rgb[n], self.temp_alpha[n]) for n in range(SLOTS)}})

        def assemble(stage, n):
            """Slot n of a lane-op of ``stage``: .rgb and .a each from its source."""
            rgb_src = SlotSource(stage["rgb_src"].word_select(n, SlotSource.size))
            alpha_src = SlotSource(stage["alpha_src"].word_select(n, SlotSource.size))
            temp = Vec4(stage[f"temp{n}"])
            const = const_buffers[n]
            channels = []
            for c, source in ((0, rgb_src), (1, rgb_src), (2, rgb_src), (3, alpha_src)):
                channels.append(Mux(source.kind == SourceKind.CONST, const[c],
                                    Mux(source.kind == SourceKind.INLINE,
                                        inline_constant(source.index), temp[c])))
            return Cat(channels)

        # I+2 … I+4: slot n at I+2+n (see the module's note)
        quad_slot0 = [[Signal(Vec4, name=f"slot0_{p}_{lane}") for lane in range(QUAD_SLOT0_LANES)]
                      for p in range(2)]
        for n in range(SLOTS):
            slot = assemble(stage, n)
            if n == 0:
                # slot 0 of lanes 0-2 for MDH/MDV, read by every lane of the instruction
                with m.If(stage["valid"]):
                    for p in range(2):
                        for lane in range(QUAD_SLOT0_LANES):
                            with m.If((stage["parity"] == p) & (stage["lane"] == lane)):
                                m.d.sync += quad_slot0[p][lane].eq(slot)
            # what the later slots still need: their sources and temporaries' words
            later = {} if n == SLOTS - 1 else {
                "rgb_src": stage["rgb_src"], "alpha_src": stage["alpha_src"],
                **{f"temp{k}": stage[f"temp{k}"] for k in range(n + 1, SLOTS)}}
            stage = register_stage(m, f"op{3 + n}", {
                "valid": stage["valid"], "parity": stage["parity"], **later,
                **{f"slot{k}": stage[f"slot{k}"] for k in range(n)}, f"slot{n}": slot})
        m.d.comb += [self.o_valid.eq(stage["valid"]),
                     self.o_slots.eq(Cat(stage[f"slot{n}"] for n in range(SLOTS)))]
        with m.If(stage["parity"]):
            m.d.comb += self.o_quad_slot0.eq(Cat(quad_slot0[1]))
        with m.Else():
            m.d.comb += self.o_quad_slot0.eq(Cat(quad_slot0[0]))
        return m
