import { subtreeAgentIds } from '../store/directory-store';
import { notFound } from './errors';

/**
 * The clients a user may see and change: its own client and every client below it. A record of any other
 * client is answered as if it did not exist (404), so that ids of other tenants reveal nothing.
 */
export class TenantScope {
  private ids: Promise<Set<string>> | undefined;

  constructor(readonly rootId: string) {}

  agentIds(): Promise<Set<string>> {
    this.ids ??= subtreeAgentIds(this.rootId).then((ids) => new Set(ids));
    return this.ids;
  }

  async includes(agentId: string): Promise<boolean> {
    return (await this.agentIds()).has(agentId);
  }

  /** Throws 404 (`what` not found) unless the client is in scope. */
  async require(agentId: string, what: string): Promise<void> {
    if (!(await this.includes(agentId))) throw notFound(what);
  }

  /** The client and the clients below it; 404 when the client is outside the scope. */
  async subtree(agentId: string, what = `client ${agentId}`): Promise<string[]> {
    await this.require(agentId, what);
    return agentId === this.rootId ? [...(await this.agentIds())] : subtreeAgentIds(agentId);
  }
}
