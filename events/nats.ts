import fs from 'node:fs';
import net from 'node:net';
import nodeTls, { type PeerCertificate } from 'node:tls';
import { connect } from '@nats-io/transport-node';
import { credsAuthenticator, type ConnectionOptions, type NatsConnection, type TlsOptions } from '@nats-io/nats-core';
import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { natsSettings, type Config } from '../lib/config';
import type { Logger } from '../lib/logger';

export type { NatsConnection };

/**
 * The JetStream API error codes (`err_code` of the server's answer) this service tells apart.
 * nats.js names those its own client acts on (`JetStreamApiCodes`); the others are the server's
 * (nats-server's JetStream error list: JSStreamNameExistErr is 10058).
 */
export const JS_API_CODES = {
  streamNotFound: JetStreamApiCodes.StreamNotFound,
  /** A stream of this name exists with other settings (an identical create is answered as a success). */
  streamNameInUse: 10058,
} as const;

/** True when `err` is the JetStream API's answer with this error code: told by type and code, never by its wording. */
export function isJetStreamApiError(err: unknown, code: number): err is JetStreamApiError {
  return err instanceof JetStreamApiError && err.code === code;
}

/** Client ping interval: a silent server is noticed within (NATS_MAX_PINGS_OUT + 1) × this, 15 s. */
export const NATS_PING_INTERVAL_MS = 5_000;
export const NATS_MAX_PINGS_OUT = 2;
/** How long one connection attempt (first connect or reconnect) waits for a server. */
export const NATS_CONNECT_TIMEOUT_MS = 5_000;

/** How a connection reaches NATS: the servers, the credentials, TLS (lib/config.ts natsSettings). */
export type NatsLink = Pick<Config['nats'], 'servers' | 'auth' | 'tls' | 'inboxPrefix'>;

/**
 * The client options of a link (the NATS client's own: user/pass, token, a credentials file's
 * authenticator; TLS with the CA, and the client certificate and key, read from their files). With
 * TLS required the connection is refused by a server that offers none; without, nats.js still
 * upgrades to TLS when the server offers it.
 */
export function natsConnectionOptions(link: NatsLink): Pick<ConnectionOptions, 'servers' | 'user' | 'pass' | 'token' | 'authenticator' | 'tls' | 'inboxPrefix' | 'reconnectToServer'> {
  const { auth, tls } = link;
  return {
    servers: [...link.servers],
    inboxPrefix: link.inboxPrefix,
    ...(auth.user !== undefined && { user: auth.user, pass: auth.password }),
    ...(auth.token !== undefined && { token: auth.token }),
    // Read at each (re)connect: a rotated credentials file is picked up without a restart.
    ...(auth.credsFile !== undefined && { authenticator: credsAuthenticator(() => fs.readFileSync(auth.credsFile!)) }),
    ...(tls.required && tlsOptions(tls)),
  };
}

/**
 * TLS options that check each server's certificate against the address it is dialed at. nats.js
 * gives a server named by its IP address no TLS name, so Node checks the certificate against
 * "localhost" and refuses a certificate made for the address (servers of a cluster are often named
 * by address, the reference deployment's are): the name is taken from the server the client is
 * about to dial (reconnectToServer sees every attempt, the first included, and keeps the default
 * choice), and a server named by a DNS name is checked against that name as usual.
 */
function tlsOptions(t: NatsLink['tls']): Pick<ConnectionOptions, 'tls' | 'reconnectToServer'> {
  let dialing = '';
  const checkServerIdentity = (name: string, cert: PeerCertificate) => nodeTls.checkServerIdentity(net.isIP(dialing) ? dialing : name, cert);
  return {
    reconnectToServer: (pool) => {
      dialing = pool[0]?.hostname ?? '';
      return null;
    },
    tls: { ...(t.ca && { caFile: t.ca }), ...(t.cert && { certFile: t.cert }), ...(t.key && { keyFile: t.key }), checkServerIdentity } as TlsOptions,
  };
}

/**
 * A service connection to NATS. `link` is the configuration's (`config.nats`), or a URL string
 * (tests, benchmarks: no credentials, no TLS settings but what the URL says).
 */
export async function connectNats(link: NatsLink | string, name: string, log?: Logger): Promise<NatsConnection> {
  const settings: NatsLink = typeof link === 'string' ? natsLinkOf(link) : link;
  const nc = await connect({
    ...natsConnectionOptions(settings),
    name,
    // Keep trying for ever: the outbox holds events while NATS is away.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    // A server that falls silent (its host lost power or its link: no reset) is noticed by the
    // client's pings alone: one every NATS_PING_INTERVAL_MS, the connection dropped as stale once
    // NATS_MAX_PINGS_OUT are unanswered, then the next seed is tried. nats.js's defaults (2 min,
    // 2) took up to six minutes, and every event waited that long (docs/scaling.md, "Failover
    // times"). A connection attempt to a silent seed gives up after NATS_CONNECT_TIMEOUT_MS.
    pingInterval: NATS_PING_INTERVAL_MS,
    maxPingOut: NATS_MAX_PINGS_OUT,
    timeout: NATS_CONNECT_TIMEOUT_MS,
    waitOnFirstConnect: false,
    // Every request (each JetStream publish is one) would otherwise build two Error objects up
    // front, stack traces and all, in case it fails: ~2 % of the worker's CPU at ~9 events per
    // account (bench/NOTES.md). A failure still says what failed, without the caller's stack.
    noAsyncTraces: true,
  });
  if (log) {
    (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect' || s.type === 'reconnect' || s.type === 'error') log.warn({ nats: s.type }, 'nats connection status');
      }
    })().catch((err: unknown) => log.warn({ err: String(err) }, 'nats connection status: watch ended'));
  }
  return nc;
}

/** The link a URL alone names (its credentials and a tls:// scheme honoured), as NATS_URL is read. */
export function natsLinkOf(url: string): NatsLink {
  return natsSettings({ NATS_URL: url });
}

export interface StreamSettings {
  stream: string;
  subjectPrefix: string;
  duplicateWindowMs: number;
  maxAgeMs: number;
  maxBytes: number;
  replicas: number;
}

const nanos = (ms: number) => ms * 1_000_000;

/**
 * Creates the events stream, or updates the settings of the one there: file storage, every
 * subject under the prefix, a duplicate window longer than the relay's retry horizon (so a
 * republished id is always recognised), retention limits from configuration.
 */
export async function ensureStream(nc: NatsConnection, s: StreamSettings): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config = {
    name: s.stream,
    subjects: [`${s.subjectPrefix}.>`],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(s.duplicateWindowMs),
    max_age: nanos(s.maxAgeMs),
    max_bytes: s.maxBytes,
    num_replicas: s.replicas,
  };
  try {
    // Creates the stream; JetStream answers a create identical to the existing stream as a
    // success, so a second process (or a restart) with the same settings stops here.
    await jsm.streams.add(config);
    return;
  } catch (err) {
    // It exists with other settings (changed configuration, or another process's create won the
    // race): update them below. Anything else (no JetStream, a subject taken by another stream,
    // a lost connection) is thrown as it is.
    if (!isJetStreamApiError(err, JS_API_CODES.streamNameInUse)) throw err;
  }
  const { storage: _storage, ...updatable } = config;
  await jsm.streams.update(s.stream, updatable);
}
