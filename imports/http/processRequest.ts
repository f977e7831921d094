import { Type, type Static } from '@sinclair/typebox';

/**
 * Body of `POST /v1/data-import/account-import-process/process/`: the platform's
 * ProcessAccountImportProcess (its `import_supplier_code` enumerates the tenant's own suppliers;
 * here any supplier of the caller's grant). Lengths as the import process row holds them.
 */
export const ProcessRequestSchema = Type.Object(
  {
    import_supplier_code: Type.String({ minLength: 1, maxLength: 64, description: 'The import supplier the account was staged on.' }),
    external_account_number: Type.String({ minLength: 1, maxLength: 128, description: 'The account number in the source system.' }),
    dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Run the whole import and roll it back (a dry-run task: DRY_RUN_SUCCEEDED / DRY_RUN_ERRORED).' })),
    operations_team_name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: "The operations team to link the account to: stored as the Account's `operations_team_name` (over the staged one). This service keeps no teams, so any name is taken." }),
    ),
  },
  { additionalProperties: false },
);
export type ProcessRequestBody = Static<typeof ProcessRequestSchema>;
