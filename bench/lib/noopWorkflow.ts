import { proxyLocalActivities } from '@temporalio/workflow';

/** The trivial workflows of bench/temporalBaseline.ts. */
export async function noop(): Promise<string> {
  return 'ok';
}

const la = proxyLocalActivities<{ step(n: number): Promise<number> }>({ startToCloseTimeout: '1m' });

/** Four local activities in a row, the shape of an import. */
export async function fourLocalActivities(): Promise<number> {
  let n = 0;
  for (let i = 0; i < 4; i++) n = await la.step(n);
  return n;
}
