/**
 * The store's contract suite: the behaviour every backend must have, run against each one by a
 * test file in its folder (store/sqlite/contract.test.ts). A new backend passes it before it is
 * wired in.
 */
import { describe } from 'node:test';
import { searchLogContract } from './analytics.contract.ts';
import { searchReportsContract } from './analytics-reports.contract.ts';
import { changeLogContract } from './changes.contract.ts';
import { curationContract } from './curation.contract.ts';
import { documentContract } from './documents.contract.ts';
import { failuresContract } from './failures.contract.ts';
import { fetchCommitContract } from './fetch.contract.ts';
import type { StoreFactory } from './harness.ts';
import { leaseContract } from './leases.contract.ts';
import { revisitContract } from './revisits.contract.ts';
import { urlContract } from './urls.contract.ts';

export type { StoreFactory } from './harness.ts';

export function describeStoreContract(name: string, factory: StoreFactory): void {
  describe(`the store contract (${name})`, () => {
    urlContract(factory);
    revisitContract(factory);
    documentContract(factory);
    changeLogContract(factory);
    fetchCommitContract(factory);
    failuresContract(factory);
    leaseContract(factory);
    searchLogContract(factory);
    searchReportsContract(factory);
    curationContract(factory);
  });
}
