import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { SearchAttributeType } from '@temporalio/common';
import * as attributes from '../../workflows/searchAttributes';

describe('search attributes registered by the scripts', () => {
  it('are exactly the keys the workflows set, all Keyword', () => {
    const keys: { name: string; type: string }[] = Object.values(attributes);
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(k.type).toBe(SearchAttributeType.KEYWORD);

    // The flags the start script passes to `temporal server start-dev`, as bash expands them.
    const common = path.join(__dirname, '../../scripts/lib/common.sh');
    const script = `eval "$(sed -n '/^SEARCH_ATTRIBUTES=/,/^for sa in/p' '${common}')"; printf '%s\\n' "\${SEARCH_ATTRIBUTE_FLAGS[@]}"`;
    const out = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
    expect(out.status).toBe(0);
    const flags = out.stdout.trim().split('\n');
    const pairs = Array.from({ length: flags.length / 2 }, (_, i) => `${flags[2 * i]} ${flags[2 * i + 1]}`);
    expect(pairs.sort()).toEqual(keys.map((k) => `--search-attribute ${k.name}=Keyword`).sort());
    expect(fs.readFileSync(common, 'utf8')).toContain('for sa in "${SEARCH_ATTRIBUTES[@]}"; do');
  });
});
