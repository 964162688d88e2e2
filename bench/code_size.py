"""The longest modules and ``elaborate`` methods of a source tree (the house keeps modules near
500 lines and ``elaborate`` under ~250).

    python -m bench.code_size [--root hdl] [--top 5]

Prints one JSON object: {"modules": {path: lines, ...}, "elaborates": {path:Class: lines, ...}},
longest first (``--top`` of each), the limits, and every module or elaborate over them.
"""

import argparse
import ast
import json
import sys
from pathlib import Path

__all__ = ["MODULE_LIMIT", "ELABORATE_LIMIT", "sizes", "main"]

MODULE_LIMIT = 500
ELABORATE_LIMIT = 250


def sizes(root):
    """([(path, lines)], [(path:Class, lines of its elaborate)]) of every .py under ``root``."""
    modules, elaborates = [], []
    for path in sorted(Path(root).rglob("*.py")):
        text = path.read_text()
        modules.append((str(path), len(text.splitlines())))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "elaborate":
                        elaborates.append((f"{path}:{node.name}",
                                           item.end_lineno - item.lineno + 1))
    by_size = lambda entry: -entry[1]
    return sorted(modules, key=by_size), sorted(elaborates, key=by_size)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.code_size",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--root", default="hdl")
    parser.add_argument("--top", type=int, default=5)
    args = parser.parse_args(argv)
    modules, elaborates = sizes(args.root)
    print(json.dumps({
        "modules": dict(modules[:args.top]), "elaborates": dict(elaborates[:args.top]),
        "module_limit": MODULE_LIMIT, "elaborate_limit": ELABORATE_LIMIT,
        "over": dict([m for m in modules if m[1] > MODULE_LIMIT]
                     + [e for e in elaborates if e[1] > ELABORATE_LIMIT]),
    }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
