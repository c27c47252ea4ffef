import { sendTerminalMessages, simulatedMessage, type SimulatedVehicle } from '../../../infra/local/simulator';
import type { TerminalMessageInput } from '../../../shared/schemas/terminal-message';

/**
 * Sends the simulated fleet's messages to the input queue at a fixed rate: the vehicles report in turn, so
 * each one every `vehicles / rate` seconds and the queue sees `rate` messages a second.
 * Every `panicEvery`-th message of a vehicle presses its panic button (released on the next one): a panic
 * alert is raised by that one message, which is what lets enqueue-to-e-mail latency be measured per alert.
 */
export interface LoadOptions {
  queueUrl: string;
  fleet: readonly SimulatedVehicle[];
  ratePerSecond: number;
  durationMs: number;
  panicEvery: number;
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
  const sentPerVehicle = new Map<number, number>();
  const presses = new Map<string, number>();
  const begin = Date.now();
  const total = Math.round((ratePerSecond * durationMs) / 1000);
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((Date.now() - begin) * ratePerSecond) / 1000));
    const messages: TerminalMessageInput[] = [];
    for (; sent < due; sent++) {
      const vehicle = fleet[sent % fleet.length]!;
      const count = sentPerVehicle.get(vehicle.vehicleId) ?? 0;
      sentPerVehicle.set(vehicle.vehicleId, count + 1);
      // device time is the time of sending: a vehicle's messages are in order, `intervalMs` apart
      const message = simulatedMessage(vehicle, options.startTime, Math.floor((Date.now() - options.startTime) / 1000));
      const press = count % options.panicEvery === options.panicEvery - 1;
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
