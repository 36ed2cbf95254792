"""Bad input at the command line: one typed line and exit status 1, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from voxmem.cli import app


@pytest.mark.parametrize(
    "args",
    [
        ["speakers", "list", "--tenant", "nobody"],
        ["speakers", "name", "spk-1", "Ann", "--tenant", "nobody"],
        ["speakers", "merge", "a", "b", "--tenant", "nobody"],
        ["stats", "--tenant", "nobody"],
        ["forget", "--tenant", "nobody", "--everything"],
        ["recall", "what was said about the budget", "--tenant", "nobody"],
        ["stats", "--tenant", "not a tenant!"],
    ],
)
def test_unknown_or_invalid_tenant_is_one_clear_line(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VOXMEM_DATA_DIR", str(tmp_path / "memory"))
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert "UnknownTenant" in result.output or "TenantRequired" in result.output
