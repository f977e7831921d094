import { platformRecord, type FieldOf } from '../../../account/platformAccount';
import { given, text } from '../../../account/rules/loose';

/**
 * The platform's fields typed from the description (issue 50): a read of a platform record by a
 * name the description lacks does not compile. The `@ts-expect-error` lines are the test: `npm run
 * typecheck` (and the test run's type check) fails if any of them compiles, that is if the
 * description-derived types stopped checking field names. Removing a field from
 * account/platformAccount.json fails the type check at each rule and event read of it.
 */
describe('the platform\'s fields, typed from the description', () => {
  it('reads a platform record by the description\'s field names only', () => {
    const mp = platformRecord({ supply_type: 'GAS', ldz: 'NW' }, 'supply_addresses.*.meter_points.*');
    expect(text(mp, 'supply_type')).toBe('GAS');
    expect(given(mp, 'ldz')).toBe(true);
    // @ts-expect-error not a field of the platform's meter point
    expect(text(mp, 'supply_kind')).toBeUndefined();
    // @ts-expect-error the spec's readings are the meter's, not the meter point's
    expect(given(mp, 'reading_history')).toBe(false);
  });

  it('names the fields of a record, the Account\'s own included', () => {
    const rate: FieldOf<'supply_addresses.*.meter_points.*.agreements.*.bespoke_tariff_rates.*'>[] = ['registers', 'unit_rate', 'standing_charge'];
    const account: FieldOf<''>[] = ['is_portfolio_lead', 'transfer_balance'];
    // @ts-expect-error ledgers[] is the spec's form, not a field of the platform's Account
    const spec: FieldOf<''> = 'ledgers';
    expect([...rate, ...account, spec]).toHaveLength(6);
  });

  it('a path the description lacks is not a record', () => {
    // @ts-expect-error no such object in the platform's Account
    expect(platformRecord({}, 'supply_addresses.*.meter_pointz.*')).toEqual({});
  });
});
