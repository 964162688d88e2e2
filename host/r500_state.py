"""An R500 program and its host state as writes to the R500 stage (region R500 of
hdl/gpu/address_map.py), for the GPU's stage and the R500 job top alike."""

from dataclasses import dataclass

from hdl.gpu.address_map import R5Area, R5Reg, R5_PROGRAM_STRIDE, r500_address, sampler_fields
from hdl.isa.r500_program import constants_read, int_consts_read, samplers_read

__all__ = ["R500State", "shading_state", "r500_load_runs"]


@dataclass
class R500State:
    """What the host loads into the R500 stage: ``program`` (words, six per instruction),
    ``start``/``end`` (instruction numbers), ``max_instructions``, ``constants`` {index:
    [r, g, b, a] words}, ``bools``, ``int_consts`` {index: word}, ``samplers`` {index: (base,
    ``sampler_fields`` word)}. Constants the program can read, integer constants and samplers
    not given are loaded as zeros (not set up): what a previous program left is gone."""
    program: list
    start: int
    end: int
    max_instructions: int
    constants: dict
    bools: int
    int_consts: dict
    samplers: dict


def shading_state(shading, texture_words):
    """The R500State of an R500 program and its host state (``sim.r500.shading.R500Shading``,
    or a job: ``program``, ``start``, ``end``, ``max_instructions``, ``constants``, ``bools``,
    ``int_consts``, ``samplers``); each sampler set up or not for a texture memory of
    ``texture_words`` words (its ``is_set_up``)."""
    encoded = {}
    for index, sampler in shading.samplers.items():
        set_up = sampler.is_set_up(texture_words)
        fields = sampler_fields(sampler.width, sampler.height, sampler.filter == "bilinear",
                                sampler.wrap == "clamp", set_up)
        encoded[index] = (sampler.base if set_up else 0, fields)
    int_consts = shading.int_consts
    if not isinstance(int_consts, dict):
        int_consts = dict(enumerate(int_consts or ()))
    end = len(shading.program) // 6 - 1 if shading.end is None else shading.end
    return R500State(list(shading.program), shading.start, end, shading.max_instructions,
                     dict(shading.constants), shading.bools, int_consts, encoded)


def _merged(runs):
    """Consecutive (address, words) runs joined into one."""
    merged = []
    for address, words in runs:
        if merged and merged[-1][0] + len(merged[-1][1]) == address:
            merged[-1] = (merged[-1][0], merged[-1][1] + words)
        else:
            merged.append((address, list(words)))
    return merged


def r500_load_runs(state):
    """(address, words) runs that load an R500State: the program, then what it can read (the
    constants, integer constants and samplers it names: nothing else can matter), each one not
    given as zeros (a sampler not set up), and the registers."""
    words = list(state.program)
    padding = [0] * (R5_PROGRAM_STRIDE - 6)
    program = [w for i in range(0, len(words), 6) for w in words[i:i + 6] + padding]
    runs = [(r500_address(R5Area.PROGRAM), program)]
    runs += [(r500_address(R5Area.CONSTANTS, 4 * index),
              list(state.constants.get(index, (0, 0, 0, 0)))) for index in constants_read(words)]
    runs += [(r500_address(R5Area.INT_CONSTS, index), [state.int_consts.get(index, 0)])
             for index in int_consts_read(words)]
    runs += [(r500_address(R5Area.SAMPLERS, 2 * index), list(state.samplers.get(index, (0, 0))))
             for index in samplers_read(words)]
    runs.append((r500_address(R5Area.REGS, R5Reg.START_PC),
                 [state.start, state.end, state.max_instructions, state.bools]))
    return _merged(runs)
