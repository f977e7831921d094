/**
 * The Account's supply: its supply addresses, their meter points (agreements, consumption
 * history, smart interest) and meters (registers, readings, prepay details), with their value sets.
 */
import { Type, type Static } from '@sinclair/typebox';
import { withPlatformValues as platform } from '../platformAccount';
import { obj, arr, Text, Code, DateStr, Decimal, Enum, Opt, addressLines, LIMITS } from './common';
import { PropertyAdministratorSchema } from './customers';

export const SUPPLY_TYPES = ['ELECTRICITY', 'GAS'] as const;
// Value sets: account/schema.ts tells how the spec's and the platform's values are joined.
const METER = 'supply_addresses.*.meter_points.*.meters.*';
const MP = 'supply_addresses.*.meter_points.*';
const SMART_INTEREST = `${MP}.smart_refusal_interest`;
export const READING_TYPES = platform(['CUSTOMER', 'ROUTINE', 'ESTIMATED', 'SMART', 'DEEMED', 'INDUSTRY'], `${METER}.reading_history.*.reading_type`);
export const SMART_TYPES = platform(['SMETS1', 'SMETS2'], `${METER}.smart_type`);
export const SMART_INTEREST_TYPES = platform(['INTERESTED', 'NOT_INTERESTED', 'REFUSED'], `${SMART_INTEREST}.type`);
export const SMART_REFUSAL_REASONS = platform(
  ['DO_NOT_OWN_HOME', 'HEALTH_CONCERNS', 'PRIVACY_CONCERNS', 'NO_BENEFIT', 'ACCESS_ISSUES', 'OTHER'],
  `${SMART_INTEREST}.refusal_reason`,
);
export const CONTACT_SOURCES = platform(['EMAIL', 'PHONE', 'POST', 'ONLINE', 'SMS', 'FIELD_VISIT'], `${SMART_INTEREST}.source`);

export const AgreementSchema = obj('Agreement', {
  tariff_code: Code(128),
  effective_from: DateStr(),
  effective_to: Opt(DateStr()),
}, `${MP}.agreements.*`);

export const RegisterSchema = obj('Register', {
  register_id: Code(32),
  tpr: Opt(Code(8)),
  number_of_digits: Opt(Type.Integer({ minimum: 1, maximum: 15 })),
  is_settlement: Opt(Type.Boolean()),
}, `${METER}.registers.*`);

/** The fields a transfer reading and a historical reading share. */
const readingFields = () => ({
  register_id: Opt(Code(32)),
  reading_date: DateStr(),
  reading_value: Decimal(),
  reading_type: Enum(READING_TYPES),
});

export const TransferReadingSchema = obj('TransferReading', readingFields(), `${METER}.transfer_readings.*`);

export const HistoricalReadingSchema = obj('HistoricalReading', {
  ...readingFields(),
  billed: Opt(Type.Boolean()),
}, `${METER}.reading_history.*`);

export const GasDebtRepaymentOptionsSchema = obj('GasDebtRepaymentOptions', {
  weekly_min: Opt(Decimal()),
  weekly_max: Opt(Decimal()),
}, `${METER}.prepay_details.gas_debt_repayment_options`);

export const PrepayDetailsSchema = obj('PrepayDetails', {
  debt_balance: Opt(Decimal()),
  credit_balance: Opt(Decimal()),
  transfer_vend_read_date: Opt(DateStr()),
  gas_debt_repayment_options: Opt(GasDebtRepaymentOptionsSchema),
}, `${METER}.prepay_details`);

export const MeterSchema = obj('Meter', {
  meter_serial_number: Code(64),
  installed_on: Opt(DateStr()),
  registers: Opt(arr(RegisterSchema, LIMITS.registers)),
  gas_number_of_digits: Opt(Type.Integer({ minimum: 1, maximum: 15 })),
  smart_type: Opt(Enum(SMART_TYPES)),
  transfer_readings: Opt(arr(TransferReadingSchema, LIMITS.transferReadings)),
  reading_history: Opt(arr(HistoricalReadingSchema, LIMITS.readings)),
  is_prepay: Opt(Type.Boolean()),
  prepay_details: Opt(PrepayDetailsSchema),
}, METER);

export const SmartRefusalInterestSchema = obj('SmartRefusalInterest', {
  type: Enum(SMART_INTEREST_TYPES),
  date: Opt(DateStr()),
  refusal_reason: Opt(Enum(SMART_REFUSAL_REASONS)),
  source: Opt(Enum(CONTACT_SOURCES)),
}, SMART_INTEREST);

export const EacSchema = obj('Eac', {
  effective_from: DateStr(),
  tpr: Code(16),
  consumption: Decimal(),
  source: Opt(Text(255)),
}, `${MP}.eac_history.*`);

export const AqSchema = obj('Aq', {
  effective_from: DateStr(),
  effective_to: Opt(DateStr()),
  consumption: Decimal(),
}, `${MP}.aq_history.*`);

export const MeterPointSchema = obj('MeterPoint', {
  identifier: Code(32),
  supply_type: Enum(SUPPLY_TYPES),
  agreements: Opt(arr(AgreementSchema, LIMITS.agreements)),
  mpid: Opt(Code(4)),
  shipper_mpid: Opt(Code(3)),
  supply_start_date: Opt(DateStr()),
  profile_class: Opt(Type.Integer({ minimum: 0, maximum: 8 })),
  ssc: Opt(Text(8)),
  meters: Opt(arr(MeterSchema, LIMITS.meters)),
  et_in_progress: Opt(Type.Boolean()),
  dr_in_progress: Opt(Type.Boolean()),
  smart_refusal_interest: Opt(SmartRefusalInterestSchema),
  eac_history: Opt(arr(EacSchema, LIMITS.history)),
  aq_history: Opt(arr(AqSchema, LIMITS.history)),
}, MP);

export const SupplyAddressSchema = obj('SupplyAddress', {
  supply_address1: Code(512),
  ...addressLines('supply_address', [2, 3, 4, 5]),
  supply_postcode: Code(16),
  is_landlord: Opt(Type.Boolean()),
  customer_at_supply_address_from_date: Opt(DateStr()),
  meter_points: arr(MeterPointSchema, LIMITS.meterPoints),
  property_administrators: Opt(arr(PropertyAdministratorSchema, LIMITS.propertyAdministrators)),
}, 'supply_addresses.*');

export type SupplyAddress = Static<typeof SupplyAddressSchema>;
export type MeterPoint = Static<typeof MeterPointSchema>;
export type Agreement = Static<typeof AgreementSchema>;
export type Meter = Static<typeof MeterSchema>;
export type Register = Static<typeof RegisterSchema>;
export type TransferReading = Static<typeof TransferReadingSchema>;
export type HistoricalReading = Static<typeof HistoricalReadingSchema>;
export type PrepayDetails = Static<typeof PrepayDetailsSchema>;
export type SmartRefusalInterest = Static<typeof SmartRefusalInterestSchema>;
export type Eac = Static<typeof EacSchema>;
export type Aq = Static<typeof AqSchema>;
