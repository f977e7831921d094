#!/usr/bin/env python3
"""Adds lockfile entries for platform-specific optional packages that the registry reachable here
does not serve (it answers 404 for other platforms' binaries, so `npm install` leaves them out of
package-lock.json and `npm ci` then refuses the lock as out of sync). Each added entry carries the
os/cpu/libc of its platform, so npm skips it on every other platform without fetching it.
Run after any `npm install` that changes the lock:  python3 scripts/fix-lockfile.py
"""
import json
import re
import sys

OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd']
CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'loong64', 'riscv64', 'wasm32', 'mips64el']


def platform_of(name):
    tail = name.split('/')[-1]
    parts = tail.split('-')
    entry = {}
    os_ = next((p for p in parts if p in OS), None)
    cpu = next((p for p in parts if p in CPU), None)
    if os_:
        entry['os'] = [os_]
    if cpu:
        entry['cpu'] = [cpu]
    if 'musl' in tail or 'musleabihf' in tail:
        entry['libc'] = ['musl']
    elif 'gnu' in tail or 'gnueabihf' in tail:
        entry['libc'] = ['glibc']
    if 'wasm32' in tail:
        entry['cpu'] = ['wasm32']
    return entry


def main(path='package-lock.json'):
    lock = json.load(open(path))
    pkgs = lock['packages']
    added = []
    for key, meta in list(pkgs.items()):
        for dep, spec in (meta.get('optionalDependencies') or {}).items():
            base = key + '/node_modules/' + dep if key else 'node_modules/' + dep
            if base in pkgs or ('node_modules/' + dep) in pkgs:
                continue
            plat = platform_of(dep)
            if not plat.get('os') and not plat.get('cpu'):
                continue  # not a platform binary: leave it to npm
            version = re.sub(r'^[\^~=]', '', spec)
            pkgs['node_modules/' + dep] = {'version': version, 'optional': True, **plat}
            added.append(dep + '@' + version)
    lock['packages'] = dict(sorted(pkgs.items(), key=lambda kv: (kv[0] != '', kv[0])))
    with open(path, 'w') as f:
        json.dump(lock, f, indent=2)
        f.write('\n')
    print(f'added {len(added)} platform entries' + (': ' + ', '.join(added) if added else ''), file=sys.stderr)


if __name__ == '__main__':
    main(*sys.argv[1:])
