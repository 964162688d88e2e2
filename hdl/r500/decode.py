"""Decoding one R500 instruction for the core (r500-us.md §1, §3.2, §3.6): its fault, if any,
and the resolved addresses of its sources and destinations.

``InstructionDecoder`` is combinational: the six words, the context's ``aL`` and which samplers
are set up in; the ``Decoded`` view and a ``QuadFault`` out. The faults in the model's order
(``sim.r500.decode``, ``sim.r500.quad``): an illegal encoding first, then a temporary address at
or past the build's count (every one the instruction names, used or not), then a sampler that
is not set up (LD, PROJ, LODBIAS, LOD, DXDY).
"""

from enum import IntEnum

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.isa import (US_CMN_INST, US_ALU_ADDR, US_ALU_RGB_INST, US_ALU_ALPHA_INST,
                     US_ALU_RGBA_INST, US_TEX_INST, US_TEX_ADDR, US_FC_INST, AddrOp, AlphaOp,
                     BranchOp, InstType, PredSel, QuadFault, RgbOp, TexOp, R500_SAMPLERS,
                     R500_TEMPS, R500_WORDS_PER_INSTRUCTION)

__all__ = ["SourceKind", "SlotSource", "InstructionWords", "Decoded", "InstructionDecoder",
           "SLOTS", "word_view"]

SLOTS = 3
TEMP_BITS = 7
INLINE_BIT = 7


class SourceKind(IntEnum):
    """Where a source slot's channels come from."""
    TEMP = 0
    CONST = 1
    INLINE = 2


#: a slot's source: a temporary or a constant index (REL applied), or an inline-constant code
SlotSource = data.StructLayout({"kind": 2, "index": 8})
InstructionWords = data.ArrayLayout(32, R500_WORDS_PER_INSTRUCTION)

Decoded = data.StructLayout({
    "words": InstructionWords,
    "rgb_src": data.ArrayLayout(SlotSource, SLOTS),      # inst1's three slots
    "alpha_src": data.ArrayLayout(SlotSource, SLOTS),    # inst2's
    "rgb_dest": TEMP_BITS, "alpha_dest": TEMP_BITS,      # ALU/OUT
    "tex_src": TEMP_BITS, "tex_dst": TEMP_BITS,          # TEX
})


def word_view(decoded, index, fmt):
    """Word ``index`` of a Decoded as the lib.data view of ``fmt`` (a WordFormat)."""
    return fmt.layout(decoded.words[index])


class InstructionDecoder(wiring.Component):
    """Parameters: ``temporaries`` (the build's count; addresses at or past it are faults)."""

    def __init__(self, temporaries=R500_TEMPS):
        self.temporaries = temporaries
        super().__init__({
            "words": In(InstructionWords),
            "aL": In(8),
            "samplers_set_up": In(R500_SAMPLERS),
            "decoded": Out(Decoded),
            "fault": Out(QuadFault),
        })

    def elaborate(self, platform):
        m = Module()
        words, aL = self.words, self.aL
        cmn = US_CMN_INST.layout(words[0])
        kind = cmn.TYPE
        is_alu = (kind == InstType.ALU) | (kind == InstType.OUT)
        is_tex = kind == InstType.TEX
        is_fc = kind == InstType.FC

        bad_temps = []

        def temp(addr, rel):
            """(index, out of range) of a temporary address, REL adding aL (mod 128)."""
            index = Signal(TEMP_BITS)
            m.d.comb += index.eq(addr[:TEMP_BITS] + Mux(rel, aL, 0))
            return index, index >= self.temporaries

        # sources and destinations of ALU/OUT
        for part, word in (("rgb", words[1]), ("alpha", words[2])):
            fields = US_ALU_ADDR.layout(word)
            for n in range(SLOTS):
                addr = getattr(fields, f"ADDR{n}")
                rel = getattr(fields, f"ADDR{n}_REL")
                source = self.decoded[f"{part}_src"][n]
                index, out_of_range = temp(addr, rel)
                is_const = getattr(fields, f"ADDR{n}_CONST")
                with m.If(is_const):
                    m.d.comb += [source.kind.eq(SourceKind.CONST),
                                 source.index.eq(addr + Mux(rel, aL, 0))]
                with m.Elif(addr[INLINE_BIT]):      # REL does not apply to inline constants
                    m.d.comb += [source.kind.eq(SourceKind.INLINE), source.index.eq(addr)]
                with m.Else():
                    m.d.comb += [source.kind.eq(SourceKind.TEMP), source.index.eq(index)]
                bad_temps.append(is_alu & ~is_const & ~addr[INLINE_BIT] & out_of_range)
        # the destinations of ALU/OUT, the source and destination of TEX
        alpha = US_ALU_ALPHA_INST.layout(words[4])
        rgba = US_ALU_RGBA_INST.layout(words[5])
        tex = US_TEX_INST.layout(words[1])
        tex_addr = US_TEX_ADDR.layout(words[2])
        for name, addr, rel, kind_named in (
                ("rgb_dest", rgba.RGB_ADDRD, rgba.RGB_ADDRD_REL, is_alu),
                ("alpha_dest", alpha.ALPHA_ADDRD, alpha.ALPHA_ADDRD_REL, is_alu),
                ("tex_src", tex_addr.SRC_ADDR, tex_addr.SRC_ADDR_REL, is_tex),
                ("tex_dst", tex_addr.DST_ADDR, tex_addr.DST_ADDR_REL, is_tex)):
            index, out_of_range = temp(addr, rel)
            m.d.comb += self.decoded[name].eq(index)
            bad_temps.append(kind_named & out_of_range)
        m.d.comb += self.decoded.words.eq(words)

        # illegal encodings (§3.6)
        rgb_op, alpha_op = rgba.RGB_OP, alpha.ALPHA_OP
        legal_rgb = Cat(rgb_op == op for op in RgbOp).any()
        legal_alpha = Cat(alpha_op == op for op in AlphaOp).any()
        rgb_dot = (rgb_op == RgbOp.DP3) | (rgb_op == RgbOp.DP4)
        alu_illegal = (~legal_rgb | ~legal_alpha | ((alpha_op == AlphaOp.DP) & ~rgb_dot)
                       | ((rgb_op == RgbOp.DP4) & (alpha_op != AlphaOp.DP)))
        fc = US_FC_INST.layout(words[2])
        fc_illegal = ((fc.A_OP > AddrOp.PUSH) | (fc.B_OP0 > BranchOp.INCR)
                      | (fc.B_OP1 > BranchOp.INCR))
        tex_illegal = ~Cat(tex.INST == op for op in TexOp).any()
        illegal = ((cmn.RGB_PRED_SEL > PredSel.AAAA)
                   | (~is_fc & (cmn.ALPHA_PRED_SEL > PredSel.AAAA))
                   | (is_alu & alu_illegal) | (is_fc & fc_illegal) | (is_tex & tex_illegal))

        samples = is_tex & (tex.INST != TexOp.NOP) & (tex.INST != TexOp.TEXKILL)
        with m.If(illegal):
            m.d.comb += self.fault.eq(QuadFault.ILLEGAL_INSTRUCTION)
        with m.Elif(Cat(bad_temps).any()):
            m.d.comb += self.fault.eq(QuadFault.BAD_TEMPORARY)
        with m.Elif(samples & ~self.samplers_set_up.bit_select(tex.TEX_ID, 1)):
            m.d.comb += self.fault.eq(QuadFault.SAMPLER_NOT_SET_UP)
        return m
