import type { NatsConnection } from '../../events/nats';

/**
 * A real NATS connection that reports the event id of every publish the stream acknowledged
 * (a JetStream publish is a request carrying Nats-Msg-Id), passed where the relay takes its `nc`:
 * tests and benchmarks observe the relay from outside instead of through a hook in it.
 */
export function recordingConnection(nc: NatsConnection, onAck: (eventId: string) => void): NatsConnection {
  const request: NatsConnection['request'] = async (subject, data, opts) => {
    const reply = await nc.request(subject, data, opts);
    const id = opts?.headers?.get('Nats-Msg-Id');
    if (id) onAck(id);
    return reply;
  };
  return new Proxy(nc, { get: (target, prop, receiver) => (prop === 'request' ? request : Reflect.get(target, prop, receiver)) });
}
