import type { Command } from 'commander';
import * as registrations from './registrations';
import * as importSuppliers from './importSuppliers';
import * as organisations from './organisations';
import * as apiKeys from './apiKeys';
import * as referenceData from './referenceData';
import * as imports from './imports';
import * as generate from './generate';
import * as migrate from './migrate';
import * as reconcile from './reconcile';
import * as map from './map';
import * as events from './events';
import * as maintenance from './maintenance';
import * as emails from './emails';
import * as deploy from './deploy';
import * as replay from './replay';
import * as setAside from './setAside';

/** Each command module registers one group of subcommands on the program. */
export type RegisterCommand = (program: Command) => void;

export const commandModules: RegisterCommand[] = [
  registrations.register,
  importSuppliers.register,
  organisations.register,
  apiKeys.register,
  referenceData.register,
  imports.register,
  generate.register,
  migrate.register,
  reconcile.register,
  map.register,
  events.register,
  maintenance.register,
  emails.register,
  deploy.register,
  replay.register,
  setAside.register,
];
