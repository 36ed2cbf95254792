"""Bad input at the command line: one typed line and exit status 1, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from voxmem.cli import app


@pytest.mark.parametrize("tenant", ["nobody", "not a tenant!"])
@pytest.mark.parametrize(
    "args",
    [
        ["speakers", "list"],
        ["speakers", "name", "spk-1", "Ann"],
        ["speakers", "merge", "a", "b"],
        ["speakers", "split", "a", "seg-1"],
        ["stats"],
        ["forget", "--everything"],
        ["recall", "what was said about the budget"],
    ],
)
def test_unknown_or_invalid_tenant_is_one_clear_line(
    args: list[str], tenant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VOXMEM_DATA_DIR", str(tmp_path / "memory"))
    result = CliRunner().invoke(app, [*args, "--tenant", tenant])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert "UnknownTenant" in result.output or "TenantRequired" in result.output
