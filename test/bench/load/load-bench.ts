import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { startLocalRuntime } from '../../../infra/local/runtime';
import { demoFleet } from '../../../infra/local/simulator';
import type { SqsHandler } from '../../../infra/local/sqs-poller';
import { notificationBodySchema, RULE_TYPES } from '../../../shared/schemas/notification';
import { createRule } from '../../../shared/store/rules-store';
import { confirmSideEmails } from '../../support/owned-fleet';
import { loadVehicleStates } from '../../../shared/store/vehicle-state-store';
import { driveLoad } from './load-generator';
import { cpuSeconds, percentile, pressLatencies, queueBacklog, residentBytes } from './stage-metrics';

/**
 * `npm run bench:load`: the local stack (`startLocalRuntime`: DynamoDB Local, fauxqs, aws-ses-v2-local, the
 * real handlers behind the local pollers) driven at 50, 100 and 200 messages a second over 2,000 vehicles,
 * 2 minutes each. Per stage: sustained throughput (messages the evaluate function finished per second),
 * p50/p95/p99 latency from a panic press's enqueue to SES accepting its e-mail, peak RSS, and the input
 * queue's backlog when the stage ends. The last line is JSON with `p99MsAt200`, `sustainedAt200` and
 * `backlogAt200`.
 *
 * `-- --seconds 20` shortens each stage; `-- --rates 50,200` picks the stages; `-- --vehicles 500` the fleet.
 */
interface Options {
  seconds: number;
  rates: number[];
  vehicles: number;
}

function parseOptions(argv: readonly string[]): Options {
  const value = (name: string) => {
    const index = argv.indexOf(`--${name}`);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const seconds = Number(value('seconds') ?? 120);
  const rates = (value('rates') ?? '50,100,200').split(',').map(Number);
  const vehicles = Number(value('vehicles') ?? 2_000);
  if (!(seconds > 0) || rates.some((rate) => !(rate > 0)) || !(vehicles > 0)) {
    throw new Error('usage: npm run bench:load -- [--seconds 120] [--rates 50,100,200] [--vehicles 2000]');
  }
  return { seconds, rates, vehicles };
}

const BENCH_EMAIL = 'bench@fleetwatch.local';
/** One message in this many presses a panic button: 1 alert a second at 50 msg/s, 4 at 200. */
const PANIC_EVERY = 50;
/** After a stage, how long the pipeline may take to finish what was sent, before the next stage starts. */
const SETTLE_MS = 60_000;

interface StageFigures {
  rate: number;
  seconds: number;
  sent: number;
  senderLagMs: number;
  sustained: number;
  backlog: number;
  alerts: number;
  undelivered: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  /** p99 of enqueue to the end of the message's evaluation (the input side of the latency). */
  evaluatedP99Ms: number;
  /** Event loop delay of the runtime's process: high when it is busy on the CPU, low when it waits. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  peakRssMb: number;
  peakChildRssMb: number;
  cpuNode: number;
  cpuChildren: number;
}

async function untilProjected(vehicleIds: readonly number[], ruleId: number, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const items = await loadVehicleStates(vehicleIds, { consistent: true });
    const missing = vehicleIds.filter((vehicleId) => items.get(vehicleId)?.projection.ruleRefs[String(ruleId)] === undefined).length;
    if (missing === 0) return;
    if (Date.now() > deadline) throw new Error(`rule ${ruleId} not projected onto ${missing} vehicles after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const fleet = demoFleet(options.vehicles);
  const finished: number[] = [];
  /** Per evaluated message: [finished at, ms from its enqueue (SentTimestamp) to the end of its evaluation]. */
  const evaluated: [number, number][] = [];
  let evaluate: SqsHandler | undefined;
  // the real evaluate handler, imported once the runtime has set the environment, counting what it finished
  const countingEvaluate: SqsHandler = async (event: SQSEvent, context) => {
    evaluate ??= (await import('../../../functions/evaluate/handler')).handler;
    const response = (await evaluate(event, context)) as SQSBatchResponse | undefined;
    const failed = response?.batchItemFailures.length ?? 0;
    const now = Date.now();
    for (let index = 0; index < event.Records.length - failed; index++) finished.push(now);
    for (const record of event.Records) evaluated.push([now, now - Number(record.attributes.SentTimestamp)]);
    return response;
  };

  const runtime = await startLocalRuntime({
    prefix: `bench-load-${process.pid}`,
    fleet,
    simulator: false,
    handlers: { evaluate: countingEvaluate },
    log: () => undefined,
  });
  const figures: StageFigures[] = [];
  try {
    const stamp = new Date().toISOString();
    const panicRule = await createRule({
      ...notificationBodySchema.parse({
        type: RULE_TYPES.panic,
        parentId: runtime.demo.agentId,
        name: 'Load bench panic',
        active: true,
        vehicleIds: fleet.map((vehicle) => vehicle.vehicleId),
        enableSideEmails: true,
        sideEmails: [BENCH_EMAIL],
        timezone: 'UTC',
        validity: 90,
      }),
      parentName: '',
      version: 1,
      createdAt: stamp,
      updatedAt: stamp,
      validFrom: stamp,
      expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    });
    // side addresses get alerts only once confirmed: as if the bench inbox had followed its confirmation link
    await confirmSideEmails(runtime.demo.agentId, [BENCH_EMAIL]);
    // the rule applies once the projector has put it on the vehicles' items: the load starts after that
    await untilProjected(
      fleet.map((vehicle) => vehicle.vehicleId),
      panicRule.id,
    );
    const startTime = Math.floor(Date.now() / 1000) * 1000 - 60_000;
    let firstMessage = 0;

    for (const rate of options.rates) {
      const durationMs = options.seconds * 1000;
      let peak = residentBytes();
      const sampler = setInterval(() => {
        const now = residentBytes();
        peak = { node: Math.max(peak.node, now.node), children: Math.max(peak.children, now.children) };
      }, 500);
      const cpuBefore = cpuSeconds();
      const loopDelay = monitorEventLoopDelay({ resolution: 10 });
      loopDelay.enable();
      const begin = Date.now();
      const load = await driveLoad({
        queueUrl: runtime.emulators.queues.input,
        fleet,
        ratePerSecond: rate,
        durationMs,
        panicEvery: PANIC_EVERY,
        startTime,
        firstMessage,
      });
      firstMessage += load.sent;
      const end = Date.now();
      const backlog = await queueBacklog(runtime.emulators.queues.input);
      const cpuAfter = cpuSeconds();
      loopDelay.disable();
      const evaluateWait = evaluated
        .filter(([at]) => at >= begin && at < end)
        .map(([, ms]) => ms)
        .sort((a, b) => a - b);
      const sustained = finished.filter((at) => at >= begin && at < end).length / ((end - begin) / 1000);
      // what was sent is given time to come out the other end before latencies are read
      const settleUntil = Date.now() + SETTLE_MS;
      while (
        Date.now() < settleUntil &&
        (await queueBacklog(runtime.emulators.queues.input)) + (await queueBacklog(runtime.emulators.queues.deliveries)) > 0
      ) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
      clearInterval(sampler);
      const { latencies, undeliveredSince } = await pressLatencies(load.presses, panicRule.id, BENCH_EMAIL);
      const undelivered = undeliveredSince.length;
      // a press still undelivered counts with the time it has waited so far, so it can only raise the percentiles
      const waited = Date.now();
      const all = [...latencies, ...undeliveredSince.map((at) => waited - at)].sort((a, b) => a - b);
      const stage: StageFigures = {
        rate,
        seconds: options.seconds,
        sent: load.sent,
        senderLagMs: load.lagMs,
        sustained: Math.round(sustained * 10) / 10,
        backlog,
        alerts: load.presses.size,
        undelivered,
        p50Ms: Math.round(percentile(all, 0.5)),
        p95Ms: Math.round(percentile(all, 0.95)),
        p99Ms: Math.round(percentile(all, 0.99)),
        evaluatedP99Ms: Math.round(percentile(evaluateWait, 0.99)),
        loopDelayP99Ms: Math.round(loopDelay.percentile(99) / 1e6),
        loopDelayMaxMs: Math.round(loopDelay.max / 1e6),
        peakRssMb: Math.round(peak.node / 2 ** 20),
        peakChildRssMb: Math.round(peak.children / 2 ** 20),
        cpuNode: Math.round((cpuAfter.node - cpuBefore.node) * 10) / 10,
        cpuChildren: Math.round((cpuAfter.children - cpuBefore.children) * 10) / 10,
      };
      figures.push(stage);
      console.log(
        `${rate} msg/s for ${options.seconds} s: sent ${stage.sent}, sustained ${stage.sustained} msg/s, backlog ${stage.backlog}, ` +
          `latency p50 ${stage.p50Ms} ms p95 ${stage.p95Ms} ms p99 ${stage.p99Ms} ms over ${stage.alerts} alerts (${stage.undelivered} undelivered), ` +
          `enqueue to evaluated p99 ${stage.evaluatedP99Ms} ms, event loop delay p99 ${stage.loopDelayP99Ms} ms max ${stage.loopDelayMaxMs} ms, ` +
          `peak RSS ${stage.peakRssMb} MB (+ ${stage.peakChildRssMb} MB DynamoDB Local), CPU ${stage.cpuNode} s node + ${stage.cpuChildren} s DynamoDB Local`,
      );
    }
  } finally {
    await runtime.stop();
  }
  console.table(figures);
  const at200 = figures.find((stage) => stage.rate === 200);
  console.log(
    JSON.stringify({
      p99MsAt200: at200?.p99Ms ?? null,
      sustainedAt200: at200?.sustained ?? null,
      backlogAt200: at200?.backlog ?? null,
      stages: figures,
    }),
  );
  // latencies of alerts that never arrive only measure the bench's patience: say so, and fail the run
  if (figures.some((stage) => stage.alerts > 0 && stage.undelivered === stage.alerts)) {
    console.error('no alert of a stage reached the SES emulator: the delivery path is broken, the latencies above mean nothing');
    process.exitCode = 1;
  }
}

await main();
