import { PayloadBudget } from '../../../lib/payloadBudget';

/** A deferred step: `hold` runs until `finish` is called. */
function held(budget: PayloadBudget, bytes: number | null, log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  const promise = budget.hold(bytes, async () => {
    log.push(`start ${name}`);
    await done;
    log.push(`end ${name}`);
  });
  return { promise, finish };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('PayloadBudget', () => {
  it('admits payloads while their sizes fit the budget, the next one when room is freed', async () => {
    const budget = new PayloadBudget(100, 10);
    const log: string[] = [];
    const a = held(budget, 60, log, 'a');
    const b = held(budget, 40, log, 'b');
    const c = held(budget, 30, log, 'c');
    await tick();
    expect(log).toEqual(['start a', 'start b']);
    expect(budget.heldBytes).toBe(100);
    expect(budget.waiting).toBe(1);
    b.finish();
    await b.promise;
    await tick();
    expect(log).toEqual(['start a', 'start b', 'end b', 'start c']);
    expect(budget.heldBytes).toBe(90);
    a.finish();
    c.finish();
    await Promise.all([a.promise, c.promise]);
    expect(budget.heldBytes).toBe(0);
  });

  it('first come first served: a large payload waiting is not overtaken by smaller ones', async () => {
    const budget = new PayloadBudget(100, 10);
    const log: string[] = [];
    const a = held(budget, 50, log, 'a');
    const big = held(budget, 80, log, 'big');
    const small = held(budget, 20, log, 'small');
    await tick();
    expect(log).toEqual(['start a']);
    a.finish();
    await a.promise;
    await tick();
    expect(log).toEqual(['start a', 'end a', 'start big', 'start small']);
    big.finish();
    small.finish();
    await Promise.all([big.promise, small.promise]);
  });

  it('a payload larger than the budget, or of unknown size, runs alone', async () => {
    const budget = new PayloadBudget(100, 10);
    const log: string[] = [];
    const huge = held(budget, 10_000, log, 'huge');
    const other = held(budget, 20, log, 'other');
    await tick();
    expect(log).toEqual(['start huge']);
    expect(budget.heldBytes).toBe(100);
    huge.finish();
    await huge.promise;
    const unknown = held(budget, null, log, 'unknown');
    await tick();
    expect(log).toEqual(['start huge', 'end huge', 'start other']);
    other.finish();
    await other.promise;
    await tick();
    expect(log.at(-1)).toBe('start unknown');
    unknown.finish();
    await unknown.promise;
    expect(budget.heldBytes).toBe(0);
  });

  it('gives the room back when the step fails', async () => {
    const budget = new PayloadBudget(100, 10);
    await expect(budget.hold(100, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(budget.heldBytes).toBe(0);
    await expect(budget.hold(100, async () => 'ok')).resolves.toBe('ok');
  });

  it('admits a payload up to the threshold at once, a larger one through the budget', async () => {
    const budget = new PayloadBudget(100, 10);
    const log: string[] = [];
    const big = held(budget, 100, log, 'big');
    await tick();
    const order: string[] = [];
    const small = budget.admit(10, async () => void order.push('small'));
    const large = budget.admit(11, async () => void order.push('large'));
    await small;
    await tick();
    expect(order).toEqual(['small']);
    expect(budget.waiting).toBe(1);
    big.finish();
    await Promise.all([big.promise, large]);
    expect(order).toEqual(['small', 'large']);
    expect(budget.heldBytes).toBe(0);
  });

  it('reads sizes up to the threshold inline; unknown sizes never', () => {
    const budget = new PayloadBudget(100, 10);
    expect(budget.isInline(10)).toBe(true);
    expect(budget.isInline(11)).toBe(false);
    expect(budget.isInline(null)).toBe(false);
    expect(() => new PayloadBudget(0)).toThrow(RangeError);
  });
});
