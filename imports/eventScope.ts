// The scope every event of one import run is built in (its workflow id, run, account, time) and the
// one builder of such an event, with its deterministic id: imports/events.ts builds the import
// process's own events with it, imports/accountDataEvents.ts those of the imported Account's data.
import type { EventType, PayloadOf, VersionOf } from '../events/catalogue';
import type { NewEvent } from '../events/outbox';

export interface EventScope {
  /** The workflow id: the ordering key of every event of the import, and the root of their keys. */
  workflowId: string;
  run: number;
  externalAccountNumber: string;
  at: Date;
}

/**
 * One event of the import: `data` is the catalogue payload type of `type` and `version`, so a wrong
 * field does not compile. `name` names the occurrence within the run (`agreement.created:<id>`):
 * the event's key, and so its id, is the same whenever the same occurrence is written again.
 */
export function ev<T extends EventType, V extends VersionOf<T>>(scope: EventScope, type: T, version: V, name: string, data: PayloadOf<T, V>): NewEvent {
  // The parameters tie type, version and payload together; the compiler cannot follow that
  // through the generic union, so the one cast is here, with the check at every call.
  return {
    type,
    version,
    data,
    key: `${scope.workflowId}:run-${scope.run}:${name}`,
    orderingKey: scope.workflowId,
    occurredAt: scope.at,
  } as NewEvent;
}
