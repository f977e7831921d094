/**
 * Who may do what on the NATS cluster of the reference deployment (docs/events.md, "Who may read
 * which events"; docs/scaling.md): one account holds the events stream; each party is a user of it
 * with its own password, its own inbox prefix (so that nobody reads another's replies and
 * deliveries), and permissions the server enforces:
 *   data-import        the service (API, workers, CLI): publishes the events, manages its stream,
 *                      may read it through consumers (the CLI's `events tail`); reads nothing on
 *                      core subjects
 *   a consumer         subscribes to its subjects only, and reads the stream only through its own
 *                      durable consumer created with its own filter: JetStream's create subject
 *                      carries the consumer's name and filter ($JS.API.CONSUMER.CREATE.<stream>.
 *                      <name>.<filter>), so a consumer cannot make one with a wider filter, and it
 *                      has no direct or message get on the stream
 *   the checker        the harness's own view of the stream (an auditor's): reads everything
 * The cluster's routes have a user of their own (cluster.authorization) besides mutual TLS; the
 * system account's user exists for the server's own requests and is given to nobody.
 * natsAuthorization() writes the nats.conf blocks; test/integration/natsAuth.test.ts runs a real
 * nats-server on them.
 */
import crypto from 'node:crypto';

export interface NatsConsumer {
  /** User and durable consumer name. */
  name: string;
  /** The subjects it may read (under the subject prefix), each also its consumer's filter. */
  subjects: string[];
}

/**
 * The consumers of the reference deployment, by what they may read (docs/events.md): the migration's
 * monitoring reads the data-import process events only (no personal data); the CRM reads every
 * event an import publishes (e-mail addresses, PSR records, consents: personal and health data;
 * test/unit/imports/events.test.ts holds this list to them).
 */
export const REFERENCE_CONSUMERS: NatsConsumer[] = [
  { name: 'migration-monitor', subjects: ['data_import.>'] },
  {
    name: 'crm',
    subjects: [
      'account.>',
      'account_user.>',
      'account_metadata.>',
      'account_user_metadata.>',
      'account_property_effective_period_metadata.>',
      'agreement.>',
      'business.>',
      'campaign_account.>',
      'consents.>',
      'deposit_agreement.>',
      'dunning_path_started.>',
      'meterpoint.>',
      'billing.>',
      'data_import.>',
    ],
  },
];

export interface NatsUsers {
  service: { user: string; password: string; inboxPrefix: string };
  checker: { user: string; password: string; inboxPrefix: string };
  consumers: (NatsConsumer & { password: string; inboxPrefix: string })[];
  route: { user: string; password: string };
  system: { user: string; password: string };
}

const secret = () => crypto.randomBytes(18).toString('base64url');
export const inboxPrefixOf = (user: string) => `_INBOX_${user.replace(/[^A-Za-z0-9_-]/g, '_')}`;

export function makeNatsUsers(consumers: NatsConsumer[] = REFERENCE_CONSUMERS): NatsUsers {
  const u = (user: string) => ({ user, password: secret(), inboxPrefix: inboxPrefixOf(user) });
  return {
    service: u('data-import'),
    checker: u('checker'),
    consumers: consumers.map((c) => ({ ...c, password: secret(), inboxPrefix: inboxPrefixOf(c.name) })),
    route: { user: 'route', password: secret() },
    system: { user: 'sys', password: secret() },
  };
}

const q = (s: string) => JSON.stringify(s);
const list = (xs: string[]) => `[${xs.map(q).join(', ')}]`;

/** The `accounts` and `system_account` blocks of nats.conf for these users, the stream and prefix. */
export function natsAuthorization(users: NatsUsers, o: { stream: string; prefix: string }): string {
  const { stream, prefix } = o;
  const js = (verb: string, rest = '') => `$JS.API.${verb}.${stream}${rest}`;
  const service = {
    publish: [`${prefix}.>`, '$JS.API.INFO', js('STREAM.CREATE'), js('STREAM.UPDATE'), js('STREAM.INFO'), js('CONSUMER.CREATE', '.>'), js('CONSUMER.INFO', '.>'), js('CONSUMER.DELETE', '.>'), js('CONSUMER.MSG.NEXT', '.>'), `$JS.ACK.${stream}.>`],
    subscribe: [`${users.service.inboxPrefix}.>`],
  };
  const consumer = (c: NatsUsers['consumers'][number]) => ({
    publish: ['$JS.API.INFO', ...c.subjects.map((s) => js('CONSUMER.CREATE', `.${c.name}.${prefix}.${s}`)), js('CONSUMER.INFO', `.${c.name}`), js('CONSUMER.MSG.NEXT', `.${c.name}`), `$JS.ACK.${stream}.${c.name}.>`],
    subscribe: [...c.subjects.map((s) => `${prefix}.${s}`), `${c.inboxPrefix}.>`],
  });
  const user = (name: string, password: string, p: { publish: string[]; subscribe: string[] }) =>
    `      { user: ${q(name)}, password: ${q(password)}, permissions: { publish: { allow: ${list(p.publish)} }, subscribe: { allow: ${list(p.subscribe)} } } }`;
  return [
    'accounts {',
    '  DATA_IMPORT {',
    '    jetstream: enabled',
    '    users: [',
    user(users.service.user, users.service.password, service),
    user(users.checker.user, users.checker.password, { publish: ['$JS.API.>', `$JS.ACK.${stream}.>`], subscribe: [`${prefix}.>`, `${users.checker.inboxPrefix}.>`] }),
    ...users.consumers.map((c) => user(c.name, c.password, consumer(c))),
    '    ]',
    '  }',
    `  SYS { users: [ { user: ${q(users.system.user)}, password: ${q(users.system.password)} } ] }`,
    '}',
    'system_account: SYS',
    '',
  ].join('\n');
}
