import pytest
from kbfactory import example_files

from homeostat.core.config import Config
from homeostat.core.kb import load_config


def test_example_config_loads_with_defaults() -> None:
    config, _, found = load_config(example_files()["homeostat.yaml"])
    assert found == [] and config is not None
    assert config.area_names() == ["billing/api", "billing/db", "storefront/ui", "core"]
    assert config.scoring.confidence.accept == 70
    assert config.scoring.confidence.base["agent-handoff"] == 25
    assert config.agents.curator.judge_calls == 100
    assert config.distribution.token_budget == 2000
    assert config.topics_for("billing/api") == ("errors", "money")
    assert config.topics_for("storefront/ui") == ()


@pytest.mark.parametrize(
    ("yaml_text", "expected"),
    [
        (
            "team:\n  membres: []\n",
            "homeostat.yaml:2: unknown key 'team.membres'; remove it or check its spelling",
        ),
        (
            "agents:\n  runtime: lambda\n",
            "homeostat.yaml:2: agents.runtime: Input should be 'api', 'bedrock', 'vertex' or 'claude-code'",
        ),
        (
            "scoring:\n  confidence:\n    accept: 170\n",
            "homeostat.yaml:3: scoring.confidence.accept: Input should be less than or equal to 100",
        ),
        (
            "team:\n  members:\n    - name: No Handle\n",
            "homeostat.yaml:3: team.members.0.handle: missing required key",
        ),
        ("team: [\n", "homeostat.yaml:2: invalid YAML: did not find expected node content"),
        (
            "sources:\n  host: github\n  host: bitbucket\n",
            "homeostat.yaml:3: duplicate key 'host' (first on line 2)",
        ),
        ("- just\n- a list\n", "homeostat.yaml:1: homeostat.yaml must be a YAML mapping of keys to values"),
    ],
)
def test_bad_config_names_file_line_and_key(yaml_text: str, expected: str) -> None:
    _, _, found = load_config(yaml_text)
    assert [f"{f.file}:{f.line}: {f.message}" for f in found][:1] == [expected]
    assert all(f.check == "config" and f.severity == "error" for f in found)


def test_repos_and_top_level_areas_are_exclusive() -> None:
    text = (
        "repos:\n  - name: a\n    url: https://github.com/o/a\n    areas: [{name: x, paths: ['**']}]\n"
        "areas:\n  - {name: y, paths: ['**']}\n"
    )
    _, _, found = load_config(text)
    assert "use either repos" in found[0].message


def test_config_is_immutable() -> None:
    config = Config()
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="frozen"):
        config.version = "9"  # type: ignore[misc]


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\nb: yes\nc: ~\nd: null\ne: 1.5\nf: 0x10\ng: 1_000\nh: 2026-01-01 10:00:00\ni: 2026-02-03\n",
        'a: "x: y"\nb: [a, "b c", 3]\nc: [ ]\nd:\n',
        "a: b # c\nd: 'x'\ne: -1\nf: 1:30\ng: .inf\nh: 007\ni: +12\nj: Off\nk: NULL\n",
        "url: https://github.com/o/r/pull/1#discussion_r2\ntitle: Why? Because\nx: x:y\n",
        "source:\n  type: manual\n  author: bo\ncreated: 2026-09-01\n",
        "a: b:\n",
        "a: [x #y]\n",
        'a: "x"y\n',
        "title: Use X: not Y\n",
        "a: b\n  c: d\n",
        "a: 2026-13-45\n",
    ],
)
def test_yaml_reading_agrees_with_pyyaml(text: str) -> None:
    """The fast path for Homeostat's own YAML must read exactly what PyYAML reads, or fail alike."""
    import yaml

    from homeostat.core.format.yamltext import YamlError, load_yaml

    try:
        expected = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError):
        with pytest.raises(YamlError):
            load_yaml(text)
        return
    assert load_yaml(text).data == expected
