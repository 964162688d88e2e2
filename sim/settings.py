"""Settings files: a TOML or JSON table, read for scene descriptions (sim/scene_import.py),
their ``[shader]`` sections and constants files (sim/r500/shader_config.py)."""

import json
import tomllib
from pathlib import Path

from sim.scene import SceneError

__all__ = ["read_settings"]


def read_settings(path):
    """(the top-level table, the text) of a JSON (.json) or else TOML file; a file that cannot
    be read or parsed, or is not a table, is a SceneError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SceneError(path, "file not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SceneError(path, f"cannot read: {e}") from None
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise SceneError(path, f"invalid JSON: {e.msg} (column {e.colno})", e.lineno) from None
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise SceneError(path, f"invalid TOML: {e}") from None
    if not isinstance(data, dict):
        raise SceneError(path, "expected a table/object of settings at the top level")
    return data, text
