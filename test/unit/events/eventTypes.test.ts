import { type PayloadOf, validatePayload } from '../../../events/catalogue';
import type { NewEvent } from '../../../events/outbox';

// This file is type-checked by `npm run typecheck` (tsc over test/): each `@ts-expect-error` line
// must be followed by a compile error, or tsc fails with "Unused '@ts-expect-error' directive".
// So the catalogue's payload types reaching the builders is held here, not only at run time.

const place = { key: 'event-types-test', orderingKey: 'event-types-test', occurredAt: new Date('2026-01-01T00:00:00Z') };

describe('events typed by the catalogue at build time', () => {
  it('an event written as its catalogue entry describes it compiles and passes its schema', () => {
    const complete: NewEvent = {
      type: 'data_import.import_process.complete',
      version: 'v1',
      data: { resource_type: 'account', external_identifier: 'LEGACY-1', identifier: 'A-1' },
      ...place,
    };
    const payload: PayloadOf<'account.created', 'v1'> = { account_number: 'A-1', account_user_emails: [], is_imported: true };
    expect(validatePayload(complete.type, complete.version, complete.data)).toEqual({ ok: true });
    expect(validatePayload('account.created', 'v1', payload)).toEqual({ ok: true });
  });

  it('a wrong field, a missing one, a value of another type, an unknown version or type do not compile, and the schema rejects each too', () => {
    const wrongField: NewEvent = {
      type: 'data_import.import_process.complete',
      version: 'v1',
      // @ts-expect-error `identifer` is not a field of data_import.import_process.complete-v1
      data: { resource_type: 'account', external_identifier: 'LEGACY-1', identifer: 'A-1' },
      ...place,
    };
    // @ts-expect-error `identifier` is required (a missing field is reported on the whole event)
    const missingField: NewEvent = {
      type: 'data_import.import_process.complete',
      version: 'v1',
      data: { resource_type: 'account', external_identifier: 'LEGACY-1' },
      ...place,
    };
    const wrongType: PayloadOf<'account.created', 'v1'> = {
      account_number: 'A-1',
      // @ts-expect-error account_user_emails is a list of strings
      account_user_emails: 'someone@example.com',
    };
    const unknownVersion: NewEvent = {
      type: 'data_import.import_process.complete',
      // @ts-expect-error the catalogue has no v99 of this event
      version: 'v99',
      data: { resource_type: 'account', external_identifier: 'LEGACY-1', identifier: 'A-1' },
      ...place,
    };
    const unknownType: NewEvent = {
      // @ts-expect-error no such event type in the catalogue
      type: 'data_import.import_process.finished',
      version: 'v1',
      data: { resource_type: 'account', external_identifier: 'LEGACY-1', identifier: 'A-1' },
      ...place,
    };
    for (const e of [wrongField, missingField, unknownVersion, unknownType]) {
      expect(validatePayload(e.type, e.version, e.data)).toMatchObject({ ok: false });
    }
    expect(validatePayload('account.created', 'v1', wrongType)).toMatchObject({ ok: false });
  });

});
