import { fork } from 'node:child_process';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startEmulators } from '../../infra/local/emulators';
import type { CapacityCounter } from '../support/count-capacity';

/**
 * `npm run bench:scale`: the platform at the size fleetwatch is designed for, on DynamoDB Local. Seeds 1,000
 * clients, 20,000 rules and 10,000 geozones, first with 10,000 vehicles and then with 100,000, and measures:
 * - unitsPerMessageGrowth: DynamoDB units per message at 100,000 vehicles over units at 10,000;
 * - ruleChangeItemsRead: items evaluate reads for the next message of a vehicle after one rule edit;
 * - sweepUnitsPerMinute: units of one sweep at 100,000 vehicles while 10 fall silent;
 * - rssMbPerContainer: an evaluate container's resident memory after 10,000 messages over random vehicles;
 * - scopedRuleChangeWrites: items written when a `subtree` rule over a client of 10,000 vehicles (in 10 branches)
 *   is edited, and scopedRuleChangeUnits the units of that edit;
 * - vehicleRegistrationUnits: units of registering one more vehicle to a branch of that client, scoped rule included;
 * - ruleCreateWriteUnits, geozoneCreateWriteUnits, webhookCreateWriteUnits (and …Delete…, ruleWithGeozoneCreate…):
 *   write units of one create or delete with its client's limit in the same transaction, each with `…Before`, the
 *   same record written as before that, and `…Billed…` (see create-cost.ts).
 * Not part of `npm test`; `--json` prints the figures alone.
 */
const SAMPLE = 1_000;
const FIFO_BATCH = 10;

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const say = (line: string) => {
    if (!json) console.log(line);
  };
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  const emulators = await startEmulators({ prefix: `bench-scale-${process.pid}` });
  const { resourcesConfig } = await import('../../shared/config');
  const { documentClient } = await import('../../shared/aws/dynamodb');
  const { buildPlatform, seedRulesAndZones, seedVehicles, T0 } = await import('./scale-platform');
  const { createEvaluateHandler } = await import('../../functions/evaluate/handler');
  const { createSweepHandler } = await import('../../functions/sweep/handler');
  const { lambdaContext } = await import('../../infra/local/sqs-poller');
  const { sqsRecord, terminalMessage } = await import('../pipeline/support');
  const { countCapacity } = await import('../support/count-capacity');
  const { projectRuleChange } = await import('../../shared/pipeline/projection');
  const { getRule, replaceRule } = await import('../../shared/store/rules-store');
  const { seededRandom } = await import('./timing');
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;

  try {
    const capacity = countCapacity();
    const lastSeen = T0 - 60_000;

    say('write units of creating and deleting a rule, a geozone and a webhook endpoint …');
    const { measureCreateCosts } = await import('./create-cost');
    const createCosts = await measureCreateCosts(capacity);
    say(
      ['rule', 'ruleWithGeozone', 'geozone', 'webhook']
        .map((kind) => `${kind} create ${createCosts[`${kind}CreateBeforeWriteUnits`]} → ${createCosts[`${kind}CreateWriteUnits`]} units`)
        .join('; '),
    );

    say('a client of 10,000 vehicles in 10 branches, with a subtree rule …');
    const scoped = await measureScopedRule(capacity, lastSeen);
    say(
      `editing the subtree rule wrote ${scoped.writes} items (${scoped.units} units); registering one more vehicle cost ${scoped.registrationUnits} units`,
    );

    /**
     * Units per message over a sample of vehicles: a first pass from a cold container (rules read, first states
     * written), then the steady pass 30 s later, which gives the figure.
     */
    const unitsPerMessage = async (vehicles: number, seed: number): Promise<{ cold: number; steady: number }> => {
      const random = seededRandom(seed);
      const sample = Array.from({ length: SAMPLE }, () => 1 + Math.floor(random() * vehicles));
      let now = T0;
      const handler = createEvaluateHandler({ clock: () => now });
      const measured = { cold: 0, steady: 0 };
      for (const [pass, second] of [
        [0, 0],
        [1, 30],
      ] as const) {
        now = T0 + (second + 5) * 1000;
        capacity.reset();
        for (let start = 0; start < sample.length; start += FIFO_BATCH) {
          const records = sample.slice(start, start + FIFO_BATCH).map((vehicleId) => sqsRecord(terminalMessage(vehicleId, second, 50)));
          const response = await handler({ Records: records }, lambdaContext('evaluate'));
          if (response.batchItemFailures.length > 0) throw new Error(`${response.batchItemFailures.length} records failed`);
        }
        measured[pass === 0 ? 'cold' : 'steady'] = capacity.total() / sample.length;
      }
      return measured;
    };

    // the rules are written once, already listing the vehicles the fleet grows to: a vehicle's item, and so
    // its evaluation, does not depend on vehicles that do not exist yet, and seeding stays quicker
    say('seeding 1,000 clients, 20,000 rules, 10,000 geozones and 10,000 vehicles …');
    const large = buildPlatform(100_000);
    await seedRulesAndZones(large);
    await seedVehicles(large, 1, 10_000, lastSeen);
    say(`seeded (${elapsed()}); measuring units per message at 10,000 vehicles …`);
    const unitsAt10k = await unitsPerMessage(10_000, 1);
    say(`units per message at 10,000 vehicles: ${unitsAt10k.steady.toFixed(3)} steady, ${unitsAt10k.cold.toFixed(3)} from a cold container`);

    say('growing the fleet to 100,000 vehicles …');
    await seedVehicles(large, 10_001, 100_000, lastSeen);
    say(`seeded (${elapsed()}); measuring units per message at 100,000 vehicles …`);
    const unitsAt100k = await unitsPerMessage(100_000, 2);
    say(`units per message at 100,000 vehicles: ${unitsAt100k.steady.toFixed(3)} steady, ${unitsAt100k.cold.toFixed(3)} from a cold container`);

    // one rule edit, projected as the stream would, then the next message of one of its vehicles
    const edited = large.rules.find((rule) => rule.type === 2 && rule.vehicleIds.length > 0)!;
    const vehicleId = edited.vehicleIds[0]!;
    const evaluate = createEvaluateHandler({ clock: () => T0 + 120_000 });
    await evaluate({ Records: [sqsRecord(terminalMessage(vehicleId, 100, 50))] }, lambdaContext('evaluate'));
    const before = (await getRule(edited.id))!;
    const after = await replaceRule({ ...before, settings: { limit: '80', minDuration: '10' }, version: before.version + 1 }, before.version);
    const projectedVehicles = await projectRuleChange({ ...before }, { ...after });
    capacity.reset();
    await evaluate({ Records: [sqsRecord(terminalMessage(vehicleId, 110, 50))] }, lambdaContext('evaluate'));
    const ruleChangeItemsRead = capacity.itemsRead();
    const ruleChangeTables = capacity.byTable();
    say(
      `one rule edit projected onto ${projectedVehicles} vehicles; the next message read ${ruleChangeItemsRead} items ${JSON.stringify(ruleChangeTables)}`,
    );

    // ten vehicles fall silent: last seen 40 minutes before the sweep, their deadline passed
    const sweepAt = T0 + 10 * 60_000;
    const { VEHICLE_STATE_TABLE } = resourcesConfig();
    for (let n = 0; n < 10; n++) {
      const silent = 50_000 + n * 997;
      const seen = sweepAt - 40 * 60_000;
      await documentClient().send(
        new UpdateCommand({
          TableName: VEHICLE_STATE_TABLE,
          Key: { vehicleId: silent },
          UpdateExpression: 'SET lastSeenAt = :seen, lastDeviceTime = :device, silentAt = :deadline ADD version :one',
          ExpressionAttributeValues: { ':seen': seen, ':device': new Date(seen).toISOString(), ':deadline': seen + 33 * 60_000, ':one': 1 },
        }),
      );
    }
    const sweep = createSweepHandler({ clock: () => sweepAt, outboxAgeMs: 3_600_000 });
    capacity.reset();
    const report = await sweep({}, lambdaContext('sweep'));
    const sweepUnitsPerMinute = capacity.total();
    say(`one sweep with 10 vehicles falling silent: ${sweepUnitsPerMinute} units, ${report.alertsRaised} alerts`);
    capacity.detach();

    say(`measuring one evaluate container's memory over 10,000 messages (${elapsed()}) …`);
    const memory = await new Promise<{ rssMb: number; startRssMb: number; heapMb: number; failed: number }>((resolve, reject) => {
      const child = fork(new URL('./scale-evaluate-worker.ts', import.meta.url), {
        execArgv: ['--import', 'tsx', '--expose-gc'],
        env: { ...process.env, SCALE_VEHICLES: '100000', SCALE_MESSAGES: '10000', SCALE_NOW: String(T0 + 20 * 60_000) },
        stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      });
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`worker exited with ${code}`))));
    });

    const figures = {
      unitsPerMessageGrowth: Math.round((unitsAt100k.steady / unitsAt10k.steady) * 1000) / 1000,
      ruleChangeItemsRead,
      sweepUnitsPerMinute: Math.round(sweepUnitsPerMinute * 10) / 10,
      rssMbPerContainer: Math.round(memory.rssMb),
      scopedRuleChangeWrites: scoped.writes,
      scopedRuleChangeUnits: Math.round(scoped.units),
      vehicleRegistrationUnits: Math.round(scoped.registrationUnits * 10) / 10,
      ...createCosts,
    };
    if (json) {
      console.log(JSON.stringify(figures, null, 2));
      return;
    }
    console.log(
      [
        '',
        `units per message, steady: ${unitsAt10k.steady.toFixed(3)} at 10,000 vehicles, ${unitsAt100k.steady.toFixed(3)} at 100,000: growth ${figures.unitsPerMessageGrowth} (target ≤ 1.1)`,
        `(first pass from a cold container: ${unitsAt10k.cold.toFixed(3)} and ${unitsAt100k.cold.toFixed(3)})`,
        `one rule edit: projected onto ${projectedVehicles} vehicles; the next message of one of them read ${ruleChangeItemsRead} items ` +
          `${JSON.stringify(ruleChangeTables)} (target ≤ 10, of 20,000 rules)`,
        `one sweep at 100,000 vehicles, 10 falling silent: ${figures.sweepUnitsPerMinute} units, ${report.alertsRaised} connection-loss alerts (target ≤ 200)`,
        `evaluate container after 10,000 messages over random vehicles: ${figures.rssMbPerContainer} MB resident ` +
          `(${memory.startRssMb.toFixed(0)} MB before the first message, under tsx), ${memory.heapMb.toFixed(0)} MB heap, ${memory.failed} failed records`,
        `a subtree rule over a client of 10,000 vehicles: one edit wrote ${figures.scopedRuleChangeWrites} items (${figures.scopedRuleChangeUnits} units), ` +
          `one per vehicle of its scope and the rule; registering one vehicle to a branch: ${figures.vehicleRegistrationUnits} units`,
        `write units, before → with the limit in the create's transaction (DynamoDB Local's count; billed): ${JSON.stringify(createCosts)}`,
        `(${elapsed()} in all)`,
      ].join('\n'),
    );
  } finally {
    await emulators.stop();
  }
}

/**
 * A holding with 10 branches of 1,000 vehicles each (items as the directory leaves them), a `subtree` speeding
 * rule of the holding projected onto all of them, then: one edit of the rule, projected as the stream would; and
 * one more vehicle registered to a branch, which must come out covered by the rule.
 */
async function measureScopedRule(
  capacity: CapacityCounter,
  lastSeenAt: number,
): Promise<{ writes: number; units: number; registrationUnits: number }> {
  const { resourcesConfig } = await import('../../shared/config');
  const { createAgent } = await import('../../shared/store/directory-store');
  const { registerVehicle } = await import('../../shared/store/vehicle-registry');
  const { createRule, newRuleRecord, replaceRule, ruleItem } = await import('../../shared/store/rules-store');
  const { projectRuleChange } = await import('../../shared/pipeline/projection');
  const { loadVehicleState, silenceShardOf } = await import('../../shared/store/vehicle-state-store');
  const { notificationBodySchema } = await import('../../shared/schemas/notification');
  const { writeItems } = await import('./scale-platform');
  const holding = await createAgent({ name: 'Holding' });
  const branches: { agentId: string }[] = [];
  for (let n = 0; n < 10; n++) branches.push(await createAgent({ name: `Branch ${n}`, parentId: holding.agentId }));
  const first = 200_001;
  function* items() {
    for (let n = 0; n < 10_000; n++) {
      const branch = branches[n % 10]!.agentId;
      yield {
        vehicleId: first + n,
        version: 1,
        lastDeviceTime: new Date(lastSeenAt).toISOString(),
        lastSeenAt,
        lastPosition: null,
        rules: {},
        owners: [branch, holding.agentId],
        owner: branch,
        silenceShard: silenceShardOf(first + n),
        silentAt: lastSeenAt + 33 * 60_000,
      };
    }
  }
  await writeItems(resourcesConfig().VEHICLE_STATE_TABLE, items());
  const body = notificationBodySchema.parse({
    type: 2,
    parentId: holding.agentId,
    name: 'Speeding, whole holding',
    active: true,
    settings: { scope: 'subtree', limit: '90' },
  });
  const rule = await createRule(newRuleRecord(body, 'Holding', Date.now()));
  const projected = await projectRuleChange(undefined, ruleItem(rule));
  if (projected !== 10_000) throw new Error(`the subtree rule was projected onto ${projected} vehicles, not 10,000`);

  capacity.reset();
  const edited = await replaceRule({ ...rule, settings: { ...rule.settings, limit: '80' }, version: rule.version + 1 }, rule.version);
  await projectRuleChange(ruleItem(rule), ruleItem(edited));
  const writes = capacity.itemsWritten();
  const units = capacity.total();

  capacity.reset();
  await registerVehicle({ vehicleId: first + 10_000, name: 'new truck', parentId: branches[3]!.agentId });
  const registrationUnits = capacity.total();
  const registered = await loadVehicleState(first + 10_000);
  if (registered.projection.ruleRefs[String(rule.id)] !== edited.version)
    throw new Error('the registered vehicle is not covered by the subtree rule');
  return { writes, units, registrationUnits };
}

await main();
