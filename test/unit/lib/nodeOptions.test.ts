import { apiNodeOptions, DEFAULT_API_NODE_OPTIONS, DEFAULT_WORKER_NODE_OPTIONS, serviceProcessEnv, workerNodeOptions } from '../../../lib/nodeOptions';
import { serviceChildren } from '../../../scripts/supervise';

describe('how the run command starts the service processes', () => {
  it('caps the worker heap by default; WORKER_NODE_OPTIONS replaces the flags, empty means none', () => {
    expect(workerNodeOptions({})).toEqual(['--max-old-space-size=192', '--max-semi-space-size=8']);
    expect(workerNodeOptions({ WORKER_NODE_OPTIONS: '--max-old-space-size=512  --trace-gc' })).toEqual(['--max-old-space-size=512', '--trace-gc']);
    expect(workerNodeOptions({ WORKER_NODE_OPTIONS: '' })).toEqual([]);
  });

  it('caps the API heap by default; API_NODE_OPTIONS replaces the flags', () => {
    expect(apiNodeOptions({})).toEqual(['--max-old-space-size=160', '--max-semi-space-size=8']);
    expect(apiNodeOptions({ API_NODE_OPTIONS: '' })).toEqual([]);
    expect(apiNodeOptions({ API_NODE_OPTIONS: '--max-old-space-size=512' })).toEqual(['--max-old-space-size=512']);
  });

  it('limits malloc arenas unless MALLOC_ARENA_MAX is set', () => {
    expect(serviceProcessEnv({ A: '1' })).toEqual({ A: '1', MALLOC_ARENA_MAX: '2' });
    expect(serviceProcessEnv({ MALLOC_ARENA_MAX: '8' })).toEqual({ MALLOC_ARENA_MAX: '8' });
  });

  it('the supervisor starts workers with those flags and both services with that environment', () => {
    const children = serviceChildren({ workers: 1, apiReplicas: 1, env: { PORT: '9000' }, root: '/srv/di' });
    const worker = children.find((c) => c.name === 'worker-1')!;
    const api = children.find((c) => c.name === 'api-1')!;
    expect(worker.args.slice(0, 2)).toEqual([...DEFAULT_WORKER_NODE_OPTIONS]);
    expect(api.args.slice(0, 2)).toEqual([...DEFAULT_API_NODE_OPTIONS]);
    expect(worker.env!.MALLOC_ARENA_MAX).toBe('2');
    expect(api.env!.MALLOC_ARENA_MAX).toBe('2');
    const custom = serviceChildren({ workers: 1, apiReplicas: 0, env: { WORKER_NODE_OPTIONS: '' }, root: '/srv/di' });
    expect(custom[0]!.args.some((a) => a.startsWith('--max-'))).toBe(false);
  });
});
