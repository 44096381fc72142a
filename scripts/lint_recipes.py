#!/usr/bin/env python3
"""Lint the container recipes: the Dockerfile and the Apptainer definition.

    python3 scripts/lint_recipes.py REPO [--dockerfile F] [--def F] [--script F]

REPO is the repository root (the build context of both recipes). Defaults:
REPO/Dockerfile, REPO/sslat.def, REPO/scripts/container_build.sh; --script
stands in for the build script the recipes call (scripts/container_build.sh),
so drafts can be checked before they are in the tree. Standard library only.

Checked:
- Dockerfile: every instruction a known one; only ARG before the first FROM;
  the image of every FROM with an explicit tag (or digest) that is not
  `latest` (ARG defaults substituted); every COPY / ADD source (not --from)
  inside REPO and existing there.
- Definition: the header has Bootstrap (and From where the bootstrap agent
  needs it); every %section a known one; every %files source inside REPO and
  existing; From with an explicit tag that is not `latest`.
- Both: the same base image; the same files copied in; the build steps (the
  Dockerfile's RUN commands, a `cd` wherever WORKDIR changed, and %post) the
  same command list, which runs scripts/container_build.sh; that script passes
  `bash -n` and knows every option the recipes give it.
Exit status 0 when nothing is wrong, 1 otherwise (each problem as FILE:LINE: what).
"""

import argparse
import glob
import json
import os
import re
import shlex
import subprocess
import sys

DOCKER_INSTRUCTIONS = {
    "FROM", "RUN", "CMD", "LABEL", "MAINTAINER", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT",
    "VOLUME", "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL",
}
DEF_SECTIONS = {
    "setup", "files", "environment", "post", "runscript", "startscript", "test", "labels", "help",
    "arguments", "appinstall", "apphelp", "apprun", "applabels", "appenv", "appfiles", "appstart", "apptest",
}
DEF_HEADER_KEYS = {
    "bootstrap", "from", "stage", "registry", "namespace", "includecmd", "mirrorurl", "updateurl",
    "osversion", "include", "setopt", "fingerprints", "confurl", "product", "user", "regcode",
    "productpgp", "registerurl", "modules", "otherurl0",
}
# bootstrap agents whose From names an image
NEEDS_FROM = {"docker", "docker-daemon", "docker-archive", "library", "oras", "shub", "localimage",
              "oci", "oci-archive", "yum", "dnf", "zypper"}
IMAGE_AGENTS = {"docker", "docker-daemon", "library", "oras"}
SCRIPT_IN_RECIPES = "scripts/container_build.sh"


class Lint:
    def __init__(self):
        self.problems = []
        self.checks = 0

    def check(self, ok, where, what):
        self.checks += 1
        if not ok:
            self.problems.append("%s: %s" % (where, what))
        return ok


def split_commands(text):
    """Shell text into its simple commands: split at newlines, ';' and '&&'
    outside quotes (enough for build steps; no subshells or heredocs)."""
    commands, current, quote, i = [], "", None, 0
    while i < len(text):
        c = text[i]
        if quote:
            current += c
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"' and i + 1 < len(text):
                current += text[i + 1]
                i += 1
        elif c in "'\"":
            quote = c
            current += c
        elif c == "#" and (not current.strip() or current[-1].isspace()):
            while i < len(text) and text[i] != "\n":  # a comment to the end of the line
                i += 1
            continue
        elif c == "\\" and i + 1 < len(text) and text[i + 1] == "\n":
            current += " "
            i += 1
        elif c in "\n;" or text.startswith("&&", i):
            if current.strip():
                commands.append(current)
            current = ""
            if c == "&":
                i += 1
        else:
            current += c
        i += 1
    if current.strip():
        commands.append(current)
    return [" ".join(shlex.split(cmd)) for cmd in commands]


def image_tag_problem(image):
    """Why an image reference is not pinned to a tag, or None."""
    if "@" in image:
        return None  # a digest
    last = image.rsplit("/", 1)[-1]
    if ":" not in last:
        return "image '%s' has no tag (that is 'latest')" % image
    if last.rsplit(":", 1)[1] == "latest":
        return "image '%s' uses the 'latest' tag" % image
    return None


def inside(repo, path):
    """The path names something under repo (lexically: no absolute path, no '..' out)."""
    full = os.path.normpath(os.path.join(repo, path))
    return not os.path.isabs(path) and (full == repo or full.startswith(repo + os.sep))


def source_exists(repo, path):
    return bool(glob.glob(os.path.join(repo, path))) if any(c in path for c in "*?[") else os.path.exists(
        os.path.join(repo, path))


def substitute(text, variables):
    """${NAME}, ${NAME:-default} and $NAME from the ARGs seen so far."""
    def one(m):
        name = m.group(1) or m.group(3)
        value = variables.get(name, "")
        return value if value else (m.group(2) or "")
    return re.sub(r"\$\{(\w+)(?::-([^}]*))?\}|\$(\w+)", one, text)


# ---- the Dockerfile ----------------------------------------------------------------
def read_dockerfile(path):
    """[(line, INSTRUCTION, arguments)] with continuation lines joined."""
    out, pending, start = [], "", 0
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                continue
            if pending and line.lstrip().startswith("#"):
                continue  # comments inside a continued instruction
            if not pending:
                start = n
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + "\n"
                continue
            pending += line
            word, _, rest = pending.strip().partition(" ")
            out.append((start, word, rest.strip()))
            pending = ""
    if pending:
        word, _, rest = pending.strip().partition(" ")
        out.append((start, word, rest.strip()))
    return out


def exec_or_shell(arguments):
    if arguments.startswith("["):
        try:
            return " ".join(shlex.quote(a) for a in json.loads(arguments))
        except ValueError:
            pass
    return arguments


def lint_dockerfile(lint, path, repo):
    where = lambda n: "%s:%d" % (path, n)
    instructions = read_dockerfile(path)
    lint.check(instructions, path, "empty Dockerfile")
    args, base, workdir, emitted_dir = {}, None, "/", None
    steps, copied = [], set()
    seen_from = False
    for n, word, rest in instructions:
        upper = word.upper()
        lint.check(upper in DOCKER_INSTRUCTIONS, where(n), "unknown instruction '%s'" % word)
        lint.check(word == upper, where(n), "instruction '%s' not in upper case" % word)
        if not seen_from:
            lint.check(upper in ("FROM", "ARG"), where(n), "'%s' before the first FROM (only ARG may be)" % word)
        if upper == "ARG":
            name, _, default = rest.partition("=")
            args[name.strip()] = default.strip().strip('"')
        elif upper == "FROM":
            seen_from = True
            words = [w for w in rest.split() if not w.startswith("--")]
            image = substitute(words[0], args) if words else ""
            lint.check(image, where(n), "FROM without an image")
            if image and image != "scratch":
                problem = image_tag_problem(image)
                lint.check(problem is None, where(n), problem or "")
            base = base or image
        elif upper == "WORKDIR":
            workdir = os.path.normpath(os.path.join(workdir, substitute(rest, args)))
        elif upper == "RUN":
            if emitted_dir != workdir:
                steps.append("cd %s" % workdir)
                emitted_dir = workdir
            flags_removed = re.sub(r"^(--\S+\s+)+", "", rest)
            steps.extend(split_commands(exec_or_shell(flags_removed)))
        elif upper in ("COPY", "ADD"):
            if rest.startswith("["):
                parts = json.loads(rest)
                flags = []
            else:
                parts = shlex.split(rest)
                flags = [p for p in parts if p.startswith("--")]
                parts = [p for p in parts if not p.startswith("--")]
            lint.check(len(parts) >= 2, where(n), "%s needs a source and a destination" % upper)
            if any(f.startswith("--from") for f in flags):
                continue
            for source in parts[:-1]:
                if upper == "ADD" and re.match(r"^[a-z]+://", source):
                    continue
                lint.check(inside(repo, source), where(n), "source '%s' is outside the build context" % source)
                lint.check(source_exists(repo, source), where(n),
                           "source '%s' does not exist in %s" % (source, repo))
                copied.add(os.path.normpath(source))
    lint.check(seen_from, path, "no FROM")
    return {"base": base, "steps": steps, "copied": copied}


# ---- the Apptainer definition ---------------------------------------------------------
def read_definition(path):
    header, sections, current = {}, [], None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            m = re.match(r"^%(\S+)(.*)$", line)
            if m:
                current = {"name": m.group(1), "args": m.group(2).strip(), "line": n, "body": []}
                sections.append(current)
                continue
            if current is None:
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                key, sep, value = line.partition(":")
                header[key.strip().lower()] = (n, key.strip(), value.strip() if sep else None)
            else:
                current["body"].append((n, line))
    return header, sections


def lint_definition(lint, path, repo):
    where = lambda n: "%s:%d" % (path, n)
    header, sections = read_definition(path)
    for key, (n, original, value) in header.items():
        lint.check(value is not None, where(n), "header line '%s' is not 'Key: value'" % original)
        lint.check(key in DEF_HEADER_KEYS, where(n), "unknown header key '%s'" % original)
    bootstrap = header.get("bootstrap", (0, "", None))[2]
    lint.check(bootstrap, path, "no Bootstrap in the header")
    base = None
    if bootstrap and bootstrap.lower() in NEEDS_FROM:
        lint.check("from" in header, path, "Bootstrap: %s needs From:" % bootstrap)
        if "from" in header:
            n, _, base = header["from"]
            if bootstrap.lower() in IMAGE_AGENTS:
                problem = image_tag_problem(base)
                lint.check(problem is None, where(n), problem or "")
    names = [s["name"] for s in sections]
    for s in sections:
        lint.check(s["name"].lower() in DEF_SECTIONS, where(s["line"]), "unknown section '%%%s'" % s["name"])
        lint.check(names.count(s["name"]) == 1 or s["name"].startswith("app"), where(s["line"]),
                   "section '%%%s' given more than once" % s["name"])
    copied = set()
    for s in sections:
        if s["name"] not in ("files", "appfiles"):
            continue
        lint.check(not s["args"].startswith("from"), where(s["line"]), "%files from a stage is not checked here")
        for n, line in s["body"]:
            if not line.strip() or line.strip().startswith("#"):
                continue
            parts = shlex.split(line)
            lint.check(len(parts) <= 2, where(n), "a %files line is 'source [destination]'")
            source = parts[0]
            lint.check(inside(repo, source), where(n), "source '%s' is outside the repository" % source)
            lint.check(source_exists(repo, source), where(n), "source '%s' does not exist in %s" % (source, repo))
            copied.add(os.path.normpath(source))
    post = next((s for s in sections if s["name"] == "post"), None)
    steps = split_commands("\n".join(line for _, line in post["body"])) if post else []
    lint.check(post is not None, path, "no %post section")
    return {"base": base, "steps": steps, "copied": copied}


# ---- the build script both call ---------------------------------------------------------
def lint_script(lint, script, invocations):
    lint.check(os.path.isfile(script), script, "the build script does not exist")
    if not os.path.isfile(script):
        return
    r = subprocess.run(["bash", "-n", script], capture_output=True, text=True)
    lint.check(r.returncode == 0, script, "bash -n: %s" % r.stderr.strip())
    text = open(script, encoding="utf-8").read()
    for invocation in invocations:
        for option in shlex.split(invocation)[2:]:
            if option.startswith("--"):
                lint.check(re.search(r"(^|\s)%s\)" % re.escape(option), text, re.M) is not None, script,
                           "the recipes pass %s, which the script does not handle" % option)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo")
    parser.add_argument("--dockerfile")
    parser.add_argument("--def", dest="definition")
    parser.add_argument("--script")
    a = parser.parse_args()
    repo = os.path.realpath(a.repo)
    dockerfile = a.dockerfile or os.path.join(repo, "Dockerfile")
    definition = a.definition or os.path.join(repo, "sslat.def")
    script = a.script or os.path.join(repo, SCRIPT_IN_RECIPES)
    lint = Lint()
    d = lint_dockerfile(lint, dockerfile, repo)
    s = lint_definition(lint, definition, repo)

    pair = "%s / %s" % (os.path.basename(dockerfile), os.path.basename(definition))
    lint.check(d["base"] == s["base"], pair, "different base images: %s and %s" % (d["base"], s["base"]))
    lint.check(d["copied"] == s["copied"], pair, "different files copied in: only in the Dockerfile %s, only in "
               "the definition %s" % (sorted(d["copied"] - s["copied"]) or "-", sorted(s["copied"] - d["copied"]) or "-"))
    if d["steps"] != s["steps"]:
        lint.check(False, pair, "the build steps differ:\n  Dockerfile RUN: %s\n  %%post:         %s"
                   % (" ; ".join(d["steps"]), " ; ".join(s["steps"])))
    invocations = [c for c in d["steps"] + s["steps"] if SCRIPT_IN_RECIPES in c.split()]
    lint.check(invocations, pair, "the build steps do not run %s" % SCRIPT_IN_RECIPES)
    for c in invocations:
        lint.check(c.split()[0] == "bash", pair, "run the script as 'bash %s' (%s)" % (SCRIPT_IN_RECIPES, c))
    lint_script(lint, script, invocations)
    lint.check(d["copied"] and any(SCRIPT_IN_RECIPES.startswith(p.rstrip("/") + "/") or p == SCRIPT_IN_RECIPES
                                   for p in d["copied"]), dockerfile, "%s is not copied in" % SCRIPT_IN_RECIPES)

    for p in lint.problems:
        print(p)
    print("lint_recipes: %d checks, %d problem%s (%s, %s, %s)" % (
        lint.checks, len(lint.problems), "" if len(lint.problems) == 1 else "s", dockerfile, definition, script))
    return 1 if lint.problems else 0


if __name__ == "__main__":
    sys.exit(main())
