import fs from 'node:fs';
import path from 'node:path';
import { PLATFORM_ONLY_FIELDS } from '../../../account/platformFields';

/**
 * docs/platform-compatibility.md lists the platform Account fields this service does not import,
 * for teams to strip in their transform: the list a reader sees is the list the validator reads
 * (account/platformFields.json), no more and no less.
 */
describe('the platform fields listed in docs/platform-compatibility.md', () => {
  const doc = fs.readFileSync(path.join(__dirname, '../../../docs/platform-compatibility.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Platform Account fields this service does not import'), doc.indexOf('## Fuzzing with the platform'));
  const listed = (label: string) => {
    const line = section.split('\n').find((l) => l.startsWith(label)) ?? '';
    return [...line.slice(label.length).matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  };

  it('are exactly the fields of account/platformFields.json, top level and nested', () => {
    const top = listed('Top level:');
    const nested = listed('Nested (`*` is any item of a list):');
    expect(top.length).toBeGreaterThan(0);
    expect(nested.length).toBeGreaterThan(0);
    expect([...top, ...nested].sort()).toEqual([...PLATFORM_ONLY_FIELDS].sort());
    expect(top.every((f) => !f.includes('.'))).toBe(true);
    expect(nested.every((f) => f.includes('.'))).toBe(true);
  });

  it('says how many there are', () => {
    expect(section).toContain(`The platform's Account has ${PLATFORM_ONLY_FIELDS.length} fields`);
  });
});
