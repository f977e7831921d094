import type { Customer } from '../../../account/schema';
import { addDays, dateTime } from '../dates';
import { randomDigits } from '../identifiers';
import { address, landline, mobile, person, TOWNS } from '../people';
import type { FullContext, Json } from './context';

/**
 * The people of a full account (issue 35 areas 2, 5, 10): the owner, partially sighted and on the
 * Priority Services Register (a permanent need for each fuel and a temporary one that has ended),
 * who cannot read the meters; a family member with second-level authority; their consents,
 * credit checks and contact details; the business users (the same two people, as the platform
 * wants them to match); the landlord of the premises; an open complaint with the Ombudsman.
 * `details` (the platform's deprecated map) on one person and `user_details` on the other: the
 * platform refuses both on one person.
 */

const PSR = { partiallySighted: ['26', 'Partially sighted'], postHospital: ['23', 'Temporary: post hospital recovery'] } as const;

function psr(ctx: FullContext): Json[] {
  const since = addDays(ctx.supplyStart, -ctx.rng.int(30, 900));
  const from = dateTime(since, 10, 15);
  const [code, description] = PSR.partiallySighted;
  const [tCode, tDescription] = PSR.postHospital;
  const tFrom = addDays(ctx.today, -ctx.rng.int(200, 400));
  return [
    { elec_industry_code: code, effective_from: from, description, additional_information: 'Large print bills; call before any visit.' },
    { gas_industry_code: code, effective_from: from, description, additional_information: 'Large print bills; call before any visit.' },
    {
      elec_industry_code: tCode,
      effective_from: dateTime(tFrom, 9, 0),
      effective_to: dateTime(addDays(tFrom, ctx.rng.int(60, 120)), 23, 59),
      description: tDescription,
      additional_information: 'Recovering from surgery; no non-urgent visits.',
    },
  ];
}

function credit(ctx: FullContext): Json {
  const score = ctx.rng.int(420, 990);
  return {
    credit_assessment_id: `EXP-${randomDigits(ctx.rng, 9)}`,
    credit_result: score > 560 ? 'PASS' : 'REFER',
    credit_risk_bracket: score > 800 ? 'LOW' : score > 560 ? 'MID' : 'HIGH',
    credit_score: score,
  };
}

function contacts(ctx: FullContext, c: Customer, n: number): Json {
  const alternate = ctx.rng.chance(0.5) ? landline(ctx.rng, ctx.town) : mobile(ctx.rng);
  return {
    alternative_phone_numbers: [{ phone_number: alternate }],
    contact_emails: [`${(c.email ?? 'contact@example.org').split('@')[0]}.work${n}@example.net`],
  };
}

/** The owner (n = 0) and the family member (n = 1) as the customers they are. */
export function fullCustomers(ctx: FullContext, base: Customer[]): Json[] {
  return base.slice(0, 2).map((c, n) => {
    const owner = n === 0;
    const rest: Json = { ...c };
    delete rest.psr;
    const role = owner ? 'ADMIN' : 'LOA_LEVEL_2';
    const identifier = `CUST-${ctx.external}-${n + 1}`;
    return {
      ...rest,
      ...contacts(ctx, c, n),
      ...credit(ctx),
      role,
      account_roles: owner ? ['ADMIN'] : ['LOA_LEVEL_2', 'FRIEND_FAMILY_MEMBER'],
      portfolio_roles: [role],
      label: owner ? 'Director' : 'Shop manager',
      pronouns: ctx.rng.pick(['SHE_HER_HERS', 'HE_HIM_HIS', 'THEY_THEM_THEIRS']),
      deceased: '',
      unable_to_read_meters: owner,
      user_identifier: identifier,
      ...(owner ? { user_details: [{ namespace: 'external_user_id', value: identifier }] } : { details: { external_user_id: identifier } }),
      metadata: [{ key: 'legacy_contact_id', value: { system: 'legacy-crm', id: `C${randomDigits(ctx.rng, 7)}` } }],
      consents: [
        { type: 'MARKETING_EMAIL', value: owner ? 'ACCEPTED' : 'REJECTED', signed_at: dateTime(addDays(ctx.supplyStart, -3), 12, 0), description: 'Given at sign-up by the broker.' },
        { type: 'SMART_DATA_HALF_HOURLY', value: 'ACCEPTED', signed_at: dateTime(addDays(ctx.supplyStart, 10), 16, 30) },
      ],
      customer_preferences: {
        ...(c.customer_preferences ?? {}),
        opted_into_associated_companies: false,
        opted_into_whatsapp: ctx.rng.chance(0.4),
        is_user_psr_consent_obtained: owner,
        ...(owner ? { partner_password: `Bluebell${ctx.rng.int(1, 9)}` } : {}),
      },
      ...(owner ? { psr: psr(ctx) } : {}),
    };
  });
}

/** The business users: the customers again, with their business roles. */
export function businessUsers(customers: Json[]): Json[] {
  const keep = ['given_name', 'family_name', 'email', 'mobile', 'landline', 'title', 'salutation', 'date_of_birth', 'alternative_phone_numbers', 'contact_emails', 'credit_assessment_id', 'credit_result', 'credit_risk_bracket', 'credit_score', 'deceased', 'label', 'unable_to_read_meters', 'user_details', 'details'];
  return customers.map((c, n) => ({
    ...Object.fromEntries(keep.filter((k) => c[k] !== undefined).map((k) => [k, c[k]])),
    business_roles: n === 0 ? ['ADMIN'] : ['LOA_LEVEL_2'],
  }));
}

/** The landlord of the premises (the platform takes one property administrator per address). */
export function landlord(ctx: FullContext): Json {
  const town = ctx.rng.pick(TOWNS);
  const p = person(ctx.rng, town, ctx.today, 7);
  const home = address(ctx.rng, town, ctx.rng.int(1, 200));
  return {
    ...p,
    address1: home.lines[0],
    address2: home.lines[1],
    address3: home.lines[2],
    address4: home.lines[3],
    address5: home.lines[4],
    postcode: home.postcode,
    billing_name: `${p.given_name} ${p.family_name}`,
    role: 'LANDLORD',
    effective_from: dateTime(addDays(ctx.supplyStart, -ctx.rng.int(100, 2_000)), 0, 0),
    effective_to: null,
    deceased: '',
  };
}

export function complaints(ctx: FullContext, owner: Json): Json[] {
  const raised = addDays(ctx.today, -ctx.rng.int(40, 120));
  return [
    {
      complainant_name: `${owner.given_name} ${owner.family_name}`,
      complainant_email: owner.email,
      created_at: dateTime(raised, 10, 12),
      type_of_complaint: 'BILLING',
      subtype_of_complaint: 'ESTIMATED_BILLS',
      has_chsr_letter_been_sent: false,
      has_eight_week_letter_been_sent: true,
      official_entity: 'ENERGY_OMBUDSMAN',
      official_reference_number: `EO-${randomDigits(ctx.rng, 7)}`,
      official_status: 'INVESTIGATING',
      complaint_contacts: [
        { created_at: dateTime(raised, 10, 12), communication_method: 'EMAIL', communication_source: 'CUSTOMER_EMAIL', status: 'OPEN', body: 'Bills estimated for three months although the smart meter sends readings.' },
        { created_at: dateTime(addDays(raised, 9), 15, 40), communication_method: 'LANDLINE', communication_source: 'OUTBOUND_CALL', status: 'REOPENED', body: 'Re-bill offered; customer not satisfied and referred to the Ombudsman.' },
        { created_at: dateTime(addDays(raised, 30), 9, 5), communication_method: 'POST', communication_source: 'LETTER', status: 'DEADLOCK', body: 'Deadlock letter sent.' },
      ],
    },
  ];
}

export function accountConsents(ctx: FullContext): Json[] {
  return [
    { type: 'SMART_DATA_HALF_HOURLY', value: 'ACCEPTED', signed_at: dateTime(addDays(ctx.supplyStart, 10), 16, 30), description: 'Consent for half-hourly settlement and billing.' },
    { type: 'MARKETING_POST', value: 'REJECTED', signed_at: dateTime(addDays(ctx.supplyStart, -3), 12, 0) },
  ];
}
