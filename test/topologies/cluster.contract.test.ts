import { readdirSync } from 'node:fs';
import { afterAll } from 'vitest';
import { clusterDeployment, nodeRedisClusterDeployment, startCluster, type LocalCluster } from '../support/cluster.js';
import { describeStoresOn } from '../support/fixtures.js';

// Every contract suite, unchanged, on one local cluster of 3 masters with a replica each: once with sharded
// pub/sub (SPUBLISH/SSUBSCRIBE) and once with classic pub/sub. A key or channel in the wrong slot fails with CROSSSLOT.
let cluster: Promise<LocalCluster> | undefined;
const shared = (): Promise<LocalCluster> => (cluster ??= startCluster({ masters: 3, replicasPerMaster: 1 }));
afterAll(async () => {
  await (await cluster)?.stop();
});

// node-redis: sharded pub/sub only (its default on a cluster); classic pub/sub on a cluster is the ioredis runs' and
// the single-server suites' ground, and a third full pass would add minutes to every topology run.
describeStoresOn([
  clusterDeployment(shared, { sharded: true }),
  clusterDeployment(shared, { sharded: false }),
  nodeRedisClusterDeployment(shared, { sharded: true }),
]);
const suites = readdirSync(new URL('../contract/', import.meta.url)).filter((file) => file.endsWith('.test.ts'));
for (const suite of suites.sort()) await import(/* @vite-ignore */ new URL(`../contract/${suite}`, import.meta.url).href);
