"""The repository's license: the Apache License 2.0, its standard text whole at the root,
named by every package (the Python ones and the npm ones), and carried by each package
that is published on its own (the Python client, the TypeScript client)."""

from __future__ import annotations

import hashlib
import json
import tomllib

from tests.support.server import ROOT

LICENSE = ROOT / "LICENSE"
# The text apache.org publishes (https://www.apache.org/licenses/LICENSE-2.0.txt), as is.
APACHE_2_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
SPDX = "Apache-2.0"


def test_the_license_is_the_whole_apache_2_text() -> None:
    text = LICENSE.read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License" in text
    assert hashlib.sha256(LICENSE.read_bytes()).hexdigest() == APACHE_2_SHA256


def test_every_package_names_it() -> None:
    for path in ("pyproject.toml", "clients/python/pyproject.toml"):
        assert tomllib.loads((ROOT / path).read_text())["project"]["license"] == SPDX, path
    for path in ("clients/typescript/package.json", "clients/web/package.json", "tools/package.json"):
        assert json.loads((ROOT / path).read_text())["license"] == SPDX, path


def test_the_packages_published_on_their_own_carry_it() -> None:
    for package in ("clients/python", "clients/typescript"):
        assert (ROOT / package / "LICENSE").read_bytes() == LICENSE.read_bytes(), f"{package}/LICENSE differs"
