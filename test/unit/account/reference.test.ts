import type { DocumentStore } from '../../../account/documents';
import { ELEC, GAS, errorsOf, example, validator } from './helpers';
import { elec, elecMeter, errorsAfter, gas, type Mutate } from './mutate';

describe('reference data rules', () => {
  it.each<[string, Mutate, string[]]>([
    ['an unknown import supplier is import_supplier_not_found', (a) => (a.import_supplier = 'NOPE'), ['import_supplier_not_found@import_supplier']],
    ['a gas tariff on an electricity meter point is tariff_code_not_found', (a) => (elec(a).agreements[0].tariff_code = 'G-1R-VAR-22-11-01-M'), [`tariff_code_not_found@${ELEC}.agreements.0.tariff_code`]],
    [
      'an unknown TPR on a register or an EAC is tpr_not_found',
      (a) => {
        elecMeter(a).registers[0].tpr = '99999';
        elec(a).eac_history[0].tpr = '99999';
      },
      [`tpr_not_found@${ELEC}.meters.0.registers.0.tpr`, `tpr_not_found@${ELEC}.eac_history.0.tpr`],
    ],
    [
      'an unknown mpid or shipper_mpid is market_participant_not_found',
      (a) => {
        elec(a).mpid = 'ZZZZ';
        gas(a).shipper_mpid = 'ZZZ';
      },
      [`market_participant_not_found@${ELEC}.mpid`, `market_participant_not_found@${GAS}.shipper_mpid`],
    ],
    ['an unknown campaign is campaign_not_found', (a) => (a.account_campaigns[0].slug = 'summer-2020'), ['campaign_not_found@account_campaigns.0.slug']],
    ['an unknown dunning path is dunning_path_not_found', (a) => (a.dunning_path = { path_name: 'nope', start_date: '2026-12-01' }), ['dunning_path_not_found@dunning_path.path_name']],
    ['a known dunning path is accepted', (a) => (a.dunning_path = { path_name: 'standard', start_date: '2026-12-01' }), []],
    ['a dunning path starting today is accepted', (a) => (a.dunning_path = { path_name: 'standard', start_date: '2026-11-21' }), []],
    ['a dunning path without a start date is accepted (it starts on import)', (a) => (a.dunning_path = { path_name: 'standard' }), []],
    ['a dunning path starting in the past is date_in_past', (a) => (a.dunning_path = { path_name: 'standard', start_date: '2026-11-20' }), ['date_in_past@dunning_path.start_date']],
    ['an unknown reference namespace is invalid_reference_namespace', (a) => (a.references[0].namespace = 'crm2'), ['invalid_reference_namespace@references.0.namespace']],
    ['an unknown debt collection agency is debt_collection_agency_does_not_exist', (a) => (a.debts = [{ agency_name: 'Nobody Ltd', start_date: '2026-01-01' }]), ['debt_collection_agency_does_not_exist@debts.0.agency_name']],
  ])('%s', async (_name, mutate, expected) => {
    expect(await errorsAfter(mutate)).toEqual(expected);
  });

  it('rejects create for a supplier that is not Ongoing with import_supplier_migration_not_ongoing, but validates', async () => {
    const v = validator({ supplier: { status: 'Paused' } });
    expect(errorsOf(await v.validate(example(), { mode: 'create' }))).toEqual(['import_supplier_migration_not_ongoing@import_supplier']);
    expect(errorsOf(await v.validate(example(), { mode: 'validate' }))).toEqual([]);
  });

  it('reports a reference value used by another account as reference_already_exists', async () => {
    const calls: unknown[] = [];
    const v = validator({
      referenceOwners: async (account, pairs) => {
        calls.push({ account, pairs });
        return pairs.filter((p) => p.value === 'CRM-5512093');
      },
    });
    expect(errorsOf(await v.validate(example(), { mode: 'validate' }))).toEqual(['reference_already_exists@references.0.value']);
    expect(calls).toEqual([
      { account: { importSupplier: 'DEMO_ENERGY', externalAccountNumber: 'LEGACY-100045' }, pairs: [{ namespace: 'legacy-crm', value: 'CRM-5512093' }] },
    ]);
  });

  it('reports a missing document as path_does_not_exist_in_file_store when the supplier enables the check', async () => {
    const asked: string[] = [];
    const store: DocumentStore = {
      exists: async (root, relative) => {
        asked.push(`${root}|${relative}`);
        return relative.startsWith('statements/');
      },
    };
    const v = validator({ documentStore: store, supplier: { checkDocumentExistence: true } });
    expect(errorsOf(await v.validate(example(), { mode: 'validate' }))).toEqual(['path_does_not_exist_in_file_store@notes.0.document_paths.0.document_path']);
    expect(asked.sort()).toEqual(['/srv/documents/demo|notes/100045/letter-2026-06-14.pdf', '/srv/documents/demo|statements/2026/10/LEGACY-100045.pdf']);
  });

  it('does not look documents up when the supplier leaves the check off', async () => {
    let asked = 0;
    const v = validator({ documentStore: { exists: async () => (asked++, false) } });
    expect(errorsOf(await v.validate(example(), { mode: 'validate' }))).toEqual([]);
    expect(asked).toBe(0);
  });
});
