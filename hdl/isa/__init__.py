"""The instruction sets, one table each: THEIA's (``theia``) and the R500 fragment shader's
(``r500``). Everything that needs to know what a word means imports them from here: the
reference models (`sim/`), the assemblers and disassemblers (`firmware/`) and the RTL (`hdl/`).
There is no second copy of any table anywhere in the project."""

from . import r500, theia
from .r500 import *      # noqa: F401,F403
from .theia import *     # noqa: F401,F403

__all__ = theia.__all__ + r500.__all__
