import { CATALOGUE } from '../../../events/catalogue';
import { subjectFor } from '../../../events/subjects';

describe('subjectFor', () => {
  it('appends the type and the version to the prefix', () => {
    expect(subjectFor('events', 'account.created', 'v1')).toBe('events.account.created.v1');
  });

  it('keeps hyphens in the type and writes dots of a version as underscores', () => {
    expect(subjectFor('events', 'lifecycle.support-site.sale', '1.0.0')).toBe('events.lifecycle.support-site.sale.1_0_0');
  });

  it('refuses tokens that are empty, wildcards or contain whitespace', () => {
    expect(() => subjectFor('events', 'account..created', 'v1')).toThrow(RangeError);
    expect(() => subjectFor('events.>', 'account.created', 'v1')).toThrow(RangeError);
    expect(() => subjectFor('events', 'account.*', 'v1')).toThrow(RangeError);
    expect(() => subjectFor('my events', 'account.created', 'v1')).toThrow(RangeError);
  });

  it('gives every catalogue entry its own subject', () => {
    const subjects = CATALOGUE.map((e) => subjectFor('events', e.type, e.version));
    expect(new Set(subjects).size).toBe(CATALOGUE.length);
  });

  it('puts exactly the data_import events under events.data_import.>', () => {
    const dataImport = CATALOGUE.filter((e) => subjectFor('events', e.type, e.version).startsWith('events.data_import.'));
    for (const entry of CATALOGUE) {
      expect([entry.type, subjectFor('events', entry.type, entry.version).startsWith('events.data_import.')]).toEqual([
        entry.type,
        entry.type.startsWith('data_import.'),
      ]);
    }
    expect(dataImport.length).toBe(10);
  });
});
