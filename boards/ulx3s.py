"""ULX3S (ECP5 LFE5U-85F-6) board top: PLL, reset, LEDs, UART host link and the GPU.

``BoardLogic`` is the platform-independent part (UART receiver/transmitter, the host-link
bridge, a HostBus target: the Gpu, or a stand-in in tests). ``Ulx3sTop`` adds the clock, reset,
pins and LEDs.

Clock: an EHXPLLL from the 25 MHz oscillator, CLKOP fed back, so the clock is
25 MHz x CLKFB_DIV / CLKI_DIV with CLKI_DIV 1-8 (the phase detector needs >= 3.125 MHz),
CLKFB_DIV 1-80 and a VCO (clock x CLKOP_DIV) in 400-800 MHz: e.g. 50, 60, 62.5, 65.625, 75,
80, 100 MHz are exact. Another request gets the nearest achievable clock (``ecp5_pll``; the
build report gives the one used).

With the memories in SDRAM (``GpuConfig.memory``: the board presets) the top holds the
``GpuSystem`` (hdl/gpu/system.py: the GPU, the SDRAM on the ``sdram`` pins, the display on the
``hdmi`` pins) and the one EHXPLLL makes four clocks from one VCO (boards/display_pll.py): the
GPU's (CLKOP, a clock that leaves the display's exact: 75 MHz, or 41.67 for ``--freq 42``),
the SDRAM chip's (CLKOS: the GPU's shifted by the phase hdl/mem/sdram_clock.py plans for the
board's traces), the TMDS bits' (CLKOS2, 125 MHz) and the pixels' (CLKOS3, 25 MHz). The
memory system's clock is the PLL's (``board_config``).

Reset: until the PLL locks, and while the PWR button is held (synchronised, then spread
over a global clock network); the display's two domains come out of reset when the PLL
locks, each through a synchroniser of its own. The SDRAM's clock domain drives only the
chip's clock pin (a DDR output of constants): it has no reset.
LEDs: 0 heartbeat (~1 Hz), 1 busy, 2 done, 3 error, 4 host-link command active, 5 SDRAM
initialised, 6 display underrun, 7 PLL locked.
UART: the FTDI port (resource "uart"), 8N1, 3 Mbaud by default.
"""

import dataclasses
from dataclasses import dataclass

from amaranth import Elaboratable, Module, Signal, ClockDomain, Instance
from amaranth.lib import wiring, io
from amaranth.lib.cdc import AsyncFFSynchronizer
from amaranth.lib.wiring import In, Out

from boards.display_pll import display_pll, ehxplll_parameters, sdram_phase_step
from boards.host_link import HostLink, LINK_TIMEOUT_S
from boards.uart import UartRx, UartTx, uart_divisor
from hdl.config import preset
from hdl.display.gpdi import GpdiOutput
from hdl.gpu.gpu import Gpu
from hdl.gpu.host_bus import HostRequest
from hdl.gpu.system import GpuSystem, sdram_plan
from hdl.lib.skid_buffer import SkidBuffer

__all__ = ["PllConfig", "ecp5_pll", "BoardLogic", "Ulx3sTop", "DEFAULT_BAUD", "DEFAULT_FREQ_MHZ",
           "PRESET_FREQ_MHZ", "preset_freq_mhz"]

OSC_MHZ = 25.0
#: the board's clock (MHz) a preset is built for, unless PRESET_FREQ_MHZ names another. Clock
#: targets are configuration; what a build reached is a measurement, and lives in
#: bench/measured_builds.json (docs/fpga.md, "Measured builds")
DEFAULT_FREQ_MHZ = 75.0
#: the clock (``--freq``) a preset's board build asks for when it cannot meet DEFAULT_FREQ_MHZ:
#: for ``ulx3s-r500`` 42, which the PLL makes 41.67 MHz (3 Mbaud at 14 cycles a bit, 0.8 % slow),
#: the highest such clock its builds meet. The board's clock, not the GPU's: the RTL is the same
#: at any clock, so it stays out of ``GpuConfig``.
PRESET_FREQ_MHZ = {"ulx3s-r500": 42.0}
DEFAULT_BAUD = 3_000_000


def preset_freq_mhz(name):
    """The board clock (MHz) the preset called ``name`` is built for."""
    return PRESET_FREQ_MHZ.get(name, DEFAULT_FREQ_MHZ)


def board_clock_mhz(config, freq_mhz):
    """The GPU clock the board's PLL makes for ``freq_mhz``: with the memories in SDRAM and the
    display (``config.memory``) one that also makes the display's clocks exactly
    (boards/display_pll.py), else the nearest (``ecp5_pll``)."""
    if config.memory is not None:
        return display_pll(freq_mhz, pixel_mhz=config.memory.pixel_hz / 1e6).sync_mhz
    return ecp5_pll(freq_mhz).freq_mhz


def board_config(config, freq_mhz):
    """``config`` for a board clocked at ``freq_mhz``: its memory system's clock and the PLL's
    phase steps made the board's (the SDRAM's timings are counted in its cycles)."""
    if config.memory is None:
        return config
    pll = display_pll(freq_mhz, pixel_mhz=config.memory.pixel_hz / 1e6)
    memory = dataclasses.replace(config.memory, clock_hz=pll.sync_mhz * 1e6,
                                 phase_step_deg=sdram_phase_step(pll))
    return config if memory == config.memory else config.replace(memory=memory)


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
        # The link sits by the UART pins, the GPU's host port wherever the placer puts it:
        # requests pass a skid buffer on their way to the GPU (the GPU's ``ready`` and the
        # link's state then meet only in flip-flops), read answers a register on their way
        # back.
        bus, host = link.bus, target.host
        m.submodules.request = request = SkidBuffer(HostRequest)
        m.d.comb += [request.i.valid.eq(bus.valid), request.i.payload.write.eq(bus.write),
                     request.i.payload.addr.eq(bus.addr), request.i.payload.wdata.eq(bus.wdata),
                     bus.ready.eq(request.i.ready),
                     host.valid.eq(request.o.valid), host.write.eq(request.o.payload.write),
                     host.addr.eq(request.o.payload.addr),
                     host.wdata.eq(request.o.payload.wdata), request.o.ready.eq(host.ready)]
        m.d.sync += [bus.rvalid.eq(host.rvalid), bus.rdata.eq(host.rdata)]
        return m


class Ulx3sTop(Elaboratable):
    """The board top; ``config`` (default: the ``ulx3s`` preset) says how the GPU is built.
    ``constraint_mhz``: the clock the place and route aims at, if not the PLL's (a faster one
    leaves a margin at the real clock)."""

    def __init__(self, *, config=None, freq_mhz=DEFAULT_FREQ_MHZ, baud=DEFAULT_BAUD,
                 rom=None, constraint_mhz=None):
        self.config = board_config(config or preset("ulx3s"), freq_mhz)
        memory = self.config.memory
        if memory is not None:
            self.pll = display_pll(freq_mhz, pixel_mhz=memory.pixel_hz / 1e6)
            self.freq_hz = self.pll.sync_mhz * 1e6
        else:
            self.pll = ecp5_pll(freq_mhz)
            self.freq_hz = self.pll.freq_mhz * 1e6
        self.constraint_mhz = constraint_mhz
        self.baud = baud
        self.divisor = uart_divisor(self.freq_hz, baud)
        if rom is None:
            from firmware.rom import default_rom
            rom = default_rom()
        self.rom = rom
        self.gpu = Gpu(rom, self.config) if memory is None else None

    def elaborate(self, platform):
        m = Module()
        m.submodules.clk25 = clk25 = io.Buffer("i", platform.request("clk25", dir="-"))
        m.domains.sync = cd_sync = ClockDomain("sync")
        locked = Signal()
        if self.config.memory is None:
            target = self._pll(m, platform, clk25, cd_sync, locked)
        else:
            target = self._system(m, platform, clk25, cd_sync, locked)
        self._board(m, platform, target, cd_sync, locked)
        return m

    def _pll(self, m, platform, clk25, cd_sync, locked):
        """The GPU's clock alone; returns the host link's target: the Gpu."""
        pll = self.pll
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
        # without a constraint of its own nextpnr derives the PLL output's from the 25 MHz
        # input and the dividers; an explicit one takes its place
        if self.constraint_mhz is not None:
            platform.add_clock_constraint(cd_sync.clk, self.constraint_mhz * 1e6)
        return self.gpu

    def _system(self, m, platform, clk25, cd_sync, locked):
        """One EHXPLLL for the GPU's clock, the SDRAM chip's (the GPU's, shifted as
        hdl/mem/sdram_clock.py plans), the TMDS bits' and the pixels' (boards/display_pll.py);
        the SDRAM and the display on their pins. Returns the host link's target: the
        GpuSystem (hdl/gpu/system.py)."""
        pll, memory = self.pll, self.config.memory
        plan = sdram_plan(memory)
        m.domains.sdram = cd_sdram = ClockDomain("sdram", reset_less=True)
        m.domains.pixel = cd_pixel = ClockDomain("pixel")
        m.domains.tmds = cd_tmds = ClockDomain("tmds")
        m.submodules.pll = Instance(
            "EHXPLLL", **ehxplll_parameters(pll, sdram_phase_deg=plan.phase_deg),
            i_CLKI=clk25.i, i_CLKFB=cd_sync.clk, o_CLKOP=cd_sync.clk, o_CLKOS=cd_sdram.clk,
            o_CLKOS2=cd_tmds.clk, o_CLKOS3=cd_pixel.clk, o_LOCK=locked)
        if self.constraint_mhz is not None:
            platform.add_clock_constraint(cd_sync.clk, self.constraint_mhz * 1e6)
        # the display's domains come out of reset once the PLL locks, each synchronised to
        # its own clock (a few hundred flip-flops: fabric routing is enough)
        for domain in (cd_pixel, cd_tmds):
            m.submodules[f"{domain.name}_reset"] = AsyncFFSynchronizer(
                ~locked, domain.rst, o_domain=domain.name)
        system = GpuSystem(self.rom, self.config, platform.request("sdram", dir="-"),
                           plan=plan, sdram_domain="sdram")
        m.submodules.gpdi = gpdi = GpdiOutput(platform.request("hdmi", 0, dir="-"))
        m.d.comb += [gpdi.data.eq(system.data), gpdi.clock.eq(system.clock)]
        self.system = system
        return system

    def _board(self, m, platform, target, cd_sync, locked):
        """Reset, the host link to ``target``, the LEDs."""
        m.submodules.button = button = io.Buffer("i", platform.request("button_pwr", 0, dir="-"))
        # The synchronised reset reaches several thousand flip-flops (every valid bit, count
        # and state of four cores): over a global clock network (a DCCA buffer), not fabric
        # routing, where it arrives up to 15 ns late at the far cores' LSR pins
        reset = Signal()
        m.submodules.reset_sync = AsyncFFSynchronizer(~locked | button.i, reset, o_domain="sync")
        m.submodules.reset_buffer = Instance("DCCA", i_CLKI=reset, i_CE=1, o_CLKO=cd_sync.rst)

        m.submodules.logic = logic = BoardLogic(target, self.divisor,
                                                link_timeout=int(self.freq_hz * LINK_TIMEOUT_S))
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
        if self.config.memory is not None:
            m.d.comb += [leds[5].eq(target.initialised), leds[6].eq(target.underrun)]
