/**
 * The Account's other records: references, notes and statements, the Warm Home Discount, the
 * dunning path, debts, campaigns and free-form metadata.
 */
import { Type, type Static } from '@sinclair/typebox';
import { freeForm } from '../platformSchema';
import { obj, arr, Text, Code, DateStr, DateTimeStr, Decimal, Enum, Opt, LIMITS } from './common';

export const WHD_ACCOUNT_TYPES = ['CREDIT', 'PREPAY'] as const;
export const WHD_GROUPS = ['CORE', 'CORE_GROUP_1', 'CORE_GROUP_2', 'BROADER'] as const;

export const ReferenceSchema = obj('Reference', {
  namespace: Code(64),
  value: Code(255),
}, 'references.*');

export const DocumentPathSchema = obj('DocumentPath', {
  document_path: Code(1024),
}, 'notes.*.document_paths.*');

export const NoteSchema = obj('Note', {
  created_at: Opt(DateTimeStr()),
  body: Opt(Text(100_000)),
  document_paths: Opt(arr(DocumentPathSchema, LIMITS.documentPaths)),
}, 'notes.*');

export const StatementSchema = obj('Statement', {
  bill_period_from_date: DateStr(),
  bill_period_to_date: DateStr(),
  statement_path: Opt(Code(1024)),
  statement_id: Code(128),
}, 'statements.*');

export const WarmHomeDiscountSchema = obj('WarmHomeDiscount', {
  tax_year: Opt(Code(7)),
  account_type: Opt(Enum(WHD_ACCOUNT_TYPES)),
  group: Opt(Enum(WHD_GROUPS)),
}, 'warm_home_discount.*');

export const DunningPathSchema = obj('DunningPath', {
  path_name: Code(256),
  // Optional, as on the platform; not in the past (date_in_past, as the platform refuses it).
  start_date: Opt(DateStr()),
}, 'dunning_path');

export const AgedDebtSchema = obj('AgedDebt', {
  debt_amount: Opt(Decimal()),
  due_date: Opt(DateStr()),
}, 'debts.*.aged_debt.*');

export const DebtSchema = obj('Debt', {
  agency_name: Opt(Text(256)),
  start_date: Opt(DateStr()),
  is_insolvent: Opt(Type.Boolean()),
  aged_debt: Opt(arr(AgedDebtSchema, LIMITS.records)),
}, 'debts.*');

// A campaign is named by its slug (this service's reference data) or by the platform's campaign_name,
// exactly one of them (campaign_name_and_slug_provided / campaign_name_or_slug_not_provided).
export const AccountCampaignSchema = obj('AccountCampaign', {
  slug: Opt(Code(128)),
  campaign_note: Opt(Text(1000)),
}, 'account_campaigns.*');

export const MetadataSchema = obj('Metadata', {
  key: Code(1024),
  // Free-form by the spec: the one object that accepts any properties.
  value: Type.Object({}, freeForm({ additionalProperties: true })),
}, 'metadata.*');

export type Reference = Static<typeof ReferenceSchema>;
export type Note = Static<typeof NoteSchema>;
export type Statement = Static<typeof StatementSchema>;
export type WarmHomeDiscount = Static<typeof WarmHomeDiscountSchema>;
export type DunningPath = Static<typeof DunningPathSchema>;
export type Debt = Static<typeof DebtSchema>;
export type AccountCampaign = Static<typeof AccountCampaignSchema>;
export type Metadata = Static<typeof MetadataSchema>;
