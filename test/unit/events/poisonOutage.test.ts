import { InvalidArgumentError, NoRespondersError, RequestError, TimeoutError } from '@nats-io/nats-core';
import { isOutage } from '../../../events/publisher';
import { isTemporalOutage } from '../../../imports/sweeper';
import { isDatabaseOutage } from '../../../db/outage';

/**
 * What counts against one queue item (issue 47, item 4): a failure of the item itself does, an
 * outage of the server every item needs does not (its attempt is given back), so an outage never
 * sets anything aside.
 */
describe('item failure or outage', () => {
  it('relay: NATS timeouts, no responders (no stream leader) and closed connections are outages; a payload over max_payload is the event’s', () => {
    expect(isOutage(new TimeoutError())).toBe(true);
    expect(isOutage(new RequestError('request failed', { cause: new NoRespondersError('events.x') }))).toBe(true);
    expect(isOutage(Object.assign(new Error('stream offline'), { name: 'JetStreamApiError', status: 503 }))).toBe(true);
    expect(isOutage(InvalidArgumentError.format('payload', 'max_payload size exceeded'))).toBe(false);
    expect(isOutage(Object.assign(new Error('message size exceeds maximum allowed'), { name: 'JetStreamApiError', status: 400 }))).toBe(false);
    expect(isOutage(new Error('Converting circular structure to JSON'))).toBe(false);
  });

  it('sweeper: gRPC UNAVAILABLE / DEADLINE_EXCEEDED are outages; INVALID_ARGUMENT is the run’s', () => {
    expect(isTemporalOutage(Object.assign(new Error('service error'), { cause: Object.assign(new Error('14 UNAVAILABLE'), { code: 14 }) }))).toBe(true);
    expect(isTemporalOutage(Object.assign(new Error('4 DEADLINE_EXCEEDED'), { code: 4 }))).toBe(true);
    expect(isTemporalOutage(Object.assign(new Error('3 INVALID_ARGUMENT: WorkflowId length exceeds limit.'), { code: 3 }))).toBe(false);
  });

  it('e-mail sender and retention: an unreachable or restarting PostgreSQL is an outage; an error of the row or the template is the item’s', () => {
    expect(isDatabaseOutage(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseOutage(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseOutage(Object.assign(new Error('connection failure'), { code: '08006' }))).toBe(true);
    expect(isDatabaseOutage(Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }))).toBe(true);
    expect(isDatabaseOutage(Object.assign(new Error('row 12 refuses to go'), { code: 'P0001' }))).toBe(false);
    expect(isDatabaseOutage(Object.assign(new Error('value too long for type character varying(1000)'), { code: '22001' }))).toBe(false);
    expect(isDatabaseOutage(new TypeError("Cannot read properties of undefined (reading 'lines')"))).toBe(false);
  });
});
