/**
 * The message body of every published event (docs/spec/DESIGN.md "Events"): `data` is the catalogue payload.
 */
export interface EventEnvelope<T = unknown> {
  id: string;
  type: string;
  version: string;
  occurred_at: string;
  source: string;
  data: T;
}

export const EVENT_SOURCE = 'data-import';

/** Header names carried on every message; Nats-Msg-Id makes JetStream drop a republished id. */
export const HEADER_MSG_ID = 'Nats-Msg-Id';
export const HEADER_TYPE = 'Event-Type';
export const HEADER_VERSION = 'Event-Version';
