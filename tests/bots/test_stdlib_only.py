"""The policies also run in the browser under Pyodide: the standard library and the engine only."""

import ast
import sys
from pathlib import Path

import bots.policies

FILES = [
    *sorted(Path(bots.policies.__file__).parent.glob("*.py")),
    Path(bots.policies.__file__).parents[1] / "arena.py",
]


def test_policies_and_arena_import_only_the_standard_library_and_the_engine():
    for path in FILES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in sys.stdlib_module_names or name.startswith("gameplay.engine"), (
                    f"{path.name} imports {name}"
                )
