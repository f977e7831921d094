import { addDays, dateTime, monthEnd, monthStart } from '../dates';
import { companyNumber, randomDigits, vatNumber } from '../identifiers';
import { contractIds } from './agreements';
import { fixed, regionOf, type FullContext, type Json } from './context';
import type { Site } from './meterPoints';

/**
 * The business side of a full account (issue 35 areas 8, 10): the company (a Companies House
 * number, a GB VAT number with its check digits, SIC code), its portfolio, the broker that sold the
 * contract (partner organisation and its commission), and the Feed-in Tariff of the roof's solar
 * panels: one installation (its FiT ID and a later, non-eligible extension) measured by a
 * generation meter and the site's SMETS2 export meter, both attached to the installation's
 * extension, paid by BACS.
 */

const KINDS = [
  { kind: 'Bakery', sic: '10710' },
  { kind: 'Café', sic: '56102' },
  { kind: 'Hair Studio', sic: '96020' },
  { kind: 'Florist', sic: '47760' },
  { kind: 'Cycle Repairs', sic: '95290' },
] as const;

const BROKERS = ['Northern Energy Brokers Ltd', 'Pennine Utility Partners LLP', 'Crescent Commercial Energy Ltd'] as const;

export interface Company {
  name: string;
  number: string;
  type: string;
  vat: string;
  sic: string;
  broker: string;
}

export function company(ctx: FullContext, familyName: string): Company {
  const k = ctx.rng.pick(KINDS);
  const type = ctx.rng.pick(['LTD', 'LTD', 'LLP']);
  const scotland = ['Edinburgh', 'Glasgow'].includes(ctx.town.town);
  return {
    name: `${familyName} ${k.kind} ${type === 'LLP' ? 'LLP' : 'Ltd'}`,
    number: companyNumber(ctx.rng, scotland, type === 'LLP'),
    type,
    vat: vatNumber(ctx.rng),
    sic: k.sic,
    broker: ctx.rng.pick(BROKERS),
  };
}

function note(ctx: FullContext, body: string, pinned: boolean): Json {
  const created = addDays(ctx.today, -ctx.rng.int(20, 200));
  return {
    external_id: `PN-${randomDigits(ctx.rng, 8)}`,
    created_at: dateTime(created, ctx.rng.int(8, 17), ctx.rng.int(0, 59)),
    body,
    document_paths: [{ document_path: `/portfolios/${ctx.external}/letter-of-authority.pdf` }],
    is_pinned: pinned,
    unpin_at: dateTime(addDays(created, 90), 0, 0),
    is_archived: false,
  };
}

export function portfolio(ctx: FullContext, c: Company): Json {
  return {
    billing_name: c.name,
    notes: [note(ctx, `Portfolio managed by ${c.broker} under a letter of authority.`, true)],
    portfolio_references: [
      { namespace: 'external-portfolio-reference-id', value: `PF-${c.number}` },
      { namespace: 'portfolio-label', value: `${c.name} sites` },
    ],
    portfolio_settings: { collective_billing: false, collective_payments: false, delegate_billing_schedule_to_children: false, send_collective_bill_constituent_messages: false },
  };
}

export function business(ctx: FullContext, c: Company, users: Json[]): Json {
  const ids = contractIds(ctx.external);
  return {
    company_name: c.name,
    company_number: c.number,
    business_type: c.type,
    segment_name: 'SME',
    // The platform's discriminator: true selects its BusinessWithExistingContracts, which these identifiers are.
    enforce_business_contracts_exist: true,
    business_contract_identifier: ids.ELECTRICITY,
    business_contract_identifiers: [ids.ELECTRICITY, ids.GAS],
    details: [
      { key: 'sic_codes', value: [c.sic] },
      { key: 'vat_number', value: c.vat },
    ],
    portfolios: [portfolio(ctx, c)],
    users,
  };
}

export function partners(ctx: FullContext, c: Company): Json[] {
  const from = addDays(ctx.supplyStart, -ctx.rng.int(20, 60));
  return [
    {
      organisation_number: `ORG-${randomDigits(ctx.rng, 6)}`,
      role: 'BROKER',
      source_reference_s3_key: `partners/${ctx.external}/letter-of-authority.pdf`,
      valid_from: dateTime(from, 0, 0),
      valid_to: dateTime(addDays(from, 3 * 365), 0, 0),
    },
  ];
}

/** The broker's commission: on the electricity a unit and standing charge uplift, on the gas a fixed value. */
export function commissions(ctx: FullContext, c: Company, site: Site): Json[] {
  const renewal = monthStart(ctx.supplyStart, 12);
  return [
    { affiliate_organisation_name: c.broker, mpxn: site.electricity.mpan, effective_from: ctx.supplyStart, effective_to: renewal, status: 'PAID', unit_rate_uplift: fixed(ctx.rng.int(5, 15) / 10, 3), standing_charge_uplift: fixed(ctx.rng.int(5, 30) / 10, 3) },
    { affiliate_organisation_name: c.broker, mpxn: site.gas.mprn, commission_type: 'UNIT_RATE_UPLIFT', value: fixed(ctx.rng.int(60, 240), 2), effective_from: ctx.supplyStart, effective_to: renewal, status: 'PAYABLE' },
  ];
}

export function feedInTariff(ctx: FullContext, c: Company, site: Site, supplyAddress: Json, instructionReference: string): Json {
  const fitId = `FIT${randomDigits(ctx.rng, 8)}`;
  const quarterEnd = monthEnd(ctx.today, -((Number(ctx.today.slice(5, 7)) - 1) % 3) - 1);
  const kw = ctx.rng.int(25, 40) / 10;
  return {
    payment_method: 'BACS',
    vendor_name: 'BOTTOMLINE_PTX',
    instruction_reference: instructionReference,
    vat_number: c.vat,
    installations: [
      {
        fit_id: fitId,
        address: { line1: supplyAddress.supply_address1, line2: supplyAddress.supply_address2, town: ctx.town.town, county: regionOf(ctx).county, postcode: supplyAddress.supply_postcode },
        non_eligible_extensions: [{ reference_number: 2, installed_capacity: fixed(kw / 2, 2) }],
        credit_hold: { active_from: addDays(ctx.today, -ctx.rng.int(5, 40)), reason: 'AWAITING_SIGNED_FIT_PLAN', notes: 'Signed statement of FiT terms not yet returned.' },
      },
    ],
    meters: [
      {
        type: 'GENERATION',
        serial_number: `GEN${randomDigits(ctx.rng, 8)}`,
        make: 'Elster',
        model: 'A100C',
        extensions: [`${fitId}-1`],
        last_billed_to_date: quarterEnd,
        transfer_reading: { reading_date: quarterEnd, reading_value: fixed(kw * 900 * ctx.rng.int(2, 8), 2) },
      },
      {
        type: 'EXPORT',
        serial_number: site.electricity.serial,
        mpan: site.electricity.exportMpan,
        make: 'Landis+Gyr',
        model: 'E470',
        extensions: [`${fitId}-1`],
        last_billed_to_date: quarterEnd,
        transfer_reading: { reading_date: quarterEnd, reading_value: fixed(kw * 400 * ctx.rng.int(1, 4), 2) },
      },
    ],
  };
}
