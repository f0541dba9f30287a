"""What the deployment tests share: the settings the shipped files rely on, and small parsers for
Dockerfile instructions, nginx config, .dockerignore, Kubernetes quantities and PostgreSQL durations."""

from __future__ import annotations

import fnmatch
import ipaddress
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from service.ops.settings import ENV_VARS

ROOT = Path(__file__).resolve().parents[2]
APP_PORT = 8000                 # settings.py default STELA_PORT
METRICS_PORT = 9100             # settings.py default STELA_METRICS_PORT
HEARTBEAT_SECONDS = 15          # settings.py default STELA_HEARTBEAT_SECONDS
IMAGE_UID = 10001
# Set by the shipped configurations for issues 13 and 14 and read by service/ops/settings.py from then on;
# test_the_settings_read_every_variable_the_configurations_set holds settings.py to it.
HARDENING_SETTINGS = frozenset({"STELA_TRUSTED_PROXIES", "STELA_METRICS_PORT", "STELA_CORS_ORIGINS"})
SETTINGS = frozenset(ENV_VARS) | HARDENING_SETTINGS


def trusted_networks(value: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """STELA_TRUSTED_PROXIES as settings.py reads it: comma-separated addresses or CIDRs."""
    return [ipaddress.ip_network(item.strip(), strict=True) for item in value.split(",") if item.strip()]


def postgres_seconds(value: str) -> float:
    """A PostgreSQL time setting (`60s`, `1min`, `60000` = milliseconds) in seconds."""
    number, unit = re.fullmatch(r"\s*(\d+)\s*(ms|s|min|h|d|)\s*", str(value)).groups()
    return int(number) * {"ms": 0.001, "": 0.001, "s": 1, "min": 60, "h": 3600, "d": 86400}[unit]


# --------------------------------------------------------------------------- Dockerfile

@dataclass
class Instruction:
    keyword: str
    value: str

    def exec_form(self) -> list[str] | None:
        """The JSON (exec) form of CMD/ENTRYPOINT/RUN/HEALTHCHECK CMD, or None for the shell form."""
        text = self.value
        if self.keyword == "HEALTHCHECK":
            text = f" {text}".split(" CMD ", 1)[1] if " CMD " in f" {text}" else ""
        text = text.strip()
        if text.startswith("["):
            return json.loads(text)
        return None


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def last(self, keyword: str) -> Instruction | None:
        found = self.all(keyword)
        return found[-1] if found else None

    def env(self) -> dict[str, str]:
        result: dict[str, str] = {}
        for inst in self.all("ENV"):
            for token in shlex.split(inst.value):
                name, sep, value = token.partition("=")
                assert sep, f"ENV in legacy `ENV key value` form: {inst.value}"
                result[name] = value
        return result


def parse_dockerfile(text: str) -> tuple[dict[str, str], list[Stage]]:
    """Global ARG defaults (before the first FROM) and the stages, with line continuations joined."""
    logical: list[str] = []
    current = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if current and line.startswith("#"):
            continue  # comment lines inside a continuation are dropped by Docker
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        logical.append(current + line)
        current = ""
    if current:
        logical.append(current)

    args: dict[str, str] = {}
    stages: list[Stage] = []
    for line in logical:
        keyword, _, value = line.partition(" ")
        keyword, value = keyword.upper(), value.strip()
        if keyword == "FROM":
            parts = value.split()
            parts = [p for p in parts if not p.startswith("--platform")]
            base = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: args.get(m.group(1) or m.group(2), m.group(0)), parts[0])
            name = parts[2] if len(parts) >= 3 and parts[1].upper() == "AS" else None
            stages.append(Stage(base=base, name=name))
        elif not stages:
            assert keyword == "ARG", f"only ARG may precede FROM, found {keyword}"
            arg_name, _, default = value.partition("=")
            args[arg_name] = default
        else:
            stages[-1].instructions.append(Instruction(keyword, value))
    return args, stages


# --------------------------------------------------------------------------- .dockerignore

def dockerignore_excludes(patterns: list[str], path: str) -> bool:
    """Whether `path` is left out of the build context (last matching pattern wins, parents count)."""
    excluded = False
    parts = path.split("/")
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern[1:] if negate else pattern
        pattern = pattern.strip("/")
        if any(fnmatch.fnmatchcase(c, pattern) for c in candidates):
            excluded = not negate
    return excluded


def read_dockerignore(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


# --------------------------------------------------------------------------- nginx

@dataclass
class Directive:
    name: str
    args: list[str]
    block: list["Directive"] | None = None
    parent: "Directive | None" = None

    def children(self, name: str) -> list["Directive"]:
        return [d for d in self.block or [] if d.name == name]

    def child(self, name: str) -> "Directive":
        found = self.children(name)
        assert len(found) == 1, f"expected one `{name}` in `{self.name}`, found {len(found)}"
        return found[0]

    def effective(self, name: str) -> list[str] | None:
        """Arguments of `name` here or inherited from an enclosing block (nginx inheritance)."""
        node: Directive | None = self
        while node is not None:
            found = node.children(name)
            if found:
                return found[-1].args
            node = node.parent
        return None


def _nginx_tokens(text: str):
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif c in "{};":
            yield c
            i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            yield text[i + 1:j]
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "{};":
                j += 1
            yield text[i:j]
            i = j


def parse_nginx(text: str) -> Directive:
    root = Directive("main", [], [])
    stack = [root]
    words: list[str] = []
    for token in _nginx_tokens(text):
        if token == ";":
            assert words, "empty directive"
            stack[-1].block.append(Directive(words[0], words[1:], None, stack[-1]))
            words = []
        elif token == "{":
            node = Directive(words[0], words[1:], [], stack[-1])
            stack[-1].block.append(node)
            stack.append(node)
            words = []
        elif token == "}":
            assert not words, f"unterminated directive {words}"
            stack.pop()
            assert stack, "unbalanced }"
        else:
            words.append(token)
    assert len(stack) == 1 and not words, "unbalanced nginx config"
    return root


def nginx_seconds(value: str) -> float:
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "": 1}
    total = 0.0
    for number, unit in re.findall(r"(\d+)(ms|s|m|h|d|w|)", value):
        total += int(number) * units[unit]
    return total


# --------------------------------------------------------------------------- Kubernetes quantities

def cpu(value: str | int | float) -> float:
    text = str(value)
    return int(text[:-1]) / 1000 if text.endswith("m") else float(text)


def memory(value: str | int) -> int:
    text = str(value)
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
    for suffix, factor in units.items():
        if text.endswith(suffix):
            return int(float(text[: -len(suffix)]) * factor)
    return int(text)
