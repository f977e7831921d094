import type { Command } from 'commander';

/** Each command module registers one group of subcommands on the program. */
export type RegisterCommand = (program: Command) => void;

export const commandModules: RegisterCommand[] = [];
