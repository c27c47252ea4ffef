/**
 * One AWS SDK client of each kind per process, created on first use so that the endpoint environment
 * (AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SQS, ...) set by the local runtime or a test is honoured.
 * Each service has a module of its own, so that a function loads only the SDK clients it uses.
 */
const resets = new Set<() => void>();

export function cachedClient<Client>(create: () => Client): () => Client {
  let client: Client | undefined;
  resets.add(() => {
    client = undefined;
  });
  return () => (client ??= create());
}

/** Forget cached clients, so the next call reads the environment again (used when emulators restart). */
export function resetClients(): void {
  for (const reset of resets) reset();
}
