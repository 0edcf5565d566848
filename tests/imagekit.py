"""The Homeostat image built from the real Dockerfile with podman, and a `docker` for the actions to call.

No registry can be reached here, so the Dockerfile's base (`python:3.11.x-slim-bookworm`) is stood in
for: Debian bookworm from `debootstrap` (Debian's mirror is reachable), `podman import`ed, plus the
interpreter running these tests (3.11.5 or newer: requirements.lock needs it) without its
site-packages, and this machine's CA bundle so pip inside the build trusts the proxy it goes through.
The real Dockerfile is then built unchanged on that base with `podman build --from`, installing from
requirements.lock with --require-hashes as a release build does.

Both images stay in podman's storage between test runs: the base is tagged with a hash of its recipe
and the interpreter, the image with a hash of the build context, so an unchanged checkout reuses both
and a changed one rebuilds only the image (about a minute; the base about two, once per machine). A
file lock keeps concurrent runs from building the same thing twice.

A GitHub runner runs `docker run` as its own user (uid 1001) against a root daemon. Here a
`podman system service` is the daemon, and `docker` on the steps' PATH is a shim that sends
`docker run …` to it with `podman --remote`, adding this sandbox's flags: runc and cgroupfs (crun
and systemd cgroups fail here), ulimits within the sandbox's, and the host network, so the container
reaches the emulators on 127.0.0.1 as a runner's container reaches github.com.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUNNER_UID = 1001  # the user GitHub's hosted runners run steps as
IMAGE_REPOSITORY = "localhost/homeostat-test"
BASE_REPOSITORY = "localhost/homeostat-test-base"
CACHE = Path(os.environ.get("HOMEOSTAT_IMAGE_CACHE", "/var/tmp/homeostat-image-test"))
LIMITS = ("--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024")
# Debian packages the copied interpreter links against (ssl, sqlite3, ctypes, expat, lzma, …).
BASE_PACKAGES = (
    "ca-certificates,libssl3,libsqlite3-0,libffi8,libexpat1,libbz2-1.0,liblzma5,libncursesw6,"
    "libreadline8,libuuid1,libnsl2,zlib1g"
)
BASE_CONTAINERFILE = """\
FROM {debian}
ADD python.tar /usr/local/
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
RUN printf 'Types: deb\\nURIs: http://deb.debian.org/debian\\nSuites: bookworm bookworm-updates\\nComponents: main\\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\\n\\nTypes: deb\\nURIs: http://deb.debian.org/debian-security\\nSuites: bookworm-security\\nComponents: main\\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\\n' > /etc/apt/sources.list.d/debian.sources \\
 && rm -f /etc/apt/sources.list \\
 && echo /usr/local/lib > /etc/ld.so.conf.d/python.conf && ldconfig \\
 && python{major_minor} -m ensurepip --default-pip \\
 && ln -sf python{major_minor} /usr/local/bin/python3 && ln -sf python{major_minor} /usr/local/bin/python
ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \\
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
"""
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")


def podman_base() -> list[str]:
    return ["podman", "--runtime", shutil.which("runc") or "/usr/sbin/runc", "--cgroup-manager=cgroupfs"]


def why_not() -> str | None:
    """Why the image cannot be built and run here, or None when it can."""
    for tool in ("podman", "runc", "debootstrap"):
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            return f"{tool} is not installed (apt-get install podman runc debootstrap; .ci/run does)"
    if os.geteuid() != 0:
        return "the image test runs podman as root (rootless podman is not set up here)"
    if sys.version_info[:2] != (3, 11) or sys.version_info < (3, 11, 5):
        return f"the stand-in base copies this interpreter, which must be CPython 3.11.5+ (it is {sys.version.split()[0]})"
    if not CA_BUNDLE.exists():
        return f"{CA_BUNDLE} is missing: the build's pip needs the machine's CA bundle"
    done = subprocess.run([*podman_base(), "info"], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        return "podman cannot run here: " + (done.stderr.strip().splitlines() or ["no output"])[-1]
    return None


def run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:6])} … failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def image_exists(ref: str) -> bool:
    return subprocess.run([*podman_base(), "image", "exists", ref]).returncode == 0


@contextlib.contextmanager
def build_lock() -> Iterator[None]:
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / "build.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()[:16]


def ensure_base() -> str:
    """The stand-in for the Dockerfile's FROM, built once per machine (and per interpreter)."""
    major_minor = f"{sys.version_info.major}.{sys.version_info.minor}"
    recipe = BASE_CONTAINERFILE + BASE_PACKAGES + sys.version + sys.base_prefix
    ref = f"{BASE_REPOSITORY}:{_digest(recipe.encode(), CA_BUNDLE.read_bytes())}"
    if image_exists(ref):
        return ref
    work = Path(tempfile.mkdtemp(prefix="base-", dir=CACHE))
    try:
        rootfs = work / "rootfs"
        run(
            [
                "debootstrap",
                "--variant=minbase",
                f"--include={BASE_PACKAGES}",
                "bookworm",
                str(rootfs),
                "http://deb.debian.org/debian",
            ],
            timeout=1200,
        )
        debian = ref.replace(BASE_REPOSITORY, BASE_REPOSITORY + "-debian")
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        run([*podman_base(), "import", "-", debian], stdin=tar.stdout, timeout=600)
        tar.wait()
        shutil.rmtree(rootfs)
        context = work / "context"
        context.mkdir()
        prefix = Path(sys.base_prefix)
        run(
            [
                "tar",
                "-C",
                str(prefix),
                f"--exclude=./lib/python{major_minor}/site-packages",
                f"--exclude=./lib/python{major_minor}/test",
                "--exclude=__pycache__",
                "-cf",
                str(context / "python.tar"),
                ".",
            ],
            timeout=600,
        )
        shutil.copy(CA_BUNDLE, context / "ca-certificates.crt")
        (context / "Containerfile").write_text(
            BASE_CONTAINERFILE.format(debian=debian, major_minor=major_minor)
        )
        run(
            [*podman_base(), "build", "--pull=never", *LIMITS, "--network=host", "-t", ref, str(context)],
            timeout=900,
        )
        run([*podman_base(), "rmi", debian], timeout=120)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return ref


def context_files() -> list[Path]:
    """What the Dockerfile's build context holds (.dockerignore keeps it to these)."""
    files = [REPO / name for name in ("Dockerfile", ".dockerignore", "requirements.lock", "pyproject.toml")]
    files += sorted(
        p for p in (REPO / "homeostat").rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )
    return files


def ensure_image(base: str) -> str:
    """The image from the real Dockerfile, rebuilt only when its build context changed."""
    parts = [base.encode()]
    for path in context_files():
        parts += [path.relative_to(REPO).as_posix().encode(), path.read_bytes()]
    ref = f"{IMAGE_REPOSITORY}:{_digest(*parts)}"
    if not image_exists(ref):
        run(
            [
                *podman_base(),
                "build",
                "--pull=never",
                "--from",
                base,
                *LIMITS,
                "--network=host",
                "-t",
                ref,
                str(REPO),
            ],
            timeout=1800,
        )
        _forget_old_images(keep=ref)
    return ref


def _forget_old_images(keep: str, hours: int = 48) -> None:
    """This test's images older than two days (other checkouts' recent ones stay)."""
    listing = subprocess.run(
        [
            *podman_base(),
            "images",
            "--filter",
            f"until={hours}h",
            "--format",
            "{{.Repository}}:{{.Tag}}",
            IMAGE_REPOSITORY,
        ],
        capture_output=True,
        text=True,
    ).stdout.split()
    for ref in listing:
        if ref != keep:
            subprocess.run([*podman_base(), "rmi", ref], capture_output=True)


@dataclass
class Daemon:
    """`podman system service`, the root daemon the runner's `docker` talks to."""

    socket: Path
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_daemon(folder: Path) -> Daemon:
    socket = folder / "podman.sock"
    process = subprocess.Popen(
        [*podman_base(), "system", "service", "--time=0", f"unix://{socket}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(200):
        if socket.exists():
            break
        time.sleep(0.05)
    else:
        process.kill()
        raise RuntimeError("podman system service did not create its socket")
    socket.chmod(0o666)  # the runner's user is in the docker group on a hosted runner
    return Daemon(socket, process)


DOCKER_SHIM = """\
#!/bin/sh
# `docker run` for the actions' run-entrypoint.sh, sent to the test's podman service (tests/imagekit.py).
if [ "$1" != run ]; then echo "docker (test shim): only 'docker run' is supported" >&2; exit 125; fi
shift
exec podman --remote --url {url} run --network=host {limits} "$@"
"""


def write_docker_shim(bin_dir: Path, daemon: Daemon) -> Path:
    bin_dir.mkdir(parents=True, exist_ok=True)
    shim = bin_dir / "docker"
    shim.write_text(DOCKER_SHIM.format(url=daemon.url, limits=" ".join(LIMITS)))
    shim.chmod(0o755)
    return shim
