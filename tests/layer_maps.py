#!/usr/bin/env python3
"""The maps of the source files stay true: the "Layers" section of lib/README.md names every file
of lib/ and cl/ (and their subfolders), and that of cli/README.md every file of cli/ and its
subfolders, once each, as the first cell of a table row; and every source file either section
mentions exists.

Usage: layer_maps.py SOURCE_ROOT. Exit 0 when both maps hold, else 1 with one line per problem."""
import os
import re
import sys


def tree(root, top):
    """top and every folder below it, as paths from the root."""
    out = []
    for path, dirs, _ in os.walk(os.path.join(root, top)):
        dirs.sort()
        out.append(os.path.relpath(path, root))
    return out

MAPS = {'lib/README.md': ['lib', 'cl'], 'cli/README.md': ['cli']}
TOPS = ['lib', 'cl', 'cli', 'tools']
EXTENSIONS = ('.c', '.h', '.cl')
ENTRY = re.compile(r'^\| `([^`]+)` \|')
# a file name anywhere in the section: a path from the root, or a bare name in a source folder
MENTION = re.compile(r'(?<![\w./-])([\w./-]+\.(?:c|h|cl))(?![\w.-])')


def layers_section(text):
    """The lines of the '## Layers' section, up to the next second-level heading."""
    lines = text.split('\n')
    try:
        start = lines.index('## Layers')
    except ValueError:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith('## ')), len(lines))
    return lines[start + 1:end]


def check(root, readme, folders):
    problems = []
    path = os.path.join(root, readme)
    try:
        with open(path, encoding='utf-8') as f:
            section = layers_section(f.read())
    except OSError as e:
        return [f'{readme}: cannot be read: {e.strerror}']
    if section is None:
        return [f'{readme}: no "## Layers" section']

    folders = [f for top in folders for f in tree(root, top)]
    on_disk = set()
    for folder in folders:
        for name in os.listdir(os.path.join(root, folder)):
            if name.endswith(EXTENSIONS) and os.path.isfile(os.path.join(root, folder, name)):
                on_disk.add(f'{folder}/{name}')

    entries = {}
    for number, line in enumerate(section, 1):
        m = ENTRY.match(line)
        if not m or not m.group(1).endswith(EXTENSIONS):
            continue
        name = m.group(1)
        if name in entries:
            problems.append(f'{readme}, Layers: {name} has two rows')
        entries[name] = number
        if os.path.dirname(name) not in folders:
            problems.append(f'{readme}, Layers: {name} is not in {" or ".join(f + "/" for f in folders)}')
        elif name not in on_disk:
            problems.append(f'{readme}, Layers: {name} has a row but no longer exists')
    for name in sorted(on_disk - set(entries)):
        problems.append(f'{readme}, Layers: {name} exists but has no row in the map')

    for line in section:
        for name in MENTION.findall(line):
            if name in entries:
                continue  # an entry's own row: checked above
            if '/' in name:
                found = os.path.isfile(os.path.join(root, name))
            else:
                found = any(os.path.isfile(os.path.join(root, d, name))
                            for top in TOPS for d in tree(root, top))
            if not found:
                problems.append(f'{readme}, Layers: names {name}, which does not exist')
    return sorted(set(problems))


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: layer_maps.py SOURCE_ROOT')
    root = sys.argv[1]
    problems = []
    for readme, folders in MAPS.items():
        found = check(root, readme, folders)
        problems += found
        print(('FAIL ' if found else 'ok   ') + f'{readme} maps every file of '
              + ', '.join(f + '/' for f in folders) + ' and their subfolders')
    for p in problems:
        print('     | ' + p)
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
