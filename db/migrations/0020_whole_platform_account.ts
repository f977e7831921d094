import type { Knex } from 'knex';
import { createDigestForgetTriggers } from './0016_account_digests';

/**
 * The whole of the platform's Account (issue 35): the storage of every field of its document that
 * the earlier migrations did not make, as db/stores/platformTables.ts derives it from
 * account/platformAccount.json (this data is what `npx tsx scripts/platformTables.ts` printed then,
 * frozen here: a migration never changes):
 * - ADDED: columns on existing tables (a meter's `smart_device_id`, `units_of_measure`; a meter
 *   point's `measurement_class`, `ldz`; a transaction's `product_code`…);
 * - TABLES: 62 new tables, parents first: arrays of objects (one row per item, `position`), objects
 *   (`one`: one row under the parent, unique), each under its parent's row by a foreign key, and
 *   under the account by `account_id` (a foreign key only where the parent is the account, as 0003
 *   does for nested rows).
 * Types: `decimal` is numeric and its text as sent (`<name>_text`), as 0003's decimals.
 * Also: `ledgers.top_level_form` (db/stores/ledgerForm.ts: the platform's top-level ledger form is
 * stored as a ledger and read back at the top), and the digest's forgetting triggers of 0016 on
 * every new table (the stored digest never outlives the rows it was computed from).
 */
export type Type = 'text' | 'date' | 'timestamptz' | 'decimal' | 'bigint' | 'boolean' | 'jsonb';

export const ADDED: Record<string, Record<string, Type>> = {
  accounts: {"affiliate_subdomain": "text", "billing_attention_of": "text", "billing_customer_reference": "text", "billing_delivery_point_identifier": "text", "billing_email": "text", "billing_sub_name": "text", "business_type": "text", "company_number": "text", "date_of_sale": "date", "is_managed": "boolean", "is_portfolio_lead": "boolean", "language_preference": "text"},
  account_users: {"contact_emails": "jsonb", "credit_assessment_id": "text", "credit_result": "text", "credit_risk_bracket": "text", "credit_score": "bigint", "details": "jsonb", "label": "text", "pronouns": "text", "user_identifier": "text"},
  account_user_preferences: {"opted_into_associated_companies": "boolean", "opted_into_whatsapp": "boolean"},
  properties: {"customer_at_supply_address_to_date": "date", "label": "text", "primary_place_of_residence_since": "date", "property_external_identifier": "text", "supply_delivery_point_identifier": "text"},
  property_administrators: {"address1": "text", "address2": "text", "address3": "text", "address4": "text", "address5": "text", "billing_name": "text", "deceased": "text", "effective_from": "timestamptz", "effective_to": "timestamptz", "postcode": "text", "role": "text"},
  meter_points: {"dc_to_appoint": "text", "export_type": "text", "is_deenergised": "boolean", "last_billed_to_date": "date", "ldz": "text", "mam_to_appoint": "text", "measurement_class": "text", "mop_to_appoint": "text", "regular_reading_cycle": "text", "supply_end_date": "date"},
  agreements: {"agreed_at": "timestamptz", "business_contract_identifier": "text", "rates_agreed_at": "timestamptz"},
  aq_history: {"source": "text"},
  meters: {"last_billed_to_date": "date", "prepay_customer_reference_number": "text", "removed_on": "date", "smart_commissioned_on": "date", "smart_device_id": "text", "units_of_measure": "text"},
  registers: {"last_billed_to_date": "date"},
  reading_history: {"validation_status": "text"},
  ledger_transactions: {"billing_document_identifier": "text", "display_note": "text", "note": "text", "product_code": "text", "reference": "text", "supply_point_identifier": "text", "to_prepay_meter_serial_number": "text"},
  notes: {"external_id": "text", "is_archived": "boolean", "is_pinned": "boolean", "unpin_at": "timestamptz"},
  statements: {"gross_amount": "bigint", "issued_date": "date", "number": "text"},
  debts: {"cais_reference": "text", "campaign": "text", "notes": "text"},
  account_campaigns: {"campaign_name": "text", "expiry_date": "date", "start_date": "date"},
};

export const TABLES: { name: string; parent: string | null; parentColumn: string | null; one: boolean; columns: Record<string, Type> }[] = [
  {"name": "account_account_billing_options", "parent": null, "parentColumn": null, "one": true, "columns": {"period_length": "text", "period_length_multiplier": "bigint", "period_start_day": "bigint", "period_start_month": "bigint", "use_industry_billing": "boolean"}},
  {"name": "account_billing_address", "parent": null, "parentColumn": null, "one": true, "columns": {"administrative_area": "text", "country": "text", "delivery_point_identifier": "text", "dependent_locality": "text", "locality": "text", "name": "text", "organization": "text", "postal_code": "text", "sorting_code": "text", "street_address": "text", "structured_street_address": "jsonb"}},
  {"name": "account_business", "parent": null, "parentColumn": null, "one": true, "columns": {"business_contract_identifier": "text", "business_contract_identifiers": "jsonb", "business_type": "text", "company_name": "text", "company_number": "text", "segment_name": "jsonb"}},
  {"name": "account_business_details", "parent": "account_business", "parentColumn": "account_business_id", "one": false, "columns": {"key": "text", "value": "jsonb"}},
  {"name": "account_business_portfolios", "parent": "account_business", "parentColumn": "account_business_id", "one": false, "columns": {"billing_name": "text"}},
  {"name": "account_business_portfolio_notes", "parent": "account_business_portfolios", "parentColumn": "account_business_portfolio_id", "one": false, "columns": {"body": "text", "created_at": "timestamptz", "external_id": "text", "is_archived": "boolean", "is_pinned": "boolean", "unpin_at": "timestamptz"}},
  {"name": "account_business_portfolio_note_document_paths", "parent": "account_business_portfolio_notes", "parentColumn": "account_business_portfolio_note_id", "one": false, "columns": {"document_path": "text"}},
  {"name": "account_business_portfolio_portfolio_references", "parent": "account_business_portfolios", "parentColumn": "account_business_portfolio_id", "one": false, "columns": {"namespace": "text", "value": "text"}},
  {"name": "account_business_portfolio_portfolio_settings", "parent": "account_business_portfolios", "parentColumn": "account_business_portfolio_id", "one": true, "columns": {"collective_billing": "boolean", "collective_payments": "boolean", "delegate_billing_schedule_to_children": "boolean", "send_collective_bill_constituent_messages": "boolean"}},
  {"name": "account_business_users", "parent": "account_business", "parentColumn": "account_business_id", "one": false, "columns": {"business_roles": "jsonb", "contact_emails": "jsonb", "credit_assessment_id": "text", "credit_result": "text", "credit_risk_bracket": "text", "credit_score": "bigint", "date_of_birth": "date", "deceased": "text", "details": "jsonb", "email": "text", "family_name": "text", "given_name": "text", "label": "text", "landline": "text", "mobile": "text", "salutation": "text", "title": "text", "unable_to_read_meters": "boolean"}},
  {"name": "account_business_user_alternative_phone_numbers", "parent": "account_business_users", "parentColumn": "account_business_user_id", "one": false, "columns": {"phone_number": "text"}},
  {"name": "account_business_user_user_details", "parent": "account_business_users", "parentColumn": "account_business_user_id", "one": false, "columns": {"namespace": "text", "value": "jsonb"}},
  {"name": "commission_contracts", "parent": null, "parentColumn": null, "one": false, "columns": {"affiliate_organisation_name": "text", "commission_type": "text", "effective_from": "date", "effective_to": "date", "mpxn": "text", "standing_charge_uplift": "decimal", "status": "text", "unit_rate_uplift": "decimal", "value": "decimal"}},
  {"name": "complaints", "parent": null, "parentColumn": null, "one": false, "columns": {"complainant_email": "text", "complainant_name": "text", "created_at": "timestamptz", "has_chsr_letter_been_sent": "boolean", "has_eight_week_letter_been_sent": "boolean", "official_entity": "text", "official_reference_number": "text", "official_status": "text", "subtype_of_complaint": "text", "type_of_complaint": "text"}},
  {"name": "complaint_complaint_contacts", "parent": "complaints", "parentColumn": "complaint_id", "one": false, "columns": {"body": "text", "communication_method": "text", "communication_source": "text", "created_at": "timestamptz", "status": "text"}},
  {"name": "consents", "parent": null, "parentColumn": null, "one": false, "columns": {"description": "text", "signed_at": "timestamptz", "type": "jsonb", "value": "text"}},
  {"name": "contribution_agreements", "parent": null, "parentColumn": null, "one": false, "columns": {"active_period_end_date": "date", "active_period_start_date": "date", "amount": "decimal", "interval": "text", "scheme": "text"}},
  {"name": "contribution_agreement_periods", "parent": "contribution_agreements", "parentColumn": "contribution_agreement_id", "one": false, "columns": {"end_date": "date", "fulfilled_at": "timestamptz", "start_date": "date"}},
  {"name": "account_debt", "parent": null, "parentColumn": null, "one": true, "columns": {"agency_name": "text", "cais_reference": "text", "campaign": "text", "is_insolvent": "boolean", "notes": "text", "start_date": "date"}},
  {"name": "account_debt_aged_debt", "parent": "account_debt", "parentColumn": "account_debt_id", "one": false, "columns": {"debt_amount": "decimal", "due_date": "date"}},
  {"name": "deposit_agreements", "parent": null, "parentColumn": null, "one": false, "columns": {"accepted_at": "timestamptz", "deposit_amount": "decimal", "fulfilled_at": "timestamptz", "last_interest_date": "date", "reason": "text"}},
  {"name": "account_fit", "parent": null, "parentColumn": null, "one": true, "columns": {"instruction_reference": "text", "payment_method": "text", "vat_number": "text", "vendor_name": "text"}},
  {"name": "account_fit_installations", "parent": "account_fit", "parentColumn": "account_fit_id", "one": false, "columns": {"fit_id": "text"}},
  {"name": "account_fit_installation_address", "parent": "account_fit_installations", "parentColumn": "account_fit_installation_id", "one": true, "columns": {"county": "text", "line1": "text", "line2": "text", "postcode": "text", "town": "text"}},
  {"name": "account_fit_installation_credit_hold", "parent": "account_fit_installations", "parentColumn": "account_fit_installation_id", "one": true, "columns": {"active_from": "date", "notes": "text", "reason": "text"}},
  {"name": "account_fit_installation_non_eligible_extensions", "parent": "account_fit_installations", "parentColumn": "account_fit_installation_id", "one": false, "columns": {"installed_capacity": "decimal", "reference_number": "bigint"}},
  {"name": "account_fit_meters", "parent": "account_fit", "parentColumn": "account_fit_id", "one": false, "columns": {"extensions": "jsonb", "last_billed_to_date": "date", "make": "text", "model": "text", "mpan": "text", "serial_number": "text", "type": "text"}},
  {"name": "account_fit_meter_transfer_reading", "parent": "account_fit_meters", "parentColumn": "account_fit_meter_id", "one": true, "columns": {"reading_date": "date", "reading_value": "decimal"}},
  {"name": "partner_organisations", "parent": null, "parentColumn": null, "one": false, "columns": {"organisation_number": "text", "role": "jsonb", "source_reference_s3_key": "text", "valid_from": "timestamptz", "valid_to": "timestamptz"}},
  {"name": "payment_adequacy_changes", "parent": null, "parentColumn": null, "one": false, "columns": {"applied_at": "timestamptz", "average_monthly_charge": "bigint", "average_monthly_elec_charge": "bigint", "average_monthly_gas_charge": "bigint", "balance_adjustment": "bigint", "created_at": "timestamptz", "current_balance": "bigint", "existing_direct_debit_payment": "bigint", "new_direct_debit": "bigint", "should_not_be_applied_reason": "text", "target_balance": "bigint"}},
  {"name": "payment_adequacy_change_ledger", "parent": "payment_adequacy_changes", "parentColumn": "payment_adequacy_change_id", "one": true, "columns": {"ledger_code": "text", "ledger_identifier": "text"}},
  {"name": "payment_plans", "parent": null, "parentColumn": null, "one": false, "columns": {"accepted_at": "timestamptz", "schedule_means": "text", "strategy_name": "text"}},
  {"name": "payment_plan_payments", "parent": "payment_plans", "parentColumn": "payment_plan_id", "one": false, "columns": {"payment_date": "date", "total_amount": "bigint"}},
  {"name": "payment_plan_payment_amount_components", "parent": "payment_plan_payments", "parentColumn": "payment_plan_payment_id", "one": false, "columns": {"amount": "bigint", "component_type": "text"}},
  {"name": "payment_promises", "parent": null, "parentColumn": null, "one": false, "columns": {"amount": "decimal", "ledger_code": "text", "payment_date": "date"}},
  {"name": "account_portfolio", "parent": null, "parentColumn": null, "one": true, "columns": {"billing_name": "text"}},
  {"name": "account_portfolio_notes", "parent": "account_portfolio", "parentColumn": "account_portfolio_id", "one": false, "columns": {"body": "text", "created_at": "timestamptz", "external_id": "text", "is_archived": "boolean", "is_pinned": "boolean", "unpin_at": "timestamptz"}},
  {"name": "account_portfolio_note_document_paths", "parent": "account_portfolio_notes", "parentColumn": "account_portfolio_note_id", "one": false, "columns": {"document_path": "text"}},
  {"name": "account_portfolio_portfolio_references", "parent": "account_portfolio", "parentColumn": "account_portfolio_id", "one": false, "columns": {"namespace": "text", "value": "text"}},
  {"name": "account_portfolio_portfolio_settings", "parent": "account_portfolio", "parentColumn": "account_portfolio_id", "one": true, "columns": {"collective_billing": "boolean", "collective_payments": "boolean", "delegate_billing_schedule_to_children": "boolean", "send_collective_bill_constituent_messages": "boolean"}},
  {"name": "account_user_alternative_phone_numbers", "parent": "account_users", "parentColumn": "account_user_id", "one": false, "columns": {"phone_number": "text"}},
  {"name": "account_user_consents", "parent": "account_users", "parentColumn": "account_user_id", "one": false, "columns": {"description": "text", "signed_at": "timestamptz", "type": "jsonb", "value": "text"}},
  {"name": "account_user_metadata", "parent": "account_users", "parentColumn": "account_user_id", "one": false, "columns": {"key": "text", "value": "jsonb"}},
  {"name": "account_user_user_details", "parent": "account_users", "parentColumn": "account_user_id", "one": false, "columns": {"namespace": "text", "value": "jsonb"}},
  {"name": "property_metadata", "parent": "properties", "parentColumn": "property_id", "one": false, "columns": {"key": "text", "value": "jsonb"}},
  {"name": "meter_point_agents", "parent": "meter_points", "parentColumn": "meter_point_id", "one": true, "columns": {}},
  {"name": "meter_point_agents_da_contract", "parent": "meter_point_agents", "parentColumn": "meter_point_agents_id", "one": true, "columns": {"agent_mpid": "text", "contract_reference": "text", "is_amr": "boolean", "is_customer_appointed": "boolean", "service_level_reference": "text", "service_reference": "text"}},
  {"name": "meter_point_agents_dc_contract", "parent": "meter_point_agents", "parentColumn": "meter_point_agents_id", "one": true, "columns": {"agent_mpid": "text", "contract_reference": "text", "is_amr": "boolean", "is_customer_appointed": "boolean", "service_level_reference": "text", "service_reference": "text"}},
  {"name": "meter_point_agents_mop_contract", "parent": "meter_point_agents", "parentColumn": "meter_point_agents_id", "one": true, "columns": {"agent_mpid": "text", "contract_reference": "text", "is_amr": "boolean", "is_customer_appointed": "boolean", "service_level_reference": "text", "service_reference": "text"}},
  {"name": "meter_point_capacity_values", "parent": "meter_points", "parentColumn": "meter_point_id", "one": false, "columns": {"effective_from_date": "date", "effective_to_date": "date", "value": "decimal"}},
  {"name": "meter_point_ccl_exemptions", "parent": "meter_points", "parentColumn": "meter_point_id", "one": false, "columns": {"effective_from": "date", "effective_to": "date", "rate": "decimal"}},
  {"name": "meter_point_configuration_periods", "parent": "meter_points", "parentColumn": "meter_point_id", "one": false, "columns": {"effective_from_date": "date", "effective_to_date": "date", "energisation_status": "text", "gsp": "text", "llf": "text", "measurement_class": "text", "mtc": "bigint", "profile_class": "bigint", "ssc": "text"}},
  {"name": "meter_point_smart_site_visit", "parent": "meter_points", "parentColumn": "meter_point_id", "one": false, "columns": {"additional_data": "jsonb", "appointment_notes": "text", "date": "date", "metering_agent": "text", "reference_number": "text", "status": "text", "work_category": "text"}},
  {"name": "meter_point_vat_exemptions", "parent": "meter_points", "parentColumn": "meter_point_id", "one": false, "columns": {"effective_from": "date", "effective_to": "date", "rate": "decimal"}},
  {"name": "agreement_bespoke_tariff_rates", "parent": "agreements", "parentColumn": "agreement_id", "one": false, "columns": {"meter_serial_number": "text", "payment_method": "text", "standing_charge": "decimal", "unit_rate": "decimal"}},
  {"name": "agreement_bespoke_tariff_rate_registers", "parent": "agreement_bespoke_tariff_rates", "parentColumn": "agreement_bespoke_tariff_rate_id", "one": false, "columns": {"rate_type": "text", "register_id": "text", "start_time": "text", "unit_rate": "decimal"}},
  {"name": "agreement_characteristics", "parent": "agreements", "parentColumn": "agreement_id", "one": false, "columns": {"code": "text", "value": "text"}},
  {"name": "agreement_intermediary", "parent": "agreements", "parentColumn": "agreement_id", "one": true, "columns": {"external_id": "text", "portfolio_number": "text"}},
  {"name": "agreement_rate_overrides", "parent": "agreements", "parentColumn": "agreement_id", "one": false, "columns": {"rate_band": "text", "unit_price": "decimal"}},
  {"name": "ledger_transaction_line_items", "parent": "ledger_transactions", "parentColumn": "ledger_transaction_id", "one": false, "columns": {"end_date": "date", "external_rate_identifier": "text", "net_amount": "decimal", "number_of_units": "decimal", "params": "jsonb", "price_per_unit": "decimal", "rate_band": "text", "rate_specification_code": "text", "start_date": "date", "time_series_specification_code": "text", "units": "jsonb"}},
  {"name": "ledger_transaction_tax_items", "parent": "ledger_transactions", "parentColumn": "ledger_transaction_id", "one": false, "columns": {"amount": "decimal", "params": "jsonb", "rate": "decimal", "tax_type": "text", "unit_type": "text", "value_taxed": "decimal"}},
  {"name": "payment_schedule_instalments", "parent": "payment_schedules", "parentColumn": "payment_schedule_id", "one": false, "columns": {"amount": "decimal", "payment_date": "date", "payment_type": "text"}},
];

function column(t: Knex.TableBuilder, name: string, type: Type): void {
  if (type === 'decimal') {
    t.decimal(name, null);
    t.text(`${name}_text`);
  } else if (type === 'timestamptz') t.timestamp(name, { useTz: true });
  else t.specificType(name, type);
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ledgers', (t) => {
    t.boolean('top_level_form');
  });
  for (const [table, columns] of Object.entries(ADDED)) {
    await knex.schema.alterTable(table, (t) => {
      for (const [name, type] of Object.entries(columns)) column(t, name, type);
    });
  }
  for (const { name, parent, parentColumn, one, columns } of TABLES) {
    await knex.schema.createTable(name, (t) => {
      // Constraint and index names of their own: knex's defaults would pass PostgreSQL's 63 characters.
      t.bigIncrements('id').primary({ constraintName: `${name}_pkey` });
      const accountId = t.bigInteger('account_id').notNullable();
      if (parent === null) accountId.references('id').inTable('accounts').onDelete('CASCADE').withKeyName(`${name}_account_fk`);
      t.index(['account_id'], `${name}_account`);
      if (!one) t.integer('position').notNullable();
      if (parent !== null) {
        t.bigInteger(parentColumn!).notNullable().references('id').inTable(parent).onDelete('CASCADE').withKeyName(`${name}_parent_fk`);
        if (one) t.unique([parentColumn!], { indexName: `${name}_one` });
        else t.index([parentColumn!], `${name}_parent`);
      } else if (one) t.unique(['account_id'], { indexName: `${name}_one` });
      for (const [c, type] of Object.entries(columns)) column(t, c, type);
    });
    await createDigestForgetTriggers(knex, name);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const { name } of [...TABLES].reverse()) await knex.schema.dropTable(name);
  for (const [table, columns] of Object.entries(ADDED)) {
    await knex.schema.alterTable(table, (t) => {
      for (const [name, type] of Object.entries(columns)) {
        t.dropColumn(name);
        if (type === 'decimal') t.dropColumn(`${name}_text`);
      }
    });
  }
  await knex.schema.alterTable('ledgers', (t) => {
    t.dropColumn('top_level_form');
  });
}
