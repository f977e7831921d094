import { IssueList } from './issues';
import { list, okItems, type RuleContext } from './rules/context';
import { integerDigits } from './rules/decimal';
import { meterPoints } from './rules/walk';

/**
 * Warnings: `{detail, code, attr}` items returned with 200/201 that do not stop the import.
 *
 * | code | attr | when |
 * |---|---|---|
 * | customer_without_email | customers.N.email | a customer has no email: no online account can be created |
 * | customer_emails_disabled_for_supplier | import_supplier | the supplier has customer emails turned off: customers get no migration email |
 * | reading_exceeds_register_digits | …readings.N.reading_value | a reading has more significant integer digits than its register's number_of_digits (gas: the meter's gas_number_of_digits) |
 */
export function computeWarnings(ctx: RuleContext, sendCustomerEmails: boolean | undefined): IssueList {
  const warnings = new IssueList();
  for (const [customer, attr] of okItems(ctx, ctx.account.customers, 'customers')) {
    if (customer.email === undefined || customer.email.trim() === '') {
      warnings.add('customer_without_email', `${attr}.email`, 'The customer has no email address: no online account can be created.');
    }
  }
  if (sendCustomerEmails === false) {
    warnings.add('customer_emails_disabled_for_supplier', 'import_supplier', 'Customer emails are turned off for this import supplier.');
  }
  for (const { mp, attr } of meterPoints(ctx)) {
    const meters = list(mp.meters);
    for (let k = 0; k < meters.length; k++) {
      const meter = meters[k];
      const digitsByRegister = new Map<string, number>();
      for (const reg of list(meter.registers)) {
        if (reg.number_of_digits !== undefined) digitsByRegister.set(reg.register_id, reg.number_of_digits);
      }
      const digitsOf = (registerId: string | undefined): number | undefined =>
        mp.supply_type === 'GAS' ? meter.gas_number_of_digits : registerId === undefined ? undefined : digitsByRegister.get(registerId);
      for (const field of ['transfer_readings', 'reading_history'] as const) {
        const readings = list<{ register_id?: string; reading_value: string }>(meter[field]);
        for (let r = 0; r < readings.length; r++) {
          const digits = digitsOf(readings[r].register_id);
          if (digits !== undefined && integerDigits(readings[r].reading_value) > digits) {
            warnings.add(
              'reading_exceeds_register_digits',
              `${attr}.meters.${k}.${field}.${r}.reading_value`,
              `The reading has more than the register's ${digits} digits.`,
            );
          }
        }
      }
    }
  }
  return warnings;
}
