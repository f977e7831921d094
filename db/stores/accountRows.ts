import type { Account } from './accountTypes';
import type { AccountTable } from './accountColumns';

export type Row = Record<string, unknown>;

type Customer = NonNullable<Account['customers']>[number];
type Administrator = NonNullable<NonNullable<Account['supply_addresses']>[number]['property_administrators']>[number];
type Transaction = NonNullable<NonNullable<Account['ledgers']>[number]['current_statement_transactions']>[number];

function dayAfter(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}
export type AccountRows = Record<AccountTable, Row[]>;

/**
 * PostgreSQL prints a numeric with its scale kept but without a '+' sign, leading zeros or a minus
 * on zero. Decimals already in that form read back from the numeric column; any other spelling
 * (a gas reading '04512') is kept as sent in the `_text` column beside it.
 */
export function isCanonicalDecimal(text: string): boolean {
  return /^-?(0|[1-9]\d*)(\.\d+)?$/.test(text) && !/^-[0.]+$/.test(text);
}

function decimal(name: string, text: string | undefined): Row {
  if (text === undefined || text === null) return { [name]: null, [`${name}_text`]: null };
  return { [name]: text, [`${name}_text`]: isCanonicalDecimal(text) ? null : text };
}

function person(p: Customer | Administrator): Row {
  return {
    given_name: p.given_name,
    family_name: p.family_name,
    email: p.email,
    mobile: p.mobile,
    landline: p.landline,
    date_of_birth: p.date_of_birth,
    title: p.title,
    salutation: p.salutation,
  };
}

export interface PlanInput {
  accountNumber: string;
  importSupplier: string;
  externalAccountNumber: string;
  account: Account;
  userNumbers: string[];
  dunningProcessId: string;
}

/**
 * Turns the payload into rows, one list per table. Every `id` and foreign key holds a LOCAL index
 * into its table's list (account_id holds 0); insertAccount swaps them for allocated ids.
 */
export function planAccountRows(input: PlanInput): AccountRows {
  const { account: a } = input;
  const rows = {} as AccountRows;
  const add = (table: AccountTable, row: Row): number => {
    const list = (rows[table] ??= []);
    if (table !== 'account_references') row.id = list.length;
    if (table !== 'accounts' && table !== 'account_references') row.account_id = 0;
    list.push(row);
    return list.length - 1;
  };

  add('accounts', {
    number: input.accountNumber,
    import_supplier: input.importSupplier,
    external_account_number: input.externalAccountNumber,
    billing_name: a.billing_name,
    billing_address1: a.billing_address1,
    billing_address2: a.billing_address2,
    billing_address3: a.billing_address3,
    billing_address4: a.billing_address4,
    billing_address5: a.billing_address5,
    billing_postcode: a.billing_postcode,
    account_type: a.account_type,
    sales_channel: a.sales_channel,
    sales_subchannel: a.sales_subchannel,
    ...decimal('transfer_balance', a.transfer_balance),
    last_billed_to_date: a.last_billed_to_date,
    last_payment_review_date: a.last_payment_review_date,
    next_bill_due_date: a.next_bill_due_date,
    smart_read_frequency: a.smart_read_frequency,
    smart_read_cycle_day: a.smart_read_cycle_day,
    communication_preference: a.communication_preference,
    document_accessibility: a.document_accessibility,
    is_imported: true,
    unknown_occupier: a.unknown_occupier,
    operations_team_name: a.operations_team_name,
  });

  (a.customers ?? []).forEach((c, position) => {
    const userId = add('account_users', { position, user_number: input.userNumbers[position], ...person(c) });
    if (c.customer_preferences) add('account_user_preferences', { account_user_id: userId, ...c.customer_preferences });
    (c.psr ?? []).forEach((p, i) => {
      // description: filled from reference data by insertAccount.
      add('psr_records', {
        position: i,
        account_user_id: userId,
        elec_industry_code: p.elec_industry_code,
        gas_industry_code: p.gas_industry_code,
        effective_from: p.effective_from,
        description: '',
      });
    });
  });

  (a.supply_addresses ?? []).forEach((s, position) => {
    const propertyId = add('properties', {
      position,
      supply_address1: s.supply_address1,
      supply_address2: s.supply_address2,
      supply_address3: s.supply_address3,
      supply_address4: s.supply_address4,
      supply_address5: s.supply_address5,
      supply_postcode: s.supply_postcode,
      is_landlord: s.is_landlord,
      customer_at_supply_address_from_date: s.customer_at_supply_address_from_date,
    });
    (s.property_administrators ?? []).forEach((p, i) =>
      add('property_administrators', { position: i, property_id: propertyId, ...person(p) }),
    );
    (s.meter_points ?? []).forEach((mp, mpPosition) => {
      const meterPointId = add('meter_points', {
        position: mpPosition,
        property_id: propertyId,
        identifier: mp.identifier,
        supply_type: mp.supply_type,
        mpid: mp.mpid,
        shipper_mpid: mp.shipper_mpid,
        supply_start_date: mp.supply_start_date,
        profile_class: mp.profile_class,
        ssc: mp.ssc,
        et_in_progress: mp.et_in_progress,
        dr_in_progress: mp.dr_in_progress,
      });
      const agreements: { tariff_code: string; effective_from: string; effective_to?: string }[] = mp.agreements ?? [];
      // valid_to (exclusive) is the next agreement's start: validation makes them consecutive. The
      // last one runs open-ended unless the legacy system closed it (effective_to is inclusive).
      const starts = agreements.map((g) => g.effective_from).sort();
      agreements.forEach((g, i) => {
        const next = starts.find((d) => d > g.effective_from);
        add('agreements', {
          position: i,
          meter_point_id: meterPointId,
          tariff_code: g.tariff_code,
          effective_from: g.effective_from,
          effective_to: g.effective_to,
          valid_to: next ?? (g.effective_to ? dayAfter(g.effective_to) : null),
        });
      });
      if (mp.smart_refusal_interest) {
        add('smart_refusal_interests', { meter_point_id: meterPointId, ...mp.smart_refusal_interest });
      }
      (mp.eac_history ?? []).forEach((e, i) =>
        add('eac_history', {
          position: i,
          meter_point_id: meterPointId,
          effective_from: e.effective_from,
          tpr: e.tpr,
          ...decimal('consumption', e.consumption),
          source: e.source,
        }),
      );
      (mp.aq_history ?? []).forEach((q, i) =>
        add('aq_history', {
          position: i,
          meter_point_id: meterPointId,
          effective_from: q.effective_from,
          effective_to: q.effective_to,
          ...decimal('consumption', q.consumption),
        }),
      );
      (mp.meters ?? []).forEach((m, meterPosition) => {
        const meterId = add('meters', {
          position: meterPosition,
          meter_point_id: meterPointId,
          meter_serial_number: m.meter_serial_number,
          installed_on: m.installed_on,
          gas_number_of_digits: m.gas_number_of_digits,
          smart_type: m.smart_type,
          is_prepay: m.is_prepay,
        });
        (m.registers ?? []).forEach((r, i) => add('registers', { position: i, meter_id: meterId, ...r }));
        (m.transfer_readings ?? []).forEach((r, i) =>
          add('transfer_readings', {
            position: i,
            meter_id: meterId,
            register_id: r.register_id,
            reading_date: r.reading_date,
            ...decimal('reading_value', r.reading_value),
            reading_type: r.reading_type,
          }),
        );
        (m.reading_history ?? []).forEach((r, i) =>
          add('reading_history', {
            position: i,
            meter_id: meterId,
            register_id: r.register_id,
            reading_date: r.reading_date,
            ...decimal('reading_value', r.reading_value),
            reading_type: r.reading_type,
            billed: r.billed,
          }),
        );
        const p = m.prepay_details;
        if (p) {
          add('prepay_details', {
            meter_id: meterId,
            ...decimal('debt_balance', p.debt_balance),
            ...decimal('credit_balance', p.credit_balance),
            transfer_vend_read_date: p.transfer_vend_read_date,
            ...decimal('gas_debt_repayment_weekly_min', p.gas_debt_repayment_options?.weekly_min),
            ...decimal('gas_debt_repayment_weekly_max', p.gas_debt_repayment_options?.weekly_max),
          });
        }
      });
    });
  });

  const transaction = (ledgerId: number, statement: 'current' | 'historical') => (t: Transaction, i: number) =>
    add('ledger_transactions', {
      position: i,
      ledger_id: ledgerId,
      statement,
      transaction_id: t.transaction_id,
      transaction_date: t.transaction_date,
      ...decimal('amount', t.amount),
      type: t.type,
      reason: t.reason,
      payment_type: t.payment_type,
    });
  (a.ledgers ?? []).forEach((l, position) => {
    const ledgerId = add('ledgers', {
      position,
      last_statement_closing_date: l.last_statement_closing_date,
      ...decimal('last_statement_balance', l.last_statement_balance),
      last_statement_issue_date: l.last_statement_issue_date,
      ...decimal('ledger_balance', l.ledger_balance),
    });
    (l.current_statement_transactions ?? []).forEach(transaction(ledgerId, 'current'));
    (l.historical_statement_transactions ?? []).forEach(transaction(ledgerId, 'historical'));
  });

  (a.payment_schedules ?? []).forEach((p, position) =>
    add('payment_schedules', {
      position,
      ...decimal('amount', p.amount),
      day_of_month: p.day_of_month,
      frequency: p.frequency,
      means: p.means,
      start_date: p.start_date,
      is_debt_repayment_plan: p.is_debt_repayment_plan,
      debt_repayment_element: p.debt_repayment_element,
      debt_repayment_end_date: p.debt_repayment_end_date,
    }),
  );
  (a.references ?? []).forEach((r) =>
    add('account_references', {
      namespace: r.namespace,
      value: r.value,
      account_number: input.accountNumber,
      import_supplier: input.importSupplier,
      external_account_number: input.externalAccountNumber,
    }),
  );
  (a.notes ?? []).forEach((n, position) => {
    const noteId = add('notes', { position, created_at: n.created_at, body: n.body });
    (n.document_paths ?? []).forEach((d, i) =>
      add('note_documents', { position: i, note_id: noteId, document_path: d.document_path }),
    );
  });
  (a.statements ?? []).forEach((s, position) => add('statements', { position, ...s }));
  (a.warm_home_discount ?? []).forEach((w, position) =>
    add('warm_home_discounts', {
      position,
      tax_year: w.tax_year,
      account_type: w.account_type,
      discount_group: w.group,
    }),
  );
  if (a.dunning_path) {
    add('dunning_paths', {
      path_name: a.dunning_path.path_name,
      start_date: a.dunning_path.start_date,
      dunning_process_id: input.dunningProcessId,
    });
  }
  (a.debts ?? []).forEach((d, position) => {
    const debtId = add('debts', {
      position,
      agency_name: d.agency_name,
      start_date: d.start_date,
      is_insolvent: d.is_insolvent,
    });
    (d.aged_debt ?? []).forEach((x, i) =>
      add('aged_debts', { position: i, debt_id: debtId, ...decimal('debt_amount', x.debt_amount), due_date: x.due_date }),
    );
  });
  (a.account_campaigns ?? []).forEach((c, position) =>
    add('account_campaigns', { position, slug: c.slug, campaign_note: c.campaign_note }),
  );
  (a.metadata ?? []).forEach((m, position) => add('account_metadata', { position, key: m.key, value: m.value }));

  return rows;
}
