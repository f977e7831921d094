// The worker's workflowsPath: every workflow, one per file.
export * from './accountImport';
export * from './registrationFlows';
export * from './maintenance';
