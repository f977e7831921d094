import fs from 'node:fs';
import { deriveFieldCodes, FIELD_CODES, REFRESH, type FieldCodesFile } from '../../../scripts/fieldCodes';

/**
 * account/fieldCodes.json, the codes the rules raise at each Account path (`map init`'s skeleton),
 * is derived from the rules' source by scripts/fieldCodes.ts. Derived again here: a rule added or
 * moved without running the script fails `npm test`.
 */
describe('account/fieldCodes.json: where the rules raise each code', () => {
  let derived: ReturnType<typeof deriveFieldCodes>;
  beforeAll(() => {
    derived = deriveFieldCodes();
  });
  const at = (code: string, file: FieldCodesFile = derived.file) =>
    Object.entries(file.codes)
      .filter(([, codes]) => codes.includes(code))
      .map(([p]) => p)
      .sort();

  it(`is what \`${REFRESH}\` derives from the rules as they are`, () => {
    const committed = fs.readFileSync(FIELD_CODES, 'utf8');
    if (committed === derived.text) return;
    const was = new Set(committed.split('\n'));
    const now = new Set(derived.text.split('\n'));
    const diff = [...[...was].filter((l) => !now.has(l)).map((l) => `- ${l}`), ...[...now].filter((l) => !was.has(l)).map((l) => `+ ${l}`)];
    throw new Error(`account/fieldCodes.json is stale: run \`${REFRESH}\` and commit it.\n${diff.join('\n')}`);
  });

  it('places every call of IssueList.add on a path of the Account', () => {
    expect(derived.calls).toBeGreaterThanOrEqual(140);
    expect(derived.file.unplaced).toEqual([]);
  });

  it('follows an attr through loops, constants, parameters and generators', () => {
    // A parameter (checkPerson) through its two calls: customers and property administrators.
    expect(at('invalid_email')).toEqual(['customers.*.email', 'supply_addresses.*.property_administrators.*.email']);
    // A loop over a literal list of fields.
    expect(at('invalid_phone_number')).toEqual(['customers.*.landline', 'customers.*.mobile', 'supply_addresses.*.property_administrators.*.landline', 'supply_addresses.*.property_administrators.*.mobile']);
    // A generator of records (meterPoints in walk.ts) and a literal index.
    expect(at('active_gas_meter_with_multiple_transfer_readings')).toEqual(['supply_addresses.*.meter_points.*.meters.*.transfer_readings.*']);
    // A generator yielding two forms (debt.ts debtRecords).
    expect(at('debt_collection_agency_name_required')).toEqual(['debt.agency_name', 'debts.*.agency_name']);
    // A field chosen by a condition: both.
    expect(at('psr_invalid_industry_code')).toEqual(['customers.*.psr.*.elec_industry_code', 'customers.*.psr.*.gas_industry_code']);
    // loose.ts each(ctx, pattern): the pattern.
    expect(at('campaign_name_or_slug_not_provided')).toEqual(['account_campaigns.*']);
  });

  it('follows a helper with the arguments of the call that reaches it', () => {
    // entries(ctx, mp, 'configuration_periods', …): the configuration periods', not the capacity values'.
    expect(at('latest_configuration_period_not_open_ended')).toEqual(['supply_addresses.*.meter_points.*.configuration_periods.*.effective_to_date']);
    expect(at('configuration_period_starts_in_future')).toEqual(['supply_addresses.*.meter_points.*.configuration_periods.*.effective_from_date']);
    // checkConsecutive(ctx, list) is called with both lists.
    expect(at('zero_length_periods')).toEqual(['supply_addresses.*.meter_points.*.capacity_values.*.effective_to_date', 'supply_addresses.*.meter_points.*.configuration_periods.*.effective_to_date']);
  });

  it('follows elements through arrays, filters, maps and Maps', () => {
    // topLevel[0], topLevel a filter of TOP_LEVEL_LEDGER_FIELDS, itself spread from TRANSACTION_LISTS.
    expect(at('ledger_forms_mixed')).toEqual(['current_statement_transactions', 'historical_statement_transactions', 'last_statement_balance', 'last_statement_closing_date', 'last_statement_issue_date']);
    // open[1].attr, open a filter of the entries of either exemption list.
    expect(at('multiple_open_ended_tax_exemptions')).toEqual(['supply_addresses.*.meter_points.*.ccl_exemptions.*', 'supply_addresses.*.meter_points.*.vat_exemptions.*']);
    // Pushed by misc.ts's addDocument, returned, pushed again by the validator's existence check.
    expect(at('path_does_not_exist_in_file_store')).toEqual(['notes.*.document_paths.*.document_path', 'statements.*.statement_path']);
    // Ranges set into a Map by scheme, read back by its values().
    expect(at('overlapping_contribution_agreements')).toEqual(['contribution_agreements.*.active_period_start_date']);
    // [...okItems(…)].map(…) passed to takenReferences, which filters and maps it again.
    expect(at('reference_already_exists')).toEqual(['references.*.value']);
  });

  it('holds the periods of END_RULES, and no error about the payload as a whole', () => {
    expect(at('note_unpin_at_earlier_than_creation_date')).toEqual(['business.portfolios.*.notes.*.unpin_at', 'notes.*.unpin_at', 'portfolio.notes.*.unpin_at']);
    expect(Object.keys(derived.file.codes)).not.toContain('non_field_errors');
    expect(Object.keys(derived.file.codes)).toEqual(Object.keys(derived.file.codes).sort());
  });
});
