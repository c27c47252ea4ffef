import { sendTerminalMessages, simulatedMessage, type SimulatedVehicle } from '../../../infra/local/simulator';
import type { TerminalMessageInput } from '../../../shared/schemas/terminal-message';

/**
 * Sends the simulated fleet's messages to the input queue at a fixed rate: the vehicles report in turn, so
 * each one every `vehicles / rate` seconds and the queue sees `rate` messages a second.
 * One message in `panicEvery` presses its vehicle's panic button (released on the vehicle's next message): a
 * panic alert is raised by that one message, which is what lets enqueue-to-e-mail latency be measured per
 * alert, at a rate proportional to the load.
 */
export interface LoadOptions {
  queueUrl: string;
  fleet: readonly SimulatedVehicle[];
  ratePerSecond: number;
  durationMs: number;
  /** One message in this many presses the panic button. */
  panicEvery: number;
  /** Messages sent by earlier stages: the vehicles keep their turns across stages. */
  firstMessage: number;
  /** Device time origin of the simulated messages (epoch ms). */
  startTime: number;
}

export interface LoadResult {
  sent: number;
  /** Enqueue time (epoch ms, before SendMessageBatch) of each panic press, by `vehicleId|deviceTime`. */
  presses: Map<string, number>;
  /** Seconds the sender needed beyond the stage (it fell behind its schedule). */
  lagMs: number;
}

const TICK_MS = 100;

export const pressKey = (vehicleId: number, deviceTime: string) => `${vehicleId}|${new Date(deviceTime).toISOString()}`;

export async function driveLoad(options: LoadOptions): Promise<LoadResult> {
  const { fleet, ratePerSecond, durationMs } = options;
  const presses = new Map<string, number>();
  const begin = Date.now();
  const total = Math.round((ratePerSecond * durationMs) / 1000);
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((Date.now() - begin) * ratePerSecond) / 1000));
    const messages: TerminalMessageInput[] = [];
    for (; sent < due; sent++) {
      const vehicle = fleet[(options.firstMessage + sent) % fleet.length]!;
      const round = Math.floor((options.firstMessage + sent) / fleet.length);
      // device time is the time of sending: a vehicle's messages are in order, `intervalMs` apart
      const message = simulatedMessage(vehicle, options.startTime, Math.floor((Date.now() - options.startTime) / 1000));
      // a different share of the fleet presses in each round, so a vehicle's press is followed by a release
      const press = (options.firstMessage + sent) % options.panicEvery === round % options.panicEvery;
      message.parameters = { ...message.parameters, panic: press ? 1 : 0 };
      messages.push(message);
    }
    if (messages.length > 0) {
      const enqueuedAt = Date.now();
      for (const message of messages) {
        if (message.parameters?.panic === 1) presses.set(pressKey(message.vehicleId, message.deviceTime), enqueuedAt);
      }
      await sendTerminalMessages(options.queueUrl, messages);
    }
    const wait = begin + (sent * 1000) / ratePerSecond + TICK_MS - Date.now();
    if (sent < total && wait > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(wait, TICK_MS)));
  }
  return { sent, presses, lagMs: Math.max(0, Date.now() - begin - durationMs) };
}
