#!/usr/bin/env python3
"""The layering rule of sslat, checked: which folder may include which.

The rule is the table between the `layering` markers in docs/architecture.md
(the docs are the one source). For every C / CUDA file of a folder in the
table, each `#include "..."` must
  - name its folder ("ir/graph.h", "host/lower.h"; "sslat.h" is the public header),
  - resolve to a file of the tree, and
  - land in its own folder or one the table allows.
Files of one folder form modules (x.c with x.h); the includes between modules
must not form a circle. Exit status 1 lists every violation as FILE:LINE.

Usage: check_layers.py [ROOT]   (default: the repository this script is in)
"""
import os
import re
import sys

SOURCE_SUFFIXES = (".c", ".h", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_table(root):
    """{folder: set of folders it may include}, from docs/architecture.md."""
    path = os.path.join(root, "docs", "architecture.md")
    rows, inside = {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if "<!-- layering -->" in line:
                inside = True
            elif "<!-- end layering -->" in line:
                inside = False
            elif inside and line.startswith("| `"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                folder = cells[0].strip("`")
                rows[folder] = set(re.findall(r"`([^`]+)`", cells[1]))
    if not rows:
        sys.exit("check_layers: no layering table in %s" % path)
    return rows


def resolve(root, name):
    """The repository path an include names, or None."""
    if name == "sslat.h":
        return "include/sslat.h"
    for base in ("engine", ""):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def folder_of(path, folders):
    best = None
    for folder in folders:
        if path.startswith(folder + "/") and (best is None or len(folder) > len(best)):
            best = folder
    return best


def find_cycle(edges):
    """One circle of the module graph as a list of modules, or None."""
    state = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, stack)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    table = read_table(root)
    problems = []
    for folder, allowed in table.items():
        for other in allowed:
            if other not in table and other != "include":
                problems.append("docs/architecture.md: %s may include '%s', which is not in the table"
                                % (folder, other))
    folder_cycle = find_cycle({f: set(a) - {"include"} for f, a in table.items()})
    if folder_cycle:
        problems.append("docs/architecture.md: the table has a circle: " + " -> ".join(folder_cycle))
    modules = {}
    for folder in sorted(table):
        for directory, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.relpath(os.path.join(directory, name), root)
                if folder_of(path, table) != folder:
                    continue  # a subfolder with its own row
                module = os.path.splitext(path)[0]
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        name_included = m.group(1)
                        where = "%s:%d: #include \"%s\"" % (path, number, name_included)
                        if "/" not in name_included and name_included != "sslat.h":
                            problems.append(where + ": name the folder (\"ir/graph.h\")")
                            continue
                        target = resolve(root, name_included)
                        if target is None:
                            problems.append(where + ": names no file of the tree")
                            continue
                        target_folder = "include" if target.startswith("include/") else folder_of(target, table)
                        if target_folder is None:
                            problems.append(where + ": %s is in no folder of the layering table" % target)
                        elif target_folder != folder and target_folder not in table[folder] | {"include"}:
                            problems.append(where + ": %s may not include %s (docs/architecture.md)"
                                            % (folder, target_folder))
                        target_module = os.path.splitext(target)[0]
                        if target_module != module:
                            modules.setdefault(module, set()).add(target_module)
    cycle = find_cycle(modules)
    if cycle:
        problems.append("include circle between modules: " + " -> ".join(cycle))
    for p in problems:
        print(p)
    if problems:
        print("check_layers: %d problem(s)" % len(problems))
        return 1
    print("check_layers: %d folders, every include allowed, no circle" % len(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
