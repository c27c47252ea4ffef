import type { Emulators } from '../../infra/local/emulators';
import type { FakeTelegram } from '../../infra/local/telegram-fake';
import { INTERNAL_ERROR, THROTTLED, type InjectedFault } from './fault-proxy';

/**
 * Faults of the chaos replay scenarios, as windows of simulated time. The replay runner moves the clock
 * forward and calls `advance`, which makes the world match it: emulators stopped and started again on their
 * port with their data folder, the Telegram fake unreachable or throttling, and SES (through the fault proxy,
 * see `sesFault`) throttling or failing, or only throttling, and the clients' webhook receiver answering 503.
 */
export const FAULT_KINDS = ['dynamodbDown', 'sqsDown', 'sesFailing', 'sesThrottled', 'telegramDown', 'telegramThrottled', 'receiverDown'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultWindow {
  kind: FaultKind;
  /** Simulated epoch ms, start inclusive, end exclusive. */
  from: number;
  to: number;
}

/** Seconds the throttled Telegram fake asks for in `retry_after` (waited out by grammy's auto-retry). */
export const TELEGRAM_RETRY_AFTER_S = 1;

export interface ChaosCounts {
  dynamodbRestarts: number;
  sqsRestarts: number;
  sesFaulted: number;
  telegramDownSpells: number;
  telegram429: number;
  /** Delivery requests in the deliveries queue when fauxqs was stopped. */
  queuedAtSqsStop: number;
  /** Webhook deliveries the receiver answered 503 while down. */
  receiver503: number;
}

export class ChaosController {
  private readonly active = new Set<FaultKind>();
  private sesRequests = 0;
  private telegramPort: number | undefined;
  readonly counts: ChaosCounts = {
    dynamodbRestarts: 0,
    sqsRestarts: 0,
    sesFaulted: 0,
    telegramDownSpells: 0,
    telegram429: 0,
    queuedAtSqsStop: 0,
    receiver503: 0,
  };

  constructor(
    readonly windows: readonly FaultWindow[],
    private readonly emulators: Emulators,
    private readonly telegram: FakeTelegram,
  ) {}

  isActive(kind: FaultKind): boolean {
    return this.active.has(kind);
  }

  /** Whether any window is open at `now`: the runner stops retrying at once what cannot succeed yet. */
  anyActive(): boolean {
    return this.active.size > 0;
  }

  /** The answer the SES fault proxy gives instead of the emulator's: throttling and 5xx, alternately. */
  sesFault(): InjectedFault | undefined {
    if (this.active.has('sesThrottled')) {
      this.counts.sesFaulted++;
      return THROTTLED;
    }
    if (!this.active.has('sesFailing')) return undefined;
    this.counts.sesFaulted++;
    return this.sesRequests++ % 2 === 0 ? THROTTLED : INTERNAL_ERROR;
  }

  /** What the webhook receiver answers instead of taking a delivery: 503 while it is down. */
  receiverFault(): 503 | undefined {
    if (!this.active.has('receiverDown')) return undefined;
    this.counts.receiver503++;
    return 503;
  }

  /** When each fault window ends (simulated epoch ms). */
  get windowEnds(): number[] {
    return this.windows.map((window) => window.to);
  }

  /** When the last fault window ends (simulated epoch ms), or 0 without any. */
  get lastFaultEnd(): number {
    return Math.max(0, ...this.windows.map((window) => window.to));
  }

  async advance(now: number): Promise<void> {
    for (const kind of FAULT_KINDS) {
      const due = this.windows.some((window) => window.kind === kind && window.from <= now && now < window.to);
      if (due && !this.active.has(kind)) await this.begin(kind);
      else if (!due && this.active.has(kind)) await this.end(kind);
    }
  }

  /** Ends every open fault (after the trace, before the final sweeps). */
  async endAll(): Promise<void> {
    for (const kind of [...this.active]) await this.end(kind);
  }

  private async begin(kind: FaultKind): Promise<void> {
    this.active.add(kind);
    switch (kind) {
      case 'dynamodbDown':
        return this.emulators.pause('dynamodb');
      case 'sqsDown': {
        const queue = this.emulators.sqs.inspectQueue(this.emulators.queues.deliveries.split('/').pop() ?? '');
        this.counts.queuedAtSqsStop += queue ? queue.messages.ready.length + queue.messages.inflight.length : 0;
        return this.emulators.pause('sqs');
      }
      case 'telegramDown':
        this.telegramPort = this.telegram.port;
        this.counts.telegramDownSpells++;
        return this.telegram.stop();
      case 'telegramThrottled':
        return this.telegram.throttle(TELEGRAM_RETRY_AFTER_S);
      case 'sesFailing':
      case 'sesThrottled':
      case 'receiverDown':
        return;
    }
  }

  private async end(kind: FaultKind): Promise<void> {
    this.active.delete(kind);
    switch (kind) {
      case 'dynamodbDown':
        this.counts.dynamodbRestarts++;
        return this.emulators.resume('dynamodb');
      case 'sqsDown':
        this.counts.sqsRestarts++;
        return this.emulators.resume('sqs');
      case 'telegramDown':
        await this.telegram.start(this.telegramPort);
        return;
      case 'telegramThrottled':
        this.counts.telegram429 = this.telegram.throttled;
        return this.telegram.throttle(undefined);
      case 'sesFailing':
      case 'sesThrottled':
      case 'receiverDown':
        return;
    }
  }
}
