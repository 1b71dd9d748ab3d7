"""The sdist and the wheel built from it, installed into a fresh venv, work outside the checkout.

Slow by nature (a build with the compiled loops and a dependency install): one module-scoped
install serves every test here.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.crawl_support import REPO_ROOT

BUILD_TIMEOUT_SECONDS = 1800
DEMO_TIMEOUT_SECONDS = 300
# Set by `make test` to a directory both of its pytest runs share (build_once).
SHARED_BUILD_VARIABLE = "NEWSCRAWL_TEST_WHEEL_DIR"


@dataclass(frozen=True)
class Installed:
    """A venv with the built wheel installed, and the distributions it came from."""

    root: Path
    bin_dir: Path
    site_packages: Path
    wheel: Path
    sdist: Path


def run_checked(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(  # type: ignore[call-overload]
        command, capture_output=True, text=True, check=False, **kwargs
    )
    assert done.returncode == 0, f"{command}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done  # type: ignore[no-any-return]


def clean_env() -> dict[str, str]:
    """This environment without what points at the checkout.

    With the checkout on PYTHONPATH, pip would see its newscrawl.egg-info (left by any
    in-tree build) and quietly take the wheel as already installed.
    """
    return {
        key: value for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "SCRAPY_SETTINGS_MODULE", "NEWSCRAWL_DATABASE_URL")
    }


def outside_env(installed: Installed) -> dict[str, str]:
    """The environment of a user of the installed package, its venv first on PATH."""
    env = clean_env()
    env["PATH"] = f"{installed.bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(installed.bin_dir.parent)
    return env


@pytest.fixture(scope="module")
def installed() -> Iterator[Installed]:
    shared = os.environ.get(SHARED_BUILD_VARIABLE)
    if shared:
        yield build_once(Path(shared))
        return
    # A directory of its own rather than tmp_path_factory's: the build takes long enough for
    # other pytest sessions on the machine to prune this session's base temp directory.
    root = Path(tempfile.mkdtemp(prefix="newscrawl-wheel-test-"))
    try:
        yield build_and_install(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def build_once(root: Path) -> Installed:
    """The install in `root`, built by the first run that asks for it.

    `make test` runs the suite twice (compiled, then pure Python) on the same sources, and the
    wheel does not depend on which loops the tests use: the second run installs nothing and
    tests the first run's wheel under its own environment. The make recipe owns the directory.
    """
    root.mkdir(parents=True, exist_ok=True)
    done = root / "installed.txt"
    with (root / "build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_file():
            build_and_install(root)
            done.write_text("built\n", encoding="utf-8")
    return find_installed(root)


def build_and_install(root: Path) -> Installed:
    dist = root / "dist"
    # python -m build makes the sdist, then the wheel from the sdist: so the wheel proves the
    # sdist carries everything too.
    run_checked(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(REPO_ROOT)],
        timeout=BUILD_TIMEOUT_SECONDS, env=clean_env(),
    )
    (wheel,) = dist.glob("newscrawl-*.whl")
    venv = root / "venv"
    run_checked([sys.executable, "-m", "venv", str(venv)], timeout=300, env=clean_env())
    run_checked(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
        timeout=BUILD_TIMEOUT_SECONDS, env=clean_env(),
    )
    return find_installed(root)


def find_installed(root: Path) -> Installed:
    (wheel,) = (root / "dist").glob("newscrawl-*.whl")
    (sdist,) = (root / "dist").glob("newscrawl-*.tar.gz")
    venv = root / "venv"
    python = venv / "bin" / "python"
    site_packages = Path(
        run_checked(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            env=clean_env(),
        ).stdout.strip()
    )
    return Installed(root, venv / "bin", site_packages, wheel, sdist)


@pytest.fixture
def empty_dir(installed: Installed) -> Path:
    """A new empty directory, outside the checkout, to run the installed commands from."""
    return Path(tempfile.mkdtemp(prefix="cwd-", dir=installed.root))


def test_the_wheel_installs_only_the_newscrawl_package(installed: Installed) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    top_level = {name.split("/")[0] for name in names}
    assert {name for name in top_level if not name.endswith(".dist-info")} == {"newscrawl"}
    assert "newscrawl/migrations/env.py" in names
    assert "newscrawl/migrations/script.py.mako" in names
    assert any(name.startswith("newscrawl/migrations/versions/0001_") for name in names)
    assert "newscrawl/spiders/rss.py" in names and "newscrawl/spiders/sitemap.py" in names
    imported = run_checked(
        [str(installed.bin_dir / "python"), "-c",
         "import newscrawl.spiders.rss as m; print(m.__file__)"],
        cwd=installed.root, env=clean_env(),
    )
    assert imported.stdout.startswith(str(installed.site_packages / "newscrawl" / "spiders"))
    assert not (installed.site_packages / "spiders").exists()
    assert not (installed.site_packages / "migrations").exists()
    with tarfile.open(installed.sdist) as sdist:
        members = {member.name.split("/", 1)[-1] for member in sdist.getmembers()}
    assert {"spiders/rss.py", "migrations/env.py", "pyproject.toml", "setup.py"} <= members


def test_version_and_db_upgrade_from_an_empty_directory(
    installed: Installed, empty_dir: Path
) -> None:
    env = outside_env(installed)
    version = run_checked(["newscrawl", "--version"], cwd=empty_dir, env=env, timeout=60)
    assert version.stdout.strip() == "newscrawl 0.1.0"
    upgraded = run_checked(["newscrawl", "db", "upgrade"], cwd=empty_dir, env=env, timeout=120)
    assert "(up to date)" in upgraded.stdout
    assert (empty_dir / "newscrawl.db").is_file()


def test_demo_then_crawls_against_its_network_from_an_empty_directory(
    installed: Installed, empty_dir: Path
) -> None:
    env = outside_env(installed)
    log = empty_dir / "demo.log"
    with log.open("w") as output:
        demo = subprocess.Popen(
            ["newscrawl", "demo", "--port", "0", "--keep-serving"],
            cwd=empty_dir, env=env, stdout=output, stderr=subprocess.STDOUT, text=True,
        )
    try:
        summary = wait_for(log, "Try next", demo)
        assert "== Articles stored: 99" in summary
        commands = [
            shlex.split(line.strip()) for line in summary.splitlines()
            if line.startswith("  newscrawl crawl ")
        ]
        assert [command[2] for command in commands] == ["rss", "sitemap"]
        for command in commands:
            crawl = subprocess.run(
                [*command, "-O", f"{command[2]}.jsonl"], cwd=empty_dir, env=env,
                capture_output=True, text=True, timeout=DEMO_TIMEOUT_SECONDS, check=False,
            )
            assert crawl.returncode == 0, crawl.stderr[-3000:]
            assert "Traceback" not in crawl.stderr
            records = [
                json.loads(line)
                for line in (empty_dir / f"{command[2]}.jsonl").read_text("utf-8").splitlines()
            ]
            assert records and all(record["text"] and record["url"] for record in records)
    finally:
        demo.send_signal(signal.SIGTERM)
        demo.wait(timeout=60)
    assert demo.returncode == 0, log.read_text()[-3000:]
    assert "Traceback" not in log.read_text()


def wait_for(log: Path, marker: str, process: subprocess.Popen[str]) -> str:
    """The log once it contains `marker`; fails if the process ends or time runs out first."""
    deadline = time.monotonic() + DEMO_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        text = log.read_text()
        if marker in text:
            return text
        assert process.poll() is None, text[-3000:]
        time.sleep(0.5)
    raise AssertionError(f"no {marker!r} after {DEMO_TIMEOUT_SECONDS}s:\n{log.read_text()[-3000:]}")
