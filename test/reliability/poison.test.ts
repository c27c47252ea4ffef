import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { sqsClient } from '../../shared/aws/clients';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { lambdaContext, toSqsRecord } from '../../infra/local/sqs-poller';
import type { Emulators } from '../../infra/local/emulators';
import { MESSAGE_LIMITS, parseTerminalMessage, type TerminalMessageInput } from '../../shared/schemas/terminal-message';
import { notificationBodySchema } from '../../shared/schemas/notification';
import { createRule } from '../../shared/store/rules-store';
import { startTestEmulators } from '../support/emulators';
import { captureOutput, metricSum } from '../support/replay-output';

/**
 * Poison input on the FIFO input queue: whatever a body holds, it fails only itself. It goes to the input DLQ
 * with the reason in its message attributes and is counted in MessagesRejected; the batch it came in never
 * fails and its valid neighbours are evaluated.
 */
const NOW = Date.parse('2026-03-02T12:00:00.000Z');
let sequence = 0;

function record(body: string, vehicleId = 0): SQSRecord {
  const id = `poison-${++sequence}`;
  return toSqsRecord(
    { MessageId: id, ReceiptHandle: `rh-${id}`, Body: body, Attributes: { MessageGroupId: String(vehicleId), ApproximateReceiveCount: '1' } },
    'arn:aws:sqs:us-east-1:000000000000:fleetwatch-messages.fifo',
  );
}

function validMessage(vehicleId: number, secondsBeforeNow: number, extra: Partial<TerminalMessageInput> = {}): TerminalMessageInput {
  return {
    vehicleId,
    deviceTime: new Date(NOW - secondsBeforeNow * 1000).toISOString(),
    latitude: 55.75,
    longitude: 37.62,
    speed: 42,
    parameters: { ignition: 1 },
    ...extra,
  };
}

const json = (value: unknown) => JSON.stringify(value);

/** Each case: a body and what its DLQ reason must mention. */
const POISON: { name: string; body: string; reason: RegExp }[] = [
  { name: 'truncated JSON', body: '{"vehicleId": 5, "deviceTime": ', reason: /malformed JSON/ },
  { name: 'not JSON at all', body: 'lat=55.7;lon=37.6', reason: /malformed JSON/ },
  { name: 'empty body', body: '', reason: /malformed JSON/ },
  { name: 'JSON null', body: 'null', reason: /\(root\)/ },
  { name: 'JSON array', body: json([validMessage(7, 1)]), reason: /\(root\)/ },
  { name: 'missing deviceTime', body: json({ ...validMessage(7, 1), deviceTime: undefined }), reason: /deviceTime/ },
  {
    name: 'missing vehicleId and coordinates',
    body: json({ deviceTime: new Date(NOW).toISOString(), speed: 1 }),
    reason: /vehicleId.*latitude.*longitude/s,
  },
  { name: 'vehicleId as text', body: json(validMessage(7, 1, { vehicleId: 'seven' as unknown as number })), reason: /vehicleId/ },
  { name: 'fractional vehicleId', body: json(validMessage(7.5, 1)), reason: /vehicleId/ },
  { name: 'speed as text', body: json(validMessage(7, 1, { speed: 'fast' as unknown as number })), reason: /speed/ },
  { name: 'deviceTime not a date', body: json(validMessage(7, 1, { deviceTime: 'yesterday' })), reason: /deviceTime/ },
  {
    name: 'NaN literal',
    body: '{"vehicleId": 7, "deviceTime": "2026-03-02T11:59:00Z", "latitude": NaN, "longitude": 37.6, "speed": 1}',
    reason: /malformed JSON/,
  },
  { name: 'NaN as text', body: json(validMessage(7, 1, { latitude: 'NaN' as unknown as number })), reason: /latitude/ },
  {
    name: 'infinite longitude (1e999)',
    body: '{"vehicleId": 7, "deviceTime": "2026-03-02T11:59:00Z", "latitude": 55.7, "longitude": 1e999, "speed": 1}',
    reason: /longitude/,
  },
  { name: 'latitude out of range', body: json(validMessage(7, 1, { latitude: 90.0001 })), reason: /latitude/ },
  { name: 'longitude out of range', body: json(validMessage(7, 1, { longitude: -180.5 })), reason: /longitude/ },
  { name: 'negative speed', body: json(validMessage(7, 1, { speed: -3 })), reason: /speed/ },
  {
    name: 'device time beyond the future tolerance',
    body: json(validMessage(7, -(MESSAGE_LIMITS.futureToleranceMs / 1000 + 60))),
    reason: /deviceTime.*future/,
  },
  {
    name: 'too many parameters',
    body: json(
      validMessage(7, 1, { parameters: Object.fromEntries(Array.from({ length: MESSAGE_LIMITS.maxParameters + 1 }, (_, i) => [`p${i}`, i])) }),
    ),
    reason: /parameters/,
  },
  {
    name: 'parameter value too long',
    body: json(validMessage(7, 1, { parameters: { can: 'x'.repeat(MESSAGE_LIMITS.maxParameterValueLength + 1) } })),
    reason: /parameters\.can/,
  },
  {
    name: 'parameter name too long',
    body: json(validMessage(7, 1, { parameters: { ['k'.repeat(MESSAGE_LIMITS.maxParameterKeyLength + 1)]: 1 } })),
    reason: /parameters/,
  },
  {
    name: 'parameter value an object',
    body: json(validMessage(7, 1, { parameters: { nested: { a: 1 } as unknown as string } })),
    reason: /parameters\.nested/,
  },
  {
    name: 'huge body (150 KB of parameters)',
    body: json(validMessage(7, 1, { parameters: Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`blob${i}`, 'z'.repeat(1_000)])) })),
    reason: /parameters/,
  },
  { name: 'huge body (200 KB of garbage)', body: '{'.repeat(200_000), reason: /malformed JSON/ },
  { name: 'deeply nested JSON', body: `${'['.repeat(50_000)}${']'.repeat(50_000)}`, reason: /./ },
];

interface DeadLetter {
  body: string;
  reason: string;
  sourceMessageId: string;
}

/** Everything on the input DLQ, received and deleted. */
async function drainDeadLetters(queueUrl: string): Promise<DeadLetter[]> {
  const letters: DeadLetter[] = [];
  for (;;) {
    const { Messages = [] } = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 600, MessageAttributeNames: ['All'] }),
    );
    if (Messages.length === 0) return letters;
    letters.push(...Messages.map(toDeadLetter));
    await sqsClient().send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! })),
      }),
    );
  }
}

function toDeadLetter(message: Message): DeadLetter {
  return {
    body: message.Body ?? '',
    reason: message.MessageAttributes?.reason?.StringValue ?? '',
    sourceMessageId: message.MessageAttributes?.sourceMessageId?.StringValue ?? '',
  };
}

describe('poison input on the input queue', () => {
  let emulators: Emulators;
  const evaluate = createEvaluateHandler({ clock: () => NOW });
  const invoke = async (records: SQSRecord[]) =>
    (await evaluate({ Records: records } satisfies SQSEvent, lambdaContext('evaluate'))) ?? { batchItemFailures: [] };

  beforeAll(async () => {
    emulators = await startTestEmulators('poison');
  });
  afterAll(async () => emulators.stop());
  beforeEach(async () => {
    await drainDeadLetters(emulators.queues.inputDlq);
  });

  it.each(POISON)('$name: fails only itself, lands in the DLQ with its reason, and is counted', async ({ body, reason }) => {
    const before = record(json(validMessage(11, 20)), 11);
    const poison = record(body);
    const after = record(json(validMessage(11, 10)), 11);
    const output = captureOutput({ silent: true });
    let response;
    try {
      response = await invoke([before, poison, after]);
    } finally {
      output.restore();
    }
    expect(response.batchItemFailures).toEqual([]);
    expect(metricSum(output.jsonLines(), 'MessagesRejected')).toBe(1);

    const letters = await drainDeadLetters(emulators.queues.inputDlq);
    expect(letters).toHaveLength(1);
    expect(letters[0]!.sourceMessageId).toBe(poison.messageId);
    expect(letters[0]!.body).toBe(body === '' ? '(empty body)' : body);
    expect(letters[0]!.reason).toMatch(reason);
  });

  it('logs nothing, metrics included, for a batch of valid messages (the queue counts what was processed)', async () => {
    const output = captureOutput({ silent: true });
    let response;
    try {
      response = await invoke([record(json(validMessage(13, 20)), 13), record(json(validMessage(13, 10)), 13)]);
    } finally {
      output.restore();
    }
    expect(response.batchItemFailures).toEqual([]);
    expect(output.text()).toBe('');
  });

  it('accepts a device clock running ahead within the tolerance', async () => {
    const ahead = record(json(validMessage(12, -(MESSAGE_LIMITS.futureToleranceMs / 1000 - 60))), 12);
    const response = await invoke([ahead]);
    expect(response.batchItemFailures).toEqual([]);
    expect(await drainDeadLetters(emulators.queues.inputDlq)).toEqual([]);
  });

  it('keeps a schema-valid message whose coordinate DynamoDB cannot store (1e-200) from failing its batch', async () => {
    // DynamoDB numbers range down to 1e-130; the schema accepts any finite latitude in [-90, 90]
    const earlier = record(json(validMessage(31, 10)), 31);
    const tiny = record(json(validMessage(31, 5, { latitude: 1e-200 })), 31);
    const output = captureOutput({ silent: true });
    let response;
    try {
      response = await invoke([earlier, tiny]);
    } finally {
      output.restore();
    }
    expect(response.batchItemFailures).toEqual([]);
  });

  it('keeps sensor parameters DynamoDB cannot store as numbers (fuel "1e-200", "1e200") from failing their batch', async () => {
    const created = new Date(NOW - 86_400_000).toISOString();
    await createRule({
      ...notificationBodySchema.parse({
        type: 4,
        parentId: '6a1f0c2e-4b3d-4e5f-9a8b-7c6d5e4f3a2b',
        name: 'Fuel drain',
        active: true,
        vehicleIds: [41],
        settings: { parameter: 'fuel', window: '1' },
      }),
      parentName: '',
      version: 1,
      createdAt: created,
      updatedAt: created,
      validFrom: created,
      expiresAt: new Date(NOW + 86_400_000).toISOString(),
    });
    // a fresh function instance, so that it loads the rule just stored
    const withRule = createEvaluateHandler({ clock: () => NOW });
    const readings = ['250.5', '1e-200', '250.4', '1e200', '250.3'].map((fuel, index) =>
      record(json(validMessage(41, 50 - index * 10, { speed: 0, parameters: { fuel } })), 41),
    );
    const output = captureOutput({ silent: true });
    let response;
    try {
      response = (await withRule({ Records: readings }, lambdaContext('evaluate'))) ?? { batchItemFailures: [] };
    } finally {
      output.restore();
    }
    expect(response.batchItemFailures).toEqual([]);
  });

  it('moves several huge rejected bodies of one batch to the DLQ without failing it', async () => {
    // together over the 1 MiB a SendMessageBatch may carry, which the emulator enforces as SQS does
    const huge = (vehicleId: number) =>
      record(
        json(validMessage(vehicleId, 1, { parameters: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`blob${i}`, 'z'.repeat(4_000)])) })),
        vehicleId,
      );
    const records = [huge(21), huge(22), huge(23)];
    const output = captureOutput({ silent: true });
    let response;
    try {
      response = await invoke(records);
    } finally {
      output.restore();
    }
    expect(response.batchItemFailures).toEqual([]);
    expect(metricSum(output.jsonLines(), 'MessagesRejected')).toBe(3);
    const letters = await drainDeadLetters(emulators.queues.inputDlq);
    expect(letters.map((letter) => letter.sourceMessageId).sort()).toEqual(records.map((r) => r.messageId).sort());
    for (const letter of letters) expect(letter.reason).toMatch(/parameters/);
  });

  it('moves a rejected body as large as SQS allows to the DLQ, with a reason, body intact', async () => {
    const body = `x${'y'.repeat(1_048_576 - 200)}`;
    const poison = record(body);
    const output = captureOutput({ silent: true });
    let response;
    try {
      response = await invoke([poison]);
    } finally {
      output.restore();
    }
    expect(response.batchItemFailures).toEqual([]);
    const letters = await drainDeadLetters(emulators.queues.inputDlq);
    expect(letters).toHaveLength(1);
    expect(letters[0]!.body).toBe(body);
    expect(letters[0]!.sourceMessageId).toBe(poison.messageId);
    expect(letters[0]!.reason.length).toBeGreaterThan(0);
  });
});

describe('fuzzed batches on the input queue', () => {
  let emulators: Emulators;
  const evaluate = createEvaluateHandler({ clock: () => NOW });

  beforeAll(async () => {
    emulators = await startTestEmulators('poison-fuzz');
  });
  afterAll(async () => emulators.stop());

  // any double, denormals included: the schema must turn them into numbers DynamoDB can store
  const validArbitrary = fc
    .record({
      vehicleId: fc.integer({ min: 1, max: 50 }),
      secondsBeforeNow: fc.integer({ min: 0, max: 86_400 }),
      latitude: fc.double({ min: -90, max: 90, noNaN: true }),
      longitude: fc.double({ min: -180, max: 180, noNaN: true }),
      speed: fc.double({ min: 0, max: 300, noNaN: true }),
      parameters: fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean()), {
        maxKeys: 5,
      }),
    })
    .map(({ secondsBeforeNow, ...fields }) => ({ ...fields, deviceTime: new Date(NOW - secondsBeforeNow * 1000).toISOString() }));

  /** A valid message with one field removed or replaced by arbitrary JSON. */
  const mutatedArbitrary = fc
    .tuple(
      validArbitrary,
      fc.constantFrom('vehicleId', 'deviceTime', 'latitude', 'longitude', 'speed', 'parameters', 'course'),
      fc.option(fc.jsonValue(), { nil: undefined }),
    )
    .map(([message, field, value]) => JSON.stringify({ ...message, [field]: value }));

  type Body = { body: string; kind: 'valid' | 'string' | 'json' | 'mutated' };
  const bodyArbitrary: fc.Arbitrary<Body> = fc.oneof(
    validArbitrary.map((message) => ({ body: JSON.stringify(message), kind: 'valid' as const })),
    fc.string({ maxLength: 200 }).map((body) => ({ body, kind: 'string' as const })),
    fc.json({ maxDepth: 3 }).map((body) => ({ body, kind: 'json' as const })),
    mutatedArbitrary.map((body) => ({ body, kind: 'mutated' as const })),
  );

  it('never fails a batch, and puts exactly the invalid records on the DLQ (1,000 batches × 10 records)', async () => {
    let records = 0;
    let rejected = 0;
    const output = captureOutput({ silent: true, keep: false });
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(bodyArbitrary, { minLength: 10, maxLength: 10 }), async (bodies) => {
          const batch = bodies.map(({ body }) => record(body));
          const response = (await evaluate({ Records: batch }, lambdaContext('evaluate'))) ?? { batchItemFailures: [] };
          expect(response.batchItemFailures).toEqual([]);
          // which bodies are invalid is the schema's call; what is checked here is where each one ends up
          const invalid = batch.filter((r) => !parseTerminalMessage(r.body, NOW).ok).map((r) => r.messageId);
          for (const [index, { kind }] of bodies.entries()) {
            if (kind === 'valid') expect(invalid).not.toContain(batch[index]!.messageId);
          }
          const letters = await drainDeadLetters(emulators.queues.inputDlq);
          expect(letters.map((letter) => letter.sourceMessageId).sort()).toEqual([...invalid].sort());
          for (const letter of letters) expect(letter.reason.length).toBeGreaterThan(0);
          records += batch.length;
          rejected += invalid.length;
        }),
        { numRuns: 1_000, seed: 4_242, endOnFailure: true },
      );
    } finally {
      output.restore();
    }
    expect(records).toBe(10_000);
    expect(rejected).toBeGreaterThan(1_000);
  }, 600_000);
});
