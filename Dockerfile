# One image for every Homeostat entrypoint (validate, daily, deep-dive, digest, review merge): the
# GitHub actions start it with `docker run`, Bitbucket runs it as a pipe or as a step image, and
# `homeostat up` can run in it. docs/actions.md says how each is wired.
#
# The base is pinned to an exact patch release. Releases also pin its digest
# (`python:3.11.13-slim-bookworm@sha256:…`); no registry could be reached where this file was
# written, so the digest is added by the release checklist in docs/actions.md, not guessed here.
FROM python:3.11.13-slim-bookworm

ARG HOMEOSTAT_VERSION=0.2.0
LABEL org.opencontainers.image.title="homeostat" \
      org.opencontainers.image.description="Homeostat: a team knowledge base for coding agents" \
      org.opencontainers.image.version="${HOMEOSTAT_VERSION}" \
      org.opencontainers.image.source="https://github.com/homeostat/homeostat" \
      org.opencontainers.image.licenses="Apache-2.0"

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Every entrypoint reads or writes the KB through git. The checkout is mounted from the host and
# owned by another uid, which git refuses ("dubious ownership") unless the folder is marked safe;
# this container runs nothing but Homeostat, so every folder is.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git=1:2.39.5-0+deb12u3 \
 && rm -rf /var/lib/apt/lists/* \
 && git config --system --add safe.directory '*'

WORKDIR /opt/homeostat

# Dependencies first, from exact pins with the hash of every file (requirements.lock), so a code
# change reuses this layer and a tampered or re-uploaded file fails the build. The lock carries the
# build backend too.
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock

# The package itself, with no dependency resolution and the locked build backend: nothing unpinned
# is fetched while building.
COPY pyproject.toml ./
COPY homeostat ./homeostat
# homeostat/templates/workflows links to ../../workflows: the CI templates `homeostat init` writes.
COPY workflows ./workflows
RUN pip install --no-cache-dir --no-deps --no-build-isolation . \
 && rm -rf build homeostat.egg-info

RUN groupadd --system --gid 10001 homeostat \
 && useradd --system --uid 10001 --gid 10001 --create-home --home-dir /home/homeostat homeostat \
 && mkdir /workspace \
 && chown homeostat:homeostat /workspace
USER 10001:10001
WORKDIR /workspace

# With no arguments (a Bitbucket `pipe: docker://…` step) the image runs $HOMEOSTAT_COMMAND, and
# inside Pipelines without it, `homeostat validate` on $HOMEOSTAT_DIR (or its working folder).
ENTRYPOINT ["homeostat"]
