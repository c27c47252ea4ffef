import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP proxy in front of an emulator that cannot be told to fail (aws-ses-v2-local never
 * throttles): while `fault()` names an error, requests are answered with it as the AWS service would
 * (REST-JSON error: status, `x-amzn-errortype`, message) and never reach the emulator; otherwise they pass
 * through unchanged.
 */
export interface InjectedFault {
  status: number;
  errorType: string;
  message: string;
}

export const THROTTLED: InjectedFault = { status: 429, errorType: 'TooManyRequestsException', message: 'Maximum sending rate exceeded.' };
export const INTERNAL_ERROR: InjectedFault = {
  status: 500,
  errorType: 'InternalFailure',
  message: 'The request processing has failed because of an unknown error.',
};

export interface FaultProxy {
  endpoint: string;
  /** Requests answered with an injected fault, and requests passed through. */
  counts: { faulted: number; passed: number };
  stop(): Promise<void>;
}

export async function startFaultProxy(target: string, fault: () => InjectedFault | undefined): Promise<FaultProxy> {
  const { hostname, port } = new URL(target);
  const counts = { faulted: 0, passed: 0 };
  const server: Server = createServer((incoming, outgoing) => {
    const injected = fault();
    if (injected) {
      counts.faulted++;
      incoming.resume();
      incoming.on('end', () => {
        outgoing.writeHead(injected.status, { 'content-type': 'application/json', 'x-amzn-errortype': injected.errorType });
        outgoing.end(JSON.stringify({ message: injected.message }));
      });
      return;
    }
    counts.passed++;
    const upstream = forward({ hostname, port, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    upstream.on('error', (error) => {
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(error.message);
    });
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
