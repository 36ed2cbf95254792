from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, VENV_BIN

FOLDERS = {
    "voxmem": "voxmem",
    "agent": "voxmem.agent",
    "memory": "voxmem.memory",
    "retrievers": "voxmem.retrievers",
    "server": "voxmem.server",
    "benchmarks": "voxmem.benchmarks",
}
CORE = {"voxmem.settings", "voxmem.audio", "voxmem.models", "voxmem.errors"}
FACE = ("voxmem.cli", "voxmem.doctor")  # and voxmem.cli_chat, voxmem.cli_serve


def _is_face(module: str) -> bool:
    return module.startswith(FACE)


def _modules() -> dict[str, Path]:
    out = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            out[".".join([package, *parts])] = path
    return out


def test_every_package_folder_is_listed_in_pyproject() -> None:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(conf["packages"])
    found = {name for name, path in _modules().items() if path.name == "__init__.py"}
    assert found == listed
    assert conf["package-dir"] == {v: k for k, v in FOLDERS.items()}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return {n for n in names if n.split(".")[0] == "voxmem" or n in FOLDERS}


def test_dependency_rules_hold() -> None:
    allowed = {
        "voxmem.memory": {"voxmem.memory"},
        "voxmem.retrievers": {"voxmem.retrievers", "voxmem.memory"},
        "voxmem.agent": {"voxmem.agent", "voxmem.retrievers", "voxmem.memory"},
        "voxmem.server": {"voxmem.server", "voxmem.agent", "voxmem.retrievers", "voxmem.memory"},
        "voxmem.benchmarks": {
            "voxmem.benchmarks",
            "voxmem.retrievers",
            "voxmem.memory",
            "voxmem.agent",
        },
    }
    for module, path in _modules().items():
        for imported in _imports(path):
            assert imported.split(".")[0] == "voxmem", f"{module} imports bare {imported}"
            room = ".".join(imported.split(".")[:2])
            if _is_face(imported):
                # nothing imports the face but the face
                assert _is_face(module), f"{module} imports the face module {imported}"
            if module in CORE or module == "voxmem":
                assert imported in CORE, f"core module {module} imports {imported}"
            elif room in CORE or imported == "voxmem":
                continue  # everything may use the core
            elif _is_face(module):
                continue  # the face stands on everything (doctor loads each role as it is used)
            else:
                own = ".".join(module.split(".")[:2])
                assert room in allowed[own], f"{module} imports {imported}"


@pytest.mark.slow
def test_built_wheel_installs_under_one_namespace(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(ROOT),
        ],
        check=True,
        timeout=600,
        cwd=tmp_path,
    )
    wheel = next((tmp_path / "dist").glob("voxmem-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.startswith("voxmem-")}
    assert tops == {"voxmem"}
    assert "voxmem/memory/__init__.py" in names and "voxmem/benchmarks/synth/voices.py" in names
    # every data file the code reads (planner weights, frozen pools, calibrations, the page)
    tracked = subprocess.run(
        ["git", "ls-files", *FOLDERS], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    data = {f for f in tracked if "/data/" in f or "/static/" in f}
    assert data, "no data files found"
    missing = {
        f
        for f in data
        if f"{FOLDERS[f.split('/')[0]].replace('.', '/')}/{f.split('/', 1)[1]}" not in names
    }
    assert not missing, f"left out of the wheel: {sorted(missing)}"
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "import json, voxmem.memory, voxmem.retrievers, voxmem.agent, voxmem.server, "
        "voxmem.benchmarks.synth; print(json.dumps(voxmem.memory.__file__))"
    )
    out = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            f"import sys; sys.path.insert(0, {str(site)!r}); "
            f"sys.path.append({str(VENV_BIN.parent / 'lib' / 'python3.11' / 'site-packages')!r}); "
            + code,
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert json.loads(out.stdout).startswith(str(site))


def test_console_scripts_run() -> None:
    out = subprocess.run(
        [str(VENV_BIN / "benchmarks"), "list"], capture_output=True, text=True, check=True
    ).stdout
    assert "voices" in out
    bad = subprocess.run(
        [str(VENV_BIN / "benchmarks"), "run", "no-such-benchmark"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "unknown benchmark" in bad.stdout
    assert (
        subprocess.run(
            [str(VENV_BIN / "voxmem"), "version"], capture_output=True, text=True, check=True
        ).stdout.strip()
        == "0.1.0"
    )


def test_benchmark_run_writes_a_report(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(VENV_BIN / "benchmarks"), "run", "voices", "--quick", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    data = json.loads((tmp_path / "voices" / "results.json").read_text())
    assert data["benchmark"] == "voices" and len(data["rows"]) == 9
    assert {"voice", "style", "rtf", "median_f0_hz"} <= set(data["rows"][0])
    assert (tmp_path / "voices" / "summary.md").read_text().startswith("# voices")
    assert "flite-slt" in proc.stdout
