import { ApplicationFailure } from '@temporalio/common';
import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import { REGISTRATION_FAILURE } from '../lib/failureCodes';
import { EventSchemaError } from '../events/outbox';
import { findProcess } from '../imports/store';
import { markForRegistration } from '../registration/markForRegistration';
import type { RegistrationOutcome, RegistrationRequest } from '../registration/types';

export interface RegistrationActivityDeps {
  db: Knex;
  subjectPrefix: string;
  log: Logger;
  now?: () => Date;
}

/** Activities of the registrationFlows workflow (docs/spec/STYLE.md #3: the worker wires the dependencies). */
export function createRegistrationActivities(deps: RegistrationActivityDeps) {
  const now = deps.now ?? (() => new Date());
  return {
    /**
     * Marks the account's meter points for registration and queues their events, in one
     * transaction. Idempotent: a retry finds the marks made and answers from them.
     */
    async markMeterPointsForRegistration(req: RegistrationRequest): Promise<RegistrationOutcome> {
      const log = deps.log.child({ importSupplier: req.importSupplier, externalAccountNumber: req.externalAccountNumber });
      try {
        const report = await markForRegistration({ db: deps.db, subjectPrefix: deps.subjectPrefix, now, findImport: findProcess }, req);
        if (report.outcome.found) {
          log.info({ marked: report.marked, refusals: report.refusals, supplyStartDate: req.supplyStartDate }, 'registration flows sent');
        } else {
          log.info({ reason: report.outcome.notFound.error_detail }, 'registration flows: account not eligible');
        }
        return report.outcome;
      } catch (err) {
        if (err instanceof EventSchemaError) {
          // Retrying would hit the same bug: fail at once, nothing marked (the transaction rolled back).
          throw ApplicationFailure.create({ type: REGISTRATION_FAILURE.eventSchema, message: err.message, nonRetryable: true });
        }
        throw err;
      }
    },
  };
}
