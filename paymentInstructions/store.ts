import type { Knex } from 'knex';

/** The account's payment instructions in payload order (paymentInstruction.ts). */
export async function paymentInstructionsOf(trx: Knex, accountId: string): Promise<Record<string, unknown>[]> {
  return (await trx('payment_instructions').where({ account_id: accountId }).orderBy('position')) as Record<string, unknown>[];
}

export async function insertPaymentInstruction(trx: Knex, row: Record<string, unknown>): Promise<void> {
  await trx('payment_instructions').insert(row);
}
