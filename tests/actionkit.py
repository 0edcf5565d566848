"""Run a composite action's steps the way the GitHub runner runs them.

The runner evaluates each step's `env:` expressions, writes `run:` to a file and runs it with
`bash --noprofile --norc -eo pipefail` as the runner's user, with GITHUB_ACTION_PATH, GITHUB_OUTPUT
and GITHUB_STEP_SUMMARY set (the last two in `$RUNNER_TEMP/_runner_file_commands`); the action's
outputs are then read from the steps' output files. `run_action` does the same, optionally as another
uid (the GitHub runner's user is 1001), which needs root.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass(frozen=True)
class ActionRun:
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


def parse_github_output(text: str) -> dict[str, str]:
    """`name=value` lines and `name<<DELIMITER` blocks, as the runner reads $GITHUB_OUTPUT."""
    values: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body: list[str] = []
            for part in lines:
                if part == delimiter:
                    break
                body.append(part)
            values[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
    return values


class Context:
    """The expression contexts a composite action may use here; anything else fails the test."""

    def __init__(self, inputs: dict[str, str], action_path: Path) -> None:
        self.inputs = inputs
        self.action_path = action_path
        self.steps: dict[str, dict[str, str]] = {}

    def evaluate(self, expression: str) -> str:
        if match := re.fullmatch(r"inputs\.([\w-]+)", expression):
            return self.inputs[match.group(1)]
        if match := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression):
            return self.steps.get(match.group(1), {}).get(match.group(2), "")
        if expression == "github.action_path":
            return str(self.action_path)
        raise AssertionError(f"expression the harness does not evaluate: ${{{{ {expression} }}}}")

    def substitute(self, text: str) -> str:
        return _EXPRESSION.sub(lambda m: self.evaluate(m.group(1)), text)


def load_action(action_dir: Path) -> dict:
    return yaml.safe_load((action_dir / "action.yml").read_text(encoding="utf-8"))


def action_inputs(spec: dict, given: dict[str, str]) -> dict[str, str]:
    declared = spec.get("inputs") or {}
    unknown = set(given) - set(declared)
    assert not unknown, f"inputs the action does not declare: {sorted(unknown)}"
    values = {name: str(meta.get("default", "")) for name, meta in declared.items()}
    values.update(given)
    missing = [n for n, meta in declared.items() if meta.get("required") and not values[n]]
    assert not missing, f"required inputs not given: {missing}"
    return values


def run_action(
    action_dir: Path,
    workspace: Path,
    tmp: Path,
    inputs: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
    user: int | None = None,
) -> ActionRun:
    spec = load_action(action_dir)
    assert spec["runs"]["using"] == "composite"
    context = Context(action_inputs(spec, inputs or {}), action_dir)
    runner_temp = tmp / "runner-temp"
    commands = runner_temp / "_runner_file_commands"
    commands.mkdir(parents=True, exist_ok=True)
    summary = commands / "step_summary"
    summary.touch()
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    base_env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_ACTION_PATH": str(action_dir),
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_OS": "Linux",
        "RUNNER_TEMP": str(runner_temp),
    }
    if "PYTHONPATH" in os.environ:  # run the same package the tests import
        base_env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    base_env.update(env or {})
    stdout, stderr, returncode = [], [], 0
    for index, step in enumerate(spec["runs"]["steps"]):
        assert step.get("shell") == "bash", "composite run steps must say shell: bash"
        output_file = commands / f"set_output_{index}"
        output_file.touch()
        step_env = dict(base_env, GITHUB_OUTPUT=str(output_file))
        step_env.update({k: context.substitute(str(v)) for k, v in (step.get("env") or {}).items()})
        script = runner_temp / f"step_{index}.sh"
        script.write_text(context.substitute(step["run"]), encoding="utf-8")
        if user is not None:  # the runner creates these files as its own user
            for path in (home, runner_temp, *runner_temp.rglob("*")):
                os.chown(path, user, user)
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=step_env,
            capture_output=True,
            text=True,
            timeout=600,
            user=user,
            group=user,
            extra_groups=[] if user is not None else None,
        )
        stdout.append(proc.stdout)
        stderr.append(proc.stderr)
        if "id" in step:
            context.steps[step["id"]] = parse_github_output(output_file.read_text(encoding="utf-8"))
        if proc.returncode != 0:
            returncode = proc.returncode
            break
    outputs = {name: context.substitute(meta["value"]) for name, meta in (spec.get("outputs") or {}).items()}
    summary_text = summary.read_text(encoding="utf-8")
    return ActionRun(returncode, "".join(stdout), "".join(stderr), outputs, summary_text)
