import { Type, type Static } from '@sinclair/typebox';
import type { Client } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import type { Config } from '../../lib/config';
import { HttpError } from '../../http/errors';
import { common, externalParam, json, ref, security, supplierParam } from '../../http/openapi';
import { operation } from '../../http/operation';
import { canAccessSupplier, principalOf } from '../../http/principal';
import { registrationFlowsWorkflowId } from '../workflowId';
import type { RegistrationNotFound, RegistrationRequest } from '../types';
import { runRegistrationFlows } from '../startWorkflow';

/** The registration 404: an array of the platform's not-found records. */
const notFoundArray = (item: RegistrationNotFound) => new HttpError('not_found', 'see body', {}, {}, { body: [item] });

/**
 * The query: only the documented parameter may be sent (an unknown one may acquire meaning later,
 * so it is refused rather than ignored), a real YYYY-MM-DD day (`invalid_date`), given once.
 */
const RegistrationQuery = Type.Object(
  { supply_start_date: Type.Optional(Type.String({ format: 'date', description: 'Supply start date of the flows; default the earliest valid date.' })) },
  { additionalProperties: false },
);

/**
 * `POST /v1/data-import/send-registration-flows/<supplier>/<external>/` (spec "Send registration
 * flows"; docs/registration-flows.md). The request body is ignored (the spec shows none).
 */
export const sendRegistrationFlowsOperation = operation({
  method: 'post',
  path: '/v1/data-import/send-registration-flows/{import_supplier_code}/{external_account_number}/',
  query: RegistrationQuery,
  handler: (deps: { temporal: Client; config: Pick<Config, 'temporal'> }) => async (ctx) => {
    const { supplier, external } = ctx.params as { supplier: string; external: string };
    ctx.state.logContext = { importSupplier: supplier, externalAccountNumber: external };
    const supplyStartDate = (ctx.state.query as Static<typeof RegistrationQuery>).supply_start_date ?? null;

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
      supplyStartDate,
      requestedBy: principal ? `${principal.organisation}/${principal.keyId}` : 'unauthenticated',
    };
    const workflowId = registrationFlowsWorkflowId(supplier, external, supplyStartDate);
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
  },
  schemas: {
    RegistrationResult: {
      type: 'object',
      required: ['import_supplier_code', 'external_account_number', 'meter_points'],
      properties: {
        import_supplier_code: { type: 'string' },
        external_account_number: { type: 'string' },
        meter_points: {
          type: 'array',
          items: {
            type: 'object',
            required: ['mpxn', 'status'],
            properties: {
              mpxn: { type: 'string', description: 'Meter point number (MPAN or MPRN).' },
              status: { type: 'string', enum: ['REGISTRATION_FLOW_SUCCESS', 'REGISTRATION_FLOW_ERROR'] },
              error_detail: { type: 'string', description: 'Present when status is REGISTRATION_FLOW_ERROR.' },
            },
          },
        },
      },
    },
    RegistrationNotFound: {
      type: 'object',
      required: ['error_detail', 'import_supplier_code', 'external_account_number'],
      properties: { error_detail: { type: 'string' }, import_supplier_code: { type: 'string' }, external_account_number: { type: 'string' } },
    },
  },
  openapi: {
    operationId: 'sendRegistrationFlows',
    tags: ['registrations'],
    summary: 'Mark the meter points of an imported account for registration with the industry.',
    security,
    parameters: [supplierParam('import_supplier_code'), externalParam('external_account_number')],
    responses: {
      '200': json({ type: 'array', items: ref('RegistrationResult') }, 'One record per account; a later downstream failure is still possible.'),
      '400': json(ref('QueryValidationFailed'), 'A malformed query parameter (`validation_error`).'),
      '404': json({ type: 'array', items: ref('RegistrationNotFound') }, 'No imported account, no meter points to register, or the supplier is outside your grant.'),
      ...common(false),
    },
  },
});
