// Harness around a Verilator- or CXXRTL-compiled Amaranth top: a small C API for ctypes
// (sim/fast/driver.py). Built by sim/fast/build.py with -DTHEIA_VERILATOR or -DTHEIA_CXXRTL;
// the port table (THEIA_PORTS, generated into ports.inc) lists the top's ports in the order
// the Python side indexes them.
//
// Timing convention (the same as an Amaranth testbench): inputs set between cycles are seen
// at the next rising edge; outputs read between cycles are their values after the last edge
// with the current inputs. The combinational logic is settled lazily (only when an input
// changed since the last evaluation), so stepping without touching inputs costs two
// evaluations per cycle (clock high, clock low).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "theia_ports.h"    // generated: #define THEIA_PORTS THEIA_PORT(...) ...,
                            // THEIA_CLOCKS THEIA_CLOCK(name) ... (the other clock domains)
#ifndef THEIA_CLOCKS
#define THEIA_CLOCKS
#endif

enum { DIR_IN = 0, DIR_OUT = 1 };

struct PortDesc {
    const char *name;
    int width;
    int dir;
};

#define THEIA_PORT(name, width, dir, vname) {name, width, dir},
static const PortDesc port_descs[] = {
    THEIA_PORTS
};
#undef THEIA_PORT
static const int num_ports = sizeof(port_descs) / sizeof(port_descs[0]);

// ------------------------------------------------------------------------------------------
// backend: a port is a location of `width` bits, read as 32-bit little-endian chunks

#if defined(THEIA_VERILATOR)
#include "Vtop.h"
#include "Vtop___024root.h"
#include "verilated.h"

double sc_time_stamp() { return 0; }

// The falling clock edge: Verilator (5.x) finds a rising edge by comparing `clk` with the value
// it saw at the previous evaluation (__Vtrigrprev__TOP__clk). When the inputs have not changed
// since the rising edge, evaluating with clk = 0 computes nothing new (the design uses no
// falling edges), so it is enough to record the low clock there: one evaluation per cycle
// instead of two. Detected at compile time; other Verilator versions take the evaluation.
template <typename Root>
static auto note_clock_low(Root *root, int) -> decltype(root->__Vtrigrprev__TOP__clk = 0, true) {
    root->__Vtrigrprev__TOP__clk = 0;
    return true;
}
template <typename Root>
static bool note_clock_low(Root *, long) { return false; }

struct Loc {
    void *ptr;
    int width;
};

static uint64_t loc_get64(const Loc &l) {
    if (l.width <= 8) return *(uint8_t *)l.ptr;
    if (l.width <= 16) return *(uint16_t *)l.ptr;
    if (l.width <= 32) return *(uint32_t *)l.ptr;
    if (l.width <= 64) return *(uint64_t *)l.ptr;
    const uint32_t *w = (const uint32_t *)l.ptr;
    return (uint64_t)w[0] | ((uint64_t)w[1] << 32);
}

static void loc_set64(const Loc &l, uint64_t v) {
    if (l.width <= 8) *(uint8_t *)l.ptr = (uint8_t)v;
    else if (l.width <= 16) *(uint16_t *)l.ptr = (uint16_t)v;
    else if (l.width <= 32) *(uint32_t *)l.ptr = (uint32_t)v;
    else if (l.width <= 64) *(uint64_t *)l.ptr = v;
    else {
        uint32_t *w = (uint32_t *)l.ptr;
        int n = (l.width + 31) / 32;
        w[0] = (uint32_t)v;
        w[1] = (uint32_t)(v >> 32);
        for (int i = 2; i < n; i++) w[i] = 0;
    }
}

static void loc_get_words(const Loc &l, uint32_t *out) {
    if (l.width <= 64) {
        uint64_t v = loc_get64(l);
        out[0] = (uint32_t)v;
        if (l.width > 32) out[1] = (uint32_t)(v >> 32);
    } else {
        memcpy(out, l.ptr, 4 * ((l.width + 31) / 32));
    }
}

static void loc_set_words(const Loc &l, const uint32_t *in) {
    if (l.width <= 64) {
        uint64_t v = in[0];
        if (l.width > 32) v |= (uint64_t)in[1] << 32;
        loc_set64(l, v);
    } else {
        memcpy(l.ptr, in, 4 * ((l.width + 31) / 32));
    }
}

// The same for the clock of another domain (THEIA_CLOCKS, generated: the top's <name>_clk).
#define THEIA_CLOCK(name) \
    template <typename Root> \
    static auto note_low_##name(Root *root, int) \
        -> decltype(root->__Vtrigrprev__TOP__##name##_clk = 0, true) { \
        root->__Vtrigrprev__TOP__##name##_clk = 0; \
        return true; \
    } \
    template <typename Root> \
    static bool note_low_##name(Root *, long) { return false; }
THEIA_CLOCKS
#undef THEIA_CLOCK

struct Model;
struct ClockLoc {                  // another clock domain's clock and reset
    const char *name;
    Loc clk, rst;
    bool (*note_low)(Model *);     // as clock_low_without_eval, for this clock
};

struct Model {
    VerilatedContext ctx;
    Vtop *top;
    std::vector<Loc> locs;
    Loc clk, rst;
    std::vector<ClockLoc> clocks;

    Model() {
        ctx.randReset(0);
        top = new Vtop(&ctx, "top");
#define THEIA_PORT(name, width, dir, vname) locs.push_back(Loc{(void *)&top->vname, width});
        THEIA_PORTS
#undef THEIA_PORT
        clk = Loc{(void *)&top->clk, 1};
        rst = Loc{(void *)&top->rst, 1};
#define THEIA_CLOCK(name) \
        clocks.push_back(ClockLoc{#name, Loc{(void *)&top->name##_clk, 1}, \
                                  Loc{(void *)&top->name##_rst, 1}, \
                                  [](Model *m) { return note_low_##name(m->top->rootp, 0); }});
        THEIA_CLOCKS
#undef THEIA_CLOCK
        top->clk = 0;
        top->eval();
    }
    ~Model() {
        top->final();
        delete top;
    }
    void eval() { top->eval(); }
    void set_clk(int v) { top->clk = v; }
    // true: the model now knows the clock is low without an evaluation (see note_clock_low)
    bool clock_low_without_eval() { return note_clock_low(top->rootp, 0); }
};

#elif defined(THEIA_CXXRTL)
#include "top_cxxrtl.cc"

struct Loc {
    uint32_t *curr;
    uint32_t *next;
    int width;
};

static uint64_t loc_get64(const Loc &l) {
    uint64_t v = l.curr[0];
    if (l.width > 32) v |= (uint64_t)l.curr[1] << 32;
    if (l.width < 64) v &= (((uint64_t)1 << l.width) - 1);
    return v;
}

static void loc_set64(const Loc &l, uint64_t v) {
    int n = (l.width + 31) / 32;
    if (l.width < 64) v &= (((uint64_t)1 << l.width) - 1);
    l.next[0] = (uint32_t)v;
    if (n > 1) l.next[1] = (uint32_t)(v >> 32);
    for (int i = 2; i < n; i++) l.next[i] = 0;
}

static void loc_get_words(const Loc &l, uint32_t *out) {
    memcpy(out, l.curr, 4 * ((l.width + 31) / 32));
}

static void loc_set_words(const Loc &l, const uint32_t *in) {
    memcpy(l.next, in, 4 * ((l.width + 31) / 32));
}

struct Model;
struct ClockLoc {
    const char *name;
    Loc clk, rst;
    bool (*note_low)(Model *);
};

struct Model {
    cxxrtl_design::p_top top;
    cxxrtl::debug_items items;
    std::vector<Loc> locs;
    Loc clk, rst;
    std::vector<ClockLoc> clocks;

    Loc find(const char *name, int width) {
        auto &parts = items.table.at(name);
        cxxrtl::debug_item &item = parts.at(0);
        uint32_t *next = item.next ? item.next : item.curr;
        return Loc{item.curr, next, width};
    }
    Model() {
        top.debug_info(&items, nullptr, "");
#define THEIA_PORT(name, width, dir, vname) locs.push_back(find(name, width));
        THEIA_PORTS
#undef THEIA_PORT
        clk = find("clk", 1);
        rst = find("rst", 1);
#define THEIA_CLOCK(name) \
        clocks.push_back(ClockLoc{#name, find(#name "_clk", 1), find(#name "_rst", 1), \
                                  [](Model *) { return false; }});
        THEIA_CLOCKS
#undef THEIA_CLOCK
        clk.next[0] = 0;
        top.step();
    }
    void eval() { top.step(); }
    void set_clk(int v) { clk.next[0] = v; }
    bool clock_low_without_eval() { return false; }
};

#else
#error "define THEIA_VERILATOR or THEIA_CXXRTL"
#endif

// Moves up to max values from the front of ``values`` to ``out``; returns how many.
static uint64_t take_front(std::vector<uint64_t> &values, uint64_t *out, uint64_t max) {
    uint64_t n = values.size() < max ? values.size() : max;
    std::copy(values.begin(), values.begin() + n, out);
    values.erase(values.begin(), values.begin() + n);
    return n;
}

// ------------------------------------------------------------------------------------------
// simulation state around the model

struct ReadServer {      // answers a request stream from a word array, in order
    int req_valid, req_ready, req_payload, resp_valid, resp_payload;
    const uint32_t *mem;
    uint64_t size;
    std::deque<uint32_t> queue;
};

struct WriteServer {     // stores {addr[31:0], data[63:32]} write requests into a word array
    int req_valid, req_ready, req_payload;
    uint32_t *mem;
    uint64_t size;
};

struct Bus {
    int valid, write, addr, wdata, ready, rvalid, rdata;
};

struct WriteMonitor {    // records (addr, data) at every edge where `valid` is high
    int valid = -1, addr = -1, data = -1;
    std::vector<uint32_t> addrs, words;
};

// The host's end of an 8N1 serial line on the top's `rx` (driven) and `tx` (decoded) pins,
// `divisor` cycles per bit, as a USB-serial adapter sees it: bytes to send, each after a
// number of idle cycles (a stalled line), and the bytes decoded, with the cycle each stop bit
// was sampled.
struct UartLine {
    int rx = -1, tx = -1;
    uint64_t divisor = 0;
    std::deque<std::pair<uint8_t, uint64_t>> out;  // byte, idle cycles still before it
    int out_bit = -1;                              // bit of out.front() on the line (0 = start)
    uint64_t out_timer = 0;
    int level = 1;
    int in_state = 0;              // 0: line idle, 1: in a frame, 2: bad stop bit, wait for idle
    uint64_t in_timer = 0;
    int in_bit = 0;
    uint32_t in_shift = 0;
    std::vector<uint8_t> in;
    std::vector<uint64_t> in_cycles;
    uint64_t framing_errors = 0;
};

// A stream source: payloads offered on valid/payload, one after another, each after a number
// of idle cycles; an offered payload stays until the edge where ready is high.
struct StreamSource {
    int valid, ready, payload;
    std::deque<std::pair<uint64_t, uint64_t>> items;  // payload, idle cycles still before it
    bool offering = false;
};

// A stream sink: ready high in a pseudo-random share of cycles (xorshift64*), the payloads
// taken recorded in order.
struct StreamSink {
    int valid, ready, payload;
    uint32_t ready_threshold;    // ready when the draw's top 32 bits are below this
    uint64_t rng;
    bool ready_now = false;
    std::vector<uint64_t> taken;
    uint64_t expected = 0;       // theia_run_streams waits for this many
};

// A model of a chip on the top's pins, in Python (sim/sdram/model.py through ctypes): after
// every edge the pins' levels are packed into one word (fields in `pins` order, lowest bits
// first); unless the word matches one of the `idle` (mask, value) patterns the callback gets
// (cycle, word) and fills `schedule` with (cycle, value) pairs: what to drive on the `drive`
// port from which cycle on, replacing the earlier schedule. It returns the number of pairs, or
// -1 to stop the simulation (a rule broken: the Python side keeps the message).
typedef int64_t (*PinCallback)(uint64_t cycle, uint64_t word);
struct PinModel {
    std::vector<int> pins;
    std::vector<int> shifts;
    std::vector<std::pair<uint64_t, uint64_t>> idle;
    int drive = -1;
    PinCallback callback = nullptr;
    uint64_t *schedule = nullptr;    // 2 x capacity words, written by the callback
    uint64_t capacity = 0;
    std::deque<std::pair<uint64_t, uint64_t>> pending;
    uint64_t driven = 0;
    uint64_t calls = 0;
};

// Another clock domain's clock while the simulation runs it (sim/fast/driver.py
// ``set_clocks``): its period and next rising edge in ticks, 0 = stopped (held low).
struct DomainClock {
    uint64_t period = 0;
    uint64_t next = 0;
    uint64_t edges = 0;
    bool high = false;            // risen, and no evaluation has seen it low since
};

// The packed levels of some ports (lowest bits first) just before each rising edge of one
// clock (-1: the sync clock), for as many edges as it is armed for.
struct ClockMonitor {
    int clock;
    std::vector<int> ports;
    std::vector<int> shifts;
    uint64_t remaining = 0;
    std::vector<uint64_t> values;
};

struct Sim {
    Model model;
    bool dirty = true;
    uint64_t cycles = 0;
    std::vector<ReadServer> readers;
    std::vector<WriteServer> writers;
    Bus bus{-1, -1, -1, -1, -1, -1, -1};
    std::vector<WriteMonitor> monitors;
    UartLine uart;
    std::vector<StreamSource> sources;
    std::vector<StreamSink> sinks;
    PinModel pin_model;
    bool halted = false;         // the pin model asked to stop
    std::vector<char> fired;     // per source: a payload was taken at this edge
    std::string error;

    // The falling clock edge needs an evaluation too (the models detect edges against the
    // clock value of their last evaluation), but nothing changes on it: it is folded into the
    // next evaluation that input changes need anyway, so a cycle costs two evaluations.
    bool clk_low_pending = false;

    void settle() {
        if (dirty) {
            model.eval();
            dirty = false;
            clk_low_pending = false;
        }
    }
    uint64_t get(int i) {
        settle();
        return loc_get64(model.locs[i]);
    }
    void set(int i, uint64_t v) {
        loc_set64(model.locs[i], v);
        dirty = true;
    }
    // one rising edge of the sync clock (and, with other clocks running, their edges up to
    // it, in time order); the memory servers sample their requests at the edge like an
    // Amaranth process (ctx.tick().sample(...)) and present responses after it
    void cycle() {
        if (multi_clock) {
            multi_clock_cycle();
            return;
        }
        settle();
        before_sync_edge();
        if (clk_low_pending && !model.clock_low_without_eval()) model.eval();
        model.set_clk(1);
        model.eval();
        model.set_clk(0);
        clk_low_pending = true;
        cycles++;
        after_sync_edge();
    }
    bool have_req[4] = {false, false, false, false};
    uint32_t req_addr[4] = {0, 0, 0, 0};
    void before_sync_edge() {
        size_t nr = readers.size(), nw = writers.size();
        for (size_t k = 0; k < nr && k < 4; k++) {
            ReadServer &r = readers[k];
            have_req[k] = false;
            if (get(r.req_valid) && get(r.req_ready)) {
                have_req[k] = true;
                req_addr[k] = (uint32_t)get(r.req_payload);
            }
        }
        for (WriteMonitor &w : monitors) {
            if (get(w.valid)) {
                w.addrs.push_back((uint32_t)get(w.addr));
                w.words.push_back((uint32_t)get(w.data));
            }
        }
        for (size_t k = 0; k < nw; k++) {
            WriteServer &w = writers[k];
            if (get(w.req_valid) && get(w.req_ready)) {
                uint64_t p = get(w.req_payload);
                uint32_t a = (uint32_t)p;
                if (a < w.size) w.mem[a] = (uint32_t)(p >> 32);
            }
        }
        size_t ns = sources.size();
        fired.assign(ns, 0);
        for (size_t k = 0; k < ns; k++)
            fired[k] = sources[k].offering && get(sources[k].ready);
        for (StreamSink &q : sinks)
            if (q.ready_now && get(q.valid)) q.taken.push_back(get(q.payload));
        for (ClockMonitor &cm : clock_monitors)
            if (cm.clock < 0) record(cm);
    }
    void record(ClockMonitor &cm) {
        if (!cm.remaining) return;
        uint64_t word = 0;
        for (size_t i = 0; i < cm.ports.size(); i++) word |= get(cm.ports[i]) << cm.shifts[i];
        cm.values.push_back(word);
        cm.remaining--;
    }
    void after_sync_edge() {
        size_t nr = readers.size(), ns = sources.size();
        for (size_t k = 0; k < nr && k < 4; k++) {
            ReadServer &r = readers[k];
            if (!r.queue.empty()) {
                set(r.resp_valid, 1);
                set(r.resp_payload, r.queue.front());
                r.queue.pop_front();
            } else {
                set(r.resp_valid, 0);
            }
            if (have_req[k]) r.queue.push_back(req_addr[k] < r.size ? r.mem[req_addr[k]] : 0);
        }
        for (size_t k = 0; k < ns; k++) after_edge(sources[k], fired[k]);
        for (StreamSink &q : sinks) after_edge(q);
        if (pin_model.callback && !halted) after_edge(pin_model);
    }

    // --- other clock domains -------------------------------------------------------------
    // Time runs in ticks (a unit the Python side picks so that every period is a whole
    // number of them); each running clock has a period and its next rising edge. A call of
    // cycle() takes every edge up to and including the sync clock's next one, in time order;
    // clocks rising at the same tick rise in one evaluation. A clock that rose is lowered
    // before the next evaluation with a rising edge (see note_clock_low): with Verilator
    // 5.006 that costs no evaluation, so a cycle costs one evaluation per distinct edge time.
    bool multi_clock = false;
    uint64_t now = 0, sync_period = 1, sync_next = 0;
    std::vector<DomainClock> domains;           // one per model.clocks entry
    std::vector<ClockMonitor> clock_monitors;
    bool sync_high = false;

    void lower_clocks() {
        bool need_eval = sync_high && !model.clock_low_without_eval();
        for (size_t i = 0; i < domains.size(); i++)
            if (domains[i].high) need_eval |= !model.clocks[i].note_low(&model);
        if (need_eval) model.eval();
        sync_high = false;
        for (DomainClock &d : domains) d.high = false;
        clk_low_pending = false;
    }
    void multi_clock_cycle() {
        for (;;) {
            uint64_t t = sync_next;
            for (const DomainClock &d : domains)
                if (d.period && d.next < t) t = d.next;
            bool sync_edge = t == sync_next;
            settle();
            if (!clk_low_pending) {                 // an evaluation has seen every clock low
                sync_high = false;
                for (DomainClock &d : domains) d.high = false;
            }
            if (sync_edge) before_sync_edge();
            for (ClockMonitor &cm : clock_monitors)
                if (cm.clock >= 0 && domains[cm.clock].period && domains[cm.clock].next == t)
                    record(cm);
            if (clk_low_pending) lower_clocks();
            if (sync_edge) {
                model.set_clk(1);
                sync_high = true;
            }
            for (size_t i = 0; i < domains.size(); i++) {
                DomainClock &d = domains[i];
                if (d.period && d.next == t) {
                    loc_set64(model.clocks[i].clk, 1);
                    d.high = true;
                    d.next += d.period;
                    d.edges++;
                }
            }
            model.eval();
            dirty = false;
            if (sync_edge) model.set_clk(0);
            for (size_t i = 0; i < domains.size(); i++)
                if (domains[i].high) loc_set64(model.clocks[i].clk, 0);
            clk_low_pending = true;
            now = t;
            if (sync_edge) {
                sync_next += sync_period;
                cycles++;
                after_sync_edge();
                return;
            }
        }
    }
    void after_edge(StreamSource &src, bool fired) {
        if (fired) {
            src.items.pop_front();
            src.offering = false;
            set(src.valid, 0);
        }
        if (!src.offering && !src.items.empty()) {
            if (src.items.front().second > 0) {
                src.items.front().second--;
            } else {
                set(src.payload, src.items.front().first);
                set(src.valid, 1);
                src.offering = true;
            }
        }
    }
    void after_edge(StreamSink &q) {
        q.rng ^= q.rng >> 12;
        q.rng ^= q.rng << 25;
        q.rng ^= q.rng >> 27;
        bool ready = (uint32_t)((q.rng * 0x2545F4914F6CDD1DULL) >> 32) < q.ready_threshold
                     || q.ready_threshold == 0xFFFFFFFFu;
        if (ready != q.ready_now) {
            set(q.ready, ready);
            q.ready_now = ready;
        }
    }
    // the values due by now (from the schedule), then the model's turn if the pins are not
    // idle (its new schedule holds only later values)
    void after_edge(PinModel &pm) {
        uint64_t before = pm.driven;
        take_due(pm);
        uint64_t word = 0;
        for (size_t i = 0; i < pm.pins.size(); i++) word |= get(pm.pins[i]) << pm.shifts[i];
        bool idle = false;
        for (auto &pattern : pm.idle) idle = idle || (word & pattern.first) == pattern.second;
        if (!idle) {
            pm.calls++;
            int64_t n = pm.callback(cycles, word);
            if (n < 0) {
                halted = true;
                return;
            }
            pm.pending.clear();
            for (int64_t i = 0; i < n; i++)
                pm.pending.emplace_back(pm.schedule[2 * i], pm.schedule[2 * i + 1]);
            take_due(pm);
        }
        if (pm.driven != before) set(pm.drive, pm.driven);
    }
    void take_due(PinModel &pm) {
        while (!pm.pending.empty() && pm.pending.front().first <= cycles) {
            pm.driven = pm.pending.front().second;
            pm.pending.pop_front();
        }
    }
    bool streams_done() const {
        for (const StreamSource &src : sources)
            if (!src.items.empty()) return false;
        for (const StreamSink &q : sinks)
            if (q.taken.size() < q.expected) return false;
        return true;
    }
};

extern "C" {

int theia_num_ports() { return num_ports; }
const char *theia_port_name(int i) { return port_descs[i].name; }
int theia_port_width(int i) { return port_descs[i].width; }
int theia_port_dir(int i) { return port_descs[i].dir; }

void *theia_create() { return new Sim(); }
void theia_destroy(void *h) { delete (Sim *)h; }
const char *theia_error(void *h) { return ((Sim *)h)->error.c_str(); }
uint64_t theia_cycles(void *h) { return ((Sim *)h)->cycles; }

uint64_t theia_get(void *h, int i) { return ((Sim *)h)->get(i); }
void theia_set(void *h, int i, uint64_t v) { ((Sim *)h)->set(i, v); }

void theia_get_words(void *h, int i, uint32_t *out) {
    Sim *s = (Sim *)h;
    s->settle();
    loc_get_words(s->model.locs[i], out);
}

void theia_set_words(void *h, int i, const uint32_t *in) {
    Sim *s = (Sim *)h;
    loc_set_words(s->model.locs[i], in);
    s->dirty = true;
}

// Hold the clock domain's reset for n edges (memories keep their contents).
// Every domain's reset is held until its clock has risen n times (the sync clock's at least).
void theia_reset(void *h, uint64_t n) {
    Sim *s = (Sim *)h;
    std::vector<uint64_t> before;
    loc_set64(s->model.rst, 1);
    for (size_t i = 0; i < s->model.clocks.size(); i++) {
        loc_set64(s->model.clocks[i].rst, 1);
        before.push_back(s->multi_clock ? s->domains[i].edges : 0);
    }
    s->dirty = true;
    for (uint64_t k = 0; k < n; k++) s->cycle();
    for (bool short_of_edges = s->multi_clock; short_of_edges;) {
        short_of_edges = false;
        for (size_t i = 0; i < s->domains.size(); i++)
            short_of_edges |= s->domains[i].period && s->domains[i].edges - before[i] < n;
        if (short_of_edges) s->cycle();
    }
    loc_set64(s->model.rst, 0);
    for (const ClockLoc &c : s->model.clocks) loc_set64(c.rst, 0);
    s->dirty = true;
    for (auto &r : s->readers) r.queue.clear();
}

// The other clock domains (their clocks are the top's <name>_clk ports, in this order).
int theia_num_clocks(void *h) { return (int)((Sim *)h)->model.clocks.size(); }
const char *theia_clock_name(void *h, int i) { return ((Sim *)h)->model.clocks.at(i).name; }

// Run the other clocks: the sync clock's period and each clock's (0: stopped), in ticks; each
// clock's first rising edge `phases[i]` ticks after the sync clock's next one.
void theia_set_clocks(void *h, uint64_t sync_period, const uint64_t *periods,
                      const uint64_t *phases) {
    Sim *s = (Sim *)h;
    s->sync_period = sync_period;
    s->sync_next = s->now + sync_period;
    s->domains.assign(s->model.clocks.size(), DomainClock());
    s->multi_clock = false;
    for (size_t i = 0; i < s->domains.size(); i++) {
        s->domains[i].period = periods[i];
        s->domains[i].next = s->sync_next + phases[i];
        s->multi_clock |= periods[i] != 0;
    }
}
uint64_t theia_clock_edges(void *h, int clock) {
    Sim *s = (Sim *)h;
    return clock < 0 ? s->cycles : s->domains.at(clock).edges;
}

// Clock monitors (ClockMonitor): add (ports packed lowest bits first), arm for a number of
// edges, run until they are recorded, take the words.
int theia_add_clock_monitor(void *h, int clock, const int *ports, const int *shifts, int n) {
    Sim *s = (Sim *)h;
    ClockMonitor cm;
    cm.clock = clock;
    cm.ports.assign(ports, ports + n);
    cm.shifts.assign(shifts, shifts + n);
    s->clock_monitors.push_back(cm);
    return (int)s->clock_monitors.size() - 1;
}
void theia_arm_clock_monitor(void *h, int monitor, uint64_t edges) {
    ((Sim *)h)->clock_monitors.at(monitor).remaining = edges;
}
uint64_t theia_clock_monitor_remaining(void *h, int monitor) {
    return ((Sim *)h)->clock_monitors.at(monitor).remaining;
}
// Step until the monitor has recorded the edges it is armed for (or max_cycles sync cycles,
// or the pin model stops the run); returns the sync cycles run.
uint64_t theia_run_clock_monitor(void *h, int monitor, uint64_t max_cycles) {
    Sim *s = (Sim *)h;
    ClockMonitor &cm = s->clock_monitors.at(monitor);
    uint64_t k = 0;
    while (cm.remaining && k < max_cycles && !s->halted) {
        s->cycle();
        k++;
    }
    return k;
}
uint64_t theia_take_clock_monitor(void *h, int monitor, uint64_t *out, uint64_t max) {
    return take_front(((Sim *)h)->clock_monitors.at(monitor).values, out, max);
}

void theia_step(void *h, uint64_t n) {
    Sim *s = (Sim *)h;
    for (uint64_t k = 0; k < n && !s->halted; k++) s->cycle();
}

// Step until any of the ports `idx[0..n)` is non-zero (checked before each edge) or until
// max_cycles edges; returns the number of edges taken.
uint64_t theia_run_until(void *h, const int *idx, int n, uint64_t max_cycles) {
    Sim *s = (Sim *)h;
    uint64_t k = 0;
    for (;;) {
        for (int j = 0; j < n; j++)
            if (s->get(idx[j])) return k;
        if (k >= max_cycles || s->halted) return k;
        s->cycle();
        k++;
    }
}

int theia_add_read_server(void *h, int req_valid, int req_ready, int req_payload, int resp_valid,
                          int resp_payload, const uint32_t *mem, uint64_t size) {
    Sim *s = (Sim *)h;
    if (s->readers.size() >= 4) return -1;
    s->readers.push_back(ReadServer{req_valid, req_ready, req_payload, resp_valid, resp_payload,
                                    mem, size, {}});
    s->set(req_ready, 1);
    return 0;
}

int theia_add_write_server(void *h, int req_valid, int req_ready, int req_payload, uint32_t *mem,
                           uint64_t size) {
    Sim *s = (Sim *)h;
    s->writers.push_back(WriteServer{req_valid, req_ready, req_payload, mem, size});
    s->set(req_ready, 1);
    return 0;
}

void theia_set_bus(void *h, int valid, int write, int addr, int wdata, int ready, int rvalid,
                   int rdata) {
    Sim *s = (Sim *)h;
    s->bus = Bus{valid, write, addr, wdata, ready, rvalid, rdata};
    s->set(valid, 0);
}

// Host-bus writes of words[0..n) to addr, addr+1, ... (or all to addr if `same_addr`), one
// request per cycle as fast as `ready` allows. Returns cycles, or -1 if a request waited
// longer than `timeout` cycles.
int64_t theia_bus_write(void *h, uint32_t addr, const uint32_t *words, uint64_t n, int same_addr,
                        uint64_t timeout) {
    Sim *s = (Sim *)h;
    Bus &b = s->bus;
    uint64_t start = s->cycles;
    s->set(b.write, 1);
    for (uint64_t i = 0; i < n; i++) {
        s->set(b.valid, 1);
        s->set(b.addr, same_addr ? addr : addr + (uint32_t)i);
        s->set(b.wdata, words[i]);
        uint64_t waited = 0;
        while (!s->get(b.ready)) {
            if (++waited > timeout) {
                s->set(b.valid, 0);
                s->error = "host bus write at " + std::to_string(addr + i) + " not accepted";
                return -1;
            }
            s->cycle();
        }
        s->cycle();
    }
    s->set(b.valid, 0);
    s->set(b.write, 0);
    return (int64_t)(s->cycles - start);
}

// Host-bus writes of words[i] to addrs[i], i = 0..n), one request per cycle as fast as
// `ready` allows. Returns cycles, or -1 on timeout.
int64_t theia_bus_write_scatter(void *h, const uint32_t *addrs, const uint32_t *words, uint64_t n,
                                uint64_t timeout) {
    Sim *s = (Sim *)h;
    uint64_t start = s->cycles;
    for (uint64_t i = 0; i < n; i++)
        if (theia_bus_write(h, addrs[i], words + i, 1, 0, timeout) < 0) return -1;
    return (int64_t)(s->cycles - start);
}

// Host-bus reads of n words from addr, addr+1, ... into out; requests are pipelined, data is
// taken in the cycles `rvalid` is high. Returns cycles, or -1 on timeout.
int64_t theia_bus_read(void *h, uint32_t addr, uint32_t *out, uint64_t n, uint64_t timeout) {
    Sim *s = (Sim *)h;
    Bus &b = s->bus;
    uint64_t start = s->cycles, issued = 0, got = 0, idle = 0;
    s->set(b.write, 0);
    while (got < n) {
        s->set(b.valid, issued < n);
        s->set(b.addr, addr + (uint32_t)issued);
        bool accepted = issued < n && s->get(b.ready);
        if (s->get(b.rvalid)) {
            out[got++] = (uint32_t)s->get(b.rdata);
            idle = 0;
        } else if (++idle > timeout) {
            s->set(b.valid, 0);
            s->error = "host bus read at " + std::to_string(addr + got) + " not answered";
            return -1;
        }
        if (accepted) issued++;
        s->cycle();
    }
    s->set(b.valid, 0);
    return (int64_t)(s->cycles - start);
}

// Read the word at `addr` every `interval` cycles until (word & mask) != 0 or `max_cycles`
// have passed; returns the cycles taken (>= max_cycles: not seen), -1 on a bus timeout;
// *last = last word.
int64_t theia_bus_poll(void *h, uint32_t addr, uint32_t mask, uint64_t max_cycles,
                       uint64_t interval, uint32_t *last) {
    Sim *s = (Sim *)h;
    uint64_t start = s->cycles;
    for (;;) {
        if (theia_bus_read(h, addr, last, 1, 10000) < 0) return -1;
        if (*last & mask) return (int64_t)(s->cycles - start);
        uint64_t spent = s->cycles - start;
        if (spent >= max_cycles) return (int64_t)spent;
        // between reads the inputs stay put, so a cycle costs two plain evaluations
        uint64_t gap = max_cycles - spent < interval ? max_cycles - spent : interval;
        for (uint64_t k = 0; k < gap; k++) s->cycle();
    }
}

// Write monitors: the (addr, data) pairs at edges where port `valid` is high, taken out with
// theia_take_writes (at most max per call; returns the count).
int theia_add_write_monitor(void *h, int valid, int addr, int data) {
    Sim *s = (Sim *)h;
    s->monitors.push_back(WriteMonitor{valid, addr, data, {}, {}});
    return (int)s->monitors.size() - 1;
}
uint64_t theia_take_writes(void *h, int monitor, uint32_t *addrs, uint32_t *words, uint64_t max) {
    WriteMonitor &w = ((Sim *)h)->monitors.at(monitor);
    uint64_t n = w.addrs.size() < max ? w.addrs.size() : max;
    std::copy(w.addrs.begin(), w.addrs.begin() + n, addrs);
    std::copy(w.words.begin(), w.words.begin() + n, words);
    w.addrs.erase(w.addrs.begin(), w.addrs.begin() + n);
    w.words.erase(w.words.begin(), w.words.begin() + n);
    return n;
}

// The serial line (UartLine): attach it to ports rx and tx, queue bytes, run, take what came.
void theia_uart_attach(void *h, int rx, int tx, uint64_t divisor) {
    Sim *s = (Sim *)h;
    s->uart = UartLine();
    s->uart.rx = rx;
    s->uart.tx = tx;
    s->uart.divisor = divisor;
    s->set(rx, 1);
}
void theia_uart_send(void *h, const uint8_t *bytes, const uint64_t *gaps, uint64_t n) {
    UartLine &u = ((Sim *)h)->uart;
    for (uint64_t i = 0; i < n; i++) u.out.emplace_back(bytes[i], gaps[i]);
}
// bytes queued or on the line, not yet sent to the end of their stop bit
uint64_t theia_uart_pending(void *h) { return ((Sim *)h)->uart.out.size(); }
uint64_t theia_uart_framing_errors(void *h) { return ((Sim *)h)->uart.framing_errors; }

static void uart_cycle(Sim *s) {
    UartLine &u = s->uart;
    if (u.out_bit < 0 && !u.out.empty()) {
        if (u.out.front().second > 0) {
            u.out.front().second--;
        } else {
            u.out_bit = 0;
            u.out_timer = u.divisor;
        }
    }
    int level = 1;
    if (u.out_bit >= 0) {
        uint8_t byte = u.out.front().first;
        level = u.out_bit == 0 ? 0 : u.out_bit == 9 ? 1 : (byte >> (u.out_bit - 1)) & 1;
    }
    if (level != u.level) {
        s->set(u.rx, level);
        u.level = level;
    }
    s->cycle();
    if (u.out_bit >= 0 && --u.out_timer == 0) {
        u.out_timer = u.divisor;
        if (++u.out_bit == 10) {
            u.out.pop_front();
            u.out_bit = -1;
        }
    }
    int t = (int)s->get(u.tx);
    switch (u.in_state) {
    case 0:                       // the start bit's first cycle: sample each bit in its middle
        if (!t) {
            u.in_state = 1;
            u.in_timer = u.divisor / 2 + u.divisor;
            u.in_bit = 0;
            u.in_shift = 0;
        }
        break;
    case 1:
        if (--u.in_timer == 0) {
            u.in_timer = u.divisor;
            if (u.in_bit < 8) {
                u.in_shift |= (uint32_t)t << u.in_bit++;
            } else if (t) {
                u.in.push_back((uint8_t)u.in_shift);
                u.in_cycles.push_back(s->cycles);
                u.in_state = 0;
            } else {
                u.framing_errors++;
                u.in_state = 2;
            }
        }
        break;
    default:
        if (t) u.in_state = 0;
    }
}

// Run up to max_cycles, stopping early once `stop_bytes` (> 0) bytes have been received in all,
// or (flush) once every queued byte is sent. Returns the cycles run.
uint64_t theia_uart_run(void *h, uint64_t max_cycles, uint64_t stop_bytes, int flush) {
    Sim *s = (Sim *)h;
    UartLine &u = s->uart;
    uint64_t k = 0;
    while (k < max_cycles) {
        if (stop_bytes && u.in.size() >= stop_bytes) break;
        if (flush && u.out.empty()) break;
        uart_cycle(s);
        k++;
    }
    return k;
}
uint64_t theia_uart_take(void *h, uint8_t *bytes, uint64_t *cycles, uint64_t max) {
    UartLine &u = ((Sim *)h)->uart;
    uint64_t n = u.in.size() < max ? u.in.size() : max;
    std::copy(u.in.begin(), u.in.begin() + n, bytes);
    std::copy(u.in_cycles.begin(), u.in_cycles.begin() + n, cycles);
    u.in.erase(u.in.begin(), u.in.begin() + n);
    u.in_cycles.erase(u.in_cycles.begin(), u.in_cycles.begin() + n);
    return n;
}

// Stream sources and sinks (StreamSource, StreamSink): add, queue, take; a sink's ready is
// high in `ready_share` / 2^32 of the cycles (0xFFFFFFFF: always).
int theia_add_stream_source(void *h, int valid, int ready, int payload) {
    Sim *s = (Sim *)h;
    s->sources.push_back(StreamSource{valid, ready, payload, {}, false});
    s->set(valid, 0);
    return (int)s->sources.size() - 1;
}
void theia_stream_push(void *h, int source, const uint64_t *payloads, const uint64_t *gaps,
                       uint64_t n) {
    StreamSource &src = ((Sim *)h)->sources.at(source);
    for (uint64_t i = 0; i < n; i++) src.items.emplace_back(payloads[i], gaps ? gaps[i] : 0);
}
uint64_t theia_stream_pending(void *h, int source) {
    return ((Sim *)h)->sources.at(source).items.size();
}
int theia_add_stream_sink(void *h, int valid, int ready, int payload, uint32_t ready_share,
                          uint64_t seed) {
    Sim *s = (Sim *)h;
    StreamSink q{valid, ready, payload, ready_share, seed | 1, false, {}, 0};
    s->sinks.push_back(q);
    s->set(ready, 0);
    return (int)s->sinks.size() - 1;
}
void theia_stream_expect(void *h, int sink, uint64_t count) {
    ((Sim *)h)->sinks.at(sink).expected = count;
}
uint64_t theia_stream_take(void *h, int sink, uint64_t *out, uint64_t max) {
    return take_front(((Sim *)h)->sinks.at(sink).taken, out, max);
}
// Step until every source has sent everything and every sink has taken what it expects, the
// pin model stops the run, or max_cycles; returns the cycles run.
uint64_t theia_run_streams(void *h, uint64_t max_cycles) {
    Sim *s = (Sim *)h;
    uint64_t k = 0;
    while (k < max_cycles && !s->halted && !s->streams_done()) {
        s->cycle();
        k++;
    }
    return k;
}

// The pin model (PinModel): `pins`/`shifts` (n of each), `idle` (mask, value) x n_idle,
// the port it drives, the callback and its schedule buffer (2 x capacity words).
void theia_pin_model(void *h, const int *pins, const int *shifts, int n, const uint64_t *idle,
                     int n_idle, int drive, PinCallback callback, uint64_t *schedule,
                     uint64_t capacity) {
    Sim *s = (Sim *)h;
    PinModel &pm = s->pin_model;
    pm = PinModel();
    pm.pins.assign(pins, pins + n);
    pm.shifts.assign(shifts, shifts + n);
    for (int i = 0; i < n_idle; i++) pm.idle.emplace_back(idle[2 * i], idle[2 * i + 1]);
    pm.drive = drive;
    pm.callback = callback;
    pm.schedule = schedule;
    pm.capacity = capacity;
    s->halted = false;
}
uint64_t theia_pin_model_calls(void *h) { return ((Sim *)h)->pin_model.calls; }

}  // extern "C"
