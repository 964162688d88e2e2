"""The inputs A, B, C of the R500 units for one lane-op (r500-us.md §3.2, §3.3): what
``sim.r500.operands.lane_operands`` gives, with the A₀ and C₁/C₂ terms of MDH and MDV and FRC's
operands (A·1 + (−floor A): B is 1.0 here).

The choice is made in two steps around the pre-subtract slot's adders (``srcp.PreSubtract``), so
that only a small multiplexer waits for them:

1. ``operand_choice``, while srcp is being computed: a slot's channel or a swizzle constant,
   or for MDH/MDV a neighbour's slot 0, or for FRC's B the 1.0 of A·1; or a note that the
   value is srcp's channel n (SEL 3, SWIZ R…A);
2. ``operand_value``, once srcp is there: that channel or the value chosen, then the modifier
   (the sign bit only).

Nothing here flushes: the slots are passed on as stored, subnormals included (a modifier on a
subnormal and a flush commute). Everything that reads A, B and C reads them flushed (the
multipliers, adders, compares, floor and special functions flush their operands), and
``LaneAlu`` flushes what a select passes on: 24 flushes of the slots would cost ~1,000 LUT4.

``LaneOperands`` is the pipeline, LATENCY = 1 + PreSubtract.LATENCY + 1 = 7 cycles, one lane-op
per cycle, never stalls:

1. the inputs, registered (the slots in copies: srcp's slots 0 and 1, and all three for
   each input letter's choices);
2. the lane-op's CONTROL (``alu_control``), each input's choice; srcp's operands
   (``PreSubtract``'s first stage);
3-6. srcp's adders, the choices waiting beside them;
7. A, B, C (A and B also in copies of their registers, one per group of readers in
   ``LaneAlu``).
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import data
from amaranth.lib.wiring import In, Out

from hdl.isa import (Mod, Sel, Swizzle, US_ALU_ALPHA_INST, US_ALU_RGB_INST,
                     US_ALU_RGBA_INST)
from hdl.lib.pipeline import delay, register_stage
from hdl.lib.synthesis import REGISTER_COPY
from hdl.r500.alu_control import CONTROL, decode_control
from hdl.r500.fp32 import HALF, ONE, ZERO, PipelinedUnit
from hdl.r500.operand_values import VEC4, source_modifier
from hdl.r500.srcp import PreSubtract

__all__ = ["SLOTS", "SLOTS_LAYOUT", "OPERAND_CHOICE", "ALPHA", "operand_choice",
           "operand_value", "LaneOperands"]

#: source slots per lane-op
SLOTS = 3
#: the alpha unit's channel of an input; 0-2 are the RGB unit's r, g, b
ALPHA = 3
_COLOURS = ("RED", "GREEN", "BLUE")
#: three slots of four channels: a lane's source slots, or slot 0 of lanes 0-2
SLOTS_LAYOUT = data.ArrayLayout(VEC4, SLOTS)

#: an input's value as chosen before srcp is known, and the modifier to apply
OPERAND_CHOICE = data.StructLayout({
    "value": 32,
    "from_srcp": 1,         # the value is srcp's channel ``srcp_channel``
    "srcp_channel": 2,
    "mod": 2,               # Mod
})

_SWIZZLE_CONSTANT = {Swizzle.ZERO: ZERO, Swizzle.HALF: HALF, Swizzle.ONE: ONE,
                     Swizzle.UNUSED: ZERO}


def operand_choice(m, slots, sel, swizzle, mod, override=None, override_mod=None, *, name):
    """The OPERAND_CHOICE of one input channel: channel ``swizzle`` of slot ``sel`` of
    ``slots``, a swizzle constant, or srcp's channel. ``override``, a pair (enable,
    value), replaces all of that by ``value`` (MDH/MDV terms, FRC's 1.0); ``override_mod``
    then replaces the modifier (FRC's 1.0 has none)."""
    choice = Signal(OPERAND_CHOICE, name=name)
    with m.Switch(swizzle):
        for code in (Swizzle.R, Swizzle.G, Swizzle.B, Swizzle.A):
            with m.Case(code):
                with m.Switch(sel):
                    for n in range(SLOTS):
                        with m.Case(n):
                            m.d.comb += choice.value.eq(slots[n][code])
                    with m.Case(Sel.SRCP):
                        m.d.comb += choice.from_srcp.eq(1)
        for code, constant in _SWIZZLE_CONSTANT.items():
            with m.Case(code):
                m.d.comb += choice.value.eq(constant)
    m.d.comb += [choice.srcp_channel.eq(swizzle[:2]), choice.mod.eq(mod)]
    if override is not None:
        enable, value = override
        with m.If(enable):
            m.d.comb += [choice.value.eq(value), choice.from_srcp.eq(0)]
            if override_mod is not None:
                m.d.comb += choice.mod.eq(override_mod)
    return choice


def operand_value(srcp, choice):
    """The input's value from its OPERAND_CHOICE and the srcp slot (a VEC4)."""
    picked = Mux(choice.from_srcp, srcp[choice.srcp_channel], choice.value)
    return source_modifier(picked, choice.mod)


def _input_fields(words, channel, letter):
    """(SEL, SWIZ, MOD) of input ``letter`` (A, B, C) of ``channel``: A and B in inst3 (RGB) or
    inst4 (alpha), C in inst5. ``words`` holds the three views by name."""
    word = words["rgba"] if letter == "C" else words["alpha" if channel == ALPHA else "rgb"]
    if channel == ALPHA:
        return (word[f"ALPHA_SEL_{letter}"], word[f"ALPHA_SWIZ_{letter}"],
                word[f"ALPHA_MOD_{letter}"])
    return (word[f"RGB_SEL_{letter}"], word[f"{_COLOURS[channel]}_SWIZ_{letter}"],
            word[f"RGB_MOD_{letter}"])


class LaneOperands(PipelinedUnit):
    """A, B and C of both units for one lane-op (channels r, g, b of the RGB unit, then the
    alpha unit's), with the lane-op's CONTROL, LATENCY cycles after ``i_valid``. The inputs are
    ``LaneAlu``'s."""

    LATENCY = 1 + PreSubtract.LATENCY + 1

    i_valid: In(1)
    i_rgb: In(US_ALU_RGB_INST.layout)
    i_alpha: In(US_ALU_ALPHA_INST.layout)
    i_rgba: In(US_ALU_RGBA_INST.layout)
    i_rgb_srcp: In(2)
    i_alpha_srcp: In(2)
    i_rgb_clamp: In(1)
    i_alpha_clamp: In(1)
    i_slots: In(SLOTS_LAYOUT)
    i_quad_slot0: In(SLOTS_LAYOUT)
    o_valid: Out(1)
    o_control: Out(CONTROL)
    o_a: Out(VEC4)
    o_b: Out(VEC4)
    o_c: Out(VEC4)
    # copies of A's and B's registers (the same values): o_a and o_b for the multipliers,
    # these for the selects' compares, the floor and the picks, o_a_sfu (the alpha unit's A)
    # for the special-function unit, each group of readers placed near its own copy
    o_a_select: Out(VEC4)
    o_b_select: Out(VEC4)
    o_a_sfu: Out(32)

    def elaborate(self, platform):
        m = Module()

        # stage 1: the inputs; the slots in copies, one for srcp and one for each input's
        # choices (A, B, C), so that each group of readers can be placed around its own copy
        # (one register per bit fanning out to all of them congested the router)
        inst = register_stage(m, 1, {
            "valid": self.i_valid, "rgb": self.i_rgb, "alpha": self.i_alpha,
            "rgba": self.i_rgba, "rgb_srcp": self.i_rgb_srcp, "alpha_srcp": self.i_alpha_srcp,
            "rgb_clamp": self.i_rgb_clamp, "alpha_clamp": self.i_alpha_clamp,
            "quad": self.i_quad_slot0,
        })
        slot_copies = {}
        for use, count in (("srcp", 2), ("a", SLOTS), ("b", SLOTS), ("c", SLOTS)):
            copy = Signal(data.ArrayLayout(VEC4, count), name=f"s1_slots_{use}",
                          reset_less=True, attrs=REGISTER_COPY)
            m.d.sync += copy.eq(self.i_slots.as_value()[:copy.shape().size])
            slot_copies[use] = copy

        # stages 2-6: srcp
        m.submodules.srcp = srcp = PreSubtract()
        m.d.comb += [srcp.i_valid.eq(inst["valid"]), srcp.i_rgb_op.eq(inst["rgb_srcp"]),
                     srcp.i_alpha_op.eq(inst["alpha_srcp"]),
                     srcp.i_slot0.eq(slot_copies["srcp"][0]),
                     srcp.i_slot1.eq(slot_copies["srcp"][1])]

        # stage 2: decode, the choices; waiting for srcp to stage 6
        control = decode_control(m, inst["rgba"].RGB_OP, inst["alpha"].ALPHA_OP,
                                 inst["rgb"].OMOD, inst["alpha"].OMOD, inst["rgb_clamp"],
                                 inst["alpha_clamp"])
        quad = inst["quad"]
        choices = {}
        for channel in range(ALPHA + 1):
            unit = control.alpha if channel == ALPHA else control.rgb
            neighbour = Mux(unit.vertical, quad[2][channel], quad[1][channel])
            overrides = {"a": ((unit.derivative, quad[0][channel]), None),
                         "b": ((unit.frc, ONE), Mod.NOP),
                         "c": ((unit.derivative, neighbour), None)}
            for letter, (override, override_mod) in overrides.items():
                sel, swizzle, mod = _input_fields(inst, channel, letter.upper())
                choices[f"{letter}{channel}"] = operand_choice(
                    m, slot_copies[letter], sel, swizzle, mod, override, override_mod,
                    name=f"choice_{letter}{channel}")
        chosen = register_stage(m, 2, {"valid": inst["valid"], "control": control, **choices})
        chosen = delay(m, "chosen", chosen, PreSubtract.LATENCY - 1)

        # stage 7: the values
        values = {key: operand_value(srcp.o_result, chosen[key]) for key in choices}
        last = register_stage(m, self.LATENCY, {
            "valid": chosen["valid"], "control": chosen["control"], **values,
        })
        m.d.comb += [self.o_valid.eq(last["valid"]), self.o_control.eq(last["control"])]
        for letter in "abc":
            port = getattr(self, f"o_{letter}")
            m.d.comb += [port[channel].eq(last[f"{letter}{channel}"])
                         for channel in range(ALPHA + 1)]
        # the copies: one register feeding every reader was routed across the unit (the
        # flush logic its readers shared sat far from all of them: ~14 ns at stage 8)
        copies = [(self.o_a_select[channel], values[f"a{channel}"], f"a{channel}_select")
                  for channel in range(ALPHA + 1)]
        copies += [(self.o_b_select[channel], values[f"b{channel}"], f"b{channel}_select")
                   for channel in range(ALPHA + 1)]
        copies.append((self.o_a_sfu, values[f"a{ALPHA}"], f"a{ALPHA}_sfu"))
        for port, value, name in copies:
            copy = Signal(32, name=f"s{self.LATENCY}_{name}", reset_less=True,
                          attrs=REGISTER_COPY)
            m.d.sync += copy.eq(value)
            m.d.comb += port.eq(copy)
        return m
