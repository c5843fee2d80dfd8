"""The image's Dockerfile, read and replayed without Docker (no engine runs here).

`parse` reads its stages and instructions. `replay_build` builds what the image would
hold into a directory standing for the container's root, from a build context made the
way Docker makes it (the files a clean checkout has, less those the .dockerignore
excludes): the build stage's COPY and RUN (the pip install itself) on this machine's
Python, then the final stage's COPYs into a fresh root. The final stage's RUN (creating
the user) is not replayed; the server is run as that user's uid instead, when we can.

Only paths under PREFIX are ours: they are mapped into the replay root, and every path
the Dockerfile writes must be under it."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.server import ROOT

DOCKERFILE = ROOT / "deploy" / "docker" / "Dockerfile"
DOCKERIGNORE = DOCKERFILE.with_name("Dockerfile.dockerignore")
PREFIX = "/opt/ludotheque"
BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"  # the python images' PATH


@dataclass
class Instruction:
    keyword: str
    flags: dict[str, str]
    arguments: list[str]  # JSON form, or split like a shell would (RUN keeps its text whole)
    text: str


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]


def _logical_lines(text: str) -> list[str]:
    lines, current = [], ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        if current and stripped.startswith("#"):
            continue  # a comment inside a continued instruction
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        lines.append(current + stripped)
        current = ""
    assert not current, "the Dockerfile ends inside a continued line"
    return lines


def _substitute(text: str, variables: dict[str, str]) -> str:
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: variables.get(m.group(1) or m.group(2), ""), text)


def parse(path: Path = DOCKERFILE) -> tuple[dict[str, str], list[Stage]]:
    """The global ARGs and the stages, in order."""
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for line in _logical_lines(path.read_text()):
        keyword, _, rest = line.partition(" ")
        keyword = keyword.upper()
        rest = rest.strip()
        flags: dict[str, str] = {}
        while keyword in ("COPY", "ADD", "RUN", "FROM") and rest.startswith("--"):
            flag, _, rest = rest.partition(" ")
            name, _, value = flag[2:].partition("=")
            flags[name] = value
            rest = rest.strip()
        if keyword == "RUN":
            arguments = [rest]
        elif rest.startswith("["):
            arguments = json.loads(rest)
        else:
            arguments = shlex.split(rest)
        instruction = Instruction(keyword, flags, arguments, rest)
        if keyword == "FROM":
            base = _substitute(arguments[0], global_args)
            stage_name = arguments[2] if len(arguments) == 3 and arguments[1].upper() == "AS" else None
            stages.append(Stage(base, stage_name))
        elif not stages:
            assert keyword == "ARG", f"{keyword} before the first FROM"
            name, _, default = arguments[0].partition("=")
            global_args[name] = default
        else:
            stages[-1].instructions.append(instruction)
    return global_args, stages


def env_of(instruction: Instruction, current: dict[str, str]) -> dict[str, str]:
    """What an ENV instruction sets (KEY=VALUE pairs, later ones seeing earlier ones)."""
    found: dict[str, str] = {}
    for pair in instruction.arguments:
        key, _, value = pair.partition("=")
        found[key] = _substitute(value, {**current, **found})
    return found


# --- the build context -------------------------------------------------------------


def _ignore_patterns() -> list[tuple[bool, re.Pattern[str]]]:
    """(exception?, regex) for each .dockerignore line; a pattern matches a path or any
    of its parent directories; the last matching line decides."""
    patterns = []
    for line in DOCKERIGNORE.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        exception = line.startswith("!")
        pattern = os.path.normpath(line.lstrip("!").strip("/"))
        regex = ""
        for part in re.split(r"(\*\*/|\*\*|\*|\?)", pattern):
            regex += {"**/": "(.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}.get(part, re.escape(part))
        patterns.append((exception, re.compile(regex + "$")))
    return patterns


def _ignored(path: str, patterns: list[tuple[bool, re.Pattern[str]]]) -> bool:
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    ignored = False
    for exception, regex in patterns:
        if any(regex.match(prefix) for prefix in prefixes):
            ignored = not exception
    return ignored


def context_files() -> list[str]:
    """The files `docker build` would send from a checkout: tracked or new (not ignored
    by git), less those the Dockerfile's .dockerignore excludes."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    patterns = _ignore_patterns()
    return sorted(p for p in listed.split("\0") if p and (ROOT / p).is_file() and not _ignored(p, patterns))


def make_context(destination: Path) -> None:
    for relative in context_files():
        target = destination / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / relative, target)


# --- the replay ----------------------------------------------------------------------


@dataclass
class Image:
    """What the final stage leaves: its root (PREFIX mapped inside), environment, etc."""

    root: Path
    env: dict[str, str]
    workdir: str
    user: str
    entrypoint: list[str]
    exposed: list[str]

    def host_path(self, container_path: str) -> Path:
        return map_path(self.root, container_path)

    def host_text(self, text: str) -> str:
        return text.replace(PREFIX, str(self.host_path(PREFIX)))


def map_path(root: Path, container_path: str) -> Path:
    assert container_path == PREFIX or container_path.startswith(PREFIX + "/"), (
        f"{container_path}: the replay maps only paths under {PREFIX}"
    )
    return root / container_path.lstrip("/")


def _host_directory(root: Path, workdir: str) -> Path:
    """Where a RUN runs: the mapped WORKDIR, or the replay's root before any WORKDIR."""
    return root if workdir == "/" else map_path(root, workdir)


def _copy(sources: list[Path], destination: str, root: Path) -> None:
    target = map_path(root, destination.rstrip("/") or "/")
    into_directory = destination.endswith("/") or len(sources) > 1
    for source in sources:
        assert source.exists(), f"COPY: {source} does not exist"
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True, symlinks=True)
        else:
            place = target / source.name if into_directory else target
            place.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, place)


def replay_build(root: Path, context: Path, log: Path) -> Image:
    """Replays every stage; `root` ends up as the final image's root."""
    _, stages = parse()
    shims = root.parent / f"{root.name}.bin"  # `python` as the python image has it
    shims.mkdir(exist_ok=True)
    interpreter = os.path.realpath(sys.executable)
    for name in ("python", "python3"):
        (shims / name).unlink(missing_ok=True)
        (shims / name).symlink_to(interpreter)
    host_env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "LUDOTHEQUE_"))}
    built: dict[str, Path] = {}
    image: Image | None = None
    for number, stage in enumerate(stages):
        final = number == len(stages) - 1
        root.mkdir(parents=True)
        root.chmod(0o755)
        env = {"PATH": BASE_PATH}
        workdir = "/"
        user = "root"
        entrypoint: list[str] = []
        exposed: list[str] = []
        for instruction in stage.instructions:
            keyword = instruction.keyword
            if keyword == "ENV":
                env.update(env_of(instruction, env))
            elif keyword == "WORKDIR":
                workdir = instruction.arguments[0]
                map_path(root, workdir).mkdir(parents=True, exist_ok=True)
            elif keyword == "COPY":
                *sources, destination = instruction.arguments
                if not destination.startswith("/"):
                    destination = f"{workdir.rstrip('/')}/{destination}"
                if "from" in instruction.flags:
                    earlier = built[instruction.flags["from"]]
                    _copy([map_path(earlier, s) for s in sources], destination, root)
                else:
                    _copy([context / s for s in sources], destination, root)
            elif keyword == "RUN" and not final:
                command = instruction.arguments[0].replace(PREFIX, str(map_path(root, PREFIX)))
                run_env = {**host_env, **{k: v.replace(PREFIX, str(map_path(root, PREFIX))) for k, v in env.items()}}
                run_env["PATH"] = f"{shims}:{run_env['PATH']}"
                with log.open("a") as output:
                    output.write(f"\n$ {command}\n")
                    output.flush()
                    done = subprocess.run(
                        ["sh", "-c", command],
                        cwd=_host_directory(root, workdir),
                        env=run_env,
                        stdout=output,
                        stderr=output,
                    )
                assert done.returncode == 0, f"RUN {instruction.text} failed:\n{log.read_text()[-4000:]}"
            elif keyword == "USER":
                user = instruction.arguments[0]
            elif keyword == "ENTRYPOINT":
                entrypoint = instruction.arguments
            elif keyword == "EXPOSE":
                exposed += instruction.arguments
        if final:
            image = Image(root, env, workdir, user, entrypoint, exposed)
        else:
            # The next stage starts from a fresh root; this one stays readable for COPY
            # --from. Moving it back later restores the absolute paths its venv holds.
            kept = root.parent / f"{root.name}.{stage.name or number}"
            root.rename(kept)
            built[stage.name or str(number)] = kept
    assert image is not None
    for kept in built.values():
        shutil.rmtree(kept, ignore_errors=True)
    return image


def snapshot(directory: Path) -> dict[str, tuple[int, int]]:
    """Every file under `directory` with its size and modification time."""
    found = {}
    for path in directory.rglob("*"):
        info = path.lstat()
        if not stat.S_ISDIR(info.st_mode):
            found[str(path.relative_to(directory))] = (info.st_size, info.st_mtime_ns)
    return found
