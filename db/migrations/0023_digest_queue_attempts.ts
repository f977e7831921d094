import type { Knex } from 'knex';

/**
 * The digest filler's queue survives an account it cannot handle (issue 47, item 4; docs/operations.md
 * "Set-aside queue items"). Each attempt is counted and committed BEFORE the work (`attempts`,
 * `attempted_at`), so a worker killed by the account itself (a heap OOM reading it back) still leaves
 * the count behind; a row whose attempts reached the bound is set aside (`set_aside_at`, with
 * `last_error` its reason) and taken by no worker until an operator retries it
 * (`data-import set-aside retry`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE account_digest_pending
    ADD COLUMN attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN attempted_at timestamptz,
    ADD COLUMN last_error text,
    ADD COLUMN set_aside_at timestamptz`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE account_digest_pending
    DROP COLUMN attempts, DROP COLUMN attempted_at, DROP COLUMN last_error, DROP COLUMN set_aside_at`);
}
