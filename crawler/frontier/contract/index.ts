/**
 * The frontier's contract suite: the behaviour both adapters must have — the order URLs come in,
 * politeness, robots.txt, when the crawl is done, a URL put back, a stop and the next run — run
 * against each by a test file in its folder (local/contract.test.ts on SQLite and PostgreSQL,
 * leased/contract.test.ts on PostgreSQL), through the Frontier interface alone, as the loop sees it.
 */
import { describe } from 'node:test';
import type { FrontierFactory } from './harness.ts';
import { lifecycleContract } from './lifecycle.contract.ts';
import { orderContract } from './order.contract.ts';
import { politenessContract } from './politeness.contract.ts';

export type { FrontierFactory, FrontierSettings } from './harness.ts';

export function describeFrontierContract(name: string, factory: FrontierFactory): void {
  describe(`the frontier contract (${name})`, () => {
    orderContract(factory);
    politenessContract(factory);
    lifecycleContract(factory);
  });
}
