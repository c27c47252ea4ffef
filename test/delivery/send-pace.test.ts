import { afterEach, describe, expect, it, vi } from 'vitest';
import { paced } from '../../shared/channels/email/send-pace';

describe('e-mail pacing', () => {
  afterEach(() => vi.useRealTimers());

  it('lets at most the configured number of sends start per second; the rest wait their turn', async () => {
    vi.useFakeTimers();
    const started: number[] = [];
    const send = paced(async (index: number) => {
      started.push(index);
      return index;
    }, 5);
    const all = Promise.all(Array.from({ length: 12 }, (_, index) => send(index)));
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toHaveLength(5);
    await vi.advanceTimersByTimeAsync(1000);
    expect(started).toHaveLength(10);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await all).toEqual([...Array(12).keys()]);
    expect(started).toEqual([...Array(12).keys()]);
  });

  it('sends unpaced when no rate is configured', async () => {
    const send = vi.fn(async () => 'sent');
    expect(paced(send, undefined)).toBe(send);
  });
});
