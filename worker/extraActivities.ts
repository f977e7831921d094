import type { ActivityDeps } from './createWorker';
import { createRegistrationActivities } from '../registration/activities';
import { createMaintenanceActivities } from '../maintenance/activities';
import { createEmailActivities } from '../emails/activities';

/** Activities of other workflows (registration flows), added as they are built. */
export function buildWorkerActivities(d: ActivityDeps): Record<string, (...args: never[]) => Promise<unknown>> {
  return {
    ...createRegistrationActivities({ db: d.db, subjectPrefix: d.subjectPrefix, log: d.log }),
    ...createMaintenanceActivities({ db: d.db, log: d.log, metrics: d.metrics }),
    ...createEmailActivities({ db: d.db, subjectPrefix: d.subjectPrefix, log: d.log, mail: d.mail }),
  };
}
