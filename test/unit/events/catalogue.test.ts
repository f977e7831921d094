import { CATALOGUE, findEntry, schemaId, validatePayload, type EventPayloads } from '../../../events/catalogue';

function exampleOf(type: string, version: string): Record<string, unknown> {
  const entry = findEntry(type, version);
  if (!entry) throw new Error(`no entry ${type}-${version}`);
  return { ...(entry.example as Record<string, unknown>) };
}

describe('catalogue entries', () => {
  it.each(CATALOGUE.map((e) => [`${e.type}-${e.version}`, e] as const))('%s: its example validates', (_key, entry) => {
    expect(validatePayload(entry.type, entry.version, entry.example)).toEqual({ ok: true });
  });

  it('gives every schema a stable $id naming its type and version', () => {
    const ids = CATALOGUE.map((e) => (e.schema as { $id?: string }).$id);
    expect(new Set(ids).size).toBe(CATALOGUE.length);
    expect(findEntry('account.created', 'v1')?.schema.$id).toBe(
      'https://schemas.data-import.local/events/account.created/v1.json',
    );
    for (const entry of CATALOGUE) expect(entry.schema.$id).toBe(schemaId(entry.type, entry.version));
  });

  it('finds nothing for a type-version the catalogue does not list', () => {
    expect(findEntry('account.created', 'v2')).toBeUndefined();
    expect(findEntry('account.exploded', 'v1')).toBeUndefined();
  });
});

describe('validatePayload', () => {
  it('accepts account.created-v1 with or without is_imported', () => {
    const withFlag = { account_number: 'A-3F9C21B7', account_user_emails: ['jo@example.com'], is_imported: true };
    const { is_imported: _flag, ...withoutFlag } = withFlag;
    expect(validatePayload('account.created', 'v1', withFlag)).toEqual({ ok: true });
    expect(validatePayload('account.created', 'v1', withoutFlag)).toEqual({ ok: true });
  });

  it('rejects an extra field on every closed entry, naming the field', () => {
    for (const entry of CATALOGUE.filter((e) => !e.partial)) {
      const result = validatePayload(entry.type, entry.version, { ...exampleOf(entry.type, entry.version), surplus: 1 });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors).toContainEqual(expect.stringMatching(/^surplus: additionalProperties /));
    }
  });

  it('rejects a payload missing any required top-level field, naming it', () => {
    for (const entry of CATALOGUE) {
      for (const field of (entry.schema as { required?: string[] }).required ?? []) {
        const { [field]: _dropped, ...rest } = exampleOf(entry.type, entry.version);
        const result = validatePayload(entry.type, entry.version, rest);
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.errors).toContainEqual(expect.stringMatching(new RegExp(`^${field}: required `)));
      }
    }
  });

  it('reports every error of a payload with dot paths into nested shared types', () => {
    const payload = exampleOf('account_user.psr_records_updated', 'v1');
    const result = validatePayload('account_user.psr_records_updated', 'v1', {
      ...payload,
      user_id: 'not-a-number',
      created_records: [{ description: 'Blind', electricity_industry_code: '01', gas_industry_code: 7 }],
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.map((e) => e.split(' ')[0] + ' ' + e.split(' ')[1])).toEqual([
        'user_id: type',
        'created_records.0.gas_industry_code: type',
      ]);
    }
  });

  it('rejects integers given as fractions and free-form obj fields given as arrays', () => {
    const business = validatePayload('business.updated', 'v1', { id: 1.5, changes: [] });
    expect(business.ok).toBe(false);
    if (!business.ok) {
      expect(business.errors).toContainEqual(expect.stringMatching(/^id: type /));
      expect(business.errors).toContainEqual(expect.stringMatching(/^changes: type /));
    }
  });

  it('lets the cut-off entry carry fields the spec does not show, but not omit the ones it shows', () => {
    const example = exampleOf('meterpoint.gas.disputed_opening_reading.queried.by_us', 'v1');
    expect(
      validatePayload('meterpoint.gas.disputed_opening_reading.queried.by_us', 'v1', { ...example, comments: 'x' }),
    ).toEqual({ ok: true });
    const { criteria: _criteria, ...withoutCriteria } = example;
    expect(validatePayload('meterpoint.gas.disputed_opening_reading.queried.by_us', 'v1', withoutCriteria).ok).toBe(
      false,
    );
  });

  it('rejects an unknown type-version with unknown_event', () => {
    expect(validatePayload('account.created', 'v9', {})).toEqual({
      ok: false,
      errors: [expect.stringMatching(/^non_field_errors: unknown_event /)],
    });
  });
});

describe('EventPayloads', () => {
  it('types each payload from its schema', () => {
    const created: EventPayloads['account.created-v1'] = { account_number: 'A-1', account_user_emails: [] };
    const sale: EventPayloads['lifecycle.support-site.sale-1.0.0'] = {
      support_user_id: '12',
      supply_start_date: '2026-12-01',
      trigger_action: 'SALE',
    };
    // @ts-expect-error is_imported is a boolean (checked by tsc, not at run time)
    const wrong: EventPayloads['account.created-v1'] = { account_number: 'A-1', account_user_emails: [], is_imported: 'yes' };
    expect(validatePayload('account.created', 'v1', created)).toEqual({ ok: true });
    expect(validatePayload('lifecycle.support-site.sale', '1.0.0', sale)).toEqual({ ok: true });
    expect(validatePayload('account.created', 'v1', wrong).ok).toBe(false);
  });
});
