import Router from '@koa/router';
import { WorkflowFailedError } from '@temporalio/client';
import type { RouterDeps } from '../deps';
import { HttpError, RawBodyError } from '../../http/errors';
import { canAccessSupplier, principalOf } from '../../http/principal';
import { parseRegistrationQuery, QueryIssue } from '../../registration/query';
import { registrationFlowsWorkflowId } from '../../registration/workflowId';
import type { RegistrationNotFound, RegistrationRequest } from '../../registration/types';
import { runRegistrationFlows } from '../../registration/startWorkflow';

/** 400 for a malformed query: the validation shape `{detail, code, errors: [{detail, code, attr}]}`. */
export class RegistrationQueryError extends HttpError {
  constructor(readonly errors: QueryIssue[]) {
    super('validation_error', 'The query parameters failed validation.', { errors });
  }
}

/**
 * `POST /v1/data-import/send-registration-flows/<supplier>/<external>/` (spec "Send registration
 * flows"; docs/registration-flows.md). The request body is ignored (the spec shows none).
 */
export function registrationsRouter(deps: RouterDeps): Router {
  const r = new Router({ prefix: '/v1/data-import/send-registration-flows' });
  r.use(deps.authenticate);

  r.post('/:supplier/:external/', async (ctx) => {
    const { supplier, external } = ctx.params as { supplier: string; external: string };
    ctx.state.logContext = { importSupplier: supplier, externalAccountNumber: external };
    const query = parseRegistrationQuery(ctx.query);
    if (!query.ok) throw new RegistrationQueryError(query.errors);

    // Another organisation's supplier answers exactly like an unknown account.
    if (!canAccessSupplier(ctx, supplier)) {
      throw notFoundArray({
        error_detail: 'No imported account for this import supplier and external account number; check both codes in the path.',
        import_supplier_code: supplier,
        external_account_number: external,
      });
    }

    const principal = principalOf(ctx);
    const input: RegistrationRequest = {
      importSupplier: supplier,
      externalAccountNumber: external,
      supplyStartDate: query.supplyStartDate,
      requestedBy: principal ? `${principal.organisation}/${principal.keyId}` : 'unauthenticated',
    };
    const workflowId = registrationFlowsWorkflowId(supplier, external, query.supplyStartDate);
    ctx.state.logContext = { ...ctx.state.logContext, workflowId };

    let outcome;
    try {
      outcome = await runRegistrationFlows(deps.temporal, deps.config.temporal.taskQueue, workflowId, input);
    } catch (err) {
      if (err instanceof WorkflowFailedError) {
        ctx.state.log?.error({ err, workflowId }, 'registration flows failed');
        throw new HttpError('service_unavailable', 'The registration flows could not be sent; try again later.');
      }
      throw err;
    }
    if (!outcome.found) throw notFoundArray(outcome.notFound);
    ctx.status = 200;
    ctx.body = [outcome.record];
  });

  return r;
}

const notFoundArray = (item: RegistrationNotFound) => new RawBodyError('not_found', [item]);
