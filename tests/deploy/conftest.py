"""The image replay (tests/deploy/dockerfile.py) installs the server from the package
index into a fresh environment, which takes half a minute: it starts in the background as
soon as the first test of this directory runs, and the test that needs it runs last in
the session, so the build overlaps the other tests instead of being waited for."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.deploy.dockerfile import Image, make_context, replay_build

BUILD_TIMEOUT = 900.0


def _needs_the_image(item: pytest.Item) -> bool:
    return "image" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    last = [item for item in items if _needs_the_image(item)]
    items[:] = [item for item in items if not _needs_the_image(item)] + last


def _build(directory: Path) -> Image:
    context = directory / "context"
    make_context(context)
    return replay_build(directory / "root", context, directory / "build.log")


@pytest.fixture(scope="session")
def image_build() -> Iterator[Future[Image]]:
    directory = Path(tempfile.mkdtemp(prefix="ludotheque-image-"))
    directory.chmod(0o755)  # the server may run as the image's own user
    with ThreadPoolExecutor(1) as executor:
        future = executor.submit(_build, directory)
        try:
            yield future
        finally:
            future.cancel()
            executor.shutdown(wait=True)
            shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(autouse=True)
def _start_the_image_build_early(request: pytest.FixtureRequest) -> None:
    if any(_needs_the_image(item) for item in request.session.items):
        request.getfixturevalue("image_build")


@pytest.fixture
def image(image_build: Future[Image]) -> Image:
    return image_build.result(timeout=BUILD_TIMEOUT)
