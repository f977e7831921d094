import { PLATFORM_ACCOUNT } from '../../../account/platformAccount';
import { servicePaths } from '../../../scripts/platformFields';

/**
 * The service's Account held to the platform's (account/platformAccount.json, derived from the
 * platform's document by scripts/platformFields.ts): every platform field path is a field of this
 * service's Account (account/schema.ts; account/platformSchema.ts builds those it does not write by
 * hand), and every field of this service's is the platform's or one of the spec's own.
 */
const ours = servicePaths();
const platform = Object.keys(PLATFORM_ACCOUNT);

describe("the platform's Account against this service's", () => {
  it('the description holds every field path of the platform Account', () => {
    expect(platform).toHaveLength(642);
    // The two the old depth cap of 12 missed.
    expect(platform).toEqual(expect.arrayContaining([
      'supply_addresses.*.meter_points.*.meters.*.reading_history.*.validation_status',
      'supply_addresses.*.meter_points.*.meters.*.registers.*.last_billed_to_date',
    ]));
  });

  it('every platform path is a field of this service\'s Account', () => {
    expect(platform.filter((p) => !ours.has(p))).toEqual([]);
  });

  it('every field of the service is a platform field, or one of the spec\'s own', () => {
    // The spec's fields the platform's Account has no place for (its ledgers[] form, this service's
    // bank details of a mandate): named, so a new field of either kind is a decision.
    const specOnly = [...ours].filter((p) => PLATFORM_ACCOUNT[p] === undefined).sort();
    // The spec's ledgers[] holds what the platform keeps at the top of the Account: each of its
    // paths is a platform path under `ledgers.*.`, but the ledger's balance.
    const ledgerForm = specOnly.filter((p) => p.startsWith('ledgers'));
    expect(ledgerForm.filter((p) => p !== 'ledgers' && p !== 'ledgers.*.ledger_balance' && PLATFORM_ACCOUNT[p.slice('ledgers.*.'.length)] === undefined)).toEqual([]);
    expect(specOnly.filter((p) => !p.startsWith('ledgers'))).toEqual([
      'payment_instructions.*.bank_account_number',
      'payment_instructions.*.sort_code',
    ]);
  });
});
