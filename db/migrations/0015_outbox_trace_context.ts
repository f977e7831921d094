import type { Knex } from 'knex';

/**
 * The W3C trace context of the step that wrote an event (docs/tracing.md): the relay, in another
 * process and later, publishes the event as a span of the same trace and sends the context on as
 * the message's `traceparent` / `tracestate` headers, so a consumer can continue it. NULL when
 * tracing was off where the event was written (no bytes in the row then: a NULL costs a bit of
 * the null bitmap). Adding nullable columns without a default rewrites nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE outbox ADD COLUMN traceparent text, ADD COLUMN tracestate text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE outbox DROP COLUMN traceparent, DROP COLUMN tracestate');
}
