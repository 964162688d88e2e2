"""ULX3S (ECP5 LFE5U-85F-6) board top: PLL, reset, LEDs, UART host link and the GPU.

``BoardLogic`` is the platform-independent part (UART receiver/transmitter, the host-link
bridge, a HostBus target: the Gpu, or a stand-in in tests). ``Ulx3sTop`` adds the clock, reset,
pins and LEDs.

Clock: an EHXPLLL from the 25 MHz oscillator, CLKOP fed back, so the clock is
25 MHz x CLKFB_DIV / CLKI_DIV with CLKI_DIV 1-8 (the phase detector needs >= 3.125 MHz),
CLKFB_DIV 1-80 and a VCO (clock x CLKOP_DIV) in 400-800 MHz: e.g. 50, 60, 62.5, 65.625, 75,
80, 100 MHz are exact. Another request gets the nearest achievable clock (``ecp5_pll``; the
build report gives the one used).

Reset: until the PLL locks, and while the PWR button is held (synchronised, then spread
over a global clock network).
LEDs: 0 heartbeat (~1 Hz), 1 busy, 2 done, 3 error, 4 host-link command active, 7 PLL locked.
UART: the FTDI port (resource "uart"), 8N1, 3 Mbaud by default.
"""

from dataclasses import dataclass

from amaranth import Elaboratable, Module, Signal, ClockDomain, Instance
from amaranth.lib import wiring, io
from amaranth.lib.cdc import AsyncFFSynchronizer
from amaranth.lib.wiring import In, Out

from boards.host_link import HostLink
from boards.limits import ULX3S_85F_LIMITS
from boards.uart import UartRx, UartTx, uart_divisor

__all__ = ["PllConfig", "ecp5_pll", "BoardLogic", "Ulx3sTop", "make_gpu", "DEFAULT_BAUD",
           "DEFAULT_FREQ_MHZ"]

OSC_MHZ = 25.0
DEFAULT_FREQ_MHZ = 75.0
DEFAULT_BAUD = 3_000_000


@dataclass(frozen=True)
class PllConfig:
    clki_div: int
    clkfb_div: int
    clkop_div: int
    freq_mhz: float
    vco_mhz: float


def ecp5_pll(freq_mhz, fin_mhz=OSC_MHZ):
    """EHXPLLL dividers for the clock nearest ``freq_mhz`` (CLKOP feedback)."""
    if not 3.125 <= freq_mhz <= 400:
        raise ValueError(f"--freq {freq_mhz} MHz: the ECP5 PLL output is 3.125-400 MHz")
    best = None
    for clki in range(1, 129):
        pfd = fin_mhz / clki
        if pfd < 3.125:
            break
        for fb in range(1, 81):
            fout = pfd * fb
            if not 3.125 <= fout <= 400:
                continue
            for op in range(1, 129):
                vco = fout * op
                if 400 <= vco <= 800:
                    # nearest frequency; then the highest VCO (least jitter)
                    key = (abs(fout - freq_mhz), -vco)
                    if best is None or key < best[0]:
                        best = (key, PllConfig(clki, fb, op, fout, vco))
    return best[1]


#: one divider per core shared by the three lanes (hdl/alu/serial_divider.py): three lane dividers
#: are about a third of a core's logic; with them four cores do not fit the 85F. MAIN's DIVs have
#: uniform operands and still issue one per cycle; MAIN costs 1.3 % more cycles (latency 28).
BOARD_DIVIDERS = 1
#: ... and each pair of cores shares that one (hdl/alu/shared_divider.py, in time slots): two
#: dividers for four cores, a sixth of a core's logic saved per core
BOARD_SHARED_DIVIDERS = True
#: the texture store's readers and the output store's writers take fixed turns
#: (hdl/lib/arbiter.py ``SlotArbiter``): the round-robin choice from every requester's valid to
#: every skid buffer's enable crossed the chip (the routed 4-core top's arbiter paths)
BOARD_SLOTTED_PORTS = True
#: the MAG square root one root bit per cycle (hdl/alu/serial_sqrt.py): a sixth of the pipelined
#: one's logic; MAG is once per pixel in the default firmware
BOARD_SERIAL_SQRT = True
#: CROSS in two passes over three multipliers (12 MULT18X18D per core instead of 24): the DSP
#: blocks sit in three rows across the chip, and 24 of them stretched each core along half a
#: row (docs/fpga.md)
BOARD_CROSS_PASSES = 2
#: SIMPLE results in two cycles, the adders' operands registered: the loop ALU result ->
#: forwarding -> adder -> ALU result was the 4-core top's worst path group (docs/fpga.md)
BOARD_SIMPLE_LATENCY = 2
#: no forwarding into the ALU's operands (a reader of a result issues a cycle after it lands):
#: the forwarding into the ALU's operand registers (SIMPLE's, CROSS's, the multipliers', the
#: shared divider's requests) was a fifth of the routed 4-core top's failing endpoints
BOARD_ALU_FORWARDING = False
#: each core as the board builds it (also what ``bench.main_cycles --board`` measures)
BOARD_CORE_PARAMS = {"dividers": BOARD_DIVIDERS, "serial_sqrt": BOARD_SERIAL_SQRT,
                     "cross_passes": BOARD_CROSS_PASSES, "simple_latency": BOARD_SIMPLE_LATENCY,
                     "alu_forwarding": BOARD_ALU_FORWARDING}


def make_gpu(cores, limits=ULX3S_85F_LIMITS, rom=None):
    """The Gpu as the board holds it: ``limits``' memory sizes, 8-bit texture/output stores,
    ``BOARD_DIVIDERS`` dividers per core shared by pairs of cores, slotted store ports, the
    serial square root, CROSS in two passes over three multipliers, SIMPLE in two cycles, user
    RAM and swap memories in LUT RAM (block RAMs: texture 96 + output 59 + scene 6 leave 47,
    for 7 per core: the general registers' two copies (6) and the firmware ROM (1))."""
    from hdl.gpu.gpu import Gpu
    if rom is None:
        from firmware.rom import default_rom
        rom = default_rom()
    return Gpu(rom, cores=cores, shared_dividers=BOARD_SHARED_DIVIDERS, **BOARD_CORE_PARAMS,
               narrow_stores=True, lut_memories=True, slotted_ports=BOARD_SLOTTED_PORTS,
               **limits.gpu_params())


class BoardLogic(wiring.Component):
    """UART pins <-> host link <-> ``target`` (anything with an ``In(HostBus())`` port ``host``
    and ``busy``/``done``/``error`` outputs). ``divisor``: clock cycles per UART bit."""

    def __init__(self, target, divisor, link_timeout=1 << 20):
        self.target = target
        self.divisor = divisor
        self.link_timeout = link_timeout
        super().__init__({
            "rx": In(1, init=1), "tx": Out(1, init=1),
            "busy": Out(1), "done": Out(1), "error": Out(1), "link_active": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.uart_rx = rx = UartRx(self.divisor)
        m.submodules.uart_tx = tx = UartTx(self.divisor)
        m.submodules.link = link = HostLink(timeout=self.link_timeout)
        m.submodules.target = target = self.target
        m.d.comb += [rx.rx.eq(self.rx), self.tx.eq(tx.tx), self.link_active.eq(link.active),
                     self.busy.eq(target.busy), self.done.eq(target.done),
                     self.error.eq(target.error)]
        wiring.connect(m, rx.data, link.rx)
        wiring.connect(m, link.tx, tx.data)
        # read answers pass a register on their way back to the link: the Gpu's answer
        # multiplexer -> the link's state was a failing group of the 4-core placement
        bus, host = link.bus, target.host
        m.d.comb += [host.valid.eq(bus.valid), host.write.eq(bus.write), host.addr.eq(bus.addr),
                     host.wdata.eq(bus.wdata), bus.ready.eq(host.ready)]
        m.d.sync += [bus.rvalid.eq(host.rvalid), bus.rdata.eq(host.rdata)]
        return m


class Ulx3sTop(Elaboratable):
    def __init__(self, *, cores=4, freq_mhz=DEFAULT_FREQ_MHZ, baud=DEFAULT_BAUD,
                 limits=ULX3S_85F_LIMITS, rom=None):
        self.pll = ecp5_pll(freq_mhz)
        self.freq_hz = self.pll.freq_mhz * 1e6
        self.baud = baud
        self.divisor = uart_divisor(self.freq_hz, baud)
        self.cores = cores
        self.limits = limits
        self.gpu = make_gpu(cores, limits, rom)

    def elaborate(self, platform):
        m = Module()
        pll = self.pll
        m.submodules.clk25 = clk25 = io.Buffer("i", platform.request("clk25", dir="-"))
        m.domains.sync = cd_sync = ClockDomain("sync")
        locked = Signal()
        m.submodules.pll = Instance(
            "EHXPLLL",
            a_FREQUENCY_PIN_CLKI=f"{OSC_MHZ:g}", a_FREQUENCY_PIN_CLKOP=f"{pll.freq_mhz:g}",
            a_ICP_CURRENT="12", a_LPF_RESISTOR="8", a_MFG_ENABLE_FILTEROPAMP="1",
            a_MFG_GMCREF_SEL="2",
            p_PLLRST_ENA="DISABLED", p_INTFB_WAKE="DISABLED", p_STDBY_ENABLE="DISABLED",
            p_DPHASE_SOURCE="DISABLED", p_OUTDIVIDER_MUXA="DIVA", p_OUTDIVIDER_MUXB="DIVB",
            p_OUTDIVIDER_MUXC="DIVC", p_OUTDIVIDER_MUXD="DIVD",
            p_CLKI_DIV=pll.clki_div, p_CLKFB_DIV=pll.clkfb_div, p_CLKOP_DIV=pll.clkop_div,
            p_CLKOP_ENABLE="ENABLED", p_CLKOP_CPHASE=pll.clkop_div - 1, p_CLKOP_FPHASE=0,
            p_FEEDBK_PATH="CLKOP",
            i_RST=0, i_STDBY=0, i_CLKI=clk25.i, o_CLKOP=cd_sync.clk, i_CLKFB=cd_sync.clk,
            i_PHASESEL0=0, i_PHASESEL1=0, i_PHASEDIR=1, i_PHASESTEP=1, i_PHASELOADREG=1,
            i_PLLWAKESYNC=0, i_ENCLKOP=0, o_LOCK=locked)
        # no add_clock_constraint: nextpnr derives the PLL output's constraint from the
        # 25 MHz input and the dividers ("Derived frequency constraint of 75.0 MHz")

        m.submodules.button = button = io.Buffer("i", platform.request("button_pwr", 0, dir="-"))
        # The synchronised reset reaches several thousand flip-flops (every valid bit, count
        # and state of four cores): over a global clock network (a DCCA buffer), not fabric
        # routing, where it arrived up to 15.6 ns late at the far cores' LSR pins (a routed
        # 4-core top's failing endpoints)
        reset = Signal()
        m.submodules.reset_sync = AsyncFFSynchronizer(~locked | button.i, reset, o_domain="sync")
        m.submodules.reset_buffer = Instance("DCCA", i_CLKI=reset, i_CE=1, o_CLKO=cd_sync.rst)

        m.submodules.logic = logic = BoardLogic(self.gpu, self.divisor,
                                                link_timeout=int(self.freq_hz // 64))
        uart = platform.request("uart", 0, dir="-")
        m.submodules.uart_rx = uart_rx = io.Buffer("i", uart.rx)
        m.submodules.uart_tx = uart_tx = io.Buffer("o", uart.tx)
        m.d.comb += [logic.rx.eq(uart_rx.i), uart_tx.o.eq(logic.tx)]

        heartbeat = Signal(range(int(self.freq_hz)))
        blink = Signal()
        with m.If(heartbeat == int(self.freq_hz // 2) - 1):
            m.d.sync += [heartbeat.eq(0), blink.eq(~blink)]
        with m.Else():
            m.d.sync += heartbeat.eq(heartbeat + 1)
        leds = []
        for i in range(8):
            m.submodules[f"led{i}"] = led = io.Buffer("o", platform.request("led", i, dir="-"))
            leds.append(led.o)
        m.d.comb += [leds[0].eq(blink), leds[1].eq(logic.busy), leds[2].eq(logic.done),
                     leds[3].eq(logic.error), leds[4].eq(logic.link_active), leds[7].eq(locked)]
        return m
