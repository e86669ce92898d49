"""The engine runs under Pyodide too: every import in it is the standard library or the engine."""

import ast
import sys
from pathlib import Path

import gameplay.engine

ENGINE = Path(gameplay.engine.__file__).parent


def absolute_imports(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules.add(node.module)
    return modules


def test_engine_imports_only_the_standard_library():
    for path in sorted(ENGINE.rglob("*.py")):
        outside = {
            module
            for module in absolute_imports(path)
            if module.split(".")[0] not in sys.stdlib_module_names
            and not module.startswith("gameplay.engine")
        }
        assert not outside, f"{path.name} imports {sorted(outside)}"
