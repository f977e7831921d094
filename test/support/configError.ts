import { ConfigError, loadConfig } from '../../lib/config';

/** The variable a ConfigError of loadConfig(env) names, null when the configuration loads; any other error as its text. */
export function configErrorVariable(env: Record<string, string>): string | null {
  try {
    loadConfig(env);
    return null;
  } catch (err) {
    return err instanceof ConfigError ? err.variable : String(err);
  }
}
