/**
 * The restore drill of the hosts harness (issue 38; docs/operations.md, "Backups and restore"):
 *   1. mid-migration, a named restore point on the primary, taken while a SHARE lock on
 *      import_processes holds every writer of it back, so the accounts that have an import at that
 *      moment are known exactly (markRestorePoint);
 *   2. after the book: `pgbackrest check` (the WAL holding the point archived), then
 *      scripts/pg-restore.sh restores the repository to the point on a scratch host (dcs: a
 *      data directory and port of their own), and a service of its own starts on it there — its own
 *      Temporal, NATS and SMTP sink on that host's loopback (nothing of the drill reaches the live
 *      deployment or a customer), an API and a worker;
 *   3. `data-import reconcile` of the book against it must name as missing exactly the accounts
 *      that had no import at the restore point;
 *   4. the imports the restored database holds open get their workflows again on the new Temporal
 *      (`data-import imports resume-restored`), a second `migrate` of the same book brings the missing ones in,
 *      and a second reconcile must find every account matched, with one import, one account row and
 *      one `complete` and one `post_import.completed` each (no duplicates).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createDb } from '../../db/knex';
import { serviceProcessEnv, apiNodeOptions, workerNodeOptions } from '../../lib/nodeOptions';
import { host, Host } from './net';
import { BACKUP_STANZA, DIST, need, pgBackRest, ROOT, Service, sleep, Stack, waitForPort, waitForPortIn } from './stack';

export interface RestoreMark {
  name: string;
  /** The server's clock when the point was taken. */
  at: string;
  /** The book's accounts with an import process at that moment. */
  accounts: Set<string>;
  /** Of them, PROCESSED at that moment. */
  processed: number;
}

const DRILL_PG_PORT = 5433;
const DRILL_API_PORT = 8000;

function psqlAsPg(stack: Stack, socketDir: string, port: number, db: string, sql: string): string {
  const r = spawnSync('setpriv', [`--reuid=${stack.pgUser}`, `--regid=${stack.pgUser}`, '--init-groups', 'psql', '-h', socketDir, '-p', String(port), '-U', 'postgres', '-d', db, '-v', 'ON_ERROR_STOP=1', '-Atq'], { input: sql, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`psql: ${(r.stderr || '').trim().slice(0, 300)}`);
  return r.stdout;
}

/** Takes the named restore point on the primary (its socket, as the superuser); a string: why not. */
export function markRestorePoint(stack: Stack, primary: Host, name: string, prefix: string): RestoreMark | string {
  try {
    const out = psqlAsPg(
      stack,
      path.join(stack.work, primary.name),
      5432,
      'data_import_hosts',
      [
        'BEGIN;',
        "SET LOCAL lock_timeout = '30s';",
        // Every transaction that writes import_processes has committed, and none can start, until COMMIT.
        'LOCK TABLE import_processes IN SHARE MODE;',
        `SELECT 'ACCOUNT ' || external_account_number || ' ' || status FROM import_processes WHERE external_account_number LIKE '${prefix.replace(/'/g, "''")}%';`,
        `SELECT 'POINT ' || pg_create_restore_point('${name}');`,
        "SELECT 'AT ' || clock_timestamp();",
        'COMMIT;',
        '',
      ].join('\n'),
    );
    const lines = out.split('\n');
    const accounts = lines.filter((l) => l.startsWith('ACCOUNT ')).map((l) => l.split(' '));
    const at = lines.find((l) => l.startsWith('AT '))?.slice(3) ?? '?';
    if (!lines.some((l) => l.startsWith('POINT '))) return `no restore point in psql's answer: ${out.slice(0, 200)}`;
    return { name, at, accounts: new Set(accounts.map((a) => a[1]!)), processed: accounts.filter((a) => a[2] === 'PROCESSED').length };
  } catch (err) {
    return String(err);
  }
}

function runIn(h: Host, argv: string[], env: NodeJS.ProcessEnv, logFile: string, timeoutMs: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('ip', ['netns', 'exec', h.ns, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const take = (d: Buffer) => {
      out += String(d);
      fs.appendFileSync(logFile, d);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, out });
    });
  });
}

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

export async function restoreDrill(o: {
  stack: Stack;
  book: string;
  exts: string[];
  mark: RestoreMark;
  supplier: string;
  work: string;
  say: (line: string) => void;
  notes: string[];
  problems: string[];
  runCli: (args: string[], env: NodeJS.ProcessEnv, logFile: string) => Promise<number | null>;
}): Promise<void> {
  const { stack, mark, notes, problems } = o;
  const scratch = host('dcs');
  const dir = path.join(o.work, 'drill');
  const log = path.join(o.work, 'logs', 'restore-drill.log');
  // A scratch directory of its own each time: an earlier drill of the same run (--seeds) left its
  // restored data directory there, stopped, and pg-restore.sh refuses a directory that is not empty.
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const note = (line: string) => {
    notes.push(`pg-restore-drill: ${line}`);
    fs.appendFileSync(log, `[drill] ${line}\n`);
  };
  const expectedMissing = o.exts.filter((e) => !mark.accounts.has(e)).sort();
  note(`restore point ${mark.name} at ${mark.at}: ${mark.accounts.size} of ${o.exts.length} accounts had an import (${mark.processed} PROCESSED), ${expectedMissing.length} had none`);

  // 1. The WAL holding the point in the repository: `check` switches the segment and waits for it.
  const primary = (['pg1', 'pg2'] as const).map(host).find((h) => spawnSync('curl', ['-sk', '-o', '/dev/null', '-w', '%{http_code}', `https://${h.ip}:8008/primary`], { encoding: 'utf8' }).stdout === '200');
  if (!primary) throw new Error('no primary to archive from');
  pgBackRest(stack.pgUser, stack.work, primary, ['check'], log);
  const info = pgBackRest(stack.pgUser, stack.work, primary, ['info'], log);
  const wal = /wal archive min\/max \([^)]*\): (\S+)\/(\S+)/.exec(info);
  const full = /full backup: (\S+)/.exec(info);
  note(`pgBackRest: WAL archived from ${primary.name} (pgbackrest check), backup ${full?.[1] ?? '?'}, WAL ${wal ? `${wal[1]} … ${wal[2]}` : '?'}`);

  // 2. The restore on the scratch host: a data directory and port of its own.
  const cert = stack.pki.issue('drill', { ip: [scratch.ip, '127.0.0.1'] });
  for (const f of ['crt', 'key'] as const) fs.copyFileSync(f === 'crt' ? cert.cert : cert.key, path.join(dir, `server.${f}`));
  const hba = path.join(dir, 'pg_hba.conf');
  fs.writeFileSync(hba, ['local all postgres peer map=admin', 'local data_import_hosts data_import scram-sha-256', 'hostssl data_import_hosts data_import 127.0.0.1/32 scram-sha-256', ''].join('\n'));
  spawnSync('chown', ['-R', stack.pgUser, dir]);
  fs.chmodSync(path.join(dir, 'server.key'), 0o600);
  const t0 = Date.now();
  const restored = await runIn(
    scratch,
    ['bash', path.join(ROOT, 'scripts', 'pg-restore.sh'), '--config', path.join(stack.work, primary.name, 'pgbackrest.conf'), '--stanza', BACKUP_STANZA, '--target-name', mark.name, '--data', path.join(dir, 'data'), '--port', String(DRILL_PG_PORT), '--listen', '127.0.0.1', '--socket-dir', dir, '--hba-file', hba, '--ssl-cert', path.join(dir, 'server.crt'), '--ssl-key', path.join(dir, 'server.key')],
    process.env,
    log,
    600_000,
  );
  for (const l of strip(restored.out).split('\n').filter((x) => /recovery stopping|restored |base backup|selected new timeline|restore backup set/.test(x))) note(`restore: ${l.replace(/^\[data-import\] /, '').replace(/^.*(LOG|INFO): +/, '')}`);
  if (restored.code !== 0) throw new Error(`scripts/pg-restore.sh exited ${restored.code} (${log})`);
  note(`restored and promoted in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  // 3. The service on it, on the scratch host, with a Temporal, NATS and SMTP sink of its own.
  const password = decodeURIComponent(new URL(stack.databaseUrl).password);
  const scratchDbUrl = `postgres://data_import:${encodeURIComponent(password)}@127.0.0.1:${DRILL_PG_PORT}/data_import_hosts?sslmode=verify-full&sslrootcert=${encodeURIComponent(stack.pki.ca)}`;
  const natsConf = path.join(dir, 'nats.conf');
  fs.mkdirSync(path.join(dir, 'nats'), { recursive: true });
  fs.writeFileSync(natsConf, ['server_name: drill', 'listen: 127.0.0.1:4222', 'jetstream {', `  store_dir: ${JSON.stringify(path.join(dir, 'nats'))}`, '  sync_interval: always', '}', ''].join('\n'));
  const smtpSecret = 'drill-' + Math.random().toString(36).slice(2);
  const env = serviceProcessEnv({
    ...stack.env,
    DATABASE_URL: scratchDbUrl,
    NATS_URL: 'nats://127.0.0.1:4222',
    NATS_USER: undefined,
    NATS_PASSWORD: undefined,
    NATS_INBOX_PREFIX: undefined,
    NATS_TLS_CA: undefined,
    EVENTS_REPLICAS: '1',
    TEMPORAL_ADDRESS: '127.0.0.1:7233',
    TEMPORAL_TLS_CA: undefined,
    TEMPORAL_TLS_CERT: undefined,
    TEMPORAL_TLS_KEY: undefined,
    SMTP_URL: `smtp://drill:${smtpSecret}@127.0.0.1:2525`,
    SMTP_TLS_CA: stack.pki.ca,
  });
  const services: Service[] = [];
  const add = (name: string, argv: string[], e: NodeJS.ProcessEnv = process.env) => {
    const s = new Service(`drill-${name}`, scratch, argv, e, path.join(o.work, 'logs', `drill-${name}.log`));
    services.push(s);
    s.start();
    return s;
  };
  const drillDb = createDb(`postgresql://data_import:${encodeURIComponent(password)}@localhost:${DRILL_PG_PORT}/data_import_hosts?host=${encodeURIComponent(dir)}`, 2);
  try {
    const targv = need('HOSTS_TEMPORAL_ARGV').split('\n').filter(Boolean).map((a) => (a === '@IP@' ? '127.0.0.1' : a));
    add('temporal', targv);
    add('nats', [need('HOSTS_NATS_SERVER'), '-c', natsConf]);
    add('smtp', [process.execPath, '--import', 'tsx', path.join(__dirname, 'smtpSink.ts'), '127.0.0.1', '2525', '8025'], { ...process.env, SINK_SMTP_USER: 'drill', SINK_SMTP_PASSWORD: smtpSecret, SINK_HTTP_TOKEN: smtpSecret, SINK_TLS_CERT: cert.cert, SINK_TLS_KEY: cert.key });
    await waitForPortIn(scratch, 7233, 120_000, "the drill's Temporal");
    await waitForPortIn(scratch, 4222, 30_000, "the drill's NATS");
    await waitForPortIn(scratch, 2525, 30_000, "the drill's SMTP sink");
    add('worker', [process.execPath, ...workerNodeOptions(env), path.join(DIST, 'worker', 'main.js')], env);
    add('api', [process.execPath, ...apiNodeOptions(env), path.join(DIST, 'api', 'main.js')], { ...env, HOST: scratch.ip, PORT: String(DRILL_API_PORT), API_TLS_CERT: cert.cert, API_TLS_KEY: cert.key });
    await waitForPort(scratch.ip, DRILL_API_PORT, 120_000, "the drill's API");
    const apiUrl = `https://${scratch.ip}:${DRILL_API_PORT}`;
    note(`the service started on the restored database on ${scratch.name} (API ${apiUrl}, a worker; Temporal, NATS and an SMTP sink of the drill's own on its loopback)`);

    // 4. Reconcile: missing must be exactly the accounts without an import at the point.
    const cliLog = path.join(o.work, 'logs', 'drill-cli.log');
    const reconcile = async (n: number) => {
      const prefix = path.join(dir, `reconcile-${n}`);
      const code = await o.runCli(['reconcile', '--input', o.book, '--api-url', apiUrl, '--api-key', stack.apiKey, '--report', prefix, '--state', `${prefix}.state.ndjson`, '--outage-timeout', '5'], stack.env, cliLog);
      const report = JSON.parse(fs.readFileSync(`${prefix}.json`, 'utf8')) as { accounts: { external_account_number: string; class: string; status?: string }[] };
      const classes = new Map<string, string[]>();
      for (const a of report.accounts) classes.set(a.class, [...(classes.get(a.class) ?? []), a.external_account_number]);
      return { code, classes };
    };
    const first = await reconcile(1);
    const missing = (first.classes.get('missing') ?? []).sort();
    note(`reconcile of the book against the restored database: exit ${first.code}; ${[...first.classes].map(([k, v]) => `${k} ${v.length}`).join(', ')}`);
    note(`named missing: ${missing.length} (${missing.slice(0, 4).join(', ')}${missing.length > 4 ? ', …' : ''}); expected (no import at the restore point): ${expectedMissing.length}; the same set: ${JSON.stringify(missing) === JSON.stringify(expectedMissing) ? 'yes' : 'NO'}`);
    if (JSON.stringify(missing) !== JSON.stringify(expectedMissing)) {
      const extra = missing.filter((m) => !expectedMissing.includes(m));
      const absent = expectedMissing.filter((m) => !missing.includes(m));
      problems.push(`reconcile named ${missing.length} missing, ${expectedMissing.length} expected: named but had an import at the point ${extra.slice(0, 5).join(', ') || '—'}; had none but not named ${absent.slice(0, 5).join(', ') || '—'}`);
    }
    if (missing.length === 0) problems.push('the restore point was taken after every import existed: nothing to bring back (take it earlier)');

    // 5. The open imports' workflows on the new Temporal (the operator's command), then the same
    // book migrated again.
    const resumed = await runIn(scratch, [process.execPath, path.join(DIST, 'cli', 'main.js'), 'imports', 'resume-restored', '--json'], env, log, 120_000);
    let started: string[] = [];
    try {
      const out = JSON.parse(resumed.out.slice(resumed.out.indexOf('{'), resumed.out.lastIndexOf('}') + 1)) as { started: { external_account_number: string; status: string; current_step: string | null }[] };
      started = out.started.map((x) => `${x.external_account_number} (${x.status}${x.current_step ? ` ${x.current_step}` : ''})`);
    } catch {
      problems.push(`the open imports could not be started again (exit ${resumed.code}): ${strip(resumed.out).slice(-300)}`);
    }
    note(`imports open in the restored database started again on the new Temporal: ${started.length}${started.length ? ` (${started.slice(0, 3).join(', ')}${started.length > 3 ? ', …' : ''})` : ''}`);
    const t1 = Date.now();
    const migrated = await o.runCli(
      ['migrate', '--input', o.book, '--api-url', apiUrl, '--api-key', stack.apiKey, '--concurrency', '8', '--poll-interval', '250', '--timeout', '10', '--progress', 'plain', '--state', path.join(dir, 'migrate-2.state.json'), '--report', path.join(dir, 'migrate-2')],
      stack.env,
      cliLog,
    );
    const m2 = JSON.parse(fs.readFileSync(path.join(dir, 'migrate-2.json'), 'utf8')) as { accounts: { external_account_number: string; final_status: string }[] };
    const byStatus = new Map<string, number>();
    for (const a of m2.accounts) byStatus.set(a.final_status, (byStatus.get(a.final_status) ?? 0) + 1);
    note(`second migrate of the same book: exit ${migrated} in ${((Date.now() - t1) / 1000).toFixed(1)} s; ${[...byStatus].map(([k, v]) => `${k} ${v}`).join(', ')}`);
    if (migrated !== 0) problems.push(`the second migrate exited ${migrated}`);

    // 6. Every account once, matched, its post-import follow-ups (the e-mails) done as the live book's.
    const quietBy = Date.now() + 300_000;
    for (;;) {
      const open = Number((await drillDb('import_processes').where({ import_supplier: o.supplier }).whereIn('external_account_number', o.exts).where((q) => q.whereNull('current_step').orWhereNotIn('current_step', ['done', 'post_import_failed'])).count<{ n: string }[]>('* as n'))[0]!.n);
      if (open === 0) break;
      if (Date.now() > quietBy) {
        problems.push(`${open} imports of the restored database still without their post-import done 300 s after the second migrate`);
        break;
      }
      await sleep(1000);
    }
    note(`every import's post-import done ${((Date.now() - t1) / 1000).toFixed(1)} s after the second migrate began`);
    const second = await reconcile(2);
    note(`reconcile again: exit ${second.code}; ${[...second.classes].map(([k, v]) => `${k} ${v.length}`).join(', ')}`);
    // `extra`: accounts of the supplier the book does not hold — the other scenarios' books of the
    // run, in the same database; one of this book's would be a finding.
    const bookPrefix = o.exts[0]!.slice(0, o.exts[0]!.indexOf('-') + 1);
    const wrong = [...second.classes].filter(([k, v]) => k !== 'matched' && !(k === 'extra' && v.every((e) => !e.startsWith(bookPrefix))));
    if (wrong.length > 0 || (second.classes.get('matched') ?? []).length !== o.exts.length) problems.push(`the second reconcile (exit ${second.code}): ${[...second.classes].map(([k, v]) => `${k} ${v.length} (${v.slice(0, 3).join(', ')})`).join('; ')}`);
    else if (second.code !== 0) note(`(exit ${second.code} for the ${(second.classes.get('extra') ?? []).length} extra accounts only: the run's other scenarios' books, in the same database)`);
    const counts = await drillDb.raw(
      `SELECT b.ext,
              (SELECT count(*) FROM import_processes p WHERE p.import_supplier = ? AND p.external_account_number = b.ext)::int AS imports,
              (SELECT count(*) FROM accounts a WHERE a.import_supplier = ? AND a.external_account_number = b.ext)::int AS accounts,
              (SELECT count(*) FROM outbox o WHERE o.event_type = 'data_import.import_process.complete' AND coalesce(o.envelope->'data'->>'external_identifier', o.envelope->'data'->>'import_process_external_identifier') = b.ext)::int AS completes,
              (SELECT count(*) FROM outbox o WHERE o.event_type = 'data_import.import_process.post_import.completed' AND coalesce(o.envelope->'data'->>'external_identifier', o.envelope->'data'->>'import_process_external_identifier') = b.ext)::int AS post
         FROM unnest(?::text[]) AS b(ext)`,
      [o.supplier, o.supplier, o.exts],
    );
    const bad = (counts.rows as { ext: string; imports: number; accounts: number; completes: number; post: number }[]).filter((r) => r.imports !== 1 || r.accounts !== 1 || r.completes !== 1 || r.post !== 1);
    note(`in the restored database after the second migrate: ${o.exts.length - bad.length} of ${o.exts.length} accounts with one import, one account row, one complete and one post_import.completed`);
    for (const b of bad.slice(0, 10)) problems.push(`${b.ext} in the restored database: ${b.imports} imports, ${b.accounts} account rows, ${b.completes} complete, ${b.post} post_import.completed`);
  } finally {
    await drillDb.destroy().catch(() => undefined);
    for (const s of services) s.child?.kill('SIGKILL');
    spawnSync('ip', ['netns', 'exec', scratch.ns, 'setpriv', `--reuid=${stack.pgUser}`, `--regid=${stack.pgUser}`, '--init-groups', path.join(path.dirname(fs.realpathSync(path.join(need('HOSTS_PG_BIN'), 'pg_ctl'))), 'pg_ctl'), '-D', path.join(dir, 'data'), '-m', 'immediate', 'stop'], { stdio: 'ignore', timeout: 60_000 });
  }
}
