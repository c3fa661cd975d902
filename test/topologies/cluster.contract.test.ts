import { readdirSync } from 'node:fs';
import { afterAll } from 'vitest';
import { clusterDeployment, startCluster, type LocalCluster } from '../support/cluster.js';
import { describeStoresOn } from '../support/fixtures.js';

// Every contract suite, unchanged, on one local cluster of 3 masters with a replica each: once with sharded
// pub/sub (SPUBLISH/SSUBSCRIBE) and once with classic pub/sub. A key or channel in the wrong slot fails with CROSSSLOT.
let cluster: Promise<LocalCluster> | undefined;
const shared = (): Promise<LocalCluster> => (cluster ??= startCluster({ masters: 3, replicasPerMaster: 1 }));
afterAll(async () => {
  await (await cluster)?.stop();
});

describeStoresOn([clusterDeployment(shared, { sharded: true }), clusterDeployment(shared, { sharded: false })]);
const suites = readdirSync(new URL('../contract/', import.meta.url)).filter((file) => file.endsWith('.test.ts'));
for (const suite of suites.sort()) await import(/* @vite-ignore */ new URL(`../contract/${suite}`, import.meta.url).href);
