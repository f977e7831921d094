/**
 * Checks the customer e-mail pace of a supplier against its configured rate, from what PostgreSQL
 * recorded (`sent_at` of SENT e-mails): count, span, achieved rate, and the most e-mails recorded
 * in any one-second window. Run after a migration with e-mails on (docs/customer-emails.md):
 *
 *   DATABASE_URL=... npx tsx bench/emailRate.ts DEMO_ENERGY [--since <ISO time>]
 */
import { loadConfig } from '../lib/config';
import { createDb } from '../db/knex';
import { getSupplier } from '../suppliers/store';

async function main() {
  const supplier = process.argv[2] ?? 'DEMO_ENERGY';
  const sinceIdx = process.argv.indexOf('--since');
  const since = sinceIdx > 0 ? new Date(process.argv[sinceIdx + 1]!) : new Date(0);
  const db = createDb(loadConfig().database.url, 2);
  try {
    const s = await getSupplier(db, supplier);
    if (!s) throw new Error(`no supplier ${supplier}`);
    const rows = (await db('customer_email_queue').where({ import_supplier: supplier, status: 'SENT' }).where('sent_at', '>=', since).orderBy('sent_at').select('sent_at')) as { sent_at: Date }[];
    const t = rows.map((r) => r.sent_at.getTime());
    const counts = await db('customer_email_queue').where({ import_supplier: supplier }).where('created_at', '>=', since).select('status').count('* as n').groupBy('status');
    let peak = 0;
    for (let i = 0, j = 0; i < t.length; i++) {
      while (t[i]! - t[j]! >= 1000) j++;
      peak = Math.max(peak, i - j + 1);
    }
    const span = t.length > 1 ? (t.at(-1)! - t[0]!) / 1000 : 0;
    const out = {
      supplier,
      configured_rate_per_second: s.emailRatePerSecond,
      by_status: Object.fromEntries(counts.map((c) => [c.status, Number(c.n)])),
      sent: t.length,
      span_seconds: Number(span.toFixed(3)),
      achieved_rate_per_second: span > 0 ? Number(((t.length - 1) / span).toFixed(3)) : null,
      peak_in_any_one_second: peak,
      minimum_span_at_configured_rate_seconds: Number(((t.length - 1) / s.emailRatePerSecond).toFixed(3)),
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
