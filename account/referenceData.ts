/**
 * Operator-managed reference data used by the Account rules, held in memory by
 * ReferenceDataCache and stored in the `reference_data` table (referenceDataStore.ts).
 */

export type SupplyType = 'ELECTRICITY' | 'GAS';

export const REFERENCE_DATA_KINDS = [
  'tariff_code',
  'tpr',
  'market_participant',
  'psr_needs_code',
  'campaign',
  'dunning_path',
  'reference_namespace',
  'debt_collection_agency',
] as const;
export type ReferenceDataKind = (typeof REFERENCE_DATA_KINDS)[number];

/** One row of reference data. `fuel` only for tariff codes (a tariff belongs to one fuel). */
export interface ReferenceDataRow {
  kind: ReferenceDataKind;
  code: string;
  fuel?: SupplyType | null;
  description?: string | null;
}

export interface ReferenceData {
  tariffCodes: { ELECTRICITY: Set<string>; GAS: Set<string> };
  tprs: Set<string>;
  marketParticipants: Set<string>;
  psrNeedsCodes: Set<string>;
  campaigns: Set<string>;
  dunningPaths: Set<string>;
  referenceNamespaces: Set<string>;
  debtCollectionAgencies: Set<string>;
  /** The version of the rows this was built from, when known (account/fingerprint.ts). */
  version?: string;
}

export function emptyReferenceData(): ReferenceData {
  return {
    tariffCodes: { ELECTRICITY: new Set(), GAS: new Set() },
    tprs: new Set(),
    marketParticipants: new Set(),
    psrNeedsCodes: new Set(),
    campaigns: new Set(),
    dunningPaths: new Set(),
    referenceNamespaces: new Set(),
    debtCollectionAgencies: new Set(),
  };
}

/** Builds the in-memory sets from rows. A tariff row without a fuel counts for both fuels. */
export function buildReferenceData(rows: readonly ReferenceDataRow[]): ReferenceData {
  const data = emptyReferenceData();
  for (const row of rows) {
    switch (row.kind) {
      case 'tariff_code':
        if (row.fuel !== 'GAS') data.tariffCodes.ELECTRICITY.add(row.code);
        if (row.fuel !== 'ELECTRICITY') data.tariffCodes.GAS.add(row.code);
        break;
      case 'tpr':
        data.tprs.add(row.code);
        break;
      case 'market_participant':
        data.marketParticipants.add(row.code);
        break;
      case 'psr_needs_code':
        data.psrNeedsCodes.add(row.code);
        break;
      case 'campaign':
        data.campaigns.add(row.code);
        break;
      case 'dunning_path':
        data.dunningPaths.add(row.code);
        break;
      case 'reference_namespace':
        data.referenceNamespaces.add(row.code);
        break;
      case 'debt_collection_agency':
        data.debtCollectionAgencies.add(row.code);
        break;
    }
  }
  return data;
}

/** PSR needs codes of the industry Priority Services Register list (codes 1–35). */
const PSR_NEEDS: [string, string][] = [
  ['1', 'Nebuliser and apnoea monitor'],
  ['2', 'Heart, lung and ventilator'],
  ['3', 'Dialysis, feeding pump and automated medication'],
  ['4', 'Oxygen concentrator'],
  ['5', 'Stair lift, hoist, electric bed'],
  ['6', 'Poor sense of smell or taste'],
  ['7', 'Pensionable age'],
  ['8', 'Physical impairment'],
  ['9', 'Unable to communicate in English'],
  ['10', 'Developmental condition'],
  ['11', 'Unable to answer door'],
  ['12', 'Dementia'],
  ['13', 'Chronic or serious illness'],
  ['14', 'Medically dependent showering or bathing'],
  ['15', 'Careline or telecare system'],
  ['16', 'Hearing impairment'],
  ['17', 'Speech impairment'],
  ['18', 'Water dependent'],
  ['19', 'Families with young children'],
  ['20', 'Mental health'],
  ['21', 'Additional presence preferred'],
  ['22', 'Temporary: life changes'],
  ['23', 'Temporary: post hospital recovery'],
  ['24', 'Temporary: young adult householder'],
  ['25', 'Blind'],
  ['26', 'Partially sighted'],
  ['27', 'Stoma'],
];
for (let n = 28; n <= 35; n++) PSR_NEEDS.push([String(n), `Industry needs code ${n}`]);

/**
 * Default seed, written by migration 0002 and used by tests: enough to make
 * examples/account-dual-fuel.json valid, plus a realistic handful of each kind.
 * Operators change it with the operator CLI; validators see changes via ReferenceDataCache.
 */
export const DEFAULT_REFERENCE_DATA_ROWS: readonly ReferenceDataRow[] = [
  { kind: 'tariff_code', code: 'E-2R-VAR-22-11-01-M', fuel: 'ELECTRICITY', description: 'Variable, two-rate, November 2022' },
  { kind: 'tariff_code', code: 'E-1R-VAR-22-11-01-M', fuel: 'ELECTRICITY', description: 'Variable, single-rate, November 2022' },
  { kind: 'tariff_code', code: 'G-1R-VAR-22-11-01-M', fuel: 'GAS', description: 'Variable gas, November 2022' },
  { kind: 'tpr', code: '00001', description: 'Standard (all day)' },
  { kind: 'tpr', code: '00002', description: 'Day (Economy 7 day)' },
  { kind: 'tpr', code: '00043', description: 'Night (Economy 7)' },
  { kind: 'tpr', code: '00051', description: 'Off-peak' },
  { kind: 'tpr', code: '00206', description: 'Economy 7 day' },
  { kind: 'tpr', code: '00210', description: 'Economy 7 night' },
  { kind: 'tpr', code: '00221', description: 'Economy 10 off-peak' },
  { kind: 'market_participant', code: 'DEMO', description: 'Demo supplier' },
  { kind: 'market_participant', code: 'DSH', description: 'Demo shipper' },
  { kind: 'market_participant', code: 'LOND', description: 'London distributor' },
  { kind: 'market_participant', code: 'EELC', description: 'Eastern distributor' },
  { kind: 'market_participant', code: 'SWEB', description: 'South Western distributor' },
  ...PSR_NEEDS.map(([code, description]) => ({ kind: 'psr_needs_code' as const, code, description })),
  { kind: 'campaign', code: 'winter-support-2026', description: 'Winter support 2026' },
  { kind: 'reference_namespace', code: 'legacy-crm', description: 'Legacy CRM customer id' },
  { kind: 'reference_namespace', code: 'legacy-billing', description: 'Legacy billing account id' },
  { kind: 'dunning_path', code: 'standard', description: 'Standard dunning path' },
  { kind: 'dunning_path', code: 'vulnerable', description: 'Dunning path for vulnerable customers' },
  { kind: 'dunning_path', code: 'prepay', description: 'Prepay dunning path' },
  { kind: 'debt_collection_agency', code: 'Northgate Recoveries', description: 'Debt collection agency' },
  { kind: 'debt_collection_agency', code: 'Pennine Credit Services', description: 'Debt collection agency' },
];
