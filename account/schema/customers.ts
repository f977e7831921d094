/**
 * The Account's people: its customers (with their Priority Services Register records and
 * preferences) and a supply address's property administrators, who share the person fields.
 */
import { Type, type Static, type TOptional, type TString } from '@sinclair/typebox';
import { withPlatformValues as platform } from '../platformAccount';
import { obj, arr, Text, Code, DateStr, DayOrInstant, Enum, Opt, LIMITS } from './common';

/**
 * A Priority Services Register record. The platform's `effective_to` (a date or date-time, like
 * `effective_from`; not before it: psr_end_before_start), `description` and `additional_information`
 * (free text; held to 10,000 characters, the platform sets no bound).
 */
export const PsrSchema = obj('Psr', {
  elec_industry_code: Opt(Code(8)),
  gas_industry_code: Opt(Code(8)),
  effective_from: DayOrInstant(),
  effective_to: Opt(DayOrInstant()),
  description: Opt(Text(10_000)),
  additional_information: Opt(Text(10_000)),
}, 'customers.*.psr.*');

export const CustomerPreferencesSchema = obj('CustomerPreferences', {
  opted_into_sms: Opt(Type.Boolean()),
  opted_into_recommended: Opt(Type.Boolean()),
  opted_into_updates: Opt(Type.Boolean()),
  opted_into_third_parties: Opt(Type.Boolean()),
  opted_into_offers: Opt(Type.Boolean()),
  is_user_psr_consent_obtained: Opt(Type.Boolean()),
  // The platform's partner_password: the password agreed with a PSR customer, which anyone calling
  // or visiting on the supplier's behalf gives. A secret: never in events or logs (docs/api.md).
  partner_password: Opt(Code(10)),
}, 'customers.*.customer_preferences');

/** The person fields a customer and a property administrator share, the name's as given. */
const personFields = <R extends boolean>(nameRequired: R) => ({
  given_name: (nameRequired ? Text() : Opt(Text())) as R extends true ? TString : TOptional<TString>,
  family_name: (nameRequired ? Code() : Opt(Code())) as R extends true ? TString : TOptional<TString>,
  email: Opt(Text(254)),
  mobile: Opt(Text(32)),
  landline: Opt(Text(32)),
  date_of_birth: Opt(DateStr()),
  title: Opt(Text(64)),
  salutation: Opt(Text()),
});

/** The platform's roles of a person on an account (power of attorney, carer, levels of authority…). */
export const CUSTOMER_ROLES = platform([], 'customers.*.role');
/** The platform's `deceased` values (its '' too: not reported). */
export const DECEASED_VALUES = platform([], 'customers.*.deceased');

// A customer's name stays required (this service's rule: customer e-mails greet, and the account's
// user rows name, the person); a property administrator's is optional, as on the platform.
export const CustomerSchema = obj('Customer', {
  ...personFields(true),
  psr: Opt(arr(PsrSchema, LIMITS.psr)),
  customer_preferences: Opt(CustomerPreferencesSchema),
  // Vulnerability and authority (issue 35, area 2): the platform's fields, as it documents them.
  unable_to_read_meters: Opt(Type.Boolean()),
  deceased: Opt(Enum(DECEASED_VALUES)),
  role: Opt(Enum(CUSTOMER_ROLES)),
  account_roles: Opt(arr(Enum(CUSTOMER_ROLES), CUSTOMER_ROLES.length)),
  portfolio_roles: Opt(arr(Enum(CUSTOMER_ROLES), CUSTOMER_ROLES.length)),
}, 'customers.*');

export const PropertyAdministratorSchema = obj('PropertyAdministrator', personFields(false), 'supply_addresses.*.property_administrators.*');

export type Customer = Static<typeof CustomerSchema>;
export type Psr = Static<typeof PsrSchema>;
export type PropertyAdministrator = Static<typeof PropertyAdministratorSchema>;
